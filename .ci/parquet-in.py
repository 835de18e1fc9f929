#!/usr/bin/env python3
"""Parquet input and --range conformance on the corpus.

1. Parquet in: every lichess file of ../shared/corpus/lichess is written with pyarrow as a
   Parquet file in the lichess dataset's schema (int16 Elo and rating differences, date32
   UTCDate, time32[s] UTCTime, no Date and Round columns, several row groups, zstd), and

       pgnkit validate --format json --game-records FILE
       pgnkit convert --format jsonl FILE

   must give, game by game and in order, the same records and diagnostics for the Parquet copy
   as for the PGN, apart from the places (file, line, column).
2. --range: every uncompressed corpus file (lichess, twic) is cut at random points, and the
   ranges' validate records, concatenated, must be the whole file's (apart from the places
   and the game numbers, which count from a range's start).

Exit status: 0 when everything agrees, 1 on a disagreement, 2 on a setup problem.
"""

from __future__ import annotations

import argparse
import datetime
import json
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]\s*$')
PLACES = ("file", "line", "column")


def schema(pa):
    s, i16 = pa.string(), pa.int16()
    return pa.schema([
        ("Event", s), ("Site", s), ("White", s), ("Black", s), ("Result", s),
        ("WhiteTitle", s), ("BlackTitle", s), ("WhiteElo", i16), ("BlackElo", i16),
        ("WhiteRatingDiff", i16), ("BlackRatingDiff", i16), ("UTCDate", pa.date32()),
        ("UTCTime", pa.time32("s")), ("ECO", s), ("Opening", s), ("Termination", s),
        ("TimeControl", s), ("movetext", s),
    ])


def games(path: Path):
    """The games of a lichess PGN file: tags and the movetext (one line in lichess's export)."""
    out, tags, moves = [], {}, []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = TAG.match(line)
        if m and not moves:
            tags[m[1]] = re.sub(r"\\(.)", r"\1", m[2])
        elif line.strip():
            moves.append(line)
        elif moves:
            out.append({**tags, "movetext": " ".join(moves)})
            tags, moves = {}, []
    if tags or moves:
        out.append({**tags, "movetext": " ".join(moves)})
    return out


def typed(name, value):
    if value is None:
        return None
    if name.endswith("Elo") or name.endswith("RatingDiff"):
        return int(value) if re.fullmatch(r"[+-]?\d+", value) else None
    if name == "UTCDate":
        return datetime.date(*map(int, value.split(".")))
    if name == "UTCTime":
        return datetime.time(*map(int, value.split(":")))
    return value


def to_parquet(pgn: Path, out: Path, pa, pq) -> int:
    rows = games(pgn)
    sch = schema(pa)
    for r in rows:
        # The dataset has no Date and Round: pgnkit puts them back from UTCDate, as lichess's
        # export writes them; a game where they differ could not be compared.
        if r.get("Date", r.get("UTCDate")) != r.get("UTCDate") or r.get("Round", "-") != "-":
            raise SystemExit(f"{pgn}: a game whose Date is not its UTCDate: {r.get('Site')}")
        extra = set(r) - set(sch.names) - {"Date", "Round"}
        if extra:
            raise SystemExit(f"{pgn}: tags outside the lichess schema: {sorted(extra)}")
    table = pa.table({f.name: pa.array([typed(f.name, r.get(f.name)) for r in rows], f.type)
                      for f in sch}, schema=sch)
    pq.write_table(table, out, compression="zstd", row_group_size=100)
    return len(rows)


def run(binary, args):
    p = subprocess.run([binary, *args], capture_output=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"pgnkit {' '.join(args)}: exit {p.returncode}: {p.stderr.decode()}")
    return p.stdout.decode()


def records(text: str, drop=PLACES):
    out = []
    for line in text.splitlines():
        v = json.loads(line)
        for k in drop:
            v.pop(k, None)
        out.append(v)
    return out


def first_difference(a, b) -> str:
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"record {i}:\n  PGN:     {x}\n  other:   {y}"
    return f"{len(a)} records against {len(b)}"


def check_parquet(binary, tmp: Path, pa, pq) -> int:
    failures = 0
    files = sorted((ROOT.parent / "shared/corpus/lichess").glob("*.pgn"))
    if not files:
        raise SystemExit("no lichess corpus files under ../shared/corpus/lichess")
    for pgn in files:
        parquet = tmp / (pgn.stem + ".parquet")
        n = to_parquet(pgn, parquet, pa, pq)
        for args in (["validate", "-q", "--format", "json", "--game-records"],
                     ["convert", "-q", "--format", "jsonl"]):
            want = records(run(binary, [*args, str(pgn)]))
            got = records(run(binary, [*args, str(parquet)]))
            ok = want == got
            print(f"{'ok  ' if ok else 'FAIL'} {args[0]:8} {pgn.name}: {n} games, "
                  f"{len(want)} records, as PGN and as Parquet")
            if not ok:
                print(first_difference(want, got))
                failures += 1
    return failures


def check_ranges(binary, seed: int, trials: int) -> int:
    failures = 0
    rng = random.Random(seed)
    corpus = ROOT.parent / "shared/corpus"
    args = ["validate", "-q", "-j", "2", "--format", "json", "--game-records"]
    for pgn in sorted([*corpus.glob("lichess/*.pgn"), *corpus.glob("twic/*.pgn")]):
        size = pgn.stat().st_size
        whole = records(run(binary, [*args, str(pgn)]), (*PLACES, "game"))
        for _ in range(trials):
            cuts = sorted(rng.randrange(size + 1) for _ in range(rng.randint(1, 6)))
            bounds = [0, *cuts, size]
            parts = []
            for a, b in zip(bounds, bounds[1:]):
                parts += records(run(binary, [*args, "--range", f"{a}:{b}", str(pgn)]),
                                 (*PLACES, "game"))
            ok = parts == whole
            print(f"{'ok  ' if ok else 'FAIL'} --range  {pgn.name} cut at {cuts}")
            if not ok:
                print(first_difference(whole, parts))
                failures += 1
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=str(ROOT / "target/release/pgnkit"))
    ap.add_argument("--trials", type=int, default=3, help="cut sets per file for --range")
    ap.add_argument("--seed", type=int, default=20)
    opts = ap.parse_args()
    if not Path(opts.bin).exists():
        print(f"no pgnkit binary at {opts.bin} (cargo build --release)", file=sys.stderr)
        return 2
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:
        print(f"pyarrow missing: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        failures = check_parquet(opts.bin, Path(tmp), pa, pq)
    failures += check_ranges(opts.bin, opts.seed, opts.trials)
    print("parquet-in: all agree" if failures == 0 else f"parquet-in: {failures} disagreements")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
