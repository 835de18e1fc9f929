#!/usr/bin/env bash
# Instructions (callgrind) of `convert --format parquet -j 1`, without and with the fen column,
# over `validate -j 1`'s, on the first MiB of the lichess and TWIC inputs and the first 2 MiB of
# the TCEC one (cut at a game boundary): the figure of docs/performance.md's Parquet section,
# which does not drift with the machine's load. Two binaries (an older build, then a newer)
# are counted side by side, so a change's effect is read in one run.
#
# Usage: benches/parquet.sh [--no-build] [BIN...]
#   --no-build  count the binaries already built
#   BIN         pgnkit binaries to count (default: target/release/pgnkit)
# Needs valgrind and the inputs of compare.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
build=1
bins=()
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) bins+=("$1") ;;
  esac
  shift
done
[ ${#bins[@]} -gt 0 ] || bins=("$target/release/pgnkit")
command -v valgrind >/dev/null || { echo "parquet.sh: needs valgrind" >&2; exit 2; }
[ "$build" = 0 ] || cargo build --release --bin pgnkit >&2
inputs=$target/bench-inputs
. benches/head-of.sh
bench_inputs "$inputs"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
echo "| binary | input | validate, M | parquet, M | over validate | --fen, M | over validate |"
echo "|---|---|---:|---:|---:|---:|---:|"
for spec in lichess100:1 twic100:1 tcec150:2; do
  file=$(head_of "$inputs/${spec%%:*}.pgn" "${spec##*:}")
  for bin in "${bins[@]}"; do
    v=$(count "$bin" validate -q -j 1 "$file")
    p=$(count "$bin" convert -q -j 1 --format parquet -o "$scratch/p" "$file")
    n=$(count "$bin" convert -q -j 1 --format parquet --fen -o "$scratch/n" "$file")
    awk -v b="$bin" -v f="$(basename "$file")" -v v="$v" -v p="$p" -v n="$n" \
      'BEGIN { printf "| %s | %s | %.1f | %.1f | %.2f | %.1f | %.2f |\n", b, f, v/1e6, p/1e6, p/v, n/1e6, n/v }'
  done
done
