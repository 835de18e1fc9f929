"""Reading a corpus file with python-chess, shared by the conformance steps (conformance.py,
parquet.py): the games in file order, each with the board its mainline ends on."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import chess
import chess.pgn


class _Builder(chess.pgn.GameBuilder):
    """GameBuilder that keeps the mainline board (read_game plays the mainline on the first
    board it shows the visitor) and can skip games that are not sampled."""

    sample_every = 1
    index = 0

    def begin_game(self):
        type(self).index += 1
        super().begin_game()
        self.main_board = None

    def end_headers(self):
        if (type(self).index - 1) % self.sample_every:
            return chess.pgn.SKIP
        return None

    def visit_board(self, board):
        if self.main_board is None:
            self.main_board = board


def read_games(path, every: int = 1) -> Iterator[tuple[chess.pgn.Game, chess.Board | None] | None]:
    """Every game of `path` as (game, mainline board), in file order; a game not sampled
    (only the 1st, every+1th, ... are) gives None, quickly."""
    logging.getLogger("chess.pgn").setLevel(logging.CRITICAL)
    builder = type("Builder", (_Builder,), {"sample_every": every, "index": 0})
    visitor = None
    first = True

    def make():
        nonlocal visitor
        visitor = builder()
        return visitor

    # newline=None folds CRLF; utf-8-sig drops a BOM; a stray byte must not stop the reading.
    with open(path, encoding="utf-8-sig", errors="replace") as handle:
        while True:
            game = chess.pgn.read_game(handle, Visitor=make)
            if game is None:
                break
            if first and game.next() is None and game.comment and \
                    dict(game.headers) == dict(chess.pgn.Game().headers):
                # python-chess makes a game of a comment that stands before the first tag
                # section (eco.pgn's preamble); pgnkit keeps it with the game it precedes.
                # See tests/validate.rs `leading_comment_belongs_to_the_first_game`.
                continue
            first = False
            if (builder.index - 1) % every:
                yield None
                continue
            yield game, visitor.main_board
