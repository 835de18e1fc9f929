#!/usr/bin/env bash
# Times two pgnkit builds against each other in pinned pairs: `validate -q -j 1 FILE` (or
# another command: the words after `--`, to which `-q -j 1 FILE` is added) with build A, then
# with build B (or B then A: the two take turns at running first, since on this
# kind of VM the second run of a pair is often the faster), both pinned to one core. Prints
# B's time over A's: the geometric mean and the median over the pairs, and the lowest and
# highest pair. Below 1, B is faster.
#
# Usage: benches/pairs.sh A B FILE [PAIRS] [-- COMMAND...]   (PAIRS defaults to 10)
#   e.g. benches/pairs.sh A B FILE 20 -- convert --to san
#        benches/pairs.sh A B FILE 20 -- stats --out /tmp/pairs-stats
#
# Single pairs on a shared VM range from 0.75 to 1.4, so a change of a few per cent needs the
# full-size inputs (target/bench-inputs/*.pgn, made by benches/compare.sh) and ten pairs or
# more. See benches/NOTES.md, "Reading the figures".
set -euo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
a=$1 b=$2 file=$3
shift 3
pairs=10
if [ $# -gt 0 ] && [ "$1" != -- ]; then
  pairs=$1
  shift
fi
command=(validate)
if [ $# -gt 0 ] && [ "$1" = -- ]; then
  shift
  [ $# -gt 0 ] && command=("$@")
fi
for bin in "$a" "$b"; do
  [ -x "$bin" ] || { echo "pairs.sh: $bin is not an executable" >&2; exit 2; }
done
[ -r "$file" ] || { echo "pairs.sh: cannot read $file" >&2; exit 2; }

pin=()
command -v taskset >/dev/null && pin=(taskset -c 0)

seconds() {
  local start end
  start=$(date +%s%N)
  "${pin[@]}" "$1" "${command[@]}" -q -j 1 "$file" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo $((end - start))
}

ratios=()
for ((i = 0; i < pairs; i++)); do
  if ((i % 2 == 0)); then
    ta=$(seconds "$a")
    tb=$(seconds "$b")
  else
    tb=$(seconds "$b")
    ta=$(seconds "$a")
  fi
  ratios+=("$(awk -v x="$tb" -v y="$ta" 'BEGIN { printf "%.6f", x / y }')")
done

printf '%s\n' "${ratios[@]}" | sort -g | awk -v name="${command[0]} $(basename "$file")" '
  { r[NR] = $1; s += log($1) }
  END {
    median = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2
    printf "%s: B/A geometric mean %.3f, median %.3f, lowest %.3f, highest %.3f (%d pairs)\n",
      name, exp(s / NR), median, r[1], r[NR], NR
  }'
