#!/usr/bin/env bash
# CI step: `pgnkit stats` over every PGN file of the shared corpus (the TCEC archive
# decompressed first). Fails if pgnkit fails (exit 2) or a report is missing or has no header;
# exit 1 (some games have errors) is expected on this corpus. Then checks that merging partial
# results of two files gives the same reports as one run over both.
set -euo pipefail
cd "$(dirname "$0")/.."
pgnkit=${PGNKIT:-${CARGO_TARGET_DIR:-target}/release/pgnkit}
corpus=${CORPUS:-../shared/corpus}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pgnkit-stats.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

files=()
for dir in python-chess chess-library lichess twic eco; do
  for f in "$corpus/$dir"/*.pgn; do
    [ -f "$f" ] && files+=("$f")
  done
done
zstd -dqc "$corpus/tcec/tcec-shared.pgn.zst" >"$tmp/tcec-shared.pgn"
files+=("$tmp/tcec-shared.pgn")
echo "stats over ${#files[@]} files"

reports=(games standings players openings terminations summary)
status=0
"$pgnkit" stats "${files[@]}" --out "$tmp/all" || status=$?
if [ "$status" -eq 2 ]; then
  echo "stats: pgnkit failed (exit 2)" >&2
  exit 1
fi
for r in "${reports[@]}"; do
  if [ ! -s "$tmp/all/$r.csv" ]; then
    echo "stats: $r.csv missing or empty" >&2
    exit 1
  fi
done
wc -l "$tmp/all/"*.csv

# merge(A, B) = stats(A B) on two corpus files.
a="$corpus/lichess/lichess_db_1000k.pgn"
b="$corpus/twic/twic1599_1000k.pgn"
"$pgnkit" stats "$a" --partial "$tmp/a.jsonl" -q || [ $? -eq 1 ]
"$pgnkit" stats "$b" --partial "$tmp/b.jsonl" -q || [ $? -eq 1 ]
"$pgnkit" stats merge "$tmp/a.jsonl" "$tmp/b.jsonl" --out "$tmp/merged" -q || [ $? -eq 1 ]
"$pgnkit" stats "$a" "$b" --out "$tmp/whole" -q || [ $? -eq 1 ]
for r in "${reports[@]}"; do
  if ! cmp -s "$tmp/merged/$r.csv" "$tmp/whole/$r.csv"; then
    echo "stats: merged $r.csv differs from one run over both files" >&2
    diff "$tmp/merged/$r.csv" "$tmp/whole/$r.csv" | head -20 >&2
    exit 1
  fi
done
echo "stats: merge of two parts matches one run"
