"""pgnkit: chess game records (PGN) as Arrow tables.

Games are read, replayed and checked by pgnkit's Rust library, on every core, with the Python
interpreter's lock released; the tables cross into pyarrow through the Arrow C stream interface,
without a copy. Inputs are what the ``pgnkit`` command takes: PGN files (gzip, bzip2, xz or zstd
compressed, any encoding), folders of them, ``"-"`` for standard input.

- :func:`read_games`: one row a game (the columns of ``games.parquet``);
- :func:`read_moves`: one row a main-line ply (the columns of ``moves.parquet``);
- :func:`iter_games` / ``read_games(..., stream=True)``: a :class:`pyarrow.RecordBatchReader`
  for inputs larger than memory;
- :func:`validate`: the diagnostics as a table (the columns of ``validate --format csv``);
- :func:`parse_movetext`: games given as an Arrow array of movetext strings (the ``movetext``
  column of the lichess Parquet files), as a games table and a moves table;
- :func:`board_array`: a ``board`` column as a NumPy array of shape (rows, 8, 8), without a
  copy.
- :func:`read_tree`: the opening tree of ``pgnkit tree``, one row a (position, move).

A game that does not replay is a row like any other, with ``errors`` > 0 and what is wrong in
its ``diagnostics`` column: never an exception.
"""

from __future__ import annotations

import errno
import io
import os
from typing import Any, Iterable, NamedTuple, Optional, Union

import pyarrow as pa

from . import _pgnkit

__all__ = ["read_games", "iter_games", "read_moves", "iter_moves", "validate", "parse_movetext",
           "board_array", "Parsed", "read_tree", "__version__"]
__version__ = _pgnkit.__version__

PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> list[str]:
    # bytes are one path, not a sequence of them (iterating b"/x" gives numbers).
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    out = [os.fsdecode(p) for p in paths]
    for p in out:
        # Said here, with the name: the input loop would only report it on standard error.
        if p != "-" and not os.path.exists(p):
            raise FileNotFoundError(errno.ENOENT, "no such file or folder", p)
    if not out:
        raise ValueError("no input given: pass a path, a list of paths, or '-' for standard input")
    return out


def _threads(threads: Optional[int]) -> Optional[int]:
    # The range `--jobs` takes (1 to 1024), said here with the keyword's name (and a bool or a
    # float refused, which the extension would take or refuse as a TypeError).
    if threads is not None and (not isinstance(threads, int) or isinstance(threads, bool)
                                or not 1 <= threads <= _pgnkit.MAX_THREADS):
        raise ValueError(f"threads={threads!r}: give a whole number of threads from 1 to "
                         f"{_pgnkit.MAX_THREADS}, or None for all cores")
    return threads


def _columns(columns: Optional[Iterable[str]]) -> Optional[list[str]]:
    # A string is one list of names (`"numbers,clock"`), not a sequence of letters.
    if columns is None:
        return None
    if isinstance(columns, str):
        return [columns]
    return [str(c) for c in columns]


def _convert(paths, table: str, *, to: str, threads, fen: bool, fix_results: bool, repair: bool,
             checks: str, encoding, ext, numbers: bool = False, boards: bool = False,
             columns=None, movetext_column: bool = True,
             where: Optional[str] = None) -> pa.RecordBatchReader:
    stream = _pgnkit.convert_stream(_paths(paths), table, to=to, fen=fen, fix_results=fix_results,
                                    repair=repair, checks=checks, threads=_threads(threads),
                                    encoding=encoding,
                                    ext=None if ext is None else list(ext), numbers=numbers,
                                    boards=boards, columns=_columns(columns),
                                    movetext=movetext_column, where=where)
    return pa.RecordBatchReader.from_stream(stream)


