#!/usr/bin/env python3
"""Times `pgnkit.read_games` beside rust_pgn_reader_python_binding and python-chess on the same
PGN files, in one run, at the same thread count, and prints the throughputs and the ratios.

    python benches/python.py [--threads N] [--chess-games 300] [--validate BIN] FILE...

pgnkit reads the file itself (`read_games(path)`: lexing, replay, checks, the Arrow table).
rust_pgn_reader_python_binding is handed the games as a list of strings, split beforehand and
not timed (its `parse_games_from_strings`; it reads no files), which flatters it; beside it,
`read_moves(path)` asked for what that call gives (the moves as numbers, and with the boards,
clocks and evaluations), where `read_games` and `read_moves`' defaults also write text the
binding does not (SAN, UCI, the movetext column, every tag). Then both are
handed the same games' movetext alone as a pyarrow array of strings, the lichess Parquet case:
`pgnkit.parse_movetext(array)` beside rust_pgn_reader_python_binding's `parse_games(array)`. python-chess
(`chess.pgn.read_game`, replaying every move) is timed on the first --chess-games games and
extrapolated per game. `--validate BIN` also times the CLI's `validate` on each file, the floor
of what read_games does (the same replay and checks, no table). Each timing is the best of
--repeat rounds, the contenders run in turn in each round.

Needs `pip install ./python chess rust_pgn_reader_python_binding`. Figures go to
benches/NOTES.md (history) and docs/performance.md (the user-facing summary).
"""

from __future__ import annotations

import argparse
import inspect
import io
import os
import re
import resource
import subprocess
import time

# NumPy (imported by pyarrow and by rust_pgn_reader) starts OpenBLAS's threads: `perf` saw
# them take a tenth of the processor time of a process that only imported pgnkit and ran
# read_games, and `--cpu` counts them against whichever contender is running. None of the
# contenders uses BLAS, so one thread of it is enough.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pgnkit  # noqa: E402 (after the thread setting, which must come before NumPy loads)


# `parse_movetext` asked for what the binding's `parse_games` gives: the moves as numbers
# (`numbers`), and with the boards, clocks and evaluations too (`boards`); the games table
# without its movetext column, which the binding does not write.
# `read_moves(path)` asked for what the binding's `parse_games_from_strings` gives from the
# same games' text: each move as numbers, and with the boards, clocks and evaluations too.
READ_MOVES_CALLS = {
    # `read_games` without the movetext it writes again, which the binding does not write.
    "read_games no movetext": {"movetext_column": False},
    "read_moves numbers": {"columns": ["numbers"]},
    "read_moves boards": {"columns": ["numbers", "boards", "clock", "eval"]},
}
NUMBERS_CALLS = {
    "parse_movetext numbers": {"columns": ["numbers"]},
    "parse_movetext numbers, no movetext": {"columns": ["numbers"], "movetext_column": False},
    "parse_movetext boards, no notes, no movetext": {
        "numbers": True, "boards": True, "columns": ["numbers", "boards"],
        "movetext_column": False},
    "parse_movetext boards, no movetext": {
        "numbers": True, "boards": True, "columns": ["numbers", "boards", "clock", "eval"],
        "movetext_column": False},
}
# The checks asked for: every rule (the default), and legality alone where the package takes
# `checks="legal"`.
CHECKS = ["full"] + (["legal"] if "checks" in inspect.signature(pgnkit.parse_movetext).parameters
                     else [])


def split_games(text: str) -> list[str]:
    parts = re.split(r"\n\s*\n(?=\[)", text)
    return [p for p in parts if p.strip()]


def movetext_of(game: str) -> str:
    """A game's movetext: what follows its tag lines."""
    return re.sub(r"\A(\s*\[[^\n]*\n)*\s*", "", game)


# `--cpu`: processor time of the whole process (every thread) instead of wall-clock time, for a
# shared machine, where the wall clock measures the other users more than the contenders.
CLOCK = time.perf_counter


