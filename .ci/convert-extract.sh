#!/usr/bin/env bash
# Issue 44: `pgnkit convert`'s rewrites beside pgn-extract. Each line of
# testdata/convert/keeper/cases.tsv gives pgnkit's options and pgn-extract's for the same
# rewrite of a file there (games.pgn unless the line names another); both run, and their games
# must be the same once the layout is set aside (move numbers, line breaks, the spaces inside
# comment braces): the same tags in the same order, moves, comments, NAGs, variations and
# results. With pgnkit's --layout export (PGN's export format as pgn-extract writes it) the
# outputs must be the same byte for byte. Installs pgn-extract as select-extract.sh does;
# skips with a message when it cannot.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PGNKIT:-${CARGO_TARGET_DIR:-target}/release/pgnkit}
# shellcheck source=.ci/pgn-extract.sh
. .ci/pgn-extract.sh
# One game a line, its layout set aside (and the quotes pgn-extract's -F puts around its FEN). A game left with no move (every ply dropped) is
# written by pgnkit, at its final position, and not by pgn-extract (docs/convert.md says why):
# it is left out.
games_of() {
  tr '\n' ' ' | sed -E 's/(1-0|0-1|1\/2-1\/2|\*) +\[/\1\n[/g' |
    sed -E 's/(^| |\()[0-9]+\.(\.\.)? ?/\1/g; s/\{ +/{/g; s/ +\}/}/g; s/\( +/(/g; s/ +\)/)/g; s/ +/ /g; s/ $//' |
    sed -E 's/\{"([^"]*)"\}/{\1}/g' |
    grep -v -E '"\] (1-0|0-1|1/2-1/2|\*)$' || true
}
set -f # options are words, not globs
failed=0 cases=0
while IFS=$'\t' read -r name ours theirs input; do
  case "$name" in '#'* | '') continue ;; esac
  [ "$theirs" = "-" ] && continue
  games=testdata/convert/keeper/${input:-games.pgn}
  read -r -a ours_args <<< "$ours"
  read -r -a theirs_args <<< "$theirs"
  if [[ " $ours " == *" --layout export "* ]]; then
    # PGN's export format as pgn-extract writes it: byte for byte.
    got_ours=$("$bin" convert -q "${ours_args[@]}" "$games" | od -c)
    got_theirs=$("$extract" -s "${theirs_args[@]}" "$games" 2>/dev/null | od -c)
  else
    got_ours=$("$bin" convert -q "${ours_args[@]}" "$games" | games_of)
    got_theirs=$("$extract" -s "${theirs_args[@]}" "$games" 2>/dev/null | games_of)
  fi
  cases=$((cases + 1))
  if [ "$got_ours" != "$got_theirs" ]; then
    echo "differs: $name: pgnkit convert $ours / pgn-extract $theirs"
    diff <(echo "$got_ours") <(echo "$got_theirs") | head -20
    failed=1
  fi
done < testdata/convert/keeper/cases.tsv
# --keep-broken: the games with an illegal move keep the same moves before it (their comments
# differ: pgnkit keeps the rest of the movetext, comments too, and says what is wrong).
broken=testdata/convert/keeper/broken.pgn
# (pgnkit's exit status is 1: the game has an error.)
got_ours=$("$bin" convert -q --keep-broken "$broken" 2>/dev/null | games_of | sed -E 's/ ?\{[^}]*\}//g' || true)
got_theirs=$("$extract" -s --keepbroken "$broken" 2>/dev/null | games_of | sed -E 's/ ?\{[^}]*\}//g' || true)
cases=$((cases + 1))
if [ "$got_ours" != "$got_theirs" ] || [ -z "$got_ours" ]; then
  echo "differs: --keep-broken / pgn-extract --keepbroken"
  diff <(echo "$got_ours") <(echo "$got_theirs") | head -10
  failed=1
fi

# The Hash tag is the Polyglot key of the last position: pgn-extract's --hashcomments gives it
# after every move, the last one before the result.
games=testdata/convert/keeper/games.pgn
got_ours=$("$bin" convert -q --add-tags Hash "$games" | sed -n 's/^\[Hash "\(.*\)"\]$/\1/p')
got_theirs=$("$extract" -s -C -V --hashcomments -w1000 "$games" 2>/dev/null |
  grep -o '{ [0-9a-f]\{16\} } [-0-9/*]*$' | cut -c3-18 || true)
cases=$((cases + 1))
if [ "$got_ours" != "$got_theirs" ] || [ -z "$got_ours" ]; then
  echo "differs: --add-tags Hash: $got_ours / pgn-extract --hashcomments: $got_theirs"
  failed=1
fi
echo "pgn-extract: $cases rewrites compared"
exit "$failed"
