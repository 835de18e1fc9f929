#!/usr/bin/env bash
# Times `pgnkit validate` against other tools that check every move of every game, on the
# project's standard inputs (../shared/bench/make-inputs.sh), in one run:
#   pgnkit       target/release/pgnkit validate -j 1 FILE (also -j 2 and a .zst copy unpinned,
#                convert -j 1 and -j 2, stats)
#   pgn-reader   examples/pgn_reader_replay.rs (pgn-reader + shakmaty, the Rust baseline)
#   floor        examples/shakmaty_floor.rs: the legality core alone on moves parsed beforehand
#                (shakmaty's San::to_move, and pgnkit's matcher, each with play and checks)
#   pgn-extract  pgn-extract -r (Debian package; installed with apt-get when missing)
#   python-chess benches/python_chess_replay.py (chess.pgn.read_game on every game)
# Every tool is pinned to one core (taskset -c 0) and measured with GNU time -v: wall seconds,
# MiB/s of input, peak RSS. The -j 2 speed-ups and the .zst / plain throughput are also
# measured in back-to-back pairs (median of at least 9 pairs), which this VM's drifting speed
# does not skew, and so are pgn-extract's and the pgn-reader replay's times over pgnkit's. "x pgnkit" is the tool's time per MiB over pgnkit's on the same
# input (2.0 = takes twice as long as pgnkit; below 1 = faster than pgnkit).
#
# Usage: benches/compare.sh [--quick] [--no-python] [--only NAME]... [--repeat N] [--out FILE]
#                           [--no-build]
#   --quick      python-chess reads only the first 10 MiB of each input (whole games); it needs
#                about 4 s per MiB here, so the full inputs cost it some 20 minutes
#   --no-python  leave python-chess out
#   --only NAME  only this input (lichess100, twic100, tcec150); repeatable
#   --repeat N   run each measurement N times and keep the fastest (default 1)
#   --out FILE   also write the table (Markdown) to FILE
#   --no-build   use the binaries already built
#   --pgo BIN    also time BIN (a profile-guided build, benches/pgo-build.sh) as pgnkit-pgo,
#                alone and in pairs with the plain build and with pgn-extract
# Inputs go to $CARGO_TARGET_DIR/bench-inputs (default target/bench-inputs).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}

quick=0 python=1 repeat=1 out="" build=1 only=() pgo=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-python) python=0 ;;
    --only) only+=("$2"); shift ;;
    --repeat) repeat=$2; shift ;;
    --out) out=$2; shift ;;
    --no-build) build=0 ;;
    --pgo) pgo=$2; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "compare.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ ${#only[@]} -gt 0 ] || only=(lichess100 twic100 tcec150)

section() { printf '\n=== %s ===\n' "$*" >&2; }

section "tools"
need_apt=()
[ -x /usr/bin/time ] || need_apt+=(time)
command -v zstd >/dev/null || need_apt+=(zstd)
command -v taskset >/dev/null || need_apt+=(util-linux)
pgn_extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
[ -x "$pgn_extract" ] || need_apt+=(pgn-extract)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing ${need_apt[*]}" >&2
  apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >&2
fi
py=""
[ "$python" = 1 ] && py=$(bash .ci/python-env.sh)

if [ "$build" = 1 ]; then
  section "build (release)"
  cargo build --release --bin pgnkit --example pgn_reader_replay --example shakmaty_floor >&2
fi
pgnkit=$target/release/pgnkit
reader=$target/release/examples/pgn_reader_replay
floor=$target/release/examples/shakmaty_floor
for bin in "$pgnkit" "$reader" "$floor" ${pgo:+"$pgo"}; do
  [ -x "$bin" ] || { echo "compare.sh: $bin is missing; run without --no-build" >&2; exit 2; }
done