def read_games(paths, *, to: str = "san", threads: Optional[int] = None, stream: bool = False,
               fix_results: bool = False, repair: bool = False, checks: str = "all",
               encoding: Optional[str] = None, ext: Optional[Iterable[str]] = None,
               numbers: bool = False, boards: bool = False, movetext_column: bool = True,
               where: Optional[str] = None):
    """Read games: one row a game, the columns of ``games.parquet``.

    Columns: ``file``, ``game``, the common tags (``Event`` … ``FEN``, ``Termination`` as
    text, ``WhiteElo``, ``BlackElo``, ``WhiteRatingDiff``, ``BlackRatingDiff`` as int32,
    ``Date``, ``UTCDate`` as date32), ``tags`` (every other tag, a map), ``plies``,
    ``result_by_rule``, ``termination_by_rule`` (how the rules ended the game; not
    ``termination``, which pandas would take for the ``Termination`` tag), ``final_fen``,
    ``errors``, ``warnings`` and ``movetext`` in the notation ``to``, on one line as lichess's
    own ``movetext`` column holds it.

    :param paths: a path or a list of paths: PGN files (compressed or not), folders, ``"-"``.
    :param to: notation of the movetext: ``san``, ``lan``, ``uci``, ``fan``, ``zh``, ``zh-long``.
    :param threads: worker threads (``None``: every core). The table is the same whatever it is.
    :param stream: give a :class:`pyarrow.RecordBatchReader` instead of a table.
    :param fix_results: write the result the rules decide (checkmate, stalemate…).
    :param repair: replace an illegal move by the one legal move that fits, when one does.
    :param checks: ``"all"`` follows every rule; ``"legal"`` checks legality alone, with
        checkmate and stalemate: no repetition, move counter or dead position is looked for
        (``result_by_rule`` and ``termination_by_rule`` then know only mate and stalemate), and
        reading costs a few per cent less (``convert --checks legal``).
    :param encoding: the inputs' encoding (``gbk``, ``big5``, ``latin1``…); guessed if ``None``.
    :param ext: file name endings to read in folders (``["pgn", "pgn.gz"]``).
    :param numbers: add the outcome as numbers (``outcome``: 1, 0, -1 or null;
        ``termination_code``; ``is_checkmate``, ``is_stalemate``, ``is_insufficient_material``),
        after ``movetext``.
    :param boards: add the start position as numbers (``start_board``, ``start_turn``,
        ``start_castling``, ``start_ep_square``, ``start_halfmove_clock``).
    :param movetext_column: ``False`` leaves the ``movetext`` column out: no move is written
        again, which makes the reading faster (``convert --no-movetext``).
    :param where: only the games this expression selects, in the language of
        ``pgnkit select --where`` (``"WhiteElo >= 2000 and termination = checkmate"``): the
        others are not read into the table (``convert --where``). Tested on the tags first,
        and on the replay only when the tags do not decide.
    :raises ValueError: a bad option (the message says which and why; for ``where``, where the
        expression is wrong).
    :raises OSError: an input that does not exist or cannot be read, with its name.

    The numeric columns are those of ``convert --numbers --boards`` (docs/convert.md, "Moves and
    positions as numbers"). The last column, ``diagnostics``, lists each game's errors and warnings (``line``,
    ``column``, ``move``, ``side``, ``severity``, ``code``, ``token``, ``message``, ``help``,
    ``fen``: the columns of :func:`validate` but the game's own). A game whose moves do not
    replay (an illegal move, bytes that are no move) is a row too: ``errors`` > 0, its
    ``movetext`` as read, ``plies`` and ``final_fen`` as far as it replayed.
    """
    reader = _convert(paths, "games", to=to, threads=threads, fen=False, fix_results=fix_results,
                      repair=repair, checks=checks, encoding=encoding, ext=ext, numbers=numbers,
                      boards=boards, movetext_column=movetext_column, where=where)
    return reader if stream else reader.read_all()


def iter_games(paths, **options) -> pa.RecordBatchReader:
    """``read_games(paths, stream=True, **options)``: the games a batch at a time, in memory
    that stays flat however large the input."""
    return read_games(paths, stream=True, **options)


