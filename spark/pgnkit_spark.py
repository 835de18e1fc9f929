"""pgnkit on Apache Spark: validate, convert or compute statistics of PGN files and Parquet
datasets on a cluster, with pgnkit's Python package as each task's engine.

    spark-submit spark/pgnkit_spark.py {validate,convert,stats} --out DIR INPUT...
    spark-submit spark/pgnkit_spark.py tree --out FILE INPUT...

INPUT is a file or a folder (walked as ``pgnkit`` walks it: ``*.pgn``, compressed copies and
``*.parquet``, sorted by path), on the local filesystem, HDFS or S3 (any URI pyarrow.fs reads).
The driver cuts the inputs into splits, one Spark task each:

- an uncompressed PGN file into byte ranges of ``--split-size`` bytes, read as
  ``pgnkit --range`` reads them (every game belongs to the range its first byte falls in);
- a compressed file (gzip, bzip2, xz, zstd), which cannot be entered in the middle, whole;
- a Parquet file into ranges of ``--row-groups-per-split`` row groups (``--row-groups``).

``validate`` writes DIR/records (one row a game) and DIR/diagnostics (the columns of
``pgnkit validate --format csv``) as Parquet and prints the CLI's summary; ``convert`` writes
DIR/games and DIR/moves (the tables of ``pgnkit convert --format parquet``); ``stats`` writes
the CSV reports of ``pgnkit stats --out DIR``, merged by ``pgnkit stats merge``'s code from one
partial a split; ``tree`` writes FILE (``tree.parquet``, or a Polyglot book ``book.bin``, as
``pgnkit tree -o FILE``), merged on the driver by ``pgnkit tree merge``'s code from one partial
tree a split. Every result is keyed by its split: a retried or speculative task's copy is
counted once. A broken game is a diagnostic, never a failed task. See docs/spark.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Iterator, Optional

import pyarrow as pa


COMPRESSED_MAGIC = (b"\x1f\x8b", b"BZh", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd")
PARQUET_MAGIC = b"PAR1"
# Bytes before a range's start and after its end that a task copies from a remote file: the
# range reader looks back at the line before a game start, and reads the last game past END
# (a game larger than pgnkit's --max-game-size default, 32 MiB, is reported as too large).
LOOKBACK = 4096
LOOKAHEAD = 33 << 20
# A partial crosses to the driver in chunks of at most this many bytes.
CHUNK = 8 << 20


# ---------------------------------------------------------------------------------------------
# Where the inputs are: local paths as they are, other URIs through pyarrow.fs.

def is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def local_path(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def filesystem(path: str):
    import pyarrow.fs as pafs
    return pafs.FileSystem.from_uri(path)


def is_game_file(name: str, extensions: list[str]) -> bool:
    """As pgnkit's walk takes a file: its extension, maybe compressed, or .parquet."""
    name = name.lower()
    for ext in ("gz", "bz2", "zst", "xz"):
        if name.endswith("." + ext):
            name = name[: -len(ext) - 1]
            break
    if len(name) > len(".parquet") and name.endswith(".parquet"):
        return True
    return any(name.endswith("." + e) and len(name) > len(e) + 1 for e in extensions)


def expand(paths: list[str], extensions: list[str]) -> list[tuple[str, int]]:
    """The files the inputs name, with their sizes, in pgnkit's order."""
    out = []
    for p in paths:
        if is_local(p):
            lp = local_path(p)
            if os.path.isdir(lp):
                found = []
                for root, _, files in os.walk(lp):
                    found += [os.path.join(root, f) for f in files if is_game_file(f, extensions)]
                # pgnkit sorts a folder's files by path, component by component.
                found.sort(key=lambda f: f.split(os.sep))
                out += [(f, os.path.getsize(f)) for f in found]
            elif os.path.exists(lp):
                out.append((lp, os.path.getsize(lp)))
            else:
                raise FileNotFoundError(f"no such file or folder: {p}")
        else:
            import pyarrow.fs as pafs
            fs, root = filesystem(p)
            info = fs.get_file_info(root)
            scheme = p.split("://", 1)[0]
            if info.type == pafs.FileType.Directory:
                infos = fs.get_file_info(pafs.FileSelector(root, recursive=True))
                found = sorted((i for i in infos if i.type == pafs.FileType.File
                                and is_game_file(i.base_name, extensions)), key=lambda i: i.path.split("/"))
                out += [(f"{scheme}://{i.path}", i.size) for i in found]
            elif info.type == pafs.FileType.File:
                out.append((p, info.size))
            else:
                raise FileNotFoundError(f"no such file or folder: {p}")
    return out


