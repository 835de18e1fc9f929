#!/usr/bin/env bash
# Issue 44: `pgnkit select` beside pgn-extract. Each line of testdata/select/extract-cases.tsv
# gives pgnkit's options and pgn-extract's for the same selection on
# testdata/select/extract.pgn; both run, and the games they select (their Date tags) must be
# the same, and the ones the line names. Installs pgn-extract as readback.sh does; skips with
# a message when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PGNKIT:-${CARGO_TARGET_DIR:-target}/release/pgnkit}
# shellcheck source=.ci/pgn-extract.sh
. .ci/pgn-extract.sh
games=testdata/select/extract.pgn
dates() {
  local d
  d=$(sed -n 's/^\[Date "\(.*\)"\]$/\1/p' | tr '\n' ' ')
  d=${d% }
  echo "${d:--}"
}
set -f # patterns are words, not globs
failed=0 cases=0
while IFS=$'\t' read -r ours theirs want; do
  case "$ours" in '#'* | '') continue ;; esac
  read -r -a ours_args <<< "$ours"
  read -r -a theirs_args <<< "$theirs"
  got_ours=$("$bin" select -q -j 1 "${ours_args[@]}" "$games" | dates || true)
  got_theirs=$("$extract" -s "${theirs_args[@]}" "$games" 2>/dev/null | dates || true)
  cases=$((cases + 1))
  if [ "$got_ours" != "$got_theirs" ] || [ "$got_ours" != "$want" ]; then
    echo "differs: pgnkit select $ours: $got_ours; pgn-extract $theirs: $got_theirs; table: $want"
    failed=1
  fi
done < testdata/select/extract-cases.tsv
echo "pgn-extract: $cases selections compared"
exit "$failed"
