#!/usr/bin/env bash
# Builds pgnkit with profile-guided optimisation, for a distribution build: an instrumented
# build runs `validate`, `convert` and `stats` over made-up games (examples/training_games.rs,
# the project's own data, not the corpus the benchmark inputs come from) and over testdata/;
# the release build then lays its code out by that profile. See benches/NOTES.md
# ("Instruction and data caches") for what it changes.
#
# Usage: benches/pgo-build.sh [--games N]
#   --games N   made-up games to train on (default 20000, about 35 MB)
# Prints the path of the binary: $CARGO_TARGET_DIR/pgo/release/pgnkit (default target/).
# Needs rustup's llvm-tools component (added when missing) for llvm-profdata.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
games=20000
while [ $# -gt 0 ]; do
  case $1 in
    --games) games=$2; shift ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "pgo-build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

host=$(rustc -vV | sed -n 's/^host: //p')
tools=$(rustc --print sysroot)/lib/rustlib/$host/bin
if [ ! -x "$tools/llvm-profdata" ]; then
  rustup component add llvm-tools >&2
fi

work=$target/pgo-work
rm -rf "$work"
mkdir -p "$work/profiles"
cargo build --release --example training_games >&2
"$target/release/examples/training_games" "$games" 7 >"$work/training.pgn"

# The instrumented build has a target folder of its own: its flags differ from every other
# build's, so sharing one would rebuild everything each time.
CARGO_TARGET_DIR=$target/pgo-gen RUSTFLAGS="-Cprofile-generate=$work/profiles" \
  cargo build --release --bin pgnkit >&2
gen=$target/pgo-gen/release/pgnkit
train=$work/training.pgn
testdata=$(find testdata -type f -name '*.pgn' | sort)
# pgnkit exits 1 when it finds problems (the made-up games hold a few null moves; testdata is
# mostly problems): only 2 and up is a failure.
run() { "$@" >/dev/null 2>&1 || [ $? -le 1 ] || { echo "pgo-build.sh: $* failed" >&2; exit 1; }; }
run "$gen" validate -q -j 1 "$train"
run "$gen" validate -q -j 2 "$train"
run "$gen" convert -q -j 1 --to san "$train"
run "$gen" convert -q -j 1 --to zh "$train"
run "$gen" stats -q -j 1 --out "$work/stats" "$train"
# shellcheck disable=SC2086 # one argument per file
run "$gen" validate -q --format json $testdata

"$tools/llvm-profdata" merge -o "$work/merged.profdata" "$work/profiles" >&2
CARGO_TARGET_DIR=$target/pgo RUSTFLAGS="-Cprofile-use=$work/merged.profdata" \
  cargo build --release --bin pgnkit >&2
echo "$target/pgo/release/pgnkit"
