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
. benches/pgn-extract-common.sh
rounds=5 build=1 files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --no-build) build=0 ;;
    *) files+=("$1") ;;
  esac
  shift
done
bench_setup
echo 'WhiteElo >= "2500"' > "$tags"

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
    t+=("$(ratio "$sv" "$st")")
    e+=("$(ratio "$sv" "$se")")
    x+=("$(ratio "$sx" "$st")")
  done
  printf '%-16s %8s %12s %12s %12s %14s\n' "$(basename "$file" .pgn)" "$mib" \
    "$(median_of "${v[@]}")" "$(median_of "${t[@]}")" \
    "$(median_of "${e[@]}")" "$(median_of "${x[@]}")"
done
echo "tags/valid, end/valid: validate's time over select's (>= 0.8 is the goal; > 1 is faster)."
echo "extract/tags: pgn-extract -t's time over select's for the same tag selection."
