#!/usr/bin/env bash
# Prints the path of a python3 that has python-chess at the pinned version (and DuckDB and
# pyarrow, for the Parquet conformance step), for the conformance steps and the benchmark. It
# makes a venv under the cargo target folder the first time (falling back to a user-site install
# where venv is unavailable); all chatter goes to stderr.
set -euo pipefail
pin=1.11.2
parquet_pins=(duckdb==2.0.1 pyarrow==26.0.1)
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${PGNKIT_VENV:-${CARGO_TARGET_DIR:-$root/target}/python-venv}
has_pin() {
  "$1" -c "import sys, chess, duckdb, pyarrow
sys.exit(chess.__version__ != '$pin' or duckdb.__version__ != '2.0.1' or pyarrow.__version__ != '26.0.1')" 2>/dev/null
}

if has_pin "$venv/bin/python"; then
  echo "$venv/bin/python"
elif python3 -m venv "$venv" >&2 &&
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "chess==$pin" \
    "${parquet_pins[@]}" >&2; then
  echo "$venv/bin/python"
else
  echo "python-env: no venv; installing chess==$pin into the user site" >&2
  python3 -m pip install -q --disable-pip-version-check --user "chess==$pin" \
    "${parquet_pins[@]}" >&2
  has_pin python3 || { echo "python-env: chess==$pin ${parquet_pins[*]} did not install" >&2; exit 1; }
  echo python3
fi
