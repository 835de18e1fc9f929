# Sourced by the scripts that time pgnkit beside pgn-extract on one thread (benches/eco.sh,
# benches/select.sh), after their own argument loop has set `build` (0: --no-build) and
# `files`. Sets `target`, `files` (default: the bench inputs benches/compare.sh makes),
# `pgn_extract`, `pgnkit` (built unless --no-build), `pin` (taskset to core 0 where there is
# one) and `tags` (an empty temporary file for pgn-extract -t, removed on exit); defines
# `seconds` and `median`.
target=${CARGO_TARGET_DIR:-$PWD/target}

bench_setup() {
  [ ${#files[@]} -gt 0 ] || files=("$target"/bench-inputs/*.pgn)
  pgn_extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
  [ -x "$pgn_extract" ] || { echo "pgn-extract is missing: apt-get install pgn-extract" >&2; exit 2; }
  [ "$build" = 0 ] || cargo build --release --quiet
  pgnkit=$target/release/pgnkit
  pin=()
  if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
  tags=$(mktemp)
  trap 'rm -f "$tags"' EXIT
}

# Seconds one command takes, its output thrown away.
seconds() {
  local start end
  start=$(date +%s%N)
  "${pin[@]}" "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "scale=4; ($end - $start) / 1000000000" | bc
}

# The median of the numbers on standard input, one a line.
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# $1 / $2, to three decimals.
ratio() { echo "scale=3; $1 / $2" | bc; }

# The median of the arguments.
median_of() { printf '%s\n' "$@" | median; }