def head(path: str, n: int = 6) -> bytes:
    if is_local(path):
        with open(local_path(path), "rb") as f:
            return f.read(n)
    fs, p = filesystem(path)
    with fs.open_input_file(p) as f:
        return f.read(n)


def row_group_count(path: str) -> int:
    import pyarrow.parquet as pq
    if is_local(path):
        return pq.ParquetFile(local_path(path)).metadata.num_row_groups
    fs, p = filesystem(path)
    with fs.open_input_file(p) as f:
        return pq.ParquetFile(f).metadata.num_row_groups


def plan(paths: list[str], split_size: int, groups_per_split: int,
         extensions: list[str]) -> list[dict]:
    """The splits of the inputs, in input order: numbered from 0, the key of every result."""
    splits = []

    def add(path, kind, start, end):
        # The tasks get an absolute path (their working folder is not the driver's); the
        # results name the input as the user did.
        where = os.path.abspath(path) if is_local(path) else path
        splits.append({"split": len(splits), "path": where, "display": path, "kind": kind,
                       "start": start, "end": end})

    for path, size in expand(paths, extensions):
        magic = head(path)
        if magic.startswith(PARQUET_MAGIC):
            n = row_group_count(path)
            for g in range(0, max(n, 1), groups_per_split):
                add(path, "groups", g, min(g + groups_per_split, n))
        elif magic.startswith(COMPRESSED_MAGIC) or size == 0:
            add(path, "whole", 0, size)
        else:
            for start in range(0, size, split_size):
                add(path, "range", start, min(start + split_size, size))
    return splits


# ---------------------------------------------------------------------------------------------
# On an executor: one split.

class Local:
    """The split as a local file and the keywords that make pgnkit read it (``options``): the
    file itself when it is local, else a copy of the bytes the split needs (its range with room
    on both sides, or the whole file), removed on exit."""

    def __init__(self, split: dict):
        self.split = split
        self.tmp: Optional[str] = None
        path, kind, start, end = split["path"], split["kind"], split["start"], split["end"]
        offset = 0
        if is_local(path):
            self.path = local_path(path)
        else:
            fs, p = filesystem(path)
            fd, self.tmp = tempfile.mkstemp(prefix="pgnkit-split-")
            self.path = self.tmp
            with os.fdopen(fd, "wb") as out, fs.open_input_file(p) as f:
                if kind == "range":
                    offset = max(0, start - LOOKBACK)
                    f.seek(offset)
                    remaining = end + LOOKAHEAD - offset
                else:
                    remaining = None
                while remaining is None or remaining > 0:
                    block = f.read(1 << 22 if remaining is None else min(1 << 22, remaining))
                    if not block:
                        break
                    out.write(block)
                    if remaining is not None:
                        remaining -= len(block)
        if kind == "range":
            # A copy that starts past byte 0 has a false game start at its first byte, which
            # the range never looks at: its start is LOOKBACK bytes on.
            self.start, self.end = start - offset, end - offset
            self.options = {"range": (self.start, self.end)}
        elif kind == "groups":
            self.options = {"row_groups": (start, end)}
        else:
            self.options = {}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.tmp:
            os.unlink(self.tmp)


def maybe_fail(split: int, fail_once: Optional[int]) -> None:
    """--fail-once SPLIT: the first attempt of that split's task raises (a fault for tests)."""
    if fail_once is None or split != fail_once:
        return
    from pyspark import TaskContext
    ctx = TaskContext.get()
    if ctx is not None and ctx.attemptNumber() == 0:
        raise RuntimeError(f"pgnkit_spark: --fail-once {split}: the first attempt fails")


