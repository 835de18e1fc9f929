#!/usr/bin/env bash
# Instructions per MiB of input (callgrind), the figure that does not drift with this VM's
# speed: `pgnkit validate -j 1`, `convert --to san -j 1`, `stats -j 1` and the pgn-reader +
# shakmaty baseline (examples/pgn_reader_replay.rs), on the first MiB of the lichess and TWIC
# inputs and the first 10 MiB of the TCEC one (cut at a game boundary, as compare.sh cuts them).
#
# Usage: benches/instructions.sh [--no-build] [--pgnkit BIN] [--out FILE]
#   --no-build    use the binaries already built
#   --pgnkit BIN  count this pgnkit binary instead (a build of an older commit, to compare)
#   --out FILE    also write the table (Markdown) to FILE
# Needs valgrind (installed with apt-get when missing) and the inputs of compare.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
build=1
out=""
pgnkit=$target/release/pgnkit
while [ $# -gt 0 ]; do
  case $1 in
    --no-build) build=0 ;;
    --out) out=$2; shift ;;
    --pgnkit) pgnkit=$2; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "instructions.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if ! command -v valgrind >/dev/null; then
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq valgrind >&2
fi
if [ "$build" = 1 ]; then
  cargo build --release --bin pgnkit --example pgn_reader_replay >&2
fi
reader=$target/release/examples/pgn_reader_replay
inputs=$target/bench-inputs
. benches/head-of.sh
bench_inputs "$inputs"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
table="| input | MiB | validate | convert --to san | stats | pgn-reader replay | validate / pgn-reader |
|---|---:|---:|---:|---:|---:|---:|"
for spec in lichess100:1 twic100:1 tcec150:10; do
  file=$(head_of "$inputs/${spec%%:*}.pgn" "${spec##*:}")
  mib=$(stat -c %s "$file" | awk '{printf "%.3f", $1 / 1048576}')
  v=$(count "$pgnkit" validate -q -j 1 "$file")
  c=$(count "$pgnkit" convert -q --to san -j 1 -o "$scratch/out.pgn" "$file")
  s=$(count "$pgnkit" stats -q -j 1 --out "$scratch/stats" "$file")
  r=$(count "$reader" "$file")
  table+=$'\n'$(awk -v f="$(basename "$file")" -v m="$mib" -v v="$v" -v c="$c" -v s="$s" -v r="$r" \
    'BEGIN { printf "| %s | %.2f | %.1f M | %.1f M | %.1f M | %.1f M | %.2f |", f, m, v/m/1e6, c/m/1e6, s/m/1e6, r/m/1e6, v/r }')
done
echo "instructions per MiB, $pgnkit ($(git rev-parse --short HEAD))"
echo "$table"
[ -z "$out" ] || printf 'instructions per MiB, %s (%s)\n\n%s\n' "$pgnkit" "$(git rev-parse --short HEAD)" "$table" > "$out"
