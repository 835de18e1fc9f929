#!/usr/bin/env bash
# Issue 5: the output of --jobs N is byte-identical to --jobs 1, on the whole shared corpus,
# for validate, convert and stats; and a .zst copy gives the same output as the plain file.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PGNKIT:-${CARGO_TARGET_DIR:-target}/release/pgnkit}
corpus=../shared/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zstd -dqc "$corpus/tcec/tcec-shared.pgn.zst" > "$tmp/tcec.pgn"
files=("$corpus"/python-chess/*.pgn "$corpus"/chess-library/*.pgn "$corpus"/lichess/*.pgn
       "$corpus"/twic/*.pgn "$corpus"/eco/eco.pgn "$corpus"/chinese/primer-legall.txt "$tmp/tcec.pgn")
status=0
compare() { # name, then the command without -j
  local name=$1; shift
  "$bin" "$@" -j 1 > "$tmp/one" 2>/dev/null || true
  "$bin" "$@" -j 2 > "$tmp/two" 2>/dev/null || true
  if cmp -s "$tmp/one" "$tmp/two"; then
    echo "same output with -j 1 and -j 2: $name ($(wc -c < "$tmp/one") bytes)"
  else
    echo "DIFFERENT output with -j 1 and -j 2: $name"; status=1
  fi
}
compare "validate (json, game records)" validate -q --format json --game-records --notes "${files[@]}"
compare "validate (text)" validate -q --notes "${files[@]}"
compare "convert --to zh (jsonl)" convert -q --to zh --format jsonl "${files[@]}"
compare "convert --to san (pgn)" convert -q --to san "${files[@]}"
for jobs in 1 2; do "$bin" stats -q -j $jobs --out "$tmp/stats$jobs" "${files[@]}" >/dev/null 2>&1 || true; done
if diff -r "$tmp/stats1" "$tmp/stats2" >/dev/null; then echo "same stats reports with -j 1 and -j 2"
else echo "DIFFERENT stats reports with -j 1 and -j 2"; status=1; fi
# A compressed copy reads the same.
"$bin" validate -q --format json --game-records "$corpus/tcec/tcec-shared.pgn.zst" | sed 's#"file":"[^"]*"##' > "$tmp/zst" || true
"$bin" validate -q --format json --game-records "$tmp/tcec.pgn" | sed 's#"file":"[^"]*"##' > "$tmp/plain" || true
if cmp -s "$tmp/zst" "$tmp/plain"; then echo "same output for the .zst and the plain TCEC file"
else echo "DIFFERENT output for the .zst and the plain TCEC file"; status=1; fi
exit $status
