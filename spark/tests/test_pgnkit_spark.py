"""The Spark job's pieces on small files of testdata/spark and testdata/parquet: how inputs are
cut into splits, the package functions a task calls, the merge keyed by split, and one run of
the job on local[2] with a task that fails once. Needs the Python package (`pip install
./python`), pyspark and the release binary (`cargo build --release`) for the one-machine
references."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "spark"))

import pgnkit_spark as job  # noqa: E402
from pgnkit import _pgnkit  # noqa: E402

GAMES = str(ROOT / "testdata" / "spark" / "games.pgn")
GZ = str(ROOT / "testdata" / "spark" / "games.pgn.gz")
GROUPS = str(ROOT / "testdata" / "parquet" / "row-groups.parquet")
PGNKIT = os.environ.get("PGNKIT", str(ROOT / "target" / "release" / "pgnkit"))


def pgnkit(*args):
    p = subprocess.run([PGNKIT, *map(str, args)], capture_output=True, text=True)
    assert p.returncode in (0, 1), p.stderr
    return p


def test_inputs_are_cut_by_kind():
    splits = job.plan([GAMES, GZ, GROUPS], 1000, 2, ["pgn"])
    kinds = [(s["kind"], s["start"], s["end"]) for s in splits]
    size = os.path.getsize(GAMES)
    ranges = [k for k in kinds if k[0] == "range"]
    assert ranges == [("range", s, min(s + 1000, size)) for s in range(0, size, 1000)]
    assert ("whole", 0, os.path.getsize(GZ)) in kinds
    # Three row groups, two a split.
    assert [k for k in kinds if k[0] == "groups"] == [("groups", 0, 2), ("groups", 2, 3)]
    assert [s["split"] for s in splits] == list(range(len(splits)))


def test_a_folder_is_walked_as_pgnkit_walks_it():
    files = [p for p, _ in job.expand([str(ROOT / "testdata" / "spark")], ["pgn"])]
    assert files == sorted([GAMES, GZ])


def validate_records(path, **options):
    stream, csv, totals = _pgnkit.validate_split(path, **options)
    return pa.RecordBatchReader.from_stream(stream).read_all().to_pylist(), csv, totals


@pytest.mark.parametrize("size", [300, 777, 5000])
def test_the_ranges_validate_every_game_once_in_order(size):
    whole, _, totals = validate_records(GAMES)
    assert totals["games"] == len(whole) == 12
    assert totals["errors"] >= 1
    joined = []
    for start in range(0, os.path.getsize(GAMES), size):
        records, _, _ = validate_records(GAMES, range=(start, start + size))
        joined += records
    strip = lambda rs: [{k: v for k, v in r.items() if k not in ("file", "game", "line")} for r in rs]
    assert strip(joined) == strip(whole)


def test_a_split_s_diagnostics_are_validate_s_csv():
    _, csv, _ = validate_records(GAMES)
    assert csv.decode() == pgnkit("validate", "-q", "--format", "csv", GAMES).stdout


def merged(tmp_path, splits, name, **options):
    """Runs each split's task function as an executor would and merges as the driver does,
    with the merge's ``options`` (``StatsMerger``'s keywords) besides ``out``."""
    rows = []
    for s in splits:
        batches = job.stats_task([pa.RecordBatch.from_pylist([s])], {}, None)
        rows += [r for b in batches for r in b.to_pylist()]
    # A speculative copy of every task's result arrives too: it must be counted once.
    rows += rows
    out = tmp_path / name
    job.merge_partials(rows, splits, {"out": str(out), **options})
    return out


def same_reports(a: Path, b: Path):
    names = sorted(p.name for p in b.glob("*.csv"))
    assert names and sorted(p.name for p in a.glob("*.csv")) == names
    for n in names:
        assert (a / n).read_text() == (b / n).read_text(), n


@pytest.mark.parametrize("size", [256, 1000])
def test_merged_partials_of_ranges_are_pgnkit_stats_byte_for_byte(tmp_path, size):
    pgnkit("stats", "-q", "--out", tmp_path / "cli", GAMES, GZ, GROUPS)
    splits = job.plan([GAMES, GZ, GROUPS], size, 1, ["pgn"])
    assert len(splits) > 4
    same_reports(merged(tmp_path, splits, "merged"), tmp_path / "cli")


SWISS = str(ROOT / "testdata" / "stats" / "tiebreaks" / "swiss.pgn")
BOARDS = str(ROOT / "testdata" / "stats" / "teams" / "boards.pgn")


@pytest.mark.parametrize("size", [300, 2000])
def test_merged_partials_rank_by_tiebreaks_as_pgnkit_stats(tmp_path, size):
    # Issue 42: the job's --tiebreaks gives one machine's tables; splits cut the events.
    lists = {"tiebreaks": "ARO-C1,BH-C1,BH,DE,PS,SB", "team_tiebreaks": "DE,GP,BC,TBR,BBE",
             "played_without_moves": True}
    pgnkit("stats", "-q", "--out", tmp_path / "cli", "--tiebreaks", lists["tiebreaks"],
           "--team-tiebreaks", lists["team_tiebreaks"], "--played-without-moves",
           SWISS, BOARDS, GAMES)
    splits = job.plan([SWISS, BOARDS, GAMES], size, 1, ["pgn"])
    assert len(splits) > 3
    same_reports(merged(tmp_path, splits, "merged", **lists), tmp_path / "cli")
    assert "BH-C1" in (tmp_path / "merged" / "standings.csv").read_text()


def test_the_merge_s_tiebreak_keywords_are_checked():
    with pytest.raises(ValueError, match="^tiebreaks: "):
        _pgnkit.StatsMerger(out="never", tiebreaks="XX")
    with pytest.raises(ValueError, match="^team_tiebreaks: goes with tiebreaks"):
        _pgnkit.StatsMerger(out="never", team_tiebreaks="GP")


def test_a_missing_split_fails_the_merge_instead_of_dropping_games(tmp_path):
    splits = job.plan([GAMES], 1000, 1, ["pgn"])
    rows = []
    for s in splits:
        if s["split"] != 1:
            batches = job.stats_task([pa.RecordBatch.from_pylist([s])], {}, None)
            rows += [r for b in batches for r in b.to_pylist()]
    with pytest.raises(RuntimeError, match=r"no partial for splits \[1, 2"):
        job.merge_partials(rows, splits, {"out": str(tmp_path / "out")})


def test_partials_arriving_out_of_order_merge_in_input_order(tmp_path):
    pgnkit("stats", "-q", "--out", tmp_path / "cli", GAMES)
    splits = job.plan([GAMES], 400, 1, ["pgn"])
    rows = []
    for s in splits:
        batches = job.stats_task([pa.RecordBatch.from_pylist([s])], {}, None)
        rows += [r for b in batches for r in b.to_pylist()]
    out = tmp_path / "merged"
    job.merge_partials(list(reversed(rows)), splits, {"out": str(out)})
    same_reports(out, tmp_path / "cli")


TREES = [GAMES, GZ, GROUPS, *(str(ROOT / "testdata" / "tree" / f"{n}.pgn")
                              for n in ("three", "positions", "split", "book"))]


def tree_merged(tmp_path, splits, out, build, merge):
    """Each split's partial tree made by the task function as an executor makes it, and the
    partials merged into ``out`` as the driver merges them; returns the job's status."""
    rows = []
    for s in splits:
        rows += [r for b in job.tree_task([pa.RecordBatch.from_pylist([s])], build, None)
                 for r in b.to_pylist()]
    # A speculative copy of every task's result arrives too, and out of order.
    rows = list(reversed(rows)) + rows
    folder = tmp_path / "partials"
    folder.mkdir()
    return job.merge_trees(rows, splits, str(out), merge, str(folder))


