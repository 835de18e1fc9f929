#!/usr/bin/env python3
"""Parquet conformance: `pgnkit convert --format parquet` read back by DuckDB and pyarrow,
checked game by game against python-chess on the shared corpus, and the DuckDB examples of
docs/convert.md run (the movetext pattern must find the games the moves table finds).

For every PGN file of ../shared/corpus (python-chess/, chess-library/, lichess/, twic/, eco/;
the TCEC archive with `--tcec`) this runs

    pgnkit convert --format parquet --fen -o TMP/N FILE

and reads TMP/N/games.parquet and TMP/N/moves.parquet with DuckDB. python-chess reads the same
file; games are paired by their number in the file. For every game python-chess reads as
standard chess and legal, the Parquet files must hold the game (unless pgnkit rejected it,
with a diagnostic on standard error: those are counted, and conformance.py compares them), with the same number of
plies (`games.plies`, and as many rows in moves.parquet), the same final position
(`games.final_fen`; the en passant field may follow either convention) and the same UCI moves
(`moves.uci` ordered by `ply`; a null move is `0000`). It also checks with pyarrow that the
files' column types are those docs/convert.md gives, and that pgnkit reads games.parquet back
(its `movetext` column, as in the lichess schema) as the same games, row by row: the same
plies and final position. Disagreements listed in
.ci/conformance-known.tsv are reported but do not fail the run (the same list as
conformance.py: pgnkit rejects those games, or reads them differently, for a documented
reason).

Exit status: 0 when everything agrees, 1 on a disagreement, 2 on a setup problem (no binary,
no corpus, pyarrow or duckdb missing).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pychess import read_games  # noqa: E402
from conformance import (  # noqa: E402
    REPO, STANDARD_TAGS, corpus_files, step_arguments,
)

try:
    import duckdb
    import pyarrow.parquet as pq
except ImportError as e:  # a setup problem, not a pass
    print(f"parquet: {e}; install them with `pip install duckdb pyarrow` "
          "(.ci/python-env.sh does)", file=sys.stderr)
    sys.exit(2)

# The column types docs/convert.md documents, as pyarrow names them.
GAMES_TYPES = {
    "file": "string", "game": "uint64", "Event": "string", "White": "string",
    "Result": "string", "WhiteElo": "int32", "BlackRatingDiff": "int32", "Date": "date32[day]",
    "UTCDate": "date32[day]", "tags": "map<string, string>", "plies": "uint32",
    "result_by_rule": "string", "termination_by_rule": "string", "Termination": "string",
    "final_fen": "string",
    "errors": "uint32", "warnings": "uint32", "movetext": "string",
}
MOVES_TYPES = {
    "file": "string", "game": "uint64", "ply": "uint32", "san": "string", "uci": "string",
    "fen": "string", "clock": "double", "eval": "double", "eval_mate": "int32",
    "comment": "string", "nags": "list<item: uint16>",
}


def python_chess_games(path: Path) -> list[tuple | None]:
    """(plies, fen alternatives, uci moves) of each game python-chess reads as standard and
    legal; None for the others."""
    out: list[tuple | None] = []
    for game, board in read_games(path):
        tag = game.headers.get("Variant", "")
        if (tag and tag.lower() not in STANDARD_TAGS) or board is None or game.errors \
                or board.uci_variant != "chess" or board.chess960:
            out.append(None)
            continue
        uci = [m.uci() if m else "0000" for m in board.move_stack]
        out.append((len(uci), {board.fen(), board.fen(en_passant="fen")}, uci))
    return out


def check_types(path: Path, expected: dict[str, str]) -> list[str]:
    schema = pq.read_schema(path)
    got = {f.name: str(f.type) for f in schema}
    problems = []
    for name, kind in expected.items():
        # pyarrow names a map's and a list's inner fields; compare the outer shape only.
        have = re.sub(r"<.*", "<", got.get(name, "missing"))
        if have != re.sub(r"<.*", "<", kind):
            problems.append(f"{path.name}: column {name} is {got.get(name, 'missing')}, "
                            f"not {kind}")
    # DuckDB and pandas match names without regard to case: two such would be one to them.
    folded: dict[str, str] = {}
    for name in got:
        if name.lower() in folded:
            problems.append(f"{path.name}: columns {folded[name.lower()]} and {name} differ "
                            "only in case")
        folded[name.lower()] = name
    return problems


def check_read_back(pgnkit: str, name: str, games: Path, con) -> list[str]:
    """games.parquet read back by pgnkit (its `movetext` column in the lichess schema's place)
    gives each row's game again: the same plies and final position, row by row."""
    rows = con.execute(
        "SELECT game, plies, final_fen FROM read_parquet(?, file_row_number = true) "
        "ORDER BY file_row_number", [str(games)]).fetchall()
    run = subprocess.run([pgnkit, "validate", "-q", "--format", "json", "--game-records",
                          str(games)], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        return [f"{name}: reading games.parquet back, pgnkit exited {run.returncode}: "
                f"{run.stderr[-300:]!r}"]
    back = [r for r in map(json.loads, run.stdout.splitlines()) if r.get("type") == "game"]
    if len(back) != len(rows):
        return [f"{name}: games.parquet read back as {len(back)} games, not {len(rows)}"]
    return [f"{name} game {number}: read back from games.parquet with {r['plies']} plies and "
            f"{r['final_fen']}, not {plies} and {fen}"
            for (number, plies, fen), r in zip(rows, back)
            if (r["plies"], r["final_fen"]) != (plies, fen)]


def check_file(pgnkit: str, name: str, path: Path, out: Path, known: dict) -> tuple[int, int,
                                                                                     list[str]]:
    run = subprocess.run([pgnkit, "convert", "-q", "--format", "parquet", "--fen", "-o",
                          str(out), str(path)], capture_output=True)
    if run.returncode not in (0, 1):
        return 0, 0, [f"{name}: pgnkit exited {run.returncode}: {run.stderr[-300:]!r}"]
    # A game pgnkit rejects (its diagnostics name it) is no row; whether it should be rejected
    # is conformance.py's business, so it is counted here and not compared.
    rejected = {int(n) for n in re.findall(rb"\xc2\xb7 game (\d+) ", run.stderr)}
    con = duckdb.connect()
    games = {g: (plies, fen) for g, plies, fen in con.execute(
        "SELECT game, plies, final_fen FROM read_parquet(?)",
        [str(out / "games.parquet")]).fetchall()}
    moves = dict(con.execute(
        "SELECT game, list(uci ORDER BY ply) FROM read_parquet(?) GROUP BY game",
        [str(out / "moves.parquet")]).fetchall())
    problems = check_types(out / "games.parquet", GAMES_TYPES) + \
        check_types(out / "moves.parquet", MOVES_TYPES) + \
        check_read_back(pgnkit, name, out / "games.parquet", con)
    compared = known_hits = 0
    for number, theirs in enumerate(python_chess_games(path), start=1):
        if theirs is None:
            continue
        plies, fens, uci = theirs
        mine = games.get(number)
        if mine is None and number in rejected:
            known_hits += 1
            continue
        if mine is None:
            wrong = ["missing"]
        else:
            wrong = [f for f, bad in (
                ("plies", mine[0] != plies),
                ("final_fen", mine[1] not in fens),
                ("uci", (moves.get(number) or []) != uci),
            ) if bad]
        compared += 1
        if not wrong:
            continue
        if (name, str(number)) in known:
            known_hits += 1
            continue
        problems.append(f"{name} game {number}: {', '.join(wrong)} differ "
                        f"(pgnkit {mine and mine[:2]}, python-chess {plies} {sorted(fens)[0]})")
    return compared, known_hits, problems


def docs_query(con_dir: Path) -> list[str]:
    """Runs the DuckDB queries of docs/convert.md's Parquet section on a converted folder."""
    text = (REPO / "docs" / "convert.md").read_text(encoding="utf-8")
    queries = re.findall(r"```sql\n(.*?)```", text, re.S)
    if not queries:
        return ["docs/convert.md: no ```sql example in the Parquet section"]
    problems = []
    cwd = os.getcwd()
    os.chdir(con_dir)
    try:
        con = duckdb.connect()
        for sql in queries:
            try:
                rows = con.execute(sql).fetchall()
            except duckdb.Error as e:
                problems.append(f"docs/convert.md: a DuckDB example fails: {e}")
                continue
            # A count of none would show a pattern that finds nothing.
            if not rows or rows[0][-1] in (0, None):
                problems.append(f"docs/convert.md: a DuckDB example gives nothing: {rows}")
            elif "regexp_matches(movetext" in sql:
                # The pattern over the one-line movetext finds the games the moves table
                # does (a line break inside the run would hide some).
                table = con.execute(
                    "SELECT count(DISTINCT a.game) FROM 'moves.parquet' a JOIN 'moves.parquet' b "
                    "ON a.file = b.file AND a.game = b.game AND b.ply = a.ply + 1 "
                    "WHERE a.san = 'Nf3' AND a.ply % 2 = 1 AND b.san = 'Nc6'").fetchone()[0]
                if rows[0][0] != table:
                    problems.append(f"docs/convert.md: the movetext pattern finds {rows[0][0]} "
                                    f"games, the moves table {table}")
    finally:
        os.chdir(cwd)
    return problems


def main() -> int:
    checked = step_arguments("parquet", __doc__.split("\n\n")[0])
    if checked is None:
        return 2
    pgnkit, corpus, known = checked
    print(f"python-chess {chess.__version__}; duckdb {duckdb.__version__}; "
          f"pyarrow {pq.__name__ and __import__('pyarrow').__version__}")
    total = known_total = 0
    problems: list[str] = []
    with tempfile.TemporaryDirectory(prefix="pgnkit-parquet-") as tmp:
        files = corpus_files(corpus)
        for i, (name, path) in enumerate(files):
            compared, hits, found = check_file(pgnkit, name, path, Path(tmp) / str(i), known)
            total += compared
            known_total += hits
            problems += found
        lichess = [i for i, (n, _) in enumerate(files) if n.startswith("lichess/")]
        if lichess:
            problems += docs_query(Path(tmp) / str(lichess[0]))
    for p in problems[:20]:
        print(f"  {p}")
    print(f"parquet: {len(files)} files, {total} games compared, {known_total} known or rejected "
          f"(not compared), {len(problems)} problems")
    passed = total - len(problems) if total >= len(problems) else 0
    print(f"{passed} passed, {len(problems)} failed")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