def splits_of(batches) -> Iterator[dict]:
    for batch in batches:
        yield from batch.to_pylist()


def to_spark_types(table: pa.Table) -> pa.Table:
    """Unsigned integers, which Spark has not, as the next larger signed type."""
    def signed(t):
        if pa.types.is_unsigned_integer(t):
            return pa.int64() if t.bit_width >= 32 else pa.int32()
        if pa.types.is_list(t):
            return pa.list_(pa.field(t.value_field.name, signed(t.value_type), t.value_field.nullable))
        if pa.types.is_large_list(t):
            return pa.large_list(
                pa.field(t.value_field.name, signed(t.value_type), t.value_field.nullable))
        if pa.types.is_struct(t):
            # The games table's diagnostics are a list of structs with unsigned fields.
            return pa.struct([pa.field(f.name, signed(f.type), f.nullable) for f in t])
        return t

    return table.cast(pa.schema([pa.field(f.name, signed(f.type), f.nullable) for f in table.schema]))


DIAGNOSTIC_TYPES = {
    "file": pa.string(), "line": pa.int64(), "column": pa.int64(), "game": pa.int64(),
    "white": pa.string(), "black": pa.string(), "move": pa.int64(), "side": pa.string(),
    "severity": pa.string(), "code": pa.string(), "token": pa.string(), "message": pa.string(),
    "help": pa.string(), "fen": pa.string(),
}
RECORD_TYPES = {
    "file": pa.string(), "game": pa.int64(), "line": pa.int64(), "white": pa.string(),
    "black": pa.string(), "result": pa.string(), "errors": pa.int64(), "warnings": pa.int64(),
    "notes": pa.int64(),
}


def validate_schema() -> pa.Schema:
    """One table for the three outputs of a task, told apart by ``table``: a game's record,
    a diagnostic, or the split's totals (JSON)."""
    fields = [("table", pa.string()), ("split", pa.int64())]
    names = {"table", "split"}
    for name, t in [*RECORD_TYPES.items(), *DIAGNOSTIC_TYPES.items()]:
        if name not in names:
            fields.append((name, t))
            names.add(name)
    fields.append(("totals", pa.string()))
    return pa.schema(fields)


def validate_task(batches, fail_once: Optional[int]):
    import pyarrow.csv as pacsv
    from pgnkit import _pgnkit
    schema = validate_schema()
    for s in splits_of(batches):
        maybe_fail(s["split"], fail_once)
        with Local(s) as local:
            stream, csv, totals = _pgnkit.validate_split(local.path, **local.options)
            records = pa.RecordBatchReader.from_stream(stream).read_all()
        convert = pacsv.ConvertOptions(column_types=DIAGNOSTIC_TYPES, strings_can_be_null=False,
                                       quoted_strings_can_be_null=False)
        diags = pacsv.read_csv(pa.BufferReader(csv), convert_options=convert)
        for table, kind in ((records, "record"), (diags, "diagnostic")):
            n = table.num_rows
            if n == 0:
                continue
            cols = {}
            for f in schema:
                if f.name == "table":
                    cols[f.name] = pa.array([kind] * n)
                elif f.name == "split":
                    cols[f.name] = pa.array([s["split"]] * n, pa.int64())
                elif f.name in table.column_names:
                    cols[f.name] = table[f.name].cast(f.type)
                else:
                    cols[f.name] = pa.nulls(n, f.type)
            # The executor's name of the input is the user's.
            cols["file"] = pa.array([display_name(x, local.path, s["display"])
                                     for x in table["file"].to_pylist()], pa.string())
            yield from pa.table(cols, schema=schema).to_batches()
        cols = {f.name: pa.nulls(1, f.type) for f in schema}
        cols["table"] = pa.array(["split"])
        cols["split"] = pa.array([s["split"]], pa.int64())
        cols["totals"] = pa.array([json.dumps(totals)])
        yield from pa.table(cols, schema=schema).to_batches()