def same_tree(a: Path, b: Path):
    if a.suffix == ".parquet":
        import pyarrow.parquet as pq
        ta, tb = pq.read_table(a), pq.read_table(b)
        assert ta.schema == tb.schema
        assert ta.num_rows > 10 and ta.to_pylist() == tb.to_pylist()
    else:
        assert a.stat().st_size > 0 and a.read_bytes() == b.read_bytes()


@pytest.mark.parametrize("size,fan_in", [(300, 64), (1000, 3)])
@pytest.mark.parametrize("ext,options", [
    ("parquet", []), ("csv", ["--split", "speed,rating"]), ("jsonl", ["--only", "black"]),
    ("bin", ["--min-games", "2"]), ("csv", ["--where", "WhiteElo >= 2000", "--min-games", "2"]),
])
def test_merged_partial_trees_are_pgnkit_tree(tmp_path, monkeypatch, size, fan_in, ext, options):
    # The merge of many splits in groups (fan_in 3) gives the same tree as of all at once.
    monkeypatch.setattr(job, "TREE_FAN_IN", fan_in)
    args = ["--max-ply", "12", *options]
    cli = pgnkit("tree", "-q", "-o", tmp_path / f"cli.{ext}", *args, *TREES)
    splits = job.plan(TREES, size, 1, ["pgn"])
    assert len(splits) > 6
    build, merge = job.tree_options(job.parse(["tree", "--out", "x", *args, *TREES]))
    status = tree_merged(tmp_path, splits, tmp_path / f"spark.{ext}", build, merge)
    assert status == cli.returncode == 1  # games.pgn has a game that does not replay
    same_tree(tmp_path / f"spark.{ext}", tmp_path / f"cli.{ext}")


