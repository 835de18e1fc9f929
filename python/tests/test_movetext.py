"""pgnkit.parse_movetext: games as an Arrow array of movetext strings (the lichess Parquet
`movetext` column), on small games written here."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import pgnkit

REPO = Path(__file__).resolve().parents[2]
GAMES = REPO / "testdata" / "python" / "games.pgn"

MATE = "1. f3 e5 2. g4 Qh4# 0-1"
CLOCKS = "1. e4 { [%clk 0:03:00] [%eval 0.3] } 1... e5 { [%clk 0:02:58] } 2. Nf3 $1 { good } *"
ILLEGAL = "1. e4 e5 2. Ke3 Ke7 1-0"


def test_a_row_a_game_and_a_row_a_ply():
    games, moves = pgnkit.parse_movetext(pa.array([MATE, CLOCKS]))
    g = games.to_pylist()
    assert [r["index"] for r in g] == [0, 1]
    assert [r["plies"] for r in g] == [4, 3]
    assert [r["result"] for r in g] == ["0-1", "*"]
    assert g[0]["termination_by_rule"] == "checkmate" and g[0]["result_by_rule"] == "0-1"
    assert g[0]["final_fen"] == "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    assert g[0]["movetext"] == "1.f3 e5 2.g4 Qh4# 0-1"
    assert (g[0]["errors"], g[0]["diagnostics"]) == (0, [])
    assert moves.column_names == ["index", "ply", "san", "uci", "clock", "eval", "eval_mate",
                                  "comment", "nags"]
    assert moves.num_rows == 7
    second = moves.filter(pc.equal(moves["index"], 1)).to_pylist()
    assert [m["uci"] for m in second] == ["e2e4", "e7e5", "g1f3"]
    assert [m["clock"] for m in second] == [180.0, 178.0, None]
    assert second[0]["eval"] == 0.3
    assert (second[2]["nags"], second[2]["comment"]) == ([1], "good")


def test_the_same_game_gives_what_read_games_gives():
    g = pgnkit.read_games(GAMES).to_pylist()[0]
    text = GAMES.read_text().split("\n\n")[1]
    [p] = pgnkit.parse_movetext(pa.array([text])).games.to_pylist()
    for column in ("plies", "final_fen", "termination_by_rule", "movetext", "errors", "warnings"):
        assert p[column] == g[column], column


def test_the_notation_and_the_positions_are_chosen():
    games, moves = pgnkit.parse_movetext(pa.array([MATE]), to="uci", positions=True)
    assert games["movetext"][0].as_py() == "1.f2f3 e7e5 2.g2g4 d8h4 0-1"
    assert moves["fen"][0].as_py() == "rnbqkbnr/pppppppp/8/8/8/5P2/PPPPP1PP/RNBQKBNR b KQkq - 0 1"


def test_a_start_position_for_all_games_or_one_a_game():
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    games, moves = pgnkit.parse_movetext(pa.array(["1. e4 Kd7 *", "1. Kd2 *"]), fen)
    assert games["plies"].to_pylist() == [2, 1]
    assert games["errors"].to_pylist() == [0, 0]
    assert moves["uci"].to_pylist() == ["e2e4", "e8d7", "e1d2"]
    # One a game; a null is the standard start.
    games, _ = pgnkit.parse_movetext(pa.array(["1. e4 Kd7 *", "1. e4 e5 *"]), pa.array([fen, None]))
    assert games["errors"].to_pylist() == [0, 0]
    assert games["final_fen"][1].as_py().startswith("rnbqkbnr/pppp1ppp/")
    with pytest.raises(ValueError, match="one a game"):
        pgnkit.parse_movetext(pa.array(["*", "*"]), pa.array([fen]))


def test_a_bad_start_position_is_the_games_error_without_a_place():
    [g] = pgnkit.parse_movetext(pa.array(["1. e4 *"]), "not a fen").games.to_pylist()
    assert g["errors"] > 0
    [d] = [d for d in g["diagnostics"] if d["severity"] == "error"]
    assert d["line"] is None and d["column"] is None


def test_bad_games_are_rows_with_their_diagnostics():
    values = [ILLEGAL, "1. e4 \x01\x02 garbage", None, "", "1. e4 e5 2. Nf", "1. " + "x" * 10_000_000]
    games, moves = pgnkit.parse_movetext(pa.array(values))
    g = games.to_pylist()
    assert len(g) == len(values)
    assert [r["errors"] > 0 for r in g] == [True, True, False, False, True, True]
    [d] = [d for d in g[0]["diagnostics"] if d["severity"] == "error"]
    # Line and column in the string itself.
    assert (d["code"], d["token"], d["line"], d["column"], d["move"]) == ("M001", "Ke3", 1, 13, 2)
    assert g[0]["movetext"] == ILLEGAL and g[0]["plies"] == 2
    assert g[2]["plies"] == 0
    assert moves.filter(pc.equal(moves["index"], 0))["san"].to_pylist() == ["e4", "e5"]


def test_the_line_of_a_diagnostic_is_the_strings_even_after_a_start_position():
    fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
    [g] = pgnkit.parse_movetext(pa.array(["1. e4 Kd7\n2. Qh5 *"]), fen).games.to_pylist()
    [d] = [d for d in g["diagnostics"] if d["severity"] == "error"]
    assert (d["token"], d["line"], d["column"]) == ("Qh5", 2, 4)


def test_bytes_that_are_not_utf8_are_read_as_binary():
    games, _ = pgnkit.parse_movetext(pa.array([b"1. e4 {caf\xe9} e5 *"], pa.binary()))
    assert games["plies"][0].as_py() == 2


def test_every_string_type_and_chunking_gives_the_same_tables():
    values = [MATE, CLOCKS, ILLEGAL] * 5
    one = pgnkit.parse_movetext(pa.array(values))
    for typ in (pa.large_string(), pa.string_view()):
        other = pgnkit.parse_movetext(pa.array(values, typ))
        assert other.games.equals(one.games) and other.moves.equals(one.moves)
    chunked = pgnkit.parse_movetext(pa.chunked_array([values[:4], values[4:]]))
    assert chunked.games.equals(one.games) and chunked.moves.equals(one.moves)


def test_the_tables_are_the_same_whatever_the_thread_count():
    # More games than one thread takes at a time, so that several threads share them.
    values = pa.array([MATE, CLOCKS, ILLEGAL, None] * 1500)
    one = pgnkit.parse_movetext(values, threads=1)
    two = pgnkit.parse_movetext(values, threads=2)
    four = pgnkit.parse_movetext(values, threads=4)
    assert one.games.num_rows == 6000
    assert one.games["index"].to_pylist() == list(range(6000))
    assert one.games.equals(two.games) and one.games.equals(four.games)
    assert one.moves.equals(two.moves) and one.moves.equals(four.moves)


def test_several_threads_share_a_short_array_in_blocks_of_a_quarter_of_their_share():
    # 6,000 games on two threads: eight blocks of 750, not six of 1,024 whose last two would
    # leave one thread alone; one thread takes blocks of 1,024.
    values = pa.array([MATE, CLOCKS, ILLEGAL, None] * 1500)
    assert pgnkit.parse_movetext(values, threads=2).games["index"].num_chunks == 8
    assert pgnkit.parse_movetext(values, threads=1).games["index"].num_chunks == 6


def test_the_lichess_case_a_parquet_movetext_column(tmp_path):
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"Event": ["a", "b"], "movetext": [MATE, ILLEGAL]}), tmp_path / "g.parquet")
    column = pq.read_table(tmp_path / "g.parquet", columns=["movetext"])["movetext"]
    assert isinstance(column, pa.ChunkedArray)
    games, _ = pgnkit.parse_movetext(column)
    assert games["errors"].to_pylist()[0] == 0 and games["errors"].to_pylist()[1] > 0


def test_what_is_not_an_array_of_strings_is_a_type_error():
    with pytest.raises(TypeError, match="strings"):
        pgnkit.parse_movetext(pa.array([1, 2]))
    with pytest.raises(TypeError, match="pyarrow.array"):
        pgnkit.parse_movetext([MATE])
    with pytest.raises(ValueError, match="notations"):
        pgnkit.parse_movetext(pa.array([MATE]), to="morse")
    for threads in (0, -1, 1025, 100_000, 2**32):
        with pytest.raises(ValueError, match=f"threads={threads}: .* from 1 to 1024"):
            pgnkit.parse_movetext(pa.array([MATE]), threads=threads)


def test_an_empty_array_gives_empty_tables():
    games, moves = pgnkit.parse_movetext(pa.array([], pa.string()))
    assert games.num_rows == 0 and moves.num_rows == 0
    assert "diagnostics" in games.column_names and "uci" in moves.column_names


def test_legality_alone_finds_mate_but_no_repetition():
    # Knights out and back twice: a threefold repetition at ply 8, then fivefold at ply 16.
    shuffle = "1. Nf3 Nf6 2. Ng1 Ng8 " * 4 + "*"
    array = pa.array([MATE, shuffle])
    every, _ = pgnkit.parse_movetext(array)
    legal, legal_moves = pgnkit.parse_movetext(array, checks="legal", numbers=True)
    assert every["termination_by_rule"].to_pylist() == ["checkmate", "fivefold repetition"]
    assert every["result_by_rule"].to_pylist() == ["0-1", "1/2-1/2"]
    assert legal["termination_by_rule"].to_pylist() == ["checkmate", "none"]
    assert legal["result_by_rule"].to_pylist() == ["0-1", None]
    assert legal["plies"].to_pylist() == [4, 16]
    assert legal_moves.num_rows == 20
    with pytest.raises(ValueError, match="checks='some'"):
        pgnkit.parse_movetext(array, checks="some")


def test_read_games_and_read_moves_take_checks():
    every = pgnkit.read_games(GAMES)
    legal = pgnkit.read_games(GAMES, checks="legal")
    assert legal["plies"] == every["plies"]
    assert pgnkit.read_moves(GAMES, checks="legal")["san"] == pgnkit.read_moves(GAMES)["san"]
