#!/usr/bin/env bash
# Prints the path of a python3 that has python-chess at the pinned version, for the conformance
# step and the benchmark. It makes a venv under the cargo target folder the first time (falling
# back to a user-site install where venv is unavailable); all chatter goes to stderr.
set -euo pipefail
pin=1.11.2
root=$(cd "$(dirname "$0")/.." && pwd)
venv=${PGNKIT_VENV:-${CARGO_TARGET_DIR:-$root/target}/python-venv}
has_pin() { "$1" -c "import sys, chess; sys.exit(chess.__version__ != '$pin')" 2>/dev/null; }

if has_pin "$venv/bin/python"; then
  echo "$venv/bin/python"
elif python3 -m venv "$venv" >&2 &&
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "chess==$pin" >&2; then
  echo "$venv/bin/python"
else
  echo "python-env: no venv; installing chess==$pin into the user site" >&2
  python3 -m pip install -q --disable-pip-version-check --user "chess==$pin" >&2
  has_pin python3 || { echo "python-env: chess==$pin did not install" >&2; exit 1; }
  echo python3
fi
