"""Issue 45: `pgnkit tree` against python-chess. For each PGN given (default: the tree test
files and the corpus's lichess and TWIC samples), python-chess replays every game's main
line to --max-ply and counts each (position, move) as pgnkit's tree does: the position by
its Polyglot key (chess.polyglot.zobrist_hash) and EPD, the move, games, White wins, draws,
Black wins. `pgnkit tree --format csv` must give the same rows. A game python-chess cannot
replay to the end of its counted plies is left out of both (pgnkit is told to skip nothing,
so such a file is reported, not compared)."""

import collections
import csv
import io
import os
import subprocess
import sys

import chess
import chess.pgn
import chess.polyglot

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("PGNKIT") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "pgnkit"
)
MAX_PLY = 12


def expected(path, max_ply):
    rows = collections.defaultdict(lambda: [0, 0, 0, 0])
    epds = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            if game.errors:
                raise SystemExit(f"{path}: python-chess found errors in a game: {game.errors}")
            result = game.headers.get("Result", "*")
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= max_ply:
                    break
                key = format(chess.polyglot.zobrist_hash(board), "016x")
                epd = board.epd()
                row = rows[(key, epd, move.uci())]
                epds[(key, epd, move.uci())] = board.san(move)
                row[0] += 1
                if result == "1-0":
                    row[1] += 1
                elif result == "1/2-1/2":
                    row[2] += 1
                elif result == "0-1":
                    row[3] += 1
                board.push(move)
    return {k: (epds[k], *v) for k, v in rows.items()}


def ours(path, max_ply):
    out = subprocess.run(
        [BIN, "tree", "-q", "--max-ply", str(max_ply), "--format", "csv", path],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    got = {}
    for r in csv.DictReader(io.StringIO(out)):
        k = (r["key"], r["epd"], r["uci"])
        assert k not in got, f"{path}: row twice: {k}"
        got[k] = (
            r["san"],
            int(r["games"]),
            int(r["white_wins"]),
            int(r["draws"]),
            int(r["black_wins"]),
        )
    return got


def main():
    files = sys.argv[1:] or [
        os.path.join(ROOT, "testdata/tree/three.pgn"),
        os.path.join(ROOT, "testdata/tree/positions.pgn"),
        os.path.join(ROOT, "../shared/corpus/lichess"),
        os.path.join(ROOT, "../shared/corpus/twic"),
    ]
    paths = []
    for f in files:
        if os.path.isdir(f):
            paths += sorted(
                os.path.join(f, n) for n in os.listdir(f) if n.endswith(".pgn")
            )
        elif os.path.exists(f):
            paths.append(f)
    failed = 0
    for path in paths:
        want, got = expected(path, MAX_PLY), ours(path, MAX_PLY)
        if want != got:
            failed += 1
            for k in sorted(set(want) | set(got)):
                if want.get(k) != got.get(k):
                    print(f"{path}: {k}: python-chess {want.get(k)}, pgnkit {got.get(k)}")
                    break
        print(f"{os.path.relpath(path, ROOT)}: {len(got)} rows compared")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