def display_name(name: str, local: str, display: str) -> str:
    """A file name as the task saw it (the local copy's, with ``@START`` for a range), with
    the user's name of the input instead."""
    return display + name[len(local):] if name.startswith(local) else name


def convert_task(batches, table: str, to: str, fail_once: Optional[int]):
    from pgnkit import _pgnkit
    for s in splits_of(batches):
        maybe_fail(s["split"], fail_once)
        with Local(s) as local:
            reader = pa.RecordBatchReader.from_stream(
                _pgnkit.convert_stream([local.path], table, to=to, threads=1, **local.options))
            for batch in reader:
                t = to_spark_types(pa.Table.from_batches([batch]))
                t = t.set_column(t.schema.get_field_index("file"), "file", pa.array(
                    [display_name(x, local.path, s["display"]) for x in t["file"].to_pylist()],
                    pa.string()))
                t = t.append_column("split", pa.array([s["split"]] * t.num_rows, pa.int64()))
                yield from t.to_batches()


STATS_SCHEMA = pa.schema([("split", pa.int64()), ("chunk", pa.int64()), ("chunks", pa.int64()),
                          ("local", pa.string()), ("lines", pa.int64()), ("data", pa.binary())])


def stats_task(batches, options: dict, fail_once: Optional[int]):
    from pgnkit import _pgnkit
    for s in splits_of(batches):
        maybe_fail(s["split"], fail_once)
        with Local(s) as local:
            data = _pgnkit.stats_partial(local.path, **local.options, **options)
            lines = 0
            if s["kind"] == "range":
                lines = _pgnkit.range_lines(local.path, local.start, local.end)[2]
        chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
        for i, c in enumerate(chunks):
            yield pa.record_batch([pa.array([s["split"]], pa.int64()), pa.array([i], pa.int64()),
                                   pa.array([len(chunks)], pa.int64()), pa.array([local.path]),
                                   pa.array([lines], pa.int64()), pa.array([c], pa.binary())],
                                  schema=STATS_SCHEMA)


TREE_SCHEMA = pa.schema([("split", pa.int64()), ("chunk", pa.int64()), ("chunks", pa.int64()),
                         ("local", pa.string()), ("games", pa.int64()), ("status", pa.int64()),
                         ("data", pa.binary())])


def tree_task(batches, options: dict, fail_once: Optional[int]):
    """Each split's partial tree (Parquet, every row kept: ``min_games`` is the merge's), in
    chunks, with the games it read (each split numbers its games from 1) and its status."""
    from pgnkit import _pgnkit
    for s in splits_of(batches):
        maybe_fail(s["split"], fail_once)
        with Local(s) as local:
            data, games, status = _pgnkit.tree_partial(local.path, **local.options, **options)
        chunks = [data[i:i + CHUNK] for i in range(0, len(data), CHUNK)] or [b""]
        for i, c in enumerate(chunks):
            yield pa.record_batch([pa.array([s["split"]], pa.int64()), pa.array([i], pa.int64()),
                                   pa.array([len(chunks)], pa.int64()), pa.array([local.path]),
                                   pa.array([games], pa.int64()), pa.array([status], pa.int64()),
                                   pa.array([c], pa.binary())], schema=TREE_SCHEMA)


# ---------------------------------------------------------------------------------------------
# On the driver.

