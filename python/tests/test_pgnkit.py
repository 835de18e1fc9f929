"""Tests of the pgnkit Python package, on the small games of testdata/python/."""

from __future__ import annotations

import gzip
import os
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import pgnkit

REPO = Path(__file__).resolve().parents[2]
GAMES = REPO / "testdata" / "python" / "games.pgn"
DOCS = REPO / "docs" / "python.md"


def test_games_table_has_a_row_per_game():
    t = pgnkit.read_games(GAMES)
    assert isinstance(t, pa.Table)
    # Game 3 has an illegal move (2. Ke3): a row too, with its error.
    assert t.column("game").to_pylist() == [1, 2, 3, 4]
    assert t.column("plies").to_pylist() == [7, 4, 2, 6]
    assert t.column("errors").to_pylist() == [0, 0, 1, 0]
    assert t.column("WhiteElo").to_pylist() == [2105, 1990, None, None]
    assert t.schema.field("WhiteElo").type == pa.int32()
    assert t.schema.field("Date").type == pa.date32()
    assert str(t.column("Date")[0]) == "2024-03-01"
    assert t.column("Date")[3].as_py() is None
    assert t.column("movetext")[1].as_py() == "1.f3 e5 2.g4 Qh4# 0-1"
    assert t.column("termination_by_rule").to_pylist()[:2] == ["checkmate", "checkmate"]
    # Tags without a column of their own are in the map.
    assert dict(t.column("tags")[0].as_py()) == {}
    assert t.column("Opening")[0].as_py() == "Scholar's mate"


def test_the_notation_of_the_movetext_is_chosen():
    t = pgnkit.read_games(GAMES, to="uci")
    assert t.column("movetext")[1].as_py() == "1.f2f3 e7e5 2.g2g4 d8h4 0-1"


def test_moves_table_has_a_row_per_main_line_ply():
    m = pgnkit.read_moves(GAMES, fen=True)
    # Game 3 gives the two plies before its illegal move.
    assert m.num_rows == 7 + 4 + 2 + 6
    first = m.slice(0, 1).to_pylist()[0]
    assert first["uci"] == "e2e4" and first["san"] == "e4" and first["ply"] == 1
    assert first["clock"] == 300.0 and first["eval"] == 0.25
    assert first["fen"] == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    sixth = m.slice(5, 1).to_pylist()[0]
    assert sixth["san"] == "Nf6" and sixth["nags"] == [2] and sixth["comment"] == "a blunder"
    assert "fen" not in pgnkit.read_moves(GAMES).column_names


def test_the_games_table_counts_the_plies_the_moves_table_has():
    # read_games makes no per-ply columns, only their count: it must agree with read_moves.
    path = REPO / "testdata" / "parquet" / "games-only.pgn"
    games = pgnkit.read_games(path)
    moves = pgnkit.read_moves(path)
    per_game = {}
    for g in moves.column("game").to_pylist():
        per_game[g] = per_game.get(g, 0) + 1
    plies = games.column("plies").to_pylist()
    assert plies == [per_game.get(g, 0) for g in games.column("game").to_pylist()]
    assert plies == [9, 5, 2, 5]


def test_the_tables_are_the_same_whatever_the_thread_count():
    one = pgnkit.read_games([GAMES] * 40, threads=1)
    two = pgnkit.read_games([GAMES] * 40, threads=2)
    assert one.num_rows == 160
    assert one.equals(two)
    assert pgnkit.read_moves(GAMES, threads=1).equals(pgnkit.read_moves(GAMES, threads=3))
    assert pgnkit.validate([GAMES] * 40, threads=1).equals(pgnkit.validate([GAMES] * 40, threads=2))


def test_one_large_file_gives_the_same_tables_on_one_thread_and_on_several(tmp_path):
    # One file, large enough to be cut into pieces for the threads.
    big = tmp_path / "big.pgn"
    big.write_text((GAMES.read_text() + "\n") * 3000)
    one = pgnkit.read_games(big, threads=1)
    assert one.num_rows == 12000
    assert one.equals(pgnkit.read_games(big, threads=2))
    assert one.equals(pgnkit.read_games(big))
    assert pgnkit.validate(big, threads=1).equals(pgnkit.validate(big, threads=2))


