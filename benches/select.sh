#!/usr/bin/env bash
# Times `pgnkit select` beside `pgnkit validate` and `pgn-extract -t`, in one run, on one
# thread each:
#   validate     pgnkit validate -j 1 -q FILE                     (the replay of every game)
#   select-tags  pgnkit select -j 1 -q -w 'WhiteElo >= 2500' FILE (tags only: no replay)
#   select-end   pgnkit select -j 1 -q -w 'termination = checkmate' FILE (a replay a game)
#   select-pat   pgnkit select -j 1 -q --fen-pattern '*/*/*/*/???PP???/*/*/*' FILE (a
#                position pattern tested at every ply until it matches)
#   select-mat   pgnkit select -j 1 -q -w 'balance = "R R"' FILE (a material balance
#                tested at every ply: rook endings, which few games reach)
#   pgn-extract  pgn-extract -t TAGFILE with `WhiteElo >= "2500"` (the same tag selection)
# Each round runs the six back to back, in turn, N rounds (default 5); the machine is
# shared, so the script reports medians of per-round ratios, which drift less than times:
# validate's time over each select's (1.0 = as fast as validate; the goal is 0.8 or more),
# and pgn-extract's time over select-tags'. Every command writes to /dev/null. The games
# selected are counted once by both tools, as a check that they select alike (the tags, the
# pattern with -Tf, the balance with -z).
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
pattern='*/*/*/*/???PP???/*/*/*'
balance=$(mktemp)
trap 'rm -f "$tags" "$balance"' EXIT
echo 'R R' > "$balance"
# The same number of games from both tools, or a note.
same() {
  local what=$1 ours=$2 theirs=$3
  [ "$ours" = "$theirs" ] || echo "note: $file: $what: select picked $ours games, pgn-extract $theirs" >&2
}

printf '%-16s %8s %12s %12s %12s %12s %12s %14s\n' input MiB 'validate s' 'tags/valid' \
  'end/valid' 'pat/valid' 'mat/valid' 'extract/tags'
for file in "${files[@]}"; do
  mib=$(echo "scale=1; $(stat -c %s "$file") / 1048576" | bc)
  count_theirs() { "$pgn_extract" -s "$@" "$file" 2>/dev/null | grep -c '^\[Event ' || true; }
  same tags "$("$pgnkit" select -q -j 1 --count -w 'WhiteElo >= 2500' "$file" || true)" \
    "$(count_theirs -t "$tags")"
  same pattern "$("$pgnkit" select -q -j 1 --count --fen-pattern "$pattern" "$file" || true)" \
    "$(count_theirs "-Tf$pattern")"
  same balance "$("$pgnkit" select -q -j 1 --count -z "$balance" "$file" || true)" \
    "$(count_theirs -z "$balance")"
  v=() t=() e=() p=() m=() x=()
  for _ in $(seq "$rounds"); do
    sv=$(seconds "$pgnkit" validate -q -j 1 "$file")
    st=$(seconds "$pgnkit" select -q -j 1 -w 'WhiteElo >= 2500' "$file")
    se=$(seconds "$pgnkit" select -q -j 1 -w 'termination = checkmate' "$file")
    sp=$(seconds "$pgnkit" select -q -j 1 --fen-pattern "$pattern" "$file")
    sm=$(seconds "$pgnkit" select -q -j 1 -w 'balance = "R R"' "$file")
    sx=$(seconds "$pgn_extract" -s -t "$tags" -o /dev/null "$file")
    v+=("$sv")
    t+=("$(ratio "$sv" "$st")")
    e+=("$(ratio "$sv" "$se")")
    p+=("$(ratio "$sv" "$sp")")
    m+=("$(ratio "$sv" "$sm")")
    x+=("$(ratio "$sx" "$st")")
  done
  printf '%-16s %8s %12s %12s %12s %12s %12s %14s\n' "$(basename "$file" .pgn)" "$mib" \
    "$(median_of "${v[@]}")" "$(median_of "${t[@]}")" "$(median_of "${e[@]}")" \
    "$(median_of "${p[@]}")" "$(median_of "${m[@]}")" "$(median_of "${x[@]}")"
done
echo "tags/valid, end/valid, pat/valid, mat/valid: validate's time over select's (>= 0.8 is"
echo "the goal; > 1 is faster)."
echo "extract/tags: pgn-extract -t's time over select's for the same tag selection."
