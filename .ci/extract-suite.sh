#!/usr/bin/env bash
# Issue 44: pgn-extract's own test suite as a conformance step. testdata/extract/cases.tsv
# mirrors its test/Makefile case by case on our own games; expected/NAME.pgn is what
# pgn-extract writes for each (tests/extract.rs checks pgnkit against them, with no
# pgn-extract needed).
#
#   .ci/extract-suite.sh --regenerate   writes expected/NAME.pgn with the pgn-extract installed,
#                                       and expected/NAME.pgnkit.pgn (pgnkit's own output) for
#                                       the cases where pgnkit differs on purpose
#   .ci/extract-suite.sh                writes them to a temporary folder and compares: a
#                                       pgn-extract that now writes otherwise is seen here
#
# Skips with a message when pgn-extract is not installed (it fetches nothing).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=testdata/extract
extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
if [ ! -x "$extract" ]; then
  echo "skipped: pgn-extract is not installed"
  exit 0
fi
echo "$("$extract" --version 2>&1 | head -1)"
regenerate=false
[ "${1:-}" = "--regenerate" ] && regenerate=true
if $regenerate; then
  out=$dir/expected
  bin=${PGNKIT:-${CARGO_TARGET_DIR:-target}/debug/pgnkit}
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"
set -f # options are words, not globs
cases=0
while IFS=$'\t' read -r name _target _compare ours theirs note; do
  case "$name" in '#'* | '') continue ;; esac
  eval "theirs_args=($theirs)"
  "$extract" "${theirs_args[@]}" $dir/games.pgn > "$out/$name.pgn" 2>/dev/null
  if $regenerate && [ "$note" != same ]; then
    eval "ours_args=($ours)"
    "$bin" "${ours_args[@]}" -q $dir/games.pgn > "$out/$name.pgnkit.pgn" || true
  fi
  cases=$((cases + 1))
done < $dir/cases.tsv
if $regenerate; then
  echo "$cases cases written to $out"
  exit 0
fi
set +f
failed=0
for file in "$out"/*.pgn; do
  if ! cmp -s "$file" "$dir/expected/$(basename "$file")"; then
    echo "pgn-extract now writes otherwise: $dir/expected/$(basename "$file")"
    diff "$dir/expected/$(basename "$file")" "$file" | head -20 || true
    failed=$((failed + 1))
  fi
done
echo "$cases cases, $failed where pgn-extract writes otherwise than the expected files"
[ "$failed" -eq 0 ]