def test_the_example_games_are_named_and_numbered_as_one_run_s(tmp_path):
    splits = job.plan([GAMES], 500, 1, ["pgn"])
    assert len(splits) > 3
    tree_merged(tmp_path, splits, tmp_path / "spark.csv", {"max_ply": 2}, {})
    pgnkit("tree", "-q", "--max-ply", "2", "-o", tmp_path / "cli.csv", GAMES)
    text = (tmp_path / "spark.csv").read_text()
    assert f",{GAMES}," in text and "@" not in text
    assert text == (tmp_path / "cli.csv").read_text()


def test_the_tree_job_s_options_are_checked_before_it_starts(capsys):
    with pytest.raises(SystemExit) as exit:
        job.main(["tree", "--out", "book.parquet", "--min-score", "50", GAMES])
    assert exit.value.code == 2
    assert "--min-score and --uniform make a Polyglot book" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        job.main(["tree", "--out", "t.parquet", "--where", "WhiteElo >=", GAMES])
    assert "--where" in capsys.readouterr().err


def test_a_bad_keyword_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="^range: end"):
        _pgnkit.validate_split(GAMES, range=(500, 100))
    with pytest.raises(ValueError, match="^row_groups: "):
        _pgnkit.stats_partial(GROUPS, row_groups=(-1, 2))
    with pytest.raises(ValueError, match="^opening_plies: "):
        _pgnkit.stats_partial(GAMES, opening_plies=1001)


def test_range_lines_counts_crlf_as_one_break():
    first, last, lines = _pgnkit.range_lines(GAMES, 0, os.path.getsize(GAMES))
    text = open(GAMES, "rb").read()
    assert (first, last) == (0, len(text))
    assert lines == text.replace(b"\r\n", b"\n").count(b"\n")


def spark_submit():
    exe = Path(sys.executable).parent / "spark-submit"
    return os.environ.get("SPARK_SUBMIT", str(exe))


@pytest.mark.skipif(subprocess.run(["java", "-version"], capture_output=True).returncode != 0,
                    reason="no java")
