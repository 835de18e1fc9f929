"""Type stubs of pgnkit: chess game records (PGN) as Arrow tables."""

import os
from typing import Iterable, Literal, Optional, Union, overload

import pyarrow as pa

__version__: str

_Paths = Union[str, os.PathLike[str], Iterable[Union[str, os.PathLike[str]]]]
_Notation = Literal["san", "lan", "uci", "fan", "zh", "zh-long"]

@overload
def read_games(
    paths: _Paths,
    *,
    to: _Notation = "san",
    threads: Optional[int] = None,
    stream: Literal[False] = False,
    fix_results: bool = False,
    repair: bool = False,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
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
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.RecordBatchReader: ...
def iter_games(
    paths: _Paths,
    *,
    to: _Notation = "san",
    threads: Optional[int] = None,
    fix_results: bool = False,
    repair: bool = False,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.RecordBatchReader: ...
@overload
def read_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    stream: Literal[False] = False,
    repair: bool = False,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.Table: ...
@overload
def read_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    stream: Literal[True],
    repair: bool = False,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.RecordBatchReader: ...
def iter_moves(
    paths: _Paths,
    *,
    fen: bool = False,
    threads: Optional[int] = None,
    repair: bool = False,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.RecordBatchReader: ...
def validate(
    paths: _Paths,
    *,
    threads: Optional[int] = None,
    encoding: Optional[str] = None,
    ext: Optional[Iterable[str]] = None,
) -> pa.Table: ...
