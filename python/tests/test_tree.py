"""pgnkit.read_tree: the tree of `pgnkit tree`, as a pyarrow table, on testdata/tree/."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pyarrow as pa
import pytest

import pgnkit

REPO = Path(__file__).resolve().parents[2]
THREE = REPO / "testdata" / "tree" / "three.pgn"
SPLIT = REPO / "testdata" / "tree" / "split.pgn"
START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"


def test_read_tree_gives_the_rows_of_pgnkit_tree():
    t = pgnkit.read_tree(THREE, max_ply=2)
    assert isinstance(t, pa.Table)
    assert t.num_rows == 5
    assert t.column_names[:4] == ["key", "epd", "uci", "san"]
    start = t.filter(pa.compute.equal(t.column("epd"), START)).to_pylist()
    assert [(r["san"], r["games"], r["white_wins"], r["mover_elo"]) for r in start] == [
        ("d4", 1, 0, None), ("e4", 2, 2, 2100.0)]
    assert t.schema.field("games").type == pa.uint64()
    assert t.schema.field("rating_band").type == pa.uint16()


def test_read_tree_takes_the_options_of_the_command():
    assert pgnkit.read_tree(THREE, max_ply=2, min_games=2).num_rows == 1
    assert pgnkit.read_tree(THREE, max_ply=4, only="black").num_rows == 4
    t = pgnkit.read_tree(SPLIT, max_ply=1, split=["speed", "rating"])
    assert sorted(t.column("speed").to_pylist()) == ["blitz", "bullet", "correspondence", "rapid"]
    t = pgnkit.read_tree(SPLIT, max_ply=1, where="WhiteElo >= 2000")
    assert t.column("san").to_pylist() == ["e4"]
    with pytest.raises(ValueError, match="only="):
        pgnkit.read_tree(THREE, only="both")
    with pytest.raises(ValueError, match="--where"):
        pgnkit.read_tree(THREE, where="WhiteElo >=")
    with pytest.raises(FileNotFoundError):
        pgnkit.read_tree(REPO / "no-such-file.pgn")
