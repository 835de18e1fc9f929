#!/usr/bin/env python3
"""Times `pgnkit.read_games` beside rust_pgn_reader_python_binding and python-chess on the same
PGN files, in one run, at the same thread count, and prints the throughputs and the ratios.

    python benches/python.py [--threads N] [--chess-games 300] FILE...

pgnkit reads the file itself (`read_games(path)`: lexing, replay, checks, the Arrow table).
rust_pgn_reader_python_binding is handed the games as a list of strings, split beforehand and
not timed (its `parse_games_from_strings`; it reads no files), which flatters it. python-chess
(`chess.pgn.read_game`, replaying every move) is timed on the first --chess-games games and
extrapolated per game. Each timing is the best of --repeat runs, interleaved.

Needs `pip install ./python chess rust_pgn_reader_python_binding`. Figures go to
benches/NOTES.md (history) and docs/performance.md (the user-facing summary).
"""

from __future__ import annotations

import argparse
import inspect
import io
import os
import re
import time

import pgnkit


def split_games(text: str) -> list[str]:
    parts = re.split(r"\n\s*\n(?=\[)", text)
    return [p for p in parts if p.strip()]


def best(f, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--chess-games", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    try:
        import rust_pgn_reader_python_binding as rpr
    except ImportError:
        rpr = None
    try:
        import chess.pgn
    except ImportError:
        chess = None
    print(f"threads {args.threads}")
    for path in args.files:
        mib = os.path.getsize(path) / 2**20
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        games = split_games(text)
        n = len(games)
        ours = best(lambda: pgnkit.read_games(path, threads=args.threads), args.repeat)
        table = pgnkit.read_games(path, threads=args.threads)
        print(f"{os.path.basename(path)}: {mib:.1f} MiB, {n} games ({table.num_rows} in the table)")
        print(f"  pgnkit.read_games                 {ours:8.3f} s  {mib / ours:8.1f} MiB/s")
        if rpr is not None:
            parse = rpr.parse_games_from_strings
            kwargs = {}
            params = inspect.signature(parse).parameters if callable(parse) else {}
            for name in ("num_threads", "threads", "n_threads"):
                if name in params:
                    kwargs[name] = args.threads
            if not kwargs:
                os.environ["RAYON_NUM_THREADS"] = str(args.threads)
            theirs = best(lambda: parse(games, **kwargs), args.repeat)
            print(f"  rust_pgn_reader_python_binding    {theirs:8.3f} s  {mib / theirs:8.1f} MiB/s"
                  f"   pgnkit is {theirs / ours:.1f}x")
        if chess is not None:
            prefix = "\n\n".join(games[: args.chess_games])
            k = min(n, args.chess_games)

            def read_all():
                stream = io.StringIO(prefix)
                while chess.pgn.read_game(stream) is not None:
                    pass

            t = best(read_all, 1) * n / k
            print(f"  python-chess (from {k} games)    {t:8.3f} s  {mib / t:8.1f} MiB/s"
                  f"   pgnkit is {t / ours:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