def merge_partials(rows, splits: list[dict], options: dict) -> None:
    """Feeds each split's partial, put together from its chunks, to the package's merger (the
    code of ``pgnkit stats merge``) as soon as it and every split before it have arrived, then
    writes the reports ``options`` ask for (``StatsMerger``'s keywords: out, excel, raw_csv,
    tiebreaks, team_tiebreaks, played_without_moves).
    Keyed by split: a chunk that comes twice (a retried or speculative task's copy) is taken
    once; a split that never comes fails the merge instead of dropping its games."""
    from pgnkit import _pgnkit
    merger = _pgnkit.StatsMerger(**options)
    order = iter(splits)
    want = next(order, None)
    pending: dict[int, dict] = {}
    fed: set[int] = set()
    # Line breaks of each input in its splits fed so far.
    lines: dict[str, int] = {}
    for r in rows:
        split = r["split"]
        if split in fed:
            continue
        entry = pending.setdefault(split, {"chunks": {}, "n": r["chunks"], "local": r["local"],
                                           "lines": r["lines"]})
        entry["chunks"].setdefault(r["chunk"], r["data"])
        while want is not None and want["split"] in pending and \
                len(pending[want["split"]]["chunks"]) == pending[want["split"]]["n"]:
            e = pending.pop(want["split"])
            data = b"".join(e["chunks"][i] for i in range(e["n"]))
            before = lines.get(want["display"], 0)
            merger.add(data, e["local"], want["display"], before)
            lines[want["display"]] = before + e["lines"]
            fed.add(want["split"])
            want = next(order, None)
    if want is not None:
        missing = [want["split"], *(s["split"] for s in order)]
        raise RuntimeError(f"no partial for splits {missing[:10]}")
    merger.finish()


# Partial trees a merge reads side by side: more are merged in groups first (each group into
# one Parquet tree, in order), so that the driver's memory (a batch of rows a part) stays
# bounded however many splits there are.
TREE_FAN_IN = 64


def merge_trees(rows, splits: list[dict], out: str, options: dict, folder: str) -> int:
    """Writes each split's partial tree, put together from its chunks, into ``folder``, then
    merges them in input order into ``out`` with the package's tree merge (the code of
    ``pgnkit tree merge``), each split's example games named and numbered as one machine's
    run over the whole input names them. ``options``: ``tree_merge``'s keywords (format,
    min_games, min_score, uniform). Keyed by split: a chunk that comes twice is taken once;
    a split that never comes fails the merge. Returns the exit status ``pgnkit tree`` would
    have: 1 when a game had an error or no game was read."""
    from pgnkit import _pgnkit
    done: dict[int, dict] = {}
    pending: dict[int, dict] = {}
    for r in rows:
        split = r["split"]
        if split in done:
            continue
        entry = pending.setdefault(split, {"chunks": {}, "n": r["chunks"], "local": r["local"],
                                           "games": r["games"], "status": r["status"]})
        entry["chunks"].setdefault(r["chunk"], r["data"])
        if len(entry["chunks"]) == entry["n"]:
            del pending[split]
            entry["path"] = os.path.join(folder, f"split-{split}.parquet")
            with open(entry["path"], "wb") as f:
                for i in range(entry["n"]):
                    f.write(entry["chunks"][i])
            entry["chunks"] = None
            done[split] = entry
    missing = [s["split"] for s in splits if s["split"] not in done]
    if missing:
        raise RuntimeError(f"no partial for splits {missing[:10]}")
    parts, renumber, before = [], [], {}
    for s in splits:
        e = done[s["split"]]
        games = before.get(s["display"], 0)
        parts.append(e["path"])
        renumber.append((e["local"], s["display"], games))
        before[s["display"]] = games + e["games"]
    # The inputs in order: a book's moves of one weight are ordered by their first games.
    inputs = list(dict.fromkeys(s["display"] for s in splits))
    level = 0
    while len(parts) > TREE_FAN_IN:
        merged = []
        for i in range(0, len(parts), TREE_FAN_IN):
            path = os.path.join(folder, f"level-{level}-{i // TREE_FAN_IN}.parquet")
            _pgnkit.tree_merge(parts[i:i + TREE_FAN_IN], path,
                               renumber=renumber[i:i + TREE_FAN_IN] if renumber else None,
                               inputs=inputs)
            merged.append(path)
        parts, renumber, level = merged, None, level + 1
    _pgnkit.tree_merge(parts, out, renumber=renumber, inputs=inputs, quiet=False, **options)
    games = sum(e["games"] for e in done.values())
    problems = any(e["status"] == 1 and e["games"] > 0 for e in done.values())
    return 1 if problems or games == 0 else 0


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def summary_line(totals: dict[int, dict], files: int, secs: float) -> str:
    t = {k: sum(x[k] for x in totals.values()) for k in ("games", "errors", "warnings", "notes",
                                                         "bytes")}
    mb = t["bytes"] / 1e6
    return (f"pgnkit: {plural(files, 'file')}, {plural(t['games'], 'game')}: "
            f"{plural(t['errors'], 'error')}, {plural(t['warnings'], 'warning')}, "
            f"{plural(t['notes'], 'note')} in {secs:.2f} s ({mb / secs if secs > 0 else 0:.1f} MB/s)")