def read_moves(paths, *, fen: bool = False, threads: Optional[int] = None, stream: bool = False,
               repair: bool = False, checks: str = "all", encoding: Optional[str] = None,
               ext: Optional[Iterable[str]] = None, numbers: bool = False, boards: bool = False,
               columns: Optional[Iterable[str]] = None, where: Optional[str] = None):
    """Read the main-line plies: one row a ply, the columns of ``moves.parquet``.

    Columns: ``file``, ``game``, ``ply`` (1-based), ``san``, ``uci``, ``fen`` (the position after
    the ply; only with ``fen=True``), ``clock`` (seconds, from ``[%clk]``), ``eval`` (pawns,
    White's view), ``eval_mate``, ``comment``, ``nags``. A null move is ``--`` and ``0000``.
    A game that does not replay gives the plies before its first error (its row in
    :func:`read_games` has ``errors`` > 0).

    :param numbers: add each move as numbers: ``from_square``, ``to_square`` (0–63, a1 = 0),
        ``piece``, ``captured``, ``promotion`` (python-chess's piece types 1–6), ``is_check``,
        ``is_capture``, ``is_castling``, ``is_en_passant``.
    :param boards: add the position after each ply as numbers: ``board`` (64 piece codes, a1
        first; see :func:`board_array`), ``turn``, ``castling``, ``ep_square``,
        ``halfmove_clock``.
    :param columns: the columns besides ``file``, ``game`` and ``ply``, by name or group
        (``text``, ``numbers``, ``boards``, ``notes``, ``default``), as ``--moves-columns``
        takes them: ``["numbers", "clock"]`` leaves out the SAN and UCI strings. ``fen``,
        ``numbers`` and ``boards`` add theirs.
    :param where: the plies of the games this expression selects only, as :func:`read_games`
        takes it.

    Other options and errors as :func:`read_games`.
    """
    reader = _convert(paths, "moves", to="san", threads=threads, fen=fen, fix_results=False,
                      repair=repair, checks=checks, encoding=encoding, ext=ext, numbers=numbers,
                      boards=boards, columns=columns, where=where)
    return reader if stream else reader.read_all()


def iter_moves(paths, **options) -> pa.RecordBatchReader:
    """``read_moves(paths, stream=True, **options)``."""
    return read_moves(paths, stream=True, **options)


_DIAGNOSTIC_TYPES = {
    "file": pa.string(), "line": pa.uint32(), "column": pa.uint32(), "game": pa.uint64(),
    "white": pa.string(), "black": pa.string(), "move": pa.uint32(), "side": pa.string(),
    "severity": pa.string(), "code": pa.string(), "token": pa.string(), "message": pa.string(),
    "help": pa.string(), "fen": pa.string(),
}


def validate(paths, *, threads: Optional[int] = None, encoding: Optional[str] = None,
             ext: Optional[Iterable[str]] = None) -> pa.Table:
    """Check games and give every error and warning as a row: the columns of
    ``pgnkit validate --format csv`` (``file``, ``line``, ``column``, ``game``, ``white``,
    ``black``, ``move``, ``side``, ``severity``, ``code``, ``token``, ``message``, ``help``,
    ``fen``). Problems of an input as a whole (a cut file, bytes that do not decode) are rows
    too, with ``game`` 0. No row: every game is clean.

    Options and errors as :func:`read_games`.
    """
    import pyarrow.csv as pacsv

    data = _pgnkit.validate_csv(_paths(paths), threads=_threads(threads), encoding=encoding,
                                ext=None if ext is None else list(ext))
    convert = pacsv.ConvertOptions(column_types=_DIAGNOSTIC_TYPES, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False)
    table = pacsv.read_csv(io.BytesIO(data), convert_options=convert)
    return table


class Parsed(NamedTuple):
    """What :func:`parse_movetext` gives: ``games`` (a row a game) and ``moves`` (a row a ply)."""

    games: pa.Table
    moves: pa.Table


def _chunks(what: str, values: Any) -> list:
    """The ``__arrow_c_array__`` capsules of an array's chunks (read in place, no copy)."""
    if isinstance(values, pa.ChunkedArray):
        chunks = values.chunks
    elif isinstance(values, pa.Array):
        chunks = [values]
    elif hasattr(values, "__arrow_c_stream__"):
        # Polars Series, a RecordBatchReader's column…: imported as they are.
        chunks = pa.chunked_array(values).chunks
    elif hasattr(values, "__arrow_c_array__"):
        chunks = [pa.array(values)]
    else:
        raise TypeError(f"{what}: a pyarrow Array or ChunkedArray (or any Arrow array) of strings, "
                        f"not {type(values).__name__}; wrap a list in pyarrow.array(...)")
    return [c.__arrow_c_array__() for c in chunks]


