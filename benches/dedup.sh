#!/usr/bin/env bash
# Times `pgnkit dedup` beside `pgnkit validate` and `pgn-extract -D` on the same input, in one
# run, each pinned to one core (taskset -c 0), interleaved ROUNDS times, keeping each tool's
# fastest time. Prints the seconds and two ratios:
#   dedup/validate   pgnkit validate -j 1's time over pgnkit dedup -j 1's (the issue asks 0.8
#                    or better: dedup at least 0.8 times validate's throughput)
#   dedup/extract    pgn-extract -D's time over pgnkit dedup's (above 1: dedup is faster)
# and the games each dedup kept. The machine is shared: run it when it is quiet, or read the
# ratios, not the seconds.
#
# Usage: benches/dedup.sh [FILE.pgn] [ROUNDS]   (default: the lichess100 bench input, 3 rounds)
# PGNKIT=path/to/pgnkit times that binary (another build, for a before-and-after) instead of
# this checkout's release build.
# pgn-extract is the Debian package (apt-get install pgn-extract).
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-${BENCH_INPUTS:-/work/bench-inputs}/lichess100.pgn}
rounds=${2:-3}
target=${CARGO_TARGET_DIR:-$PWD/target}
bin=${PGNKIT:-$target/release/pgnkit}
[ -x "$bin" ] || cargo build --release
export PATH=$PATH:/usr/games  # where Debian installs it
command -v pgn-extract >/dev/null || { echo "pgn-extract is not installed (apt-get install pgn-extract)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Seconds of one run of the command given (its output thrown away).
secs() {
  local start end
  start=$(date +%s.%N)
  taskset -c 0 "$@" >/dev/null 2>&1 || true
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
min() { if [ -z "$1" ] || [ "$(echo "$2 < $1" | bc)" = 1 ]; then echo "$2"; else echo "$1"; fi; }

best_dedup="" best_validate="" best_extract=""
for _ in $(seq "$rounds"); do
  best_dedup=$(min "$best_dedup" "$(secs "$bin" dedup -q -j 1 "$file" -o "$tmp/unique.pgn")")
  best_validate=$(min "$best_validate" "$(secs "$bin" validate -q -j 1 "$file")")
  best_extract=$(min "$best_extract" "$(secs pgn-extract -D -s -o "$tmp/extract.pgn" "$file")")
done
"$bin" dedup -j 1 "$file" -o "$tmp/unique.pgn" 2>"$tmp/summary" || true
kept_pgnkit=$(grep -c '^\[Event ' "$tmp/unique.pgn" || true)
pgn-extract -D -s -o "$tmp/extract.pgn" "$file" 2>/dev/null || true
kept_extract=$(grep -c '^\[Event ' "$tmp/extract.pgn" || true)
mib=$(echo "scale=1; $(stat -c %s "$file") / 1048576" | bc)
echo "input: $file ($mib MiB), fastest of $rounds interleaved rounds, one core"
printf '%-22s %8s s\n' "pgnkit dedup -j 1" "$best_dedup" "pgnkit validate -j 1" "$best_validate" "pgn-extract -D" "$best_extract"
printf 'dedup/validate throughput: %s\n' "$(echo "scale=2; $best_validate / $best_dedup" | bc)"
printf 'dedup/extract throughput:  %s\n' "$(echo "scale=2; $best_extract / $best_dedup" | bc)"
printf 'games kept: pgnkit %s, pgn-extract %s\n' "$kept_pgnkit" "$kept_extract"
sed 's/^/  /' "$tmp/summary"
