#!/usr/bin/env bash
# Peak memory of `pgnkit dedup` as the number of games grows with a fixed --memory-budget:
# what the budget bounds must stay flat from ten thousand games to a million. The games are
# copies of the first MiB of the TWIC bench input, each copy re-tagged (its players renamed
# and a `Copy` tag added), written to a temporary folder that also takes dedup's temporary
# files. Prints, for each count, the peak RSS (from /usr/bin/time -v), the seconds, and the
# end of the summary (the kinds found and the runs spilled).
#
# Usage: benches/dedup-memory.sh [BUDGET] [COUNTS...]   (default: 64M; 10000 100000 1000000)
# Needs /usr/bin/time (apt-get install time) and about 2 GB of temporary space for a million.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-64M}
shift || true
counts=${*:-10000 100000 1000000}
target=${CARGO_TARGET_DIR:-$PWD/target}
bin=$target/release/pgnkit
[ -x "$bin" ] || cargo build --release
inputs=${BENCH_INPUTS:-/work/bench-inputs}
. benches/head-of.sh
src=$(head_of "$inputs/twic100.pgn" 1)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# games N: N games, copies of the source's games re-tagged.
games() {
  python3 - "$src" "$1" <<'PY'
import re, sys
src, n = sys.argv[1], int(sys.argv[2])
text = open(src, encoding='utf-8', errors='replace').read()
games = [g for g in re.split(r'\n\n(?=\[Event )', text.strip()) if g]
out = sys.stdout
for i in range(n):
    g = games[i % len(games)]
    copy = i // len(games)
    g = re.sub(r'^\[(White|Black) "', lambda m: f'[{m.group(1)} "c{copy} ', g, count=2, flags=re.M)
    out.write(f'[Copy "{copy}"]\n{g}\n\n')
PY
}

printf '%-10s %-8s %12s %8s  %s\n' games budget "peak RSS MB" seconds summary
for n in $counts; do
  games "$n" >"$tmp/in.pgn"
  /usr/bin/time -v "$bin" dedup -j 1 "$tmp/in.pgn" -o "$tmp/out.pgn" --temp-dir "$tmp" \
    --memory-budget "$budget" 2>"$tmp/log" >/dev/null || true
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$tmp/log")
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$tmp/log")
  summary=$(grep '^pgnkit: ' "$tmp/log" | head -1 | sed 's/.*duplicates\{0,1\} *//')
  printf '%-10s %-8s %12s %8s  %s\n' "$n" "$budget" "$((rss / 1024))" "$secs" "$summary"
  rm -f "$tmp/in.pgn" "$tmp/out.pgn"
done
