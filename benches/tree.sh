#!/usr/bin/env bash
# Times `pgnkit tree` beside `pgnkit validate` and `polyglot make-book`, in one run, on one
# thread each:
#   validate   pgnkit validate -j 1 -q FILE                         (the replay of every game)
#   tree       pgnkit tree -j 1 -q --max-ply 30 -o OUT.parquet FILE (the tree to ply 30)
#   tree-bin   pgnkit tree -j 1 -q --max-ply 30 --min-games 1 -o OUT.bin FILE (a Polyglot book)
#   make-book  polyglot make-book -pgn FILE -bin OUT.bin -max-ply 30 -min-game 1 (the same book)
# Each round runs the four back to back, N rounds (default 3); the machine is shared, so the
# script reports medians of per-round ratios: validate's time over tree's (the goal is 0.5 or
# more) and make-book's time over tree-bin's (> 1: pgnkit is faster). The books are compared
# once (cmp), and tree's peak memory is measured once (GNU time's maximum resident set).
#
# Usage: benches/tree.sh [--rounds N] [--no-build] FILE...
#   (default FILEs: $CARGO_TARGET_DIR/bench-inputs/{lichess100,twic100}.pgn, as
#   ../shared/bench/make-inputs.sh makes them)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=3 build=1 files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds=$2; shift ;;
    --no-build) build=0 ;;
    *) files+=("$1") ;;
  esac
  shift
done
# `seconds`, `median_of` and `ratio` (its pgn-extract set-up is not used here).
. benches/pgn-extract-common.sh
[ ${#files[@]} -gt 0 ] || files=("$target"/bench-inputs/lichess100.pgn "$target"/bench-inputs/twic100.pgn)
[ "$build" = 0 ] || cargo build --release --quiet
pgnkit=$target/release/pgnkit
polyglot=$(command -v polyglot || echo /usr/games/polyglot)
[ -x "$polyglot" ] || { echo "polyglot is missing: apt-get install polyglot" >&2; exit 2; }
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT


printf '%-12s %6s %10s %10s %10s %12s %10s %10s %8s\n' input MiB 'validate s' 'tree s' \
  'tree/valid' 'make-book s' 'book/bin' 'MiB/Mply' 'books'
for file in "${files[@]}"; do
  mib=$(echo "scale=1; $(stat -c %s "$file") / 1048576" | bc)
  v=() t=() r=() m=() b=()
  for _ in $(seq "$rounds"); do
    sv=$(seconds "$pgnkit" validate -q -j 1 "$file")
    st=$(seconds "$pgnkit" tree -q -j 1 --max-ply 30 -o "$out/tree.parquet" "$file")
    sb=$(seconds "$pgnkit" tree -q -j 1 --max-ply 30 --min-games 1 -o "$out/ours.bin" "$file")
    sm=$(seconds "$polyglot" make-book -pgn "$file" -bin "$out/theirs.bin" -max-ply 30 -min-game 1)
    v+=("$sv") t+=("$st") m+=("$sm")
    r+=("$(ratio "$sv" "$st")")
    b+=("$(ratio "$sm" "$sb")")
  done
  same=$(cmp -s "$out/ours.bin" "$out/theirs.bin" && echo same || echo differ)
  # Peak memory per million plies: the resident set over the plies the summary counts.
  summary=$( { /usr/bin/time -f 'rss %M' "$pgnkit" tree -j 1 --max-ply 30 -o "$out/tree.parquet" "$file" >/dev/null; } 2>&1 )
  plies=$(echo "$summary" | sed -n 's/.* games: \([0-9]*\) plies.*/\1/p')
  rss=$(echo "$summary" | sed -n 's/^rss \([0-9]*\)$/\1/p')
  per=$(echo "scale=1; $rss / 1024 / ($plies / 1000000)" | bc)
  printf '%-12s %6s %10s %10s %10s %12s %10s %10s %8s\n' "$(basename "$file" .pgn)" "$mib" \
    "$(median_of "${v[@]}")" "$(median_of "${t[@]}")" "$(median_of "${r[@]}")" \
    "$(median_of "${m[@]}")" "$(median_of "${b[@]}")" "$per" "$same"
done
echo "tree/valid: validate's time over tree's (>= 0.5 is the goal); book/bin: make-book's time"
echo "over tree -o .bin's (> 1: pgnkit is faster); MiB/Mply: tree's peak resident memory over"
echo "the millions of plies it counted (with the default --memory-budget 256M); books: whether"
echo "the two books are the same bytes."