def test_the_streaming_reader_gives_the_same_rows(tmp_path):
    big = tmp_path / "big.pgn"
    big.write_text(GAMES.read_text() * 800)
    reader = pgnkit.iter_games(big)
    assert isinstance(reader, pa.RecordBatchReader)
    batches = list(reader)
    # Batches of bounded size: the reader never holds the whole input.
    assert len(batches) > 1
    assert sum(b.num_rows for b in batches) == 3200
    assert pa.Table.from_batches(batches).equals(pgnkit.read_games(big))


def test_compressed_inputs_and_folders_are_read(tmp_path):
    with gzip.open(tmp_path / "a.pgn.gz", "wb") as f:
        f.write(GAMES.read_bytes())
    shutil.copy(GAMES, tmp_path / "b.pgn")
    t = pgnkit.read_games(tmp_path)
    assert t.num_rows == 8
    assert sorted(set(Path(p).name for p in t.column("file").to_pylist())) == ["a.pgn.gz", "b.pgn"]


def test_a_path_is_str_bytes_or_path_like():
    # bytes were iterated as a list of paths: "expected str, bytes or os.PathLike object, not int".
    want = pgnkit.read_games(str(GAMES))
    for path in (os.fsencode(GAMES), GAMES, [os.fsencode(GAMES)]):
        assert pgnkit.read_games(path).equals(want), repr(path)
    assert pgnkit.validate(os.fsencode(GAMES)).equals(pgnkit.validate(str(GAMES)))


def test_validate_gives_the_diagnostics_as_a_table():
    d = pgnkit.validate(GAMES)
    errors = d.filter(pc.equal(d.column("severity"), "error")).to_pylist()
    assert [e["game"] for e in errors] == [3]
    e = errors[0]
    assert e["token"] == "Ke3" and e["line"] == 34 and e["column"] == 13
    assert re.fullmatch(r"[A-Z]\d{3}", e["code"])
    assert e["move"] == 2 and e["side"] == "white"


def test_a_missing_input_raises_with_its_name(tmp_path):
    missing = tmp_path / "nowhere.pgn"
    with pytest.raises(OSError, match="nowhere.pgn"):
        pgnkit.read_games(missing)
    with pytest.raises(OSError, match="nowhere.pgn"):
        pgnkit.validate(missing)


def test_bad_options_raise_value_errors():
    with pytest.raises(ValueError, match="threads"):
        pgnkit.read_games(GAMES, threads=0)
    with pytest.raises(ValueError, match="notations"):
        pgnkit.read_games(GAMES, to="morse")
    with pytest.raises(ValueError, match="encoding"):
        pgnkit.read_games(GAMES, encoding="no-such-encoding")


def test_a_path_that_looks_like_an_option_is_a_path(tmp_path, monkeypatch):
    shutil.copy(GAMES, tmp_path / "--to")
    monkeypatch.chdir(tmp_path)
    assert pgnkit.read_games("--to").num_rows == 4


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


@pytest.mark.parametrize("index", range(len(python_blocks(DOCS.read_text()))))
def test_the_examples_of_docs_python_md_run(index, monkeypatch, capsys):
    pytest.importorskip("duckdb")
    block = python_blocks(DOCS.read_text())[index]
    for module in re.findall(r"^import (\w+)", block, flags=re.M):
        if module in ("polars", "pandas"):
            pytest.importorskip(module)
    monkeypatch.chdir(REPO)
    exec(compile(block, f"docs/python.md block {index + 1}", "exec"), {})
    # What a block prints is what its `# ` lines show.
    shown = re.findall(r"^# (.*)$", block, flags=re.M)
    assert capsys.readouterr().out.splitlines() == shown
