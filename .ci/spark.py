#!/usr/bin/env python3
"""The Spark job against one machine's pgnkit, on local[2] (run by .ci/spark.sh).

Inputs, all from ../shared/corpus (read in place, never copied into the project; scratch files
go to a temporary folder):

1. stats, several files and byte ranges: the lichess, twic, python-chess and chess-library
   folders and the TCEC .pgn.zst (one task: compressed), cut into byte ranges of 64 KiB: the
   CSV reports of `spark-submit spark/pgnkit_spark.py stats` must equal byte for byte those of
   `pgnkit stats --out` on the same inputs;
2. stats, one file cut into ranges: lichess and twic concatenated into one file, whose
   reports must equal `pgnkit stats --out` on it, byte for byte (games.csv's file, game and
   line columns included), with the first attempt of split 1's task made to fail
   (`--fail-once 1`, retried on local[2,4]): the retry is counted once;
3. stats, a Parquet copy: the lichess file written as Parquet in the lichess dataset's schema
   in row groups of 100 rows, one a task: the same reports as `pgnkit stats --out` on it;
4. validate: the inputs of 1 give the CLI's summary (files, games, errors, warnings) and the
   same diagnostics (code, severity, players, move, side, token, message) as
   `pgnkit validate --format csv`, and one record a game;
5. convert: the games of 2 are the rows of `pgnkit convert --format parquet`'s games table,
   in order, apart from the file and game columns.

Exit status: 0 when everything agrees, 1 on a disagreement.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
PGNKIT = str(ROOT / "target" / "release" / "pgnkit")
JOB = str(ROOT / "spark" / "pgnkit_spark.py")
failures = 0


def fail(what: str) -> None:
    global failures
    failures += 1
    print(f"spark.py: FAIL: {what}", file=sys.stderr)


def spark(command: str, out: Path, inputs, *extra, master="local[2]") -> str:
    p = subprocess.run([os.environ.get("SPARK_SUBMIT", "spark-submit"), "--master", master, "--conf", "spark.ui.enabled=false", JOB,
                        command, "--out", str(out), *extra, *map(str, inputs)],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.stderr.write(p.stderr[-5000:])
        raise SystemExit(f"spark-submit {command}: exit {p.returncode}")
    # spark-submit runs the driver's Python with its standard error joined to the JVM's standard
    # output, so the job's summary is there; the executors' messages are on standard error.
    return p.stdout + p.stderr


def cli(*args) -> subprocess.CompletedProcess:
    p = subprocess.run([PGNKIT, *map(str, args)], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        raise SystemExit(f"pgnkit {args}: exit {p.returncode}: {p.stderr}")
    return p


def same_reports(what: str, mine: Path, theirs: Path) -> None:
    names = sorted(p.name for p in theirs.glob("*.csv"))
    if sorted(p.name for p in mine.glob("*.csv")) != names:
        fail(f"{what}: reports {sorted(p.name for p in mine.glob('*.csv'))} != {names}")
        return
    for name in names:
        a, b = (mine / name).read_bytes(), (theirs / name).read_bytes()
        if a != b:
            la, lb = a.decode().splitlines(), b.decode().splitlines()
            i = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            fail(f"{what}: {name} differs at line {i + 1}:\n  spark:  {la[i:i+1]}\n  pgnkit: {lb[i:i+1]}")
    print(f"spark.py: {what}: {len(names)} reports equal byte for byte", file=sys.stderr)


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="pgnkit-spark-ci-"))
    several = [CORPUS / "lichess", CORPUS / "twic", CORPUS / "python-chess",
               CORPUS / "chess-library", CORPUS / "tcec" / "tcec-shared.pgn.zst"]
    # 1. several files, byte ranges, a compressed file.
    cli("stats", "-q", "--out", tmp / "cli1", *several)
    spark("stats", tmp / "spark1", several, "--split-size", str(64 << 10))
    same_reports("several files in byte ranges", tmp / "spark1", tmp / "cli1")

    # 2. one file in ranges, a task failing once.
    one = tmp / "lichess-twic.pgn"
    with open(one, "wb") as f:
        for p in (CORPUS / "lichess").glob("*.pgn"):
            f.write(p.read_bytes())
        for p in (CORPUS / "twic").glob("*.pgn"):
            f.write(p.read_bytes())
    cli("stats", "-q", "--out", tmp / "cli2", one)
    log = spark("stats", tmp / "spark2", [one], "--split-size", str(100_000), "--fail-once", "1",
                master="local[2,4]")
    same_reports("one file in byte ranges, a task retried", tmp / "spark2", tmp / "cli2")
    if "--fail-once 1" not in log:
        fail("the task of split 1 did not fail once (no such message in the log)")

    # 3. a Parquet copy, by row groups.
    spec = importlib.util.spec_from_file_location("parquet_in", ROOT / ".ci" / "parquet-in.py")
    parquet_in = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(parquet_in)
    import pyarrow as pa
    lichess = next((CORPUS / "lichess").glob("*.pgn"))
    copy = tmp / "lichess.parquet"
    parquet_in.to_parquet(lichess, copy, pa, pq)
    cli("stats", "-q", "--out", tmp / "cli3", copy)
    spark("stats", tmp / "spark3", [copy])
    same_reports("a Parquet copy by row groups", tmp / "spark3", tmp / "cli3")

    # 4. validate.
    p = cli("validate", "--format", "csv", *several)
    summary = re.search(r"pgnkit: (\d+) files?, (\d+) games?: (\d+) errors?, (\d+) warnings?",
                        p.stderr)
    log = spark("validate", tmp / "spark4", several, "--split-size", str(64 << 10))
    mine = re.search(r"pgnkit: (\d+) files?, (\d+) games?: (\d+) errors?, (\d+) warnings?", log)
    if not summary or not mine or summary.groups() != mine.groups():
        fail(f"validate summary: spark {mine and mine.group(0)} != pgnkit {summary and summary.group(0)}")
    else:
        print(f"spark.py: validate: the same summary ({mine.group(0)})", file=sys.stderr)
    keys = ("code", "severity", "white", "black", "move", "side", "token", "message")
    theirs = Counter(tuple(r[k] for k in keys) for r in csv.DictReader(io.StringIO(p.stdout)))
    diags = pq.read_table(tmp / "spark4" / "diagnostics").to_pylist()
    ours = Counter(tuple("" if r[k] is None else str(r[k]) for k in keys) for r in diags)
    if ours != theirs:
        fail(f"validate diagnostics: {sum((ours - theirs).values())} only from spark, "
             f"{sum((theirs - ours).values())} only from pgnkit; e.g. "
             f"{list((ours - theirs).items())[:2]} {list((theirs - ours).items())[:2]}")
    else:
        print(f"spark.py: validate: the same {sum(ours.values())} diagnostics", file=sys.stderr)
    records = pq.read_table(tmp / "spark4" / "records")
    if mine and records.num_rows != int(mine.group(2)):
        fail(f"validate records: {records.num_rows} rows for {mine.group(2)} games")

    # 5. convert.
    spark("convert", tmp / "spark5", [one], "--split-size", str(100_000))
    cli("convert", "-q", "--format", "parquet", "-o", tmp / "cli5", one)
    drop = ["file", "game"]
    # The package gives a game that does not replay its row with its diagnostics; the CLI's
    # table holds the games it wrote, so the games with errors are left out here.
    a = pq.read_table(tmp / "spark5" / "games")
    a = a.filter(pc.equal(a["errors"], 0)).drop(drop + ["split", "diagnostics"])
    b = pq.read_table(tmp / "cli5" / "games.parquet").drop(drop)
    if a.to_pylist() != b.cast(a.schema).to_pylist():
        fail("convert: the games table differs from pgnkit convert's")
    else:
        print(f"spark.py: convert: the same {a.num_rows} games", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
