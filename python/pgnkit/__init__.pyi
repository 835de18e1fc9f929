"""Type stubs of pgnkit: chess game records (PGN) as Arrow tables."""

import os
from typing import Any, Iterable, Literal, NamedTuple, Optional, Union, overload

import pyarrow as pa

__version__: str

_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]
_Paths = Union[_Path, Iterable[_Path]]
_Notation = Literal["san", "lan", "uci", "fan", "zh", "zh-long"]
_Checks = Literal["all", "legal"]

@overload
def read_games(
    paths: _Paths,
    *,
    to: _Notation = "san",
    threads: Optional[int] = None,
    stream: Literal[False] = False,
    fix_results: bool = False,
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    movetext_column: bool = True,
    where: Optional[str] = None,
) -> pa.Table: ...
@overload
def read_games(
    paths: _Paths,
    *,
    to: _Notation = "san",
    threads: Optional[int] = None,
    stream: Literal[True],
    fix_results: bool = False,
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    movetext_column: bool = True,
    where: Optional[str] = None,
) -> pa.RecordBatchReader: ...
def iter_games(
    paths: _Paths,
    *,
    to: _Notation = "san",
    threads: Optional[int] = None,
    fix_results: bool = False,
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    movetext_column: bool = True,
    where: Optional[str] = None,
) -> pa.RecordBatchReader: ...
@overload
def read_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    stream: Literal[False] = False,
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    columns: Optional[Iterable[str]] = None,
    where: Optional[str] = None,
) -> pa.Table: ...
@overload
def read_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    stream: Literal[True],
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    columns: Optional[Iterable[str]] = None,
    where: Optional[str] = None,
) -> pa.RecordBatchReader: ...
def iter_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    repair: bool = False,
    checks: _Checks = "all",
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
    numbers: bool = False,
    boards: bool = False,
    columns: Optional[Iterable[str]] = None,
    where: Optional[str] = None,
) -> pa.RecordBatchReader: ...
def validate(
    paths: _Paths,
    *,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.Table: ...

class Parsed(NamedTuple):
    """The tables of :func:`parse_movetext`: a row a game, a row a main-line ply."""

    games: pa.Table
    moves: pa.Table

def parse_movetext(
    movetext: Union[pa.Array, pa.ChunkedArray, Any],
    fen: Union[None, str, pa.Array, pa.ChunkedArray, Any] = None,
    *,
    to: _Notation = "san",
    positions: bool = False,
    threads: Optional[int] = None,
    fix_results: bool = False,
    repair: bool = False,
    checks: _Checks = "all",
    numbers: bool = False,
    boards: bool = False,
    columns: Optional[Iterable[str]] = None,
    movetext_column: bool = True,
) -> Parsed:
    """Replay and check games given as an Arrow array of movetext strings (no copy, the
    interpreter's lock released): the games table (``index``, ``plies``, ``result``,
    ``result_by_rule``, ``termination_by_rule``, ``final_fen``, ``errors``, ``warnings``,
    ``movetext``, ``diagnostics``) and the moves table (``index``, ``ply``, ``san``, ``uci``,
    ``fen`` with ``positions=True``, ``clock``, ``eval``, ``eval_mate``, ``comment``,
    ``nags``). ``fen``: the start position of every game, or an array of one a game;
    ``numbers``, ``boards`` and ``columns`` as :func:`read_moves` takes them."""
    ...

def board_array(
    boards: Union[pa.Table, pa.RecordBatch, pa.Array, pa.ChunkedArray],
) -> Any:
    """A ``board`` column as a read-only NumPy uint8 array of shape (rows, 8, 8), without a
    copy for one chunk; ``[i, rank, file]``, a1 = ``[i, 0, 0]``."""
    ...
def read_tree(
    paths: _Paths,
    *,
    max_ply: int = 30,
    min_games: int = 1,
    only: Optional[str] = None,
    where: Optional[str] = None,
    split: Optional[Iterable[str]] = None,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.Table: ...
