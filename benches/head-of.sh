# Sourced by the bench scripts.
#
# bench_inputs DIR: makes the three bench inputs in DIR unless they are there.
bench_inputs() {
  local f
  for f in lichess100 twic100 tcec150; do
    [ -s "$1/$f.pgn" ] || { bash ../shared/bench/make-inputs.sh "$1" >&2; return; }
  done
}

# head_of FILE MIB: prints the path of the first MIB MiB of
# FILE cut at a game boundary (FILE without .pgn, then -headMIB.pgn), made once.
head_of() {
  local src=$1 mib=$2 dst=${1%.pgn}-head${2}.pgn
  [ -s "$dst" ] || python3 - "$src" "$dst" "$mib" <<'PY'
import sys
src, dst, mib = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(src, 'rb').read(mib << 20)
cut = max(data.rfind(b'\n\n[Event '), data.rfind(b'\r\n\r\n[Event '))
open(dst, 'wb').write(data[:cut].rstrip(b'\r\n') + b'\n\n')
PY
  echo "$dst"
}

# count CMD...: instructions of one run (callgrind), for the scripts that compare counts.
count() {
  local log
  log=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" >/dev/null 2>"$log" || true
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$log" | tail -1
  rm -f "$log"
}
