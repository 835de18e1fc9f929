"""Moves, positions and outcomes as numbers (`numbers=`, `boards=`, `columns=`), checked
against python-chess ply by ply, and `board_array` without a copy."""

from __future__ import annotations

from pathlib import Path

import chess
import numpy as np
import pyarrow as pa
import pytest

import pgnkit

REPO = Path(__file__).resolve().parents[2]
GAMES = REPO / "testdata" / "python" / "games.pgn"
NUMBERS = REPO / "testdata" / "convert" / "numbers.pgn"

MOVETEXT = [
    "1. e4 Nf6 2. e5 d5 3. exd6 Nc6 4. dxc7 Bf5 5. cxd8=Q+ Rxd8 6. Nf3 e6 7. Be2 Bc5 8. O-O O-O *",
    "1. f3 e5 2. g4 Qh4# 0-1",
    "1. d4 -- 2. c4 e5 3. dxe5 1/2-1/2",
]


def codes(board: chess.Board) -> list[int]:
    out = []
    for sq in chess.SQUARES:
        p = board.piece_at(sq)
        out.append(0 if p is None else p.piece_type + (0 if p.color else 6))
    return out


def mask(board: chess.Board) -> int:
    return (board.has_kingside_castling_rights(chess.WHITE) * 1
            + board.has_queenside_castling_rights(chess.WHITE) * 2
            + board.has_kingside_castling_rights(chess.BLACK) * 4
            + board.has_queenside_castling_rights(chess.BLACK) * 8)


def test_every_column_is_what_python_chess_says_ply_by_ply():
    games, moves = pgnkit.parse_movetext(pa.array(MOVETEXT), numbers=True, boards=True)
    rows = moves.to_pylist()
    at = 0
    for index, text in enumerate(MOVETEXT):
        board = chess.Board()
        assert games["start_board"][index].as_py() == bytes(codes(board))
        for san in [t for t in text.split() if not t[0].isdigit() and t != "*"]:
            row = rows[at]
            at += 1
            assert row["index"] == index
            move = board.parse_san(san)
            if move:
                captured = (chess.PAWN if board.is_en_passant(move)
                            else board.piece_type_at(move.to_square))
                assert (row["from_square"], row["to_square"]) == (move.from_square,
                                                                 move.to_square), san
                assert row["piece"] == board.piece_type_at(move.from_square)
                assert row["captured"] == (captured if board.is_capture(move) else None)
                assert row["promotion"] == move.promotion
                assert row["is_check"] == board.gives_check(move)
                assert row["is_capture"] == board.is_capture(move)
                assert row["is_castling"] == board.is_castling(move)
                assert row["is_en_passant"] == board.is_en_passant(move)
            else:
                assert row["from_square"] is None and row["piece"] is None
            board.push(move)
            assert row["board"] == bytes(codes(board)), san
            assert row["turn"] == board.turn
            assert row["castling"] == mask(board)
            assert row["ep_square"] == board.ep_square
            assert row["halfmove_clock"] == board.halfmove_clock
    assert at == len(rows)
    assert games["outcome"].to_pylist() == [None, -1, 0]
    assert games["termination_code"].to_pylist() == [0, 1, 0]
    assert games["is_checkmate"].to_pylist() == [False, True, False]


def test_the_default_tables_are_unchanged_and_columns_choose():
    games, moves = pgnkit.parse_movetext(pa.array(MOVETEXT[:1]))
    assert "from_square" not in moves.column_names and "outcome" not in games.column_names
    _, moves = pgnkit.parse_movetext(pa.array(MOVETEXT[:1]), columns=["to_square", "clock"])
    assert moves.column_names == ["index", "ply", "to_square", "clock"]
    _, moves = pgnkit.parse_movetext(pa.array(MOVETEXT[:1]), columns="uci", numbers=True)
    assert moves.column_names[:4] == ["index", "ply", "uci", "from_square"]
    with pytest.raises(ValueError, match="columns: no moves column \"square\""):
        pgnkit.parse_movetext(pa.array(MOVETEXT[:1]), columns=["square"])


def test_the_movetext_column_can_be_left_out():
    games, moves = pgnkit.parse_movetext(pa.array(MOVETEXT), numbers=True, movetext_column=False,
                                         columns=["numbers"])
    full, _ = pgnkit.parse_movetext(pa.array(MOVETEXT), numbers=True, columns=["numbers"])
    assert "movetext" not in games.column_names
    assert games.column_names == [c for c in full.column_names if c != "movetext"]
    assert games.to_pylist() == full.drop_columns(["movetext"]).to_pylist()
    assert moves.num_rows == 16 + 4 + 5
    # The games table alone without its movetext: the replay tells no move, and the rest of
    # the table is the same.
    lean = pgnkit.read_games([GAMES, NUMBERS], numbers=True, boards=True, movetext_column=False)
    full = pgnkit.read_games([GAMES, NUMBERS], numbers=True, boards=True)
    assert "movetext" not in lean.column_names
    assert lean.to_pylist() == full.drop_columns(["movetext"]).to_pylist()


def test_read_games_and_read_moves_give_the_numbers_of_the_command():
    moves = pgnkit.read_moves(NUMBERS, numbers=True, columns=[])
    assert moves.column_names[:4] == ["file", "game", "ply", "from_square"]
    assert moves["to_square"].to_pylist()[14:] == [6, 62]
    games = pgnkit.read_games(GAMES, numbers=True, boards=True)
    assert games["outcome"].to_pylist()[:2] == [1, -1]
    assert games["start_castling"].to_pylist()[0] == 15
    with pytest.raises(ValueError, match="columns"):
        pgnkit.read_moves(NUMBERS, columns=["nope"])


def test_board_array_is_a_view_of_the_arrow_buffer():
    _, moves = pgnkit.parse_movetext(pa.array(MOVETEXT), boards=True, columns=[])
    column = moves["board"]
    assert column.num_chunks == 1
    boards = pgnkit.board_array(moves)
    chunk = column.chunk(0)
    address = boards.__array_interface__["data"][0]
    assert address == chunk.buffers()[1].address + chunk.offset * 64
    assert boards.shape == (len(chunk), 8, 8) and boards.dtype == np.uint8
    assert not boards.flags.writeable
    # A slice keeps its offset.
    tail = pgnkit.board_array(chunk.slice(3))
    assert (tail == boards[3:]).all()
    assert tail.__array_interface__["data"][0] == address + 3 * 64
    # Several chunks are joined (a copy), in order.
    two = pa.chunked_array([chunk.slice(0, 2), chunk.slice(2)])
    assert (pgnkit.board_array(two) == boards).all()
    with pytest.raises(TypeError, match="64-byte boards"):
        pgnkit.board_array(moves["turn"])
