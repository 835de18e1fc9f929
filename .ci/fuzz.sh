#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ with the stable toolchain and runs each for a bounded
# time on its kept corpus (fuzz/corpus/NAME, plus testdata/fuzz/NAME), one job, at the lowest
# priority. A crash fails the run and leaves its input in target/fuzz/artifacts/NAME/: add it
# under testdata/fuzz/NAME/ as a regression test (tests/fuzz.rs replays those).
#
# No nightly is needed: the coverage instrumentation libFuzzer reads is the sancov pass, set
# with -C flags that stable rustc takes (what `cargo fuzz` sets, less -Z sanitizer: panics and
# debug assertions are the crashes looked for). The flags go to the target only
# (--target): build scripts linked with them would miss the sancov symbols.
#
# FUZZ_SECONDS=N runs each target N seconds (default 30; 0 only builds). FUZZ_TARGETS="a b"
# runs only those (for the recorded hours: one target per invocation, two at once).
# FUZZ_NICE (default 19) and FUZZ_TIMEOUT (seconds a unit may take, default 10): on a machine
# busy with builds a unit at nice 19 gets so little CPU that a half-second unit times out.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-30}
triple=$(rustc -vV | sed -n 's/^host: //p')
all_targets=(lex_replay lex_replay_full convert_round_trip decode stats_merge parquet_rows select_where)
read -r -a targets <<<"${FUZZ_TARGETS:-${all_targets[*]}}"
export CARGO_TARGET_DIR="$PWD/target/fuzz"
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions -Coverflow-checks"
command -v c++ >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++
}
nice -n 19 cargo build --release --locked --manifest-path fuzz/Cargo.toml --target "$triple" \
  "${all_targets[@]/#/--bin=}"
[ "$seconds" -gt 0 ] || exit 0
bin="$CARGO_TARGET_DIR/$triple/release"
for t in "${targets[@]}"; do
  # What libFuzzer adds goes to a scratch copy: the kept corpus changes only by hand.
  work=$(mktemp -d)
  mkdir -p "$CARGO_TARGET_DIR/artifacts/$t"
  cp -r "fuzz/corpus/$t/." "$work/" 2>/dev/null || true
  # Seeds: the project's own small test files (copied at run time, not kept twice).
  case $t in
    lex_replay) seeds=(testdata/fuzz/*.pgn testdata/diagnostics/*.pgn testdata/validate/*.pgn) ;;
    lex_replay_full) seeds=(fuzz/corpus/lex_replay/* testdata/fuzz/*.pgn testdata/diagnostics/*.pgn) ;;
    convert_round_trip) seeds=(testdata/convert/*.pgn testdata/convert/*.txt testdata/fuzz/*.pgn) ;;
    decode) seeds=(testdata/input/*.pgn testdata/convert/*.txt) ;;
    stats_merge) seeds=(testdata/stats/*.pgn) ;;
    parquet_rows) seeds=(testdata/parquet/*.pgn) ;;
    select_where) seeds=(testdata/select/*.txt) ;;
  esac
  for f in "${seeds[@]}" testdata/fuzz/"$t"/*; do
    [ -f "$f" ] && cp "$f" "$work/seed-$(basename "$f")"
  done
  echo "fuzz $t for ${seconds}s"
  status=0
  nice -n "${FUZZ_NICE:-19}" "$bin/$t" -max_total_time="$seconds" -max_len=4096 \
    -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$CARGO_TARGET_DIR/artifacts/$t/" \
    "$work" >"$work.log" 2>&1 || status=$?
  grep -aE '^(stat::number_of_executed_units|stat::average_exec_per_sec|SUMMARY)|panicked' "$work.log" || true
  [ "$status" -eq 0 ] || tail -n 40 "$work.log" >&2
  rm -f "$work.log"
  rm -rf "$work"
  if [ "$status" -ne 0 ]; then
    echo "fuzz target $t failed (exit $status); its input is in $CARGO_TARGET_DIR/artifacts/$t/" >&2
    exit 1
  fi
done
