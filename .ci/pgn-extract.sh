# Sourced by the steps that compare pgnkit with pgn-extract: sets `extract` to the program,
# installing Debian's package when it is missing, or ends the step (exit 0) with a message
# when it cannot be had.
extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
if [ ! -x "$extract" ]; then
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pgn-extract >/dev/null; } || true
  extract=$(command -v pgn-extract || echo /usr/games/pgn-extract)
fi
if [ ! -x "$extract" ]; then
  echo "skipped: pgn-extract is not installed and could not be"
  exit 0
fi