def test_the_job_survives_a_task_failing_once(tmp_path):
    pgnkit("stats", "-q", "--out", tmp_path / "cli", GAMES)
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable}
    p = subprocess.run([spark_submit(), "--master", "local[2,4]", "--conf", "spark.ui.enabled=false",
                        str(ROOT / "spark" / "pgnkit_spark.py"), "stats", "--out",
                        str(tmp_path / "spark"), "--split-size", "500", "--fail-once", "2", GAMES],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    assert "--fail-once 2" in p.stderr
    same_reports(tmp_path / "spark", tmp_path / "cli")


@pytest.mark.skipif(subprocess.run(["java", "-version"], capture_output=True).returncode != 0,
                    reason="no java")
def test_the_job_s_tiebreaks_are_pgnkit_stats_tiebreaks(tmp_path):
    options = ["--tiebreaks", "DE,BH,WIN", "--team-tiebreaks", "GP,BBE"]
    pgnkit("stats", "-q", "--out", tmp_path / "cli", *options, SWISS, BOARDS)
    p = subprocess.run([spark_submit(), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                        str(ROOT / "spark" / "pgnkit_spark.py"), "stats", "--out",
                        str(tmp_path / "spark"), "--split-size", "700", *options, SWISS, BOARDS],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    same_reports(tmp_path / "spark", tmp_path / "cli")
    assert "team:BBE" in (tmp_path / "spark" / "standings.csv").read_text()


@pytest.mark.skipif(subprocess.run(["java", "-version"], capture_output=True).returncode != 0,
                    reason="no java")
def test_the_tree_job_writes_pgnkit_tree_s_book(tmp_path):
    pgnkit("tree", "-q", "--max-ply", "16", "-o", tmp_path / "cli.bin", *TREES)
    p = subprocess.run([spark_submit(), "--master", "local[2,4]", "--conf", "spark.ui.enabled=false",
                        str(ROOT / "spark" / "pgnkit_spark.py"), "tree", "--out",
                        str(tmp_path / "spark.bin"), "--max-ply", "16", "--split-size", "400",
                        "--fail-once", "1", *TREES], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr[-3000:]
    # spark-submit gives the driver's standard error to its standard output.
    assert "--fail-once 1" in p.stderr and " parts, " in p.stdout + p.stderr
    same_tree(tmp_path / "spark.bin", tmp_path / "cli.bin")


def test_the_convert_job_finds_its_schemas_without_a_word_on_stderr(capfd):
    # An empty file read for each table's schema printed "no game read in 1 input" twice.
    for table in ("games", "moves"):
        assert "file" in job._empty_schema(table).names
    assert capfd.readouterr().err == ""


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3_endpoint():
    """A local S3 server (moto's, from PyPI) with the bucket `pgnkit`: the environment
    variables that point pyarrow.fs at it, as AWS_* variables point it at a real bucket."""
    pytest.importorskip("moto")
    import time
    import urllib.request
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "moto.server", "-p", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(urllib.request.Request(url + "/pgnkit", method="PUT"))
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the local S3 server did not start")
        yield {"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "test",
               "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1",
               "AWS_EC2_METADATA_DISABLED": "true"}
    finally:
        server.terminate()
        server.wait()


@pytest.mark.skipif(subprocess.run(["java", "-version"], capture_output=True).returncode != 0,
                    reason="no java")
def test_inputs_on_s3_give_the_reports_of_the_same_files_on_disk(tmp_path, s3_endpoint):
    import pyarrow.fs as pafs
    env = {**os.environ, **s3_endpoint, "PYSPARK_PYTHON": sys.executable,
           "PYSPARK_DRIVER_PYTHON": sys.executable}
    s3 = pafs.S3FileSystem(endpoint_override=s3_endpoint["AWS_ENDPOINT_URL"], access_key="test",
                           secret_key="test", region="us-east-1")
    for f in (GAMES, GZ):
        # compression=None: by default pyarrow would gzip a .gz name once more.
        with s3.open_output_stream("pgnkit/in/" + os.path.basename(f), compression=None) as out:
            out.write(open(f, "rb").read())
    local = tmp_path / "in"
    local.mkdir()
    for f in (GAMES, GZ):
        (local / os.path.basename(f)).write_bytes(open(f, "rb").read())
    pgnkit("stats", "-q", "--out", tmp_path / "cli", local)
    # Byte ranges of the plain file are read from the bucket by the tasks; the gzip whole.
    p = subprocess.run([spark_submit(), "--master", "local[2]", "--conf", "spark.ui.enabled=false",
                        str(ROOT / "spark" / "pgnkit_spark.py"), "stats", "--out",
                        str(tmp_path / "spark"), "--split-size", "500", "s3://pgnkit/in"],
                       capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr[-3000:]
    # games.csv names each game's file as the run was given it: the bucket's URI here.
    cli, spark = tmp_path / "cli", tmp_path / "spark"
    games = (cli / "games.csv").read_text().replace(str(local) + "/", "s3://pgnkit/in/")
    assert games.count("s3://pgnkit/in/") == 24
    assert (spark / "games.csv").read_text() == games
    (cli / "games.csv").unlink()
    (spark / "games.csv").unlink()
    same_reports(spark, cli)
