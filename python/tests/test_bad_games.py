"""A bad game is a row with its diagnostics, never an exception or a crash: the broken games of
testdata/python/broken.pgn (an illegal move, garbage bytes, a file cut in a move), bytes that
are not UTF-8, and a game of one 10 MB token."""

from __future__ import annotations

import gzip
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

import pgnkit

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "testdata" / "python" / "broken.pgn"
NOT_UTF8 = REPO / "testdata" / "python" / "not-utf8.pgn"


def codes(row) -> list[str]:
    return [d["code"] for d in row["diagnostics"]]


def test_every_game_of_a_broken_file_has_its_row():
    t = pgnkit.read_games(BROKEN)
    rows = t.to_pylist()
    assert [r["game"] for r in rows] == [1, 2, 3, 4]
    assert [r["White"] for r in rows] == ["Illegal", "Garbage", "Clean", "Cut"]
    assert [r["errors"] > 0 for r in rows] == [True, True, False, True]
    assert t.schema.field("diagnostics").type.value_type.field("code").type == pa.string()


def test_an_illegal_move_is_in_the_rows_diagnostics_with_its_place():
    row = pgnkit.read_games(BROKEN).to_pylist()[0]
    # 4. Bxf7 is illegal: the bishop is on b5. The six plies before it replayed.
    assert row["plies"] == 6
    assert row["final_fen"] == "r1bqkb1r/pppp1ppp/2n2n2/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4"
    [d] = [d for d in row["diagnostics"] if d["severity"] == "error"]
    assert (d["code"], d["token"], d["line"], d["column"]) == ("M001", "Bxf7", 9, 35)
    assert (d["move"], d["side"]) == (4, "white")
    assert "bishop" in d["message"]
    # Not converted: the movetext as read, so nothing of it is lost.
    assert row["movetext"] == "1. e4 e5 2. Nf3 Nc6 3. Bb5 Nf6 4. Bxf7 Kxf7 1-0"


def test_the_diagnostics_column_agrees_with_validate():
    games = pgnkit.read_games(BROKEN).to_pylist()
    table = pgnkit.validate(BROKEN)
    for g in games:
        mine = [(d["code"], d["line"], d["column"], d["token"] or "", d["message"]) for d in g["diagnostics"]]
        theirs = table.filter(pc.equal(table["game"], g["game"])).to_pylist()
        assert mine == [(d["code"], d["line"], d["column"], d["token"], d["message"]) for d in theirs]
    assert sum(len(g["diagnostics"]) for g in games) == table.num_rows > 0


def test_garbage_bytes_and_a_cut_are_errors_of_their_games():
    rows = pgnkit.read_games(BROKEN).to_pylist()
    assert "P008" in codes(rows[1])
    assert rows[1]["movetext"] == "1. d4 \x01\x02#@!zz d5 *"
    assert "M003" in codes(rows[3])
    assert rows[3]["plies"] == 4
    assert rows[2]["diagnostics"] == []


def test_the_moves_of_a_broken_game_are_those_before_its_first_error():
    m = pgnkit.read_moves(BROKEN)
    first = m.filter(pc.equal(m["game"], 1))
    assert first["san"].to_pylist() == ["e4", "e5", "Nf3", "Nc6", "Bb5", "Nf6"]


def test_bytes_that_are_not_utf8_are_a_warning_not_a_crash():
    # Read as UTF-8 (no guessing): the bytes stay, each bad one shown as U+FFFD.
    [row] = pgnkit.read_games(NOT_UTF8, encoding="utf-8").to_pylist()
    assert row["plies"] == 2
    assert "P016" in codes(row)
    # Guessed, the file reads as windows-1252 and is clean.
    [row] = pgnkit.read_games(NOT_UTF8).to_pylist()
    assert row["White"] == "Müller" and row["diagnostics"] == []


def test_a_game_of_one_10_mb_token_is_a_row(tmp_path):
    big = tmp_path / "big.pgn"
    big.write_text('[Event "big"]\n[Result "*"]\n\n1. ' + "a" * 10_000_000 + ' *\n\n'
                   '[Event "after"]\n[Result "*"]\n\n1. e4 *\n')
    rows = pgnkit.read_games(big).to_pylist()
    assert [r["Event"] for r in rows] == ["big", "after"]
    assert rows[0]["errors"] > 0 and rows[1]["errors"] == 0
    token = rows[0]["diagnostics"][-1]["token"] if rows[0]["diagnostics"] else ""
    # The token is quoted cut short, not whole.
    assert len(token) < 1000


def test_a_cut_compressed_file_keeps_the_games_before_the_cut(tmp_path):
    data = gzip.compress(BROKEN.read_bytes() * 20)
    cut = tmp_path / "cut.pgn.gz"
    cut.write_bytes(data[: len(data) // 2])
    games = pgnkit.read_games(cut)
    assert 0 < games.num_rows < 80
    # The cut itself is a problem of the input as a whole: validate's row of game 0.
    problems = pgnkit.validate(cut)
    assert 0 in problems["game"].to_pylist()
