#!/usr/bin/env python3
"""The numeric columns against python-chess: `pgnkit convert --format parquet --numbers
--boards` on the shared corpus, every ply of every game python-chess reads as legal (standard
chess and Chess960) compared with what python-chess says of the move and of the board after
it: the squares, the pieces, the flags, the 64 piece codes, the turn, the castling rights, the
en passant square and the half-move clock; and each game's start position, outcome and final
flags.

For every PGN file of ../shared/corpus (python-chess/, chess-library/, lichess/, twic/, eco/)
this runs

    pgnkit convert -q --format parquet --numbers --boards --moves-columns uci,notes -o TMP/N FILE

and reads the two tables with pyarrow; then again with `--no-movetext --moves-columns
numbers,boards,notes`, where no text is asked for and pgnkit keeps the numbers up from the
moves without playing the main line again and takes the notes as the replay tells them, whose
moves table must be the first one's without `uci`; games are paired by their number in the file. A game
pgnkit rejects (its diagnostics name it) has no row and is not compared (conformance.py
compares those); a game listed in .ci/conformance-known.tsv is reported, not failed.

Exit status: 0 when every column agrees, 1 on a disagreement, 2 on a setup problem.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pychess import read_games  # noqa: E402
from conformance import STANDARD_TAGS, corpus_files, step_arguments  # noqa: E402

try:
    import pyarrow.parquet as pq
except ImportError as e:  # a setup problem, not a pass
    print(f"numbers: {e}; install pyarrow (.ci/python-env.sh does)", file=sys.stderr)
    sys.exit(2)

OUTCOME = {"1-0": 1, "1/2-1/2": 0, "0-1": -1}


def codes(board: chess.Board) -> bytes:
    out = bytearray(64)
    for sq, p in board.piece_map().items():
        out[sq] = p.piece_type + (0 if p.color else 6)
    return bytes(out)


def castling(board: chess.Board) -> int:
    return (board.has_kingside_castling_rights(chess.WHITE) * 1
            + board.has_queenside_castling_rights(chess.WHITE) * 2
            + board.has_kingside_castling_rights(chess.BLACK) * 4
            + board.has_queenside_castling_rights(chess.BLACK) * 8)


def position(board: chess.Board) -> dict:
    return {"board": codes(board), "turn": board.turn, "castling": castling(board),
            "ep_square": board.ep_square, "halfmove_clock": board.halfmove_clock}


def expected_ply(board: chess.Board, move: chess.Move) -> dict:
    """What python-chess says of `move` played in `board`, then of the board after it (the
    board is left after the move)."""
    if move:
        ep = board.is_en_passant(move)
        capture = board.is_capture(move)
        row = {
            "uci": move.uci(), "from_square": move.from_square, "to_square": move.to_square,
            "piece": board.piece_type_at(move.from_square),
            "captured": (chess.PAWN if ep else board.piece_type_at(move.to_square))
            if capture else None,
            "promotion": move.promotion, "is_check": board.gives_check(move),
            "is_capture": capture, "is_castling": board.is_castling(move), "is_en_passant": ep,
        }
    else:
        row = {"uci": "0000", "from_square": None, "to_square": None, "piece": None,
               "captured": None, "promotion": None, "is_capture": False,
               "is_castling": False, "is_en_passant": False}
    board.push(move)
    if not move:
        row["is_check"] = board.is_check()
    row.update(position(board))
    return row


def start_columns(board: chess.Board) -> dict:
    return {f"start_{k}": v for k, v in position(board).items()}


def check_file(pgnkit: str, name: str, path: Path, out: Path, known: dict) -> tuple[int, int,
                                                                                     list[str]]:
    run = subprocess.run([pgnkit, "convert", "-q", "--format", "parquet", "--numbers",
                          "--boards", "--moves-columns", "uci,notes", "-o", str(out), str(path)],
                         capture_output=True)
    if run.returncode not in (0, 1):
        return 0, 0, [f"{name}: pgnkit exited {run.returncode}: {run.stderr[-300:]!r}"]
    rejected = {int(n) for n in re.findall(rb"\xc2\xb7 game (\d+) ", run.stderr)}
    games = {g["game"]: g for g in pq.read_table(out / "games.parquet").to_pylist()}
    moves = pq.read_table(out / "moves.parquet")
    plies: dict[int, list[dict]] = defaultdict(list)
    for row in moves.to_pylist():
        plies[row["game"]].append(row)
    compared = skipped = 0
    problems: list[str] = []
    numbers_only = out.with_name(out.name + "-numbers")
    subprocess.run([pgnkit, "convert", "-q", "--format", "parquet", "--no-movetext",
                    "--moves-columns", "numbers,boards,notes", "-o", str(numbers_only),
                    str(path)],
                   capture_output=True)
    kept = pq.read_table(numbers_only / "moves.parquet")
    if kept.to_pylist() != moves.drop_columns(["uci"]).to_pylist():
        problems.append(f"{name}: the numbers kept from the moves and the notes told with "
                        "them (no text asked for) are not those of the moves played one by one")
    for number, read in enumerate(read_games(path), start=1):
        if read is None:
            continue
        game, final = read
        tag = game.headers.get("Variant", "")
        chess960 = tag.lower() in ("chess960", "chess 960", "fischerandom", "fischer random")
        if (tag and tag.lower() not in STANDARD_TAGS and not chess960) or final is None \
                or game.errors or final.uci_variant != "chess":
            continue
        mine = games.get(number)
        if mine is None:
            skipped += 1 if number in rejected or (name, str(number)) in known else 0
            if number not in rejected and (name, str(number)) not in known:
                problems.append(f"{name} game {number}: missing")
            continue
        board = game.board()
        wrong = [k for k, v in start_columns(board).items() if mine[k] != v]
        rows = plies.get(number, [])
        if len(rows) != len(final.move_stack):
            wrong.append(f"{len(rows)} plies, not {len(final.move_stack)}")
        for i, (move, row) in enumerate(zip(final.move_stack, rows), start=1):
            want = expected_ply(board, move)
            bad = [k for k, v in want.items() if row[k] != v]
            if bad:
                wrong.append(f"ply {i} {want['uci']}: " + ", ".join(
                    f"{k} {row[k]!r} not {want[k]!r}" for k in bad[:3]))
                break
        flags = {"is_checkmate": board.is_checkmate(), "is_stalemate": board.is_stalemate(),
                 "is_insufficient_material": board.is_insufficient_material()}
        wrong += [f"{k} {mine[k]} not {v}" for k, v in flags.items() if mine[k] != v]
        if mine["outcome"] != OUTCOME.get(mine["Result"]):
            wrong.append(f"outcome {mine['outcome']} for {mine['Result']}")
        compared += 1
        if not wrong:
            continue
        if (name, str(number)) in known:
            skipped += 1
            continue
        problems.append(f"{name} game {number}: {'; '.join(wrong[:3])}")
    return compared, skipped, problems


def main() -> int:
    checked = step_arguments("numbers", __doc__.split("\n\n")[0])
    if checked is None:
        return 2
    pgnkit, corpus, known = checked
    total = skipped = 0
    problems: list[str] = []
    files = corpus_files(corpus)
    with tempfile.TemporaryDirectory(prefix="pgnkit-numbers-") as tmp:
        for i, (name, path) in enumerate(files):
            compared, hits, found = check_file(pgnkit, name, path, Path(tmp) / str(i), known)
            total += compared
            skipped += hits
            problems += found
    for p in problems[:20]:
        print(f"  {p}")
    print(f"numbers: {len(files)} files, {total} games compared ply by ply, {skipped} known or "
          f"rejected (not compared), {len(problems)} problems")
    print(f"{max(total - len(problems), 0)} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
