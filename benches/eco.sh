#!/usr/bin/env bash
# Times opening classification beside pgn-extract's, in one run, on one thread each:
#   convert      pgnkit convert -j 1 -q FILE                          (no classification)
#   add-eco      pgnkit convert -j 1 -q --add-eco --eco-overwrite FILE (every game classified)
#   pgn-extract  pgn-extract -s -e ECO_FILE FILE                      (every game classified)
#   select-eco   pgnkit select -j 1 -q -w 'eco >= "B90" and eco <= "B99"' FILE
#   extract-eco  pgn-extract -s -e ECO_FILE -t TAGFILE with `ECO "B9"` (classified, then picked)
# Each round runs the five back to back, in turn, N rounds (default 3); the machine is shared,
# so the script reports medians of per-round ratios, which drift less than times. Every
# command writes to /dev/null. ECO_FILE is the eco.pgn of pgn-extract's package
# (`dpkg -L pgn-extract`); pgnkit uses its built-in table (lichess's), so the two tables
# differ: 3,807 lines against pgn-extract's own.
#
# Usage: benches/eco.sh [--rounds N] [--no-build] [--eco FILE] FILE...
#   (default FILEs: $CARGO_TARGET_DIR/bench-inputs/*.pgn, as benches/compare.sh makes them)
set -euo pipefail
cd "$(dirname "$0")/.."
. benches/pgn-extract-common.sh
rounds=3 build=1 files=() eco=/usr/share/pgn-extract/eco.pgn
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --no-build) build=0 ;;
    --eco) eco=$2; shift ;;
    *) files+=("$1") ;;
  esac
  shift
done
bench_setup
[ -s "$eco" ] || { echo "no $eco: give pgn-extract's eco.pgn with --eco FILE" >&2; exit 2; }
echo 'ECO "B9"' > "$tags"

printf '%-16s %7s %10s %12s %14s %14s\n' input MiB 'add-eco s' 'add/convert' 'extract/add' 'extract/select'
for file in "${files[@]}"; do
  mib=$(echo "scale=1; $(stat -c %s "$file") / 1048576" | bc)
  ours=$("$pgnkit" select -q -j 1 --count -w 'eco >= "B90" and eco <= "B99"' "$file" || true)
  theirs=$("$pgn_extract" -s -e"$eco" -t "$tags" "$file" 2>/dev/null | grep -c '^\[Event ' || true)
  echo "note: $(basename "$file"): select picked $ours B9x games, pgn-extract $theirs (other tables)" >&2
  a=() c=() x=() s=()
  for _ in $(seq "$rounds"); do
    sc=$(seconds "$pgnkit" convert -q -j 1 -o /dev/null "$file")
    sa=$(seconds "$pgnkit" convert -q -j 1 --add-eco --eco-overwrite -o /dev/null "$file")
    sx=$(seconds "$pgn_extract" -s -e"$eco" -o /dev/null "$file")
    ss=$(seconds "$pgnkit" select -q -j 1 -w 'eco >= "B90" and eco <= "B99"' "$file")
    st=$(seconds "$pgn_extract" -s -e"$eco" -t "$tags" -o /dev/null "$file")
    a+=("$sa")
    c+=("$(ratio "$sa" "$sc")")
    x+=("$(ratio "$sx" "$sa")")
    s+=("$(ratio "$st" "$ss")")
  done
  printf '%-16s %7s %10s %12s %14s %14s\n' "$(basename "$file" .pgn)" "$mib" \
    "$(median_of "${a[@]}")" "$(median_of "${c[@]}")" \
    "$(median_of "${x[@]}")" "$(median_of "${s[@]}")"
done
echo "add/convert: convert --add-eco's time over plain convert's (the cost of classifying)."
echo "extract/add: pgn-extract -e's time over convert --add-eco's (> 1: pgnkit is faster)."
echo "extract/select: pgn-extract -e -t's time over select's for the B90-B99 games."