def session(name: str):
    from pyspark import SparkConf
    from pyspark.sql import SparkSession
    builder = SparkSession.builder.appName(f"pgnkit {name}")
    # The web UI (a Jetty server) costs start-up time and a job this short is rarely watched:
    # off unless the user's --conf or spark-defaults say otherwise.
    if not SparkConf().contains("spark.ui.enabled"):
        builder = builder.config("spark.ui.enabled", "false")
    return builder.getOrCreate()


def splits_frame(spark, splits):
    """One split number a partition, made in the JVM alone (``range``): each is one task,
    which finds its split with ``split_rows``. The splits travel with the task's function (a
    large one is broadcast by Spark); a DataFrame of them made on the driver would start a
    set of Python workers of its own before the tasks' (``parallelize`` or a local table),
    seconds of start-up a core."""
    n = max(len(splits), 1)
    return spark.range(0, len(splits), 1, n)


def split_rows(batches, splits: list[dict]) -> Iterator[pa.RecordBatch]:
    """The splits a task's numbers (``splits_frame``'s ``id``) name, as the task functions
    take them."""
    for batch in batches:
        ids = batch.column(0).to_pylist()
        if ids:
            yield pa.RecordBatch.from_pylist([splits[i] for i in ids])


def spark_schema(schema: pa.Schema):
    from pyspark.sql.pandas.types import from_arrow_schema
    return from_arrow_schema(schema)


def run_validate(spark, args, splits) -> int:
    from pyspark import StorageLevel
    started = time.time()
    fail_once = args.fail_once
    schema = validate_schema()
    out = splits_frame(spark, splits).mapInArrow(
        lambda b: validate_task(split_rows(b, splits), fail_once), spark_schema(schema))
    out = out.persist(StorageLevel.MEMORY_AND_DISK)
    records = [n for n in RECORD_TYPES]
    diags = [n for n in DIAGNOSTIC_TYPES]
    # Spark's commit protocol keeps one attempt's files a task; the totals are keyed by split.
    out.where("table = 'record'").select("split", *records).write.mode(args.mode).parquet(
        join(args.out, "records"))
    out.where("table = 'diagnostic'").select("split", *diags).write.mode(args.mode).parquet(
        join(args.out, "diagnostics"))
    totals = {}
    for r in out.where("table = 'split'").select("split", "totals").collect():
        totals.setdefault(r["split"], json.loads(r["totals"]))
    out.unpersist()
    files = len({s["display"] for s in splits})
    print(summary_line(totals, files, time.time() - started), file=sys.stderr)
    problems = sum(t["problems"] for t in totals.values())
    if problems:
        print(f"pgnkit: {plural(problems, 'problem')} of inputs as a whole (breaks, bytes that "
              "do not decode, not PGN), reported above", file=sys.stderr)
    failed = sum(t["failed"] for t in totals.values())
    if failed:
        print(f"pgnkit: {plural(failed, 'input')} could not be read", file=sys.stderr)
        return 2
    return 1 if sum(t["errors"] for t in totals.values()) else 0


def run_convert(spark, args, splits) -> int:
    fail_once, to = args.fail_once, args.to
    for table in ("games", "moves"):
        # The schema is the package's own: one read of an empty stream names it.
        sample = to_spark_types(_empty_schema(table).empty_table())
        schema = sample.schema.append(pa.field("split", pa.int64(), False))
        df = splits_frame(spark, splits).mapInArrow(
            lambda b, table=table: convert_task(split_rows(b, splits), table, to, fail_once),
            spark_schema(schema))
        df.write.mode(args.mode).parquet(join(args.out, table))
    return 0


