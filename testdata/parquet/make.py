"""Writes the Parquet files of this folder from games.pgn, typed as the lichess dataset is
(../shared/reference is not needed: the schema is written out here). Run it with pyarrow
to make the files again: python3 make.py"""
import datetime
import os
import re

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))
TAG = re.compile(r'^\[(\w+) "((?:[^"\\]|\\.)*)"\]$')
SCHEMA = pa.schema([
    ("Event", pa.string()), ("Site", pa.string()), ("White", pa.string()),
    ("Black", pa.string()), ("Result", pa.string()), ("WhiteTitle", pa.string()),
    ("BlackTitle", pa.string()), ("WhiteElo", pa.int16()), ("BlackElo", pa.int16()),
    ("WhiteRatingDiff", pa.int16()), ("BlackRatingDiff", pa.int16()),
    ("UTCDate", pa.date32()), ("UTCTime", pa.time32("s")), ("ECO", pa.string()),
    ("Opening", pa.string()), ("Termination", pa.string()), ("TimeControl", pa.string()),
    ("movetext", pa.string()),
])


def games(path):
    tags, out = {}, []
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        m = TAG.match(line)
        if m:
            tags[m[1]] = re.sub(r'\\(.)', r'\1', m[2])
        elif line:
            tags["movetext"] = line
            out.append(tags)
            tags = {}
    return out


def typed(name, value):
    if value is None:
        return None
    if name.endswith("Elo") or name.endswith("RatingDiff"):
        return int(value)
    if name == "UTCDate":
        return datetime.date(*map(int, value.split(".")))
    if name == "UTCTime":
        return datetime.time(*map(int, value.split(":")))
    return value


def table(rows, schema=SCHEMA):
    return pa.table({f.name: pa.array([typed(f.name, r.get(f.name)) for r in rows], f.type)
                     for f in schema}, schema=schema)


rows = games(os.path.join(HERE, "games.pgn"))
t = table(rows)
# pyarrow's defaults (snappy), one row group.
pq.write_table(t, os.path.join(HERE, "games.parquet"))
# A Hive-partitioned dataset, zstd and lz4, row groups of two rows.
for month, codec, part in (("05", "zstd", rows[:4]), ("06", "lz4", rows[4:])):
    d = os.path.join(HERE, "dataset", "year=2025", f"month={month}")
    os.makedirs(d, exist_ok=True)
    pq.write_table(table(part), os.path.join(d, "train-00000-of-00001.parquet"),
                   compression=codec, row_group_size=2)
# Other column names, mapped with --movetext-column and --tag-column; no extension.
other = pa.table({"moves": t["movetext"], "white_player": t["White"], "Black": t["Black"],
                  "Result": t["Result"], "Event": t["Event"], "plies": pa.array([1] * len(rows))})
pq.write_table(other, os.path.join(HERE, "other-columns.bin"))
# No movetext column at all.
pq.write_table(t.drop(["movetext"]), os.path.join(HERE, "no-movetext.parquet"))
# A copy cut short: its footer is gone.
data = open(os.path.join(HERE, "games.parquet"), "rb").read()
open(os.path.join(HERE, "truncated.parquet"), "wb").write(data[: len(data) // 2])
# A variant: lichess's variant datasets share the schema; a Variant column names it.
v = table(rows[:1]).append_column("Variant", pa.array(["Atomic"]))
pq.write_table(v, os.path.join(HERE, "variant.parquet"))
# Two row groups of three rows; the first one's movetext pages overwritten with garbage.
path = os.path.join(HERE, "damaged.parquet")
pq.write_table(t, path, row_group_size=3, compression="zstd")
meta = pq.ParquetFile(path).metadata
chunk = meta.row_group(0).column(SCHEMA.names.index("movetext"))
start = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
data = bytearray(open(path, "rb").read())
for i in range(start + 8, start + chunk.total_compressed_size - 4):
    data[i] = 0x5A
open(path, "wb").write(bytes(data))
# A tag column of a type with no tag text (a boolean Elo).
pq.write_table(pa.table({"movetext": ["1. e4 e5 *"], "WhiteElo": pa.array([True])}),
               os.path.join(HERE, "bool-elo.parquet"))
# Text as a dictionary column (pandas' categoricals write it so).
d = t.slice(0, 2)
d = d.set_column(d.schema.get_field_index("Opening"), "Opening",
                 pa.array(d["Opening"].to_pylist()).dictionary_encode())
pq.write_table(d, os.path.join(HERE, "dictionary.parquet"), use_dictionary=True,
               store_schema=True)
