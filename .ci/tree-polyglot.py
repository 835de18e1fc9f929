"""Issue 45: `pgnkit tree -o book.bin` beside `polyglot make-book` (Debian's polyglot) on the
same PGN and options: the two books must be the same bytes, entry for entry (make-book's
weights, filters and order). Then python-chess's chess.polyglot reads pgnkit's book: every
entry of every position of the games is found under its key, and its move is legal there.
Installs polyglot with apt-get when missing; skips with a message when it cannot."""

import os
import shutil
import subprocess
import sys
import tempfile

import chess
import chess.pgn
import chess.polyglot

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
BIN = os.environ.get("PGNKIT") or os.path.join(
    os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "pgnkit"
)
CORPUS = os.path.join(ROOT, "../shared/corpus")
FILES = [
    os.path.join(ROOT, "testdata/tree/book.pgn"),
    os.path.join(CORPUS, "twic/twic1599_1000k.pgn"),
    os.path.join(CORPUS, "lichess/lichess_db_1000k.pgn"),
]
# make-book's options, and pgnkit's for the same book.
CASES = [
    (["-max-ply", "40", "-min-game", "1"], ["--max-ply", "40", "--min-games", "1"]),
    (["-max-ply", "20"], ["--max-ply", "20", "--min-games", "3"]),
    (["-max-ply", "30", "-min-game", "2", "-min-score", "50"],
     ["--max-ply", "30", "--min-games", "2", "--min-score", "50"]),
    (["-max-ply", "16", "-min-game", "1", "-only-white"],
     ["--max-ply", "16", "--min-games", "1", "--only", "white"]),
    (["-max-ply", "16", "-min-game", "1", "-only-black", "-uniform"],
     ["--max-ply", "16", "--min-games", "1", "--only", "black", "--uniform"]),
    (["-max-ply", "300", "-min-game", "1"], ["--max-ply", "300", "--min-games", "1"]),
]


def polyglot():
    found = shutil.which("polyglot") or "/usr/games/polyglot"
    if not os.access(found, os.X_OK):
        subprocess.run("apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq polyglot",
                       shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return found if os.access(found, os.X_OK) else None


def read_back(book, pgn, max_ply):
    """Every entry python-chess finds for the games' positions is a legal move there; returns
    the entries found."""
    found = 0
    seen = set()
    with chess.polyglot.open_reader(book) as reader, open(pgn, encoding="utf-8", errors="replace") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            board = game.board()
            for ply, move in enumerate(game.mainline_moves()):
                if ply >= max_ply:
                    break
                key = chess.polyglot.zobrist_hash(board)
                if key not in seen:
                    seen.add(key)
                    for entry in reader.find_all(board):
                        assert entry.move in board.legal_moves, (pgn, board.fen(), entry)
                        found += 1
                board.push(move)
    return found


def main():
    tool = polyglot()
    if tool is None:
        print("skipped: polyglot is not installed and could not be")
        return 0
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        theirs, ours = os.path.join(tmp, "theirs.bin"), os.path.join(tmp, "ours.bin")
        for pgn in (f for f in FILES if os.path.exists(f)):
            for theirs_args, ours_args in CASES:
                subprocess.run([tool, "make-book", "-pgn", pgn, "-bin", theirs, *theirs_args],
                               check=True, cwd=tmp, stdout=subprocess.DEVNULL)
                subprocess.run([BIN, "tree", "-q", "-o", ours, *ours_args, pgn], check=True)
                a, b = open(theirs, "rb").read(), open(ours, "rb").read()
                name = os.path.relpath(pgn, ROOT)
                if a != b:
                    failed += 1
                    at = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
                    print(f"{name} {' '.join(ours_args)}: books differ at entry {at // 16} "
                          f"({len(a) // 16} entries from make-book, {len(b) // 16} from pgnkit)")
                    continue
                max_ply = int(ours_args[1])
                read = read_back(ours, pgn, max_ply)
                print(f"{name} {' '.join(ours_args)}: {len(b) // 16} entries identical; "
                      f"python-chess read {read}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