def _empty_schema(table: str) -> pa.Schema:
    from pgnkit import _pgnkit
    with tempfile.NamedTemporaryFile(suffix=".pgn") as f:
        # One empty game, not an empty file: a run that reads no game says so on standard
        # error whatever --quiet says, and the job then printed "no game read" once a table.
        f.write(b'[Result "*"]\n\n*\n')
        f.flush()
        reader = pa.RecordBatchReader.from_stream(_pgnkit.convert_stream([f.name], table))
        # Read to its end while the file is there: the stream's thread opens it.
        return reader.read_all().schema


def partials(spark, splits, task, schema: pa.Schema):
    """Each split's partial, made by ``task`` (a function of the splits' rows), kept on the
    executors' disks for the driver to stream with ``toLocalIterator``.

    toLocalIterator runs one job a partition, one after the other: alone it would keep all
    but one core idle. The partials are made by all tasks at once into Spark's block store
    (on the executors' disks, so the driver's memory is not what bounds them) and then
    streamed to the driver a partition at a time, each merged as it comes. Fetching while the
    tasks still run does not pay: the first fetch runs a job over every partition, which
    waits for all of them."""
    from pyspark import StorageLevel
    df = splits_frame(spark, splits).mapInArrow(lambda b: task(split_rows(b, splits)),
                                                spark_schema(schema))
    df = df.persist(StorageLevel.DISK_ONLY)
    df.count()
    return df


def run_stats(spark, args, splits) -> int:
    options = {"opening_plies": args.opening_plies, "add_eco": args.add_eco}
    fail_once = args.fail_once
    # Each partial is merged on a thread of the package's while the next is fetched.
    df = partials(spark, splits, lambda rows: stats_task(rows, options, fail_once),
                  STATS_SCHEMA)
    reports = {"out": args.out, "excel": args.excel, "raw_csv": args.raw_csv,
               "tiebreaks": args.tiebreaks, "team_tiebreaks": args.team_tiebreaks,
               "played_without_moves": args.played_without_moves}
    try:
        merge_partials(df.toLocalIterator(prefetchPartitions=True), splits, reports)
    finally:
        df.unpersist()
    return 0


def tree_options(args) -> tuple[dict, dict]:
    """The keywords of ``tree_partial`` and of ``tree_merge`` that the arguments give."""
    build = {"max_ply": args.max_ply, "only": args.only, "where": args.where,
             "split": [s.strip() for s in args.split.split(",")] if args.split else None}
    merge = {"format": args.format, "min_games": args.min_games, "min_score": args.min_score,
             "uniform": args.uniform}
    return build, merge


def check_tree_options(build: dict, merge: dict, out: str) -> None:
    """Raises the ValueError the library gives for options that do not fit (a bad --where,
    --min-score without a book...), on the driver before any task runs: a tree of one game,
    merged into a file named as ``out`` is."""
    from pgnkit import _pgnkit
    with tempfile.TemporaryDirectory(prefix="pgnkit-tree-check-") as folder:
        games = os.path.join(folder, "one.pgn")
        with open(games, "wb") as f:
            f.write(b'[Result "*"]\n\n1. e4 *\n')
        data, _, _ = _pgnkit.tree_partial(games, **build)
        part = os.path.join(folder, "part.parquet")
        with open(part, "wb") as f:
            f.write(data)
        _pgnkit.tree_merge([part], os.path.join(folder, "out" + os.path.splitext(out)[1]),
                           **merge)


def run_tree(spark, args, splits) -> int:
    options, merge = tree_options(args)
    fail_once = args.fail_once
    df = partials(spark, splits, lambda rows: tree_task(rows, options, fail_once), TREE_SCHEMA)
    # The partials go beside the output, as `pgnkit tree`'s sorted runs do.
    parent = os.path.dirname(os.path.abspath(args.out))
    try:
        with tempfile.TemporaryDirectory(prefix="pgnkit-tree-", dir=parent) as folder:
            return merge_trees(df.toLocalIterator(prefetchPartitions=True), splits, args.out,
                               merge, folder)
    finally:
        df.unpersist()