section "inputs"
inputs=$target/bench-inputs
# make-inputs.sh rewrites the 100 MB files each time: leave them be while another run reads them.
if [ -s "$inputs/lichess100.pgn" ] && [ -s "$inputs/twic100.pgn" ] && [ -s "$inputs/tcec150.pgn" ]; then
  ls -l "$inputs"/{lichess100,twic100,tcec150}.pgn >&2
elif [ -f ../shared/bench/make-inputs.sh ]; then
  bash ../shared/bench/make-inputs.sh "$inputs" >&2
else
  # A clone without the project's shared folder: the inputs are the user's to place.
  echo "compare.sh: put lichess100.pgn, twic100.pgn and tcec150.pgn in $inputs" >&2
  echo "  (docs/performance.md, \"Reproducing the figures\", says what they hold)" >&2
  exit 2
fi

. benches/head-of.sh

# measure NAME FILE CMD...: best of $repeat runs; appends "name file bytes seconds rss_kib".
rows=()
measure() {
  local name=$1 file=$2; shift 2
  local best="" rss="" log status
  log=$(mktemp)
  cat "$file" >/dev/null # same warm page cache for every tool
  for _ in $(seq "$repeat"); do
    status=0
    if [ "${name%-j2}" != "$name" ] || [ "${name%-zst}" != "$name" ]; then
      # The parallel runs get every core, and so does the .zst run: its decompression has a
      # thread of its own.
      /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$log.err" || status=$?
    else
      taskset -c 0 /usr/bin/time -v -o "$log" "$@" >/dev/null 2>"$log.err" || status=$?
    fi
    # pgnkit exits 1 when it finds problems in the input; only 2 and up mean it failed.
    if [ "$status" -gt 1 ] || { [ "$status" = 1 ] && [ "${name#pgnkit}" = "$name" ]; }; then
      echo "compare.sh: $name failed on $file (exit $status):" >&2
      tail -5 "$log.err" >&2
      rm -f "$log" "$log.err"
      return 1
    fi
    local secs kib
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ {
      n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
    kib=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")
    if [ -z "$best" ] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
      best=$secs rss=$kib
    fi
  done
  rm -f "$log" "$log.err"
  # MiB/s counts the uncompressed input: for a .zst copy, the size of the plain file.
  rows+=("$name $file $(stat -c %s "${file%.zst}") $best $rss")
  printf '%-13s %-22s %8.2f s\n' "$name" "$(basename "$file")" "$best" >&2
}

section "measurements (one core each)"
for name in "${only[@]}"; do
  file=$inputs/$name.pgn
  [ -f "$file" ] || { echo "compare.sh: no input $file" >&2; exit 2; }
  measure pgnkit "$file" "$pgnkit" validate -q -j 1 "$file"
  measure pgnkit-j2 "$file" "$pgnkit" validate -q -j 2 "$file"
  [ -z "$pgo" ] || measure pgnkit-pgo "$file" "$pgo" validate -q -j 1 "$file"
  [ -s "$file.zst" ] || zstd -q -k -T0 "$file"
  measure pgnkit-zst "$file.zst" "$pgnkit" validate -q -j 1 "$file.zst"
  measure pgnkit-convert-san "$file" "$pgnkit" convert -q -j 1 --to san "$file"
  measure pgnkit-convert-san-j2 "$file" "$pgnkit" convert -q -j 2 --to san "$file"
  measure pgnkit-convert-zh "$file" "$pgnkit" convert -q -j 1 --to zh "$file"
  measure pgnkit-stats "$file" "$pgnkit" stats -q -j 1 --report summary "$file"
  measure pgn-reader "$file" "$reader" "$file"
  measure pgn-extract "$file" "$pgn_extract" -r -s --quiet "$file"
  if [ "$python" = 1 ]; then
    pyfile=$file
    [ "$quick" = 1 ] && pyfile=$(head_of "$file" 10)
    measure python-chess "$pyfile" "$py" benches/python_chess_replay.py "$pyfile"
  fi
done

# The legality core's floor: shakmaty alone, timed inside the program on moves parsed beforehand.
section "legality-core floor (one core)"
floors=()
for name in "${only[@]}"; do
  file=$inputs/$name.pgn
  line=$(taskset -c 0 "$floor" "$file" 3)
  echo "$line" >&2
  floors+=("$(basename "$file") $(echo "$line" | sed -E 's/.*to_move\+play ([0-9.]+) MiB\/s, to_move\+play\+is_check ([0-9.]+) MiB\/s, pgnkit-matcher\+play\+checkers ([0-9.]+) MiB\/s/\1 \2 \3/')")
done

# Ratios between two pgnkit runs (-j 2 over -j 1, .zst over plain) drift with this VM's
# speed from one minute to the next, so they are also measured in pairs run back to back and
# reported as the median of the pairs' ratios, with the lowest and highest.
wall() { # CMD...: wall seconds of one run, to the microsecond (GNU time's %e has 10 ms steps,
  # a twentieth of a TCEC run with two jobs)
  local start end status=0
  start=$EPOCHREALTIME
  "$@" >/dev/null 2>/dev/null || status=$?
  end=$EPOCHREALTIME
  [ "$status" -le 1 ] || { echo "compare.sh: $* failed (exit $status)" >&2; return 1; }
  awk -v s="$start" -v e="$end" 'BEGIN { printf "%.6f\n", e - s }'
}
pairs=()
paired() { # NAME FILE A-CMD... -- B-CMD...: median of time(A) / time(B) over the pairs
  local name=$1 file=$2; shift 2
  local a=() b=() seen=0 ratios=()
  for arg in "$@"; do
    if [ "$arg" = -- ]; then seen=1; elif [ $seen = 0 ]; then a+=("$arg"); else b+=("$arg"); fi
  done
  # The two take turns at running first: the second run of a pair can be the faster one
  # whichever it is (seen on lichess's short runs).
  local k
  for k in $(seq "$pair_runs"); do
    local ta tb
    if [ $((k % 2)) = 1 ]; then
      ta=$(wall "${a[@]}") tb=$(wall "${b[@]}")
    else
      tb=$(wall "${b[@]}") ta=$(wall "${a[@]}")
    fi
    ratios+=("$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }')")
  done
  local sorted
  sorted=$(printf '%s\n' "${ratios[@]}" | sort -g)
  pairs+=("$name $(basename "$file") $(echo "$sorted" | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.2f %.2f %.2f %d", m, v[1], v[NR], NR }')")
  printf '%-30s %-16s %s\n' "$name" "$(basename "$file")" "$(echo "$sorted" | tr '\n' ' ')" >&2
}
pair_runs=$(( repeat > 9 ? repeat : 9 ))
section "pairs (-j 1 and -j 2, plain and .zst, another tool and pgnkit, taking turns at running first; $pair_runs pairs each)"
for name in "${only[@]}"; do
  file=$inputs/$name.pgn
  paired "validate -j 2 speed-up" "$file" \
    "$pgnkit" validate -q -j 1 "$file" -- "$pgnkit" validate -q -j 2 "$file"
  paired "convert --to san -j 2 speed-up" "$file" \
    "$pgnkit" convert -q --to san -j 1 "$file" -- "$pgnkit" convert -q --to san -j 2 "$file"
  paired "validate .zst / plain throughput" "$file" \
    "$pgnkit" validate -q -j 1 "$file" -- "$pgnkit" validate -q -j 1 "$file.zst"
  # The one-thread comparisons with other tools, in pairs too: the best-of-N table above
  # takes each tool's runs minutes apart, when this VM may run at another speed.
  paired "pgn-extract's time / validate -j 1's" "$file" \
    taskset -c 0 "$pgn_extract" -r -s --quiet "$file" -- \
    taskset -c 0 "$pgnkit" validate -q -j 1 "$file"
  paired "pgn-reader replay's time / validate -j 1's" "$file" \
    taskset -c 0 "$reader" "$file" -- taskset -c 0 "$pgnkit" validate -q -j 1 "$file"
  if [ -n "$pgo" ]; then
    paired "validate -j 1's time / the PGO build's" "$file" \
      taskset -c 0 "$pgnkit" validate -q -j 1 "$file" -- taskset -c 0 "$pgo" validate -q -j 1 "$file"
    paired "pgn-extract's time / the PGO build's" "$file" \
      taskset -c 0 "$pgn_extract" -r -s --quiet "$file" -- \
      taskset -c 0 "$pgo" validate -q -j 1 "$file"
  fi
done
pair_table=$(printf '%s\n' "${pairs[@]}" | awk '
  BEGIN { print "| ratio | file | median | lowest | highest | pairs |"; print "|---|---|---:|---:|---:|---:|" }
  { n = split($0, w, " "); name = w[1]; for (i = 2; i <= n - 5; i++) name = name " " w[i]
    printf "| %s | %s | %s | %s | %s | %s |\n", name, w[n-4], w[n-3], w[n-2], w[n-1], w[n] }')

# The table: the ratio compares time per MiB with pgnkit's on the same input (a head of an
# input is compared with pgnkit on the whole input, whose speed is taken as the same).
table=$(printf '%s\n' "${rows[@]}" | awk '
  { name[NR] = $1; file[NR] = $2; mib[NR] = $3 / 1048576; secs[NR] = $4; rss[NR] = $5 / 1024
    input = $2; sub(/.*\//, "", input); sub(/-head[0-9]+/, "", input); sub(/\.zst$/, "", input)
    base[NR] = input
    if ($1 == "pgnkit") per_mib[input] = $4 / mib[NR] }
  END {
    print "| tool | file | MiB | seconds | MiB/s | peak RSS MiB | x pgnkit |"
    print "|---|---|---:|---:|---:|---:|---:|"
    for (i = 1; i <= NR; i++) {
      f = file[i]; sub(/.*\//, "", f)
      speed = secs[i] > 0 ? sprintf("%.1f", mib[i] / secs[i]) : "-"
      ratio = (base[i] in per_mib) && per_mib[base[i]] > 0 ? \
        sprintf("%.2f", secs[i] / mib[i] / per_mib[base[i]]) : "-"
      printf "| %s | %s | %.1f | %.2f | %s | %.1f | %s |\n", \
        name[i], f, mib[i], secs[i], speed, rss[i], ratio
    }
  }')

floor_table=$( { printf '%s\n' "${rows[@]}" | awk '$1 == "pgnkit" { f = $2; sub(/.*\//, "", f); printf "run %s %.6f\n", f, $3 / 1048576 / $4 }'
  printf 'floor %s\n' "${floors[@]}"; } | awk '
  BEGIN { print "| file | shakmaty San::to_move + play, MiB/s | the same + is_check, MiB/s | pgnkit matcher + play + checkers, MiB/s | pgnkit validate -j 1, MiB/s | validate / pgnkit core |"
          print "|---|---:|---:|---:|---:|---:|" }
  $1 == "run" { run[$2] = $3 }
  $1 == "floor" { order[++n] = $2; a[$2] = $3; b[$2] = $4; c[$2] = $5 }
  END { for (i = 1; i <= n; i++) { f = order[i]
    printf "| %s | %.1f | %.1f | %.1f | %.1f | %.2f |\n", f, a[f], b[f], c[f], run[f], (c[f] > 0 ? run[f] / c[f] : 0) } }')

section "results"
echo "pgnkit $("$pgnkit" --version 2>/dev/null || echo '(no --version)'); $(nproc) cores;" \
  "$(date -u +%Y-%m-%dT%H:%MZ)"
echo "$table"
echo
echo "$floor_table"
echo
echo "$pair_table"
if [ -n "$out" ]; then
  { echo "pgnkit $(git rev-parse --short HEAD) $(date -u +%Y-%m-%dT%H:%MZ)"; echo; echo "$table"
    echo; echo "$floor_table"; echo; echo "$pair_table"; } >"$out"
  echo "table written to $out" >&2
fi
