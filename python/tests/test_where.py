"""`where=`: the games a `pgnkit select` expression picks, read into tables (`convert --where`)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import pgnkit

REPO = Path(__file__).resolve().parents[2]
SELECT = REPO / "testdata" / "select"


def table(name: str) -> list[tuple[int, str, list[str]]]:
    """The lines of a table of tests/select.rs: an expression, a tab, the rounds of the games
    `select --where` picks (`-`: none)."""
    rows = []
    for n, line in enumerate((SELECT / name).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        expr, rounds = line.split("\t")
        rows.append((n, expr, [r for r in rounds.split() if r != "-"]))
    return rows


@pytest.mark.parametrize("pgn,name", [("games.pgn", "expressions.txt"),
                                      ("openings.pgn", "openings.txt")])
def test_read_games_where_gives_the_games_select_gives(pgn, name):
    for n, expr, rounds in table(name):
        games = pgnkit.read_games(SELECT / pgn, where=expr, threads=2)
        assert games.column("Round").to_pylist() == rounds, f"{name}:{n}: {expr}"


def test_every_reader_takes_where():
    path = SELECT / "games.pgn"
    expr = "WhiteElo >= 2500"
    # Rounds 1, 5 and 7; game 5 does not replay, and is a row as any other.
    games = pgnkit.read_games(path, where=expr)
    assert games.column("game").to_pylist() == [1, 5, 7]
    assert games.column("errors").to_pylist()[1] > 0
    moves = pgnkit.read_moves(path, where=expr)
    assert sorted(set(moves.column("game").to_pylist())) == [1, 5, 7]
    every = pgnkit.read_moves(path)
    assert moves.equals(every.filter(pc.is_in(every.column("game"), pa.array([1, 5, 7],
                                                                             pa.uint64()))))
    assert pgnkit.iter_games(path, where=expr).read_all().equals(games)
    assert pgnkit.iter_moves(path, where=expr).read_all().equals(moves)
    # Nothing selected: an empty table with the columns.
    none = pgnkit.read_games(path, where="WhiteElo > 3000")
    assert none.num_rows == 0 and none.schema == pgnkit.read_games(path).schema


def test_a_bad_expression_is_a_value_error_that_shows_where():
    with pytest.raises(ValueError) as raised:
        pgnkit.read_games(SELECT / "games.pgn", where="WhiteElo >=")
    message = str(raised.value)
    assert message.startswith("--where: expected a value after '>='"), message
    assert message.splitlines()[1:] == ["  WhiteElo >=", "             ^"], message
    with pytest.raises(ValueError, match="--where"):
        pgnkit.read_moves(SELECT / "games.pgn", where="plies >")