def join(base: str, name: str) -> str:
    return base.rstrip("/") + "/" + name


def parse(argv=None) -> argparse.Namespace:
    """The job's arguments, checked (a wrong one exits with status 2, as argparse does)."""
    p = argparse.ArgumentParser(prog="pgnkit_spark.py", description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["validate", "convert", "stats", "tree"])
    p.add_argument("inputs", nargs="+", metavar="INPUT")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the output folder; tree: the output file, on the driver")
    p.add_argument("--split-size", type=int, default=128 << 20, metavar="BYTES",
                   help="bytes of uncompressed PGN a task reads (default 128 MiB)")
    p.add_argument("--row-groups-per-split", type=int, default=1, metavar="N",
                   help="row groups of a Parquet file a task reads (default 1)")
    p.add_argument("--ext", default="pgn", help="name endings a folder walk takes (default pgn)")
    p.add_argument("--mode", default="errorifexists", choices=["errorifexists", "overwrite"],
                   help="validate and convert: what to do when DIR's tables exist")
    p.add_argument("--to", default="san", help="convert: notation of the movetext")
    p.add_argument("--opening-plies", type=int, default=0, help="stats: as pgnkit stats")
    p.add_argument("--add-eco", action="store_true", help="stats: as pgnkit stats")
    p.add_argument("--excel", action="store_true", help="stats: as pgnkit stats")
    p.add_argument("--raw-csv", action="store_true", help="stats: as pgnkit stats")
    # The partials always carry what tie-breaks need: these shape the merge on the driver.
    p.add_argument("--tiebreaks", metavar="LIST", help="stats: as pgnkit stats")
    p.add_argument("--team-tiebreaks", metavar="LIST", help="stats: as pgnkit stats")
    p.add_argument("--played-without-moves", action="store_true", help="stats: as pgnkit stats")
    p.add_argument("--max-ply", type=int, default=30, help="tree: as pgnkit tree")
    p.add_argument("--min-games", type=int, default=1, help="tree: as pgnkit tree")
    p.add_argument("--only", choices=["white", "black"], help="tree: as pgnkit tree")
    p.add_argument("--where", metavar="EXPR", help="tree: as pgnkit tree")
    p.add_argument("--split", metavar="BY", help="tree: speed, rating or speed,rating")
    p.add_argument("--format", choices=["parquet", "csv", "jsonl", "bin"],
                   help="tree: as pgnkit tree (default: --out's extension, else parquet)")
    p.add_argument("--min-score", type=float, default=0.0, help="tree: as pgnkit tree")
    p.add_argument("--uniform", action="store_true", help="tree: as pgnkit tree")
    p.add_argument("--fail-once", type=int, metavar="SPLIT",
                   default=int(os.environ["PGNKIT_SPARK_FAIL_ONCE"])
                   if os.environ.get("PGNKIT_SPARK_FAIL_ONCE") else None,
                   help="make the first attempt of this split's task fail (to test retries; "
                        "also PGNKIT_SPARK_FAIL_ONCE)")
    args = p.parse_args(argv)
    if args.split_size < 1 or args.row_groups_per_split < 1:
        p.error("--split-size and --row-groups-per-split must be 1 or more")
    if args.command == "tree":
        try:
            check_tree_options(*tree_options(args), args.out)
        except (ValueError, OverflowError) as e:
            p.error(str(e))
    return args


def main(argv=None) -> int:
    args = parse(argv)
    extensions = [e.strip().lstrip(".").lower() for e in args.ext.split(",") if e.strip()]
    splits = plan(args.inputs, args.split_size, args.row_groups_per_split, extensions)
    if not splits:
        print("pgnkit: no input: no file to read", file=sys.stderr)
        return 2
    spark = session(args.command)
    try:
        run = {"validate": run_validate, "convert": run_convert, "stats": run_stats,
               "tree": run_tree}[args.command]
        return run(spark, args, splits)
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
