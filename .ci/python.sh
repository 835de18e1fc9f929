#!/usr/bin/env bash
# The Python package: builds the wheel with `pip install ./python` (maturin, pinned in
# python/pyproject.toml, from PyPI) into the CI venv of .ci/python-env.sh, then runs
# `pytest python/tests` (with NumPy), which also runs the examples of docs/python.md. Polars and pandas are
# installed when they install from PyPI; their examples are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-$(bash .ci/python-env.sh)}
# maturin builds in the repository's target/ (where `cargo build --release --workspace` of
# .ci/run left the same crates with the same features and profile), not in a folder of pip's
# own, so only PyO3 and the package itself are compiled here.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target}
# NumPy for `board_array` and the numbers' tests (pyarrow 26 does not pull it in).
"$python" -m pip install -q --disable-pip-version-check pytest==9.2.0 numpy==2.4.6 >&2
"$python" -m pip install -q --disable-pip-version-check polars==2.1.0 pandas==3.1.1 >&2 ||
  echo "python.sh: polars or pandas did not install; their examples are skipped" >&2
"$python" -m pip install -q --disable-pip-version-check ./python
"$python" -m pytest -q python/tests