def parse_movetext(movetext, fen=None, *, to: str = "san", positions: bool = False,
                   threads: Optional[int] = None, fix_results: bool = False,
                   repair: bool = False, checks: str = "all", numbers: bool = False,
                   boards: bool = False, columns: Optional[Iterable[str]] = None,
                   movetext_column: bool = True) -> Parsed:
    """Replay and check games given as movetext strings: the ``movetext`` column of the lichess
    Parquet files (``1. e4 { [%clk 0:03:00] } 1... e5 2. Nf3 1-0``), one game a value.

    The array is read where it lies (the Arrow C data interface: no copy), the games are
    replayed on ``threads`` threads with the interpreter's lock released, and two tables come
    back, the same whatever the thread count:

    - ``games``, a row a value, in order: ``index`` (0-based position in ``movetext``),
      ``plies``, ``result`` (the result token; ``*`` when there is none), ``result_by_rule``,
      ``termination_by_rule``, ``final_fen``, ``errors``, ``warnings``, ``movetext`` (in the notation
      ``to``, on one line; as given when the game does not replay) and ``diagnostics`` (the game's errors
      and warnings: ``line`` and ``column`` in the string, ``move``, ``side``, ``severity``,
      ``code``, ``token``, ``message``, ``help``, ``fen``);
    - ``moves``, a row a main-line ply: ``index``, ``ply`` (1-based), ``san``, ``uci``, ``fen``
      (the position after the ply; only with ``positions=True``), ``clock``, ``eval``,
      ``eval_mate``, ``comment``, ``nags``.

    A game that does not replay is a row with ``errors`` > 0 and its diagnostics, and gives the
    moves table the plies before its first error; a null is a game without moves.

    :param movetext: a :class:`pyarrow.Array` or :class:`pyarrow.ChunkedArray` of strings
        (``string``, ``large_string``, ``string_view``, or binary for bytes in another
        encoding), or any object with ``__arrow_c_stream__`` (a Polars Series).
    :param fen: the start position of every game (a FEN string), or an array of one a game
        (null: the standard start); ``None``: the standard start.
    :param to: notation of the ``movetext`` column: ``san``, ``lan``, ``uci``, ``fan``, ``zh``,
        ``zh-long``.
    :param positions: give the moves table its ``fen`` column.
    :param threads: worker threads (``None``: every core).
    :param fix_results: write the result the rules decide (checkmate, stalemate…).
    :param repair: replace an illegal move by the one legal move that fits, when one does.
    :param checks: ``"all"`` or ``"legal"``, as :func:`read_games` takes it.
    :param numbers: add each move as numbers to ``moves`` and each game's outcome as numbers to
        ``games``, as :func:`read_moves` and :func:`read_games` do.
    :param boards: add the position after each ply as numbers to ``moves`` and the start
        position to ``games`` (``positions`` is the ``fen`` column's keyword here, so the
        boards have their own).
    :param columns: the moves table's columns besides ``index`` and ``ply``, as
        :func:`read_moves` takes them.
    :param movetext_column: ``False`` leaves the games table's ``movetext`` out: no move is
        written again, which makes the call faster.
    :raises TypeError: ``movetext`` (or ``fen``) is not an array of strings.
    :raises ValueError: a bad option, or as many ``fen`` values as games.
    """
    one_fen = None
    fens = None
    if isinstance(fen, str):
        one_fen = fen
    elif fen is not None:
        fens = _chunks("fen", fen)
    games, moves = _pgnkit.parse_movetext(_chunks("movetext", movetext), one_fen, fens, to=to,
                                          positions=positions, threads=_threads(threads),
                                          fix_results=fix_results, repair=repair, checks=checks,
                                          numbers=numbers, boards=boards,
                                          columns=_columns(columns), movetext_column=movetext_column)
    return Parsed(pa.RecordBatchReader.from_stream(games).read_all(),
                  pa.RecordBatchReader.from_stream(moves).read_all())


