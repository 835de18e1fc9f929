#!/usr/bin/env bash
# Times `pgnkit select` beside `pgnkit validate` and `pgn-extract -t`, in one run, on one
# thread each:
#   validate     pgnkit validate -j 1 -q FILE                     (the replay of every game)
#   select-tags  pgnkit select -j 1 -q -w 'WhiteElo >= 2500' FILE (tags only: no replay)
#   select-end   pgnkit select -j 1 -q -w 'termination = checkmate' FILE (a replay a game)
#   pgn-extract  pgn-extract -t TAGFILE with `WhiteElo >= "2500"` (the same tag selection)
# Each round runs the four back to back, in turn, N rounds (default 5); the machine is
# shared, so the script reports medians of per-round ratios, which drift less than times:
# validate's time over each select's (1.0 = as fast as validate; the goal is 0.8 or more),
# and pgn-extract's time over select-tags'. Every command writes to /dev/null. The games
# selected are counted once by both tools, as a check that they select alike.
#
# Usage: benches/select.sh [--rounds N] [--no-build] FILE...
#   (default FILEs: $CARGO_TARGET_DIR/bench-inputs/*.pgn, as benches/compare.sh makes them)
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-$PWD/target}
rounds=5 build=1 files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --no-build) build=0 ;;
    *) files+=("$1") ;;
  esac
  shift
done
[ ${#files[@]} -gt 0 ] || files=("$target"/bench-inputs/*.pgn)
pgn_extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
[ -x "$pgn_extract" ] || { echo "pgn-extract is missing: apt-get install pgn-extract" >&2; exit 2; }
[ "$build" = 0 ] || cargo build --release --quiet
pgnkit=$target/release/pgnkit
pin=() ; command -v taskset >/dev/null && pin=(taskset -c 0)
tags=$(mktemp); trap 'rm -f "$tags"' EXIT
echo 'WhiteElo >= "2500"' > "$tags"

# Seconds one command takes, its output thrown away.
seconds() {
  local start end
  start=$(date +%s%N)
  "${pin[@]}" "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "scale=4; ($end - $start) / 1000000000" | bc
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

printf '%-16s %8s %12s %12s %12s %14s\n' input MiB 'validate s' 'tags/valid' 'end/valid' 'extract/tags'
for file in "${files[@]}"; do
  mib=$(echo "scale=1; $(stat -c %s "$file") / 1048576" | bc)
  ours=$("$pgnkit" select -q -j 1 --count -w 'WhiteElo >= 2500' "$file" || true)
  theirs=$("$pgn_extract" -s -t "$tags" "$file" 2>/dev/null | grep -c '^\[Event ' || true)
  [ "$ours" = "$theirs" ] || echo "note: $file: select picked $ours games, pgn-extract $theirs" >&2
  v=() t=() e=() x=()
  for _ in $(seq "$rounds"); do
    sv=$(seconds "$pgnkit" validate -q -j 1 "$file")
    st=$(seconds "$pgnkit" select -q -j 1 -w 'WhiteElo >= 2500' "$file")
    se=$(seconds "$pgnkit" select -q -j 1 -w 'termination = checkmate' "$file")
    sx=$(seconds "$pgn_extract" -s -t "$tags" -o /dev/null "$file")
    v+=("$sv")
    t+=("$(echo "scale=3; $sv / $st" | bc)")
    e+=("$(echo "scale=3; $sv / $se" | bc)")
    x+=("$(echo "scale=3; $sx / $st" | bc)")
  done
  printf '%-16s %8s %12s %12s %12s %14s\n' "$(basename "$file" .pgn)" "$mib" \
    "$(printf '%s\n' "${v[@]}" | median)" "$(printf '%s\n' "${t[@]}" | median)" \
    "$(printf '%s\n' "${e[@]}" | median)" "$(printf '%s\n' "${x[@]}" | median)"
done
echo "tags/valid, end/valid: validate's time over select's (>= 0.8 is the goal; > 1 is faster)."
echo "extract/tags: pgn-extract -t's time over select's for the same tag selection."
