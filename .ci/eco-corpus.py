#!/usr/bin/env python3
"""Conformance: opening classification on pgn-extract's eco.pgn (../shared/corpus/eco).

1. The table classifies its own lines: with `--eco-table eco.pgn`, every line of eco.pgn gets
   its own ECO code and name back (the deepest named position of a line is its final
   position), except a line whose final position an earlier line names too: it gets the
   earlier one's. Any other difference fails.
2. The built-in table (lichess's chess-openings) against pgn-extract's codes: printed, for
   the record; the tables differ, so only a wholesale break (under half agreeing) fails.

Exit status 0 when both hold, 1 when not, 2 on a setup problem (no binary, no corpus).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PGNKIT = os.environ.get("PGNKIT") or str(
    Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target")) / "release" / "pgnkit"
)
ECO = Path(os.environ.get("CORPUS", REPO.parent / "shared" / "corpus")) / "eco" / "eco.pgn"


def games(*args: str) -> list[dict]:
    out = subprocess.run(
        [PGNKIT, "convert", "-q", "--format", "jsonl", *args, str(ECO)],
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        print(f"pgnkit convert {' '.join(args)}: exit {out.returncode}\n{out.stderr}")
        sys.exit(2)
    return [json.loads(line) for line in out.stdout.splitlines()]


def name(tags: dict) -> str:
    n = tags.get("Opening", "")
    if tags.get("Variation"):
        n += ": " + tags["Variation"]
        if tags.get("SubVariation"):
            n += ", " + tags["SubVariation"]
    return n


def main() -> int:
    if not Path(PGNKIT).exists() or not ECO.exists():
        print(f"missing {PGNKIT} or {ECO}")
        return 2
    plain = games()
    own = games("--add-eco", "--eco-overwrite", "--eco-table", str(ECO))
    builtin = games("--add-eco", "--eco-overwrite")
    assert len(plain) == len(own) == len(builtin), "every game is converted"
    # The first line to reach each final position names it (EPD: the FEN without counters).
    first: dict[str, dict] = {}
    for g in plain:
        first.setdefault(" ".join(g["final_fen"].split()[:4]), g["tags"])
    failures = 0
    shared = 0
    for g, o in zip(plain, own):
        want = first[" ".join(g["final_fen"].split()[:4])]
        shared += want is not g["tags"]
        got = (o["tags"].get("ECO"), o["tags"].get("Opening"))
        if got != (want["ECO"], name(want)):
            failures += 1
            print(f"game {g['game']}: {g['tags'].get('ECO')} {name(g['tags'])!r}: got {got}")
    print(
        f"eco.pgn classified by itself: {len(plain) - failures} of {len(plain)} lines as "
        f"expected ({shared} share their final position with an earlier line)"
    )
    agree = sum(g["tags"].get("ECO") == b["tags"].get("ECO") for g, b in zip(plain, builtin))
    print(
        f"lichess's table gives pgn-extract's ECO code to {agree} of {len(plain)} lines "
        f"({100 * agree / len(plain):.0f}%)"
    )
    if agree * 2 < len(plain):
        print("fewer than half agree: the classification is broken")
        failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
