#!/usr/bin/env bash
# Issue 3: `convert --to san` output is read back by pgn-extract and python-chess to the same
# final positions as the original files (lichess and TWIC samples of the shared corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${PGNKIT:-${CARGO_TARGET_DIR:-target}/release/pgnkit}
python=${PYTHON:-python3}
corpus=../shared/corpus
extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
if [ ! -x "$extract" ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgn-extract >/dev/null
  extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat "$corpus/twic/twic1599_1000k.pgn" "$corpus/lichess/lichess_db_1000k.pgn" > "$tmp/orig.pgn"
"$bin" convert -q --to san "$tmp/orig.pgn" -o "$tmp/conv.pgn"
fens() { "$extract" -F -s "$1" 2>/dev/null | grep -o '{ "[^"]*" }'; }
fens "$tmp/orig.pgn" > "$tmp/orig.fen"
fens "$tmp/conv.pgn" > "$tmp/conv.fen"
if ! cmp -s "$tmp/orig.fen" "$tmp/conv.fen"; then
  echo "pgn-extract reads different final positions from the converted file"; exit 1
fi
echo "pgn-extract: $(wc -l < "$tmp/conv.fen") final positions identical"
"$python" - "$tmp/orig.pgn" "$tmp/conv.pgn" <<'PY'
import sys, chess.pgn
def finals(path):
    out = []
    with open(path, encoding="utf-8") as f:
        while (g := chess.pgn.read_game(f)) is not None:
            out.append(g.end().board().fen())
    return out
a, b = finals(sys.argv[1]), finals(sys.argv[2])
same = sum(x == y for x, y in zip(a, b))
print(f"python-chess: {same} of {len(a)} final positions identical ({len(b)} games converted)")
sys.exit(0 if len(a) == len(b) == same else 1)
PY
