"""pgnkit: chess game records (PGN) as Arrow tables.

Games are read, replayed and checked by pgnkit's Rust library, on every core, with the Python
interpreter's lock released; the tables cross into pyarrow through the Arrow C stream interface,
without a copy. Inputs are what the ``pgnkit`` command takes: PGN files (gzip, bzip2, xz or zstd
compressed, any encoding), folders of them, ``"-"`` for standard input.

- :func:`read_games`: one row a game (the columns of ``games.parquet``);
- :func:`read_moves`: one row a main-line ply (the columns of ``moves.parquet``);
- :func:`iter_games` / ``read_games(..., stream=True)``: a :class:`pyarrow.RecordBatchReader`
  for inputs larger than memory;
- :func:`validate`: the diagnostics as a table (the columns of ``validate --format csv``).
"""

from __future__ import annotations

import errno
import io
import os
from typing import Iterable, Optional, Union

import pyarrow as pa

from . import _pgnkit

__all__ = ["read_games", "iter_games", "read_moves", "iter_moves", "validate", "__version__"]
__version__ = _pgnkit.__version__

PathLike = Union[str, "os.PathLike[str]"]

_NOTATIONS = ("san", "lan", "uci", "fan", "zh", "zh-long")


def _paths(paths: Union[PathLike, Iterable[PathLike]]) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = [os.fspath(p) for p in paths]
    for p in out:
        # Said here, with the name: the input loop would only report it on standard error.
        if p != "-" and not os.path.exists(p):
            raise FileNotFoundError(errno.ENOENT, "no such file or folder", p)
    if not out:
        raise ValueError("no input given: pass a path, a list of paths, or '-' for standard input")
    # A path that begins with '-' would read as an option.
    return ["--", *out]


def _input_words(threads: Optional[int], encoding: Optional[str], ext: Optional[Iterable[str]]) -> list[str]:
    words = ["--quiet"]
    if threads is not None:
        if not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads={threads!r}: give a whole number of threads, 1 or more, or None for all cores")
        words += ["--jobs", str(threads)]
    if encoding is not None:
        words += ["--encoding", encoding]
    if ext is not None:
        words += ["--ext", ",".join(ext)]
    return words


def _convert(paths, table: str, *, to: str, threads, fen: bool, fix_results: bool, repair: bool,
             encoding, ext) -> pa.RecordBatchReader:
    if to not in _NOTATIONS:
        raise ValueError(f"to={to!r}: the notations are {', '.join(_NOTATIONS)}")
    words = ["--format", "parquet", "--to", to, *_input_words(threads, encoding, ext)]
    if fix_results:
        words.append("--fix-results")
    if repair:
        words.append("--repair")
    stream = _pgnkit.convert_stream([*words, *_paths(paths)], table, fen)
    return pa.RecordBatchReader.from_stream(stream)


def read_games(paths, *, to: str = "san", threads: Optional[int] = None, stream: bool = False,
               fix_results: bool = False, repair: bool = False, encoding: Optional[str] = None,
               ext: Optional[Iterable[str]] = None):
    """Read games: one row a game, the columns of ``games.parquet``.

    Columns: ``file``, ``game``, the common tags (``Event`` … ``FEN`` as text, ``WhiteElo``,
    ``BlackElo``, ``WhiteRatingDiff``, ``BlackRatingDiff`` as int32, ``Date``, ``UTCDate`` as
    date32), ``tags`` (every other tag, a map), ``plies``, ``result_by_rule``, ``termination``,
    ``final_fen``, ``errors``, ``warnings`` and ``movetext`` in the notation ``to``.

    :param paths: a path or a list of paths: PGN files (compressed or not), folders, ``"-"``.
    :param to: notation of the movetext: ``san``, ``lan``, ``uci``, ``fan``, ``zh``, ``zh-long``.
    :param threads: worker threads (``None``: every core). The table is the same whatever it is.
    :param stream: give a :class:`pyarrow.RecordBatchReader` instead of a table.
    :param fix_results: write the result the rules decide (checkmate, stalemate…).
    :param repair: replace an illegal move by the one legal move that fits, when one does.
    :param encoding: the inputs' encoding (``gbk``, ``big5``, ``latin1``…); guessed if ``None``.
    :param ext: file name endings to read in folders (``["pgn", "pgn.gz"]``).
    :raises ValueError: a bad option (the message says which and why).
    :raises OSError: an input that does not exist or cannot be read, with its name.

    A game whose moves do not replay is left out of the table, as ``pgnkit convert`` leaves it
    out; :func:`validate` says where and why.
    """
    reader = _convert(paths, "games", to=to, threads=threads, fen=False, fix_results=fix_results,
                      repair=repair, encoding=encoding, ext=ext)
    return reader if stream else reader.read_all()


def iter_games(paths, **options) -> pa.RecordBatchReader:
    """``read_games(paths, stream=True, **options)``: the games a batch at a time, in memory
    that stays flat however large the input."""
    return read_games(paths, stream=True, **options)


def read_moves(paths, *, fen: bool = False, threads: Optional[int] = None, stream: bool = False,
               repair: bool = False, encoding: Optional[str] = None,
               ext: Optional[Iterable[str]] = None):
    """Read the main-line plies: one row a ply, the columns of ``moves.parquet``.

    Columns: ``file``, ``game``, ``ply`` (1-based), ``san``, ``uci``, ``fen`` (the position after
    the ply; only with ``fen=True``), ``clock`` (seconds, from ``[%clk]``), ``eval`` (pawns,
    White's view), ``eval_mate``, ``comment``, ``nags``. A null move is ``--`` and ``0000``.

    Options and errors as :func:`read_games`.
    """
    reader = _convert(paths, "moves", to="san", threads=threads, fen=fen, fix_results=False,
                      repair=repair, encoding=encoding, ext=ext)
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

    words = [*_input_words(threads, encoding, ext), *_paths(paths)]
    data = _pgnkit.validate_csv(words)
    convert = pacsv.ConvertOptions(column_types=_DIAGNOSTIC_TYPES, strings_can_be_null=False,
                                   quoted_strings_can_be_null=False)
    table = pacsv.read_csv(io.BytesIO(data), convert_options=convert)
    return table
