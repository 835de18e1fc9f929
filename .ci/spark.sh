#!/usr/bin/env bash
# The Spark job (spark/pgnkit_spark.py) on local[2] against one machine's pgnkit: installs
# pyspark (pinned, from PyPI) into the CI venv of .ci/python-env.sh and Java 17 from Debian when
# `java` is missing, builds the Python package (`pip install ./python`) and the release binary,
# then runs the job's own tests (spark/tests, small files of testdata/spark) and .ci/spark.py
# on ../shared/corpus. About 2 to 3 minutes once the package is built, most of it Spark's
# start-up (a JVM a spark-submit).
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-$(bash .ci/python-env.sh)}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target} # as in .ci/python.sh
if ! command -v java >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless
fi
java -version 2>&1 | head -1
"$python" -m pip install -q --disable-pip-version-check pyspark==4.3.0 pandas==3.1.1 pytest==9.2.0 >&2
# A local S3 server for the test of inputs in a bucket; that test is skipped without it.
"$python" -m pip install -q --disable-pip-version-check 'moto[server]==5.2.5' >&2 ||
  echo "spark.sh: moto did not install; the S3 input test is skipped" >&2
"$python" -c 'import pgnkit._pgnkit as m; m.validate_split' 2>/dev/null ||
  "$python" -m pip install -q --disable-pip-version-check ./python
[ -x target/release/pgnkit ] || cargo build --release --workspace
bin=$(dirname "$python")
export PYSPARK_PYTHON="$python" PYSPARK_DRIVER_PYTHON="$python"
export SPARK_SUBMIT="$bin/spark-submit"
"$python" -m pytest -q spark/tests
"$python" .ci/spark.py