def cpu_with_children() -> float:
    """Processor time of this process and of its children waited for (`--validate`'s CLI runs
    are children): what `--cpu` measures."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def interleaved(contenders: dict, repeat: int) -> dict:
    """The best time of each contender over `repeat` rounds, each round running every
    contender once in turn: a loaded machine's slow spells fall on all of them alike."""
    best = {name: float("inf") for name in contenders}
    for _ in range(repeat):
        for name, f in contenders.items():
            t = CLOCK()
            f()
            best[name] = min(best[name], CLOCK() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--chess-games", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--cpu", action="store_true", help="time in processor seconds (one thread only)")
    ap.add_argument("--validate", metavar="BIN",
                    help="also time `BIN validate -q -j THREADS FILE`, the floor of read_games's work")
    args = ap.parse_args()
    if args.cpu:
        global CLOCK
        CLOCK = cpu_with_children
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
        table = pgnkit.read_games(path, threads=args.threads)
        print(f"{os.path.basename(path)}: {mib:.1f} MiB, {n} games ({table.num_rows} in the table)")
        contenders = {"pgnkit.read_games": lambda: pgnkit.read_games(path, threads=args.threads),
                      "pgnkit.read_moves": lambda: pgnkit.read_moves(path, threads=args.threads)}
        if args.validate:
            # Its exit status says whether the games have problems, not whether it ran.
            command = [args.validate, "validate", "-q", "-j", str(args.threads), path]
            contenders["pgnkit validate (CLI)"] = lambda: subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        if rpr is not None:
            import pyarrow as pa

            parse = rpr.parse_games_from_strings
            params = inspect.signature(parse).parameters
            kwargs = {"num_threads": args.threads} if "num_threads" in params else {}
            if not kwargs:
                os.environ["RAYON_NUM_THREADS"] = str(args.threads)
            # The games' movetext alone, as the lichess Parquet files' `movetext` column holds it.
            array = pa.chunked_array([pa.array([movetext_of(g) for g in games])])
            contenders["rust_pgn_reader strings"] = lambda: parse(games, **kwargs)
            contenders["pgnkit.parse_movetext"] = lambda: pgnkit.parse_movetext(array, threads=args.threads)
            contenders["rust_pgn_reader parse_games"] = lambda: rpr.parse_games(array, **kwargs)
            # The binding's parse_games gives each move as numbers and the board after it: the
            # same asked of pgnkit, with the full checks and with `checks="legal"` (legality
            # only, as the binding checks) where the package has it.
            def read(source, **options):
                games = "movetext_column" in options
                return (pgnkit.read_games if games else pgnkit.read_moves)(source, **options)

            calls = [(READ_MOVES_CALLS, read, path),
                     (NUMBERS_CALLS, pgnkit.parse_movetext, array)]
            for table, call, source in calls:
                for label, options in table.items():
                    for checks in CHECKS:
                        extra = {"checks": checks} if checks != "full" else {}
                        contenders[f"{label} {checks}"] = (
                            lambda c=call, s=source, o=options, e=extra: c(
                                s, threads=args.threads, **o, **e))
        t = interleaved(contenders, args.repeat)
        for name, secs in t.items():
            print(f"  {name:32} {secs:8.3f} s  {mib / secs:8.1f} MiB/s")
        if rpr is not None:
            print(f"  read_games / parse_games_from_strings: pgnkit is "
                  f"{t['rust_pgn_reader strings'] / t['pgnkit.read_games']:.2f}x")
            print(f"  parse_movetext / parse_games (same array): pgnkit is "
                  f"{t['rust_pgn_reader parse_games'] / t['pgnkit.parse_movetext']:.2f}x")
            print(f"  read_moves / parse_games_from_strings: pgnkit is "
                  f"{t['rust_pgn_reader strings'] / t['pgnkit.read_moves']:.2f}x")
            for name in t:
                if name.startswith(tuple(READ_MOVES_CALLS)):
                    print(f"  {name} / parse_games_from_strings: pgnkit is "
                          f"{t['rust_pgn_reader strings'] / t[name]:.2f}x")
            for name in t:
                if name.startswith(tuple(NUMBERS_CALLS)):
                    print(f"  {name} / parse_games: pgnkit is "
                          f"{t['rust_pgn_reader parse_games'] / t[name]:.2f}x")
            if args.validate:
                print(f"  validate (CLI) / parse_games_from_strings: validate is "
                      f"{t['rust_pgn_reader strings'] / t['pgnkit validate (CLI)']:.2f}x")
        if chess is not None:
            prefix = "\n\n".join(games[: args.chess_games])
            k = min(n, args.chess_games)

            def read_all():
                stream = io.StringIO(prefix)
                while chess.pgn.read_game(stream) is not None:
                    pass

            c = interleaved({"chess": read_all}, 1)["chess"] * n / k
            print(f"  python-chess (from {k} games)    {c:8.3f} s  {mib / c:8.1f} MiB/s"
                  f"   pgnkit.read_games is {c / t['pgnkit.read_games']:.0f}x")
            for name in t:
                if name.startswith("read_games no movetext"):
                    print(f"  python-chess / {name}: {c / t[name]:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