def board_array(boards) -> "numpy.ndarray":
    """A ``board`` (or ``start_board``) column as a NumPy array of shape (rows, 8, 8) and dtype
    uint8, over the Arrow buffer itself: no copy, and read-only. ``array[i, rank, file]`` is the
    piece code on that square of row ``i`` (rank 0 = rank 1, file 0 = the a-file, so
    ``array[i].reshape(64)[square]`` is square ``square``, a1 = 0): 0 empty, 1–6 White's pawn,
    knight, bishop, rook, queen, king, 7–12 Black's.

    :param boards: a table with a ``board`` column, or the column (a
        :class:`pyarrow.FixedSizeBinaryArray` of 64 bytes, or a chunked array of them). A table
        of several batches (``read_moves`` gives one a 65,536 plies) is joined into one array
        first, which copies; a single chunk (a batch of ``iter_moves``, a table of one batch)
        is not copied. A null board (a game without a start position) reads as 64 zeros.
    :raises TypeError: not a column of 64-byte boards.
    """
    import numpy as np

    if isinstance(boards, (pa.Table, pa.RecordBatch)):
        boards = boards.column("board")
    if isinstance(boards, pa.ChunkedArray):
        boards = boards.chunk(0) if boards.num_chunks == 1 else boards.combine_chunks()
    kind = getattr(boards, "type", None)
    if kind is None or not pa.types.is_fixed_size_binary(kind) or kind.byte_width != 64:
        raise TypeError(f"board_array: a column of 64-byte boards (fixed_size_binary[64]), not "
                        f"{kind if kind is not None else type(boards).__name__}")
    n = len(boards)
    data = boards.buffers()[1]
    if data is None:
        return np.zeros((n, 8, 8), dtype=np.uint8)
    flat = np.frombuffer(data, dtype=np.uint8, count=n * 64, offset=boards.offset * 64)
    return flat.reshape(n, 8, 8)


def read_tree(paths, *, max_ply: int = 30, min_games: int = 1, only: Optional[str] = None,
              where: Optional[str] = None, split: Optional[Iterable[str]] = None,
              threads: Optional[int] = None, encoding: Optional[str] = None,
              ext: Optional[Iterable[str]] = None) -> pa.Table:
    """The opening tree of the games, as ``pgnkit tree`` builds it: one row a (position,
    move), the columns of ``tree.parquet`` (``key``, ``epd``, ``uci``, ``san``, ``games``,
    ``white_wins``, ``draws``, ``black_wins``, ``mover_elo``, ``mover_rated``,
    ``opponent_elo``, ``opponent_rated``, ``first_date``, ``last_date``, ``example_file``,
    ``example_game``, ``speed``, ``rating_band``), sorted by key.

    ``max_ply``, ``min_games``, ``only`` (``"white"`` or ``"black"``), ``where`` (an
    expression of ``pgnkit select``) and ``split`` (``["speed"]``, ``["rating"]`` or both)
    are the options of ``--max-ply``, ``--min-games``, ``--only``, ``--where`` and
    ``--split``; the others are :func:`read_games`'s. The tree goes through a temporary
    Parquet file, which memory never holds whole.
    """
    import tempfile

    import pyarrow.parquet as pq

    if isinstance(split, str):
        split = [split]
    with tempfile.TemporaryDirectory(prefix="pgnkit-tree-") as folder:
        out = os.path.join(folder, "tree.parquet")
        status = _pgnkit.tree_parquet(_paths(paths), out, max_ply=max_ply, min_games=min_games,
                                      only=only, where=where,
                                      split=None if split is None else list(split),
                                      threads=_threads(threads), encoding=encoding,
                                      ext=None if ext is None else list(ext))
        if status >= 2:
            raise OSError(f"pgnkit tree failed (exit status {status}): see standard error")
        return pq.read_table(out)
