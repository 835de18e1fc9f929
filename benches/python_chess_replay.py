#!/usr/bin/env python3
"""Benchmark baseline: reads every game of each file with python-chess and replays its mainline.

`benches/compare.sh` times it next to `pgnkit validate`. `chess.pgn.read_game` parses each SAN
against the board and plays it while it reads, building the game tree with comments and
variations, which is what a Python user of python-chess pays to check a file.

Usage: python3 benches/python_chess_replay.py FILE...
Prints one line per file: games, games without errors, mainline plies.
"""

import logging
import sys

import chess.pgn


def replay(path: str) -> tuple[int, int, int]:
    games = clean = plies = 0
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games += 1
            clean += not game.errors
            plies += sum(1 for _ in game.mainline())
    return games, clean, plies


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    for path in sys.argv[1:]:
        games, clean, plies = replay(path)
        print(f"{path}: {games} games, {clean} without errors, {plies} plies")
    return 0


if __name__ == "__main__":
    sys.exit(main())
