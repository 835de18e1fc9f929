#!/usr/bin/env python3
"""Conformance: compares `pgnkit validate` with python-chess, game by game, on the shared corpus.

For every file of ../shared/corpus (python-chess/, chess-library/, lichess/, twic/, eco/ and the
TCEC archive, decompressed with zstd into a temporary folder; chinese/ is not PGN and is left
out) this runs

    pgnkit validate --format json --game-records FILE

and reads the same file with python-chess (`chess.pgn.read_game` in a loop). Games are paired by
their order in the file. For each standard-chess game it compares:

- legal: python-chess's verdict is "legal" when `game.errors` is empty (every mainline move was
  parsed and played); pgnkit's is its `legal` field;
- plies: the number of mainline moves played;
- final_fen: the position after the last mainline move played. The en passant field may follow
  either convention (python-chess's "legal" one, or "after every double step"); the other
  fields must match exactly;
- result_by_rule, only where either side says checkmate or stalemate (python-chess's
  `board.outcome()`); other automatic endings are counted as notes, not failures, because the
  two sides may define them differently (e.g. insufficient material).

It also compares the number of games in each file. Games that either side reads as a variant
(a Variant tag that python-chess does not take for standard chess, such as "fischerandom" or
"crazyhouse", or Chess960 castling rights in the FEN) are skipped and counted.

Disagreements listed in .ci/conformance-known.tsv (file, game, reason; game is a number or
`count`) are reported but do not fail the run; every entry there must point to a test or a
doc saying why pgnkit is right. Any other disagreement makes the exit status 1; a setup problem
(no binary, no corpus, pgnkit exit 2) makes it 2.

python-chess replays about 3 MB of PGN a second here, so the 150 MB TCEC file takes several
minutes; `--tcec-every N` compares only every Nth TCEC game (the 1st, N+1th, ...) and skips
the others quickly. Files are processed in parallel, one per worker (`--jobs`).
"""

from __future__ import annotations

import argparse
import csv
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import chess
import chess.pgn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pychess import read_games  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
DEFAULT_KNOWN = REPO / ".ci" / "conformance-known.tsv"
CORPUS_FOLDERS = ["python-chess", "chess-library", "lichess", "twic", "eco"]
TCEC = "tcec/tcec-shared.pgn.zst"
STRICT_TERMINATIONS = {"checkmate", "stalemate"}
# Variant tag values that python-chess reads as standard chess ("Normal" is common in TCEC).
STANDARD_TAGS = {alias.lower() for alias in chess.Board.aliases}


@dataclass
class Record:
    """What one side says about one game."""

    variant: str  # "standard", or why the game is not standard chess
    legal: bool | None = None
    plies: int | None = None
    fen: str | None = None
    fen_alternatives: tuple[str, ...] = ()  # python-chess only: FENs that count as equal
    result_by_rule: str | None = None
    termination: str = "none"
    detail: dict = field(default_factory=dict)  # shown when the game disagrees


# ---------------------------------------------------------------------------------------------
# python-chess side


def python_chess_records(path: str, every: int) -> list[Record | None]:
    """Reads every game of `path`; a game not sampled gives None."""
    return [None if read is None else _python_chess_record(*read)
            for read in read_games(path, every)]


def _python_chess_record(game: chess.pgn.Game, board: chess.Board | None) -> Record:
    tag = game.headers.get("Variant", "")
    detail = {
        "tags": {k: game.headers.get(k) for k in ("White", "Black", "Round", "Result")},
        "errors": [str(e) for e in game.errors[:3]],
    }
    if tag and tag.lower() not in STANDARD_TAGS:
        return Record(variant=f"Variant tag {tag!r}", detail=detail)
    if board is None:  # the FEN tag could not be set up
        return Record(variant="standard", legal=False, plies=0, detail=detail)
    if board.uci_variant != "chess":
        return Record(variant=f"python-chess {board.uci_variant}", detail=detail)
    if board.chess960:
        return Record(variant="python-chess chess960", detail=detail)
    nulls = [i + 1 for i, m in enumerate(board.move_stack) if not m]
    if nulls:
        detail["null moves at plies"] = nulls[:5]
    outcome = board.outcome(claim_draw=False)
    return Record(
        variant="standard",
        legal=not game.errors,
        plies=len(board.move_stack),
        fen=board.fen(),
        fen_alternatives=(board.fen(), board.fen(en_passant="fen")),
        result_by_rule=outcome.result() if outcome else None,
        termination=outcome.termination.name.lower() if outcome else "none",
        detail=detail,
    )


# ---------------------------------------------------------------------------------------------
# pgnkit side


def pgnkit_records(pgnkit: str, path: str) -> tuple[list[Record], str | None]:
    """Runs pgnkit on one file; gives its game records in order, and a failure if it failed."""
    proc = subprocess.run(
        [pgnkit, "validate", "--format", "json", "--game-records", path],
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    if proc.returncode not in (0, 1):
        err = proc.stderr.decode("utf-8", "replace").strip()[-800:]
        return [], f"pgnkit exited {proc.returncode}: {err}"
    records: list[Record] = []
    diagnostics: dict[int, list[dict]] = {}
    for number, line in enumerate(proc.stdout.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            return records, f"stdout line {number} is not JSON ({err}): {line[:200]}"
        kind = obj.get("type")
        if kind == "diagnostic":
            diagnostics.setdefault(obj.get("game"), []).append(obj)
        elif kind == "game":
            n = obj.get("game")
            if n != len(records) + 1:
                return records, f"game record {n} came after {len(records)} game records"
            variant = obj.get("variant")
            records.append(
                Record(
                    variant="standard" if variant == "standard" else f"pgnkit {variant}",
                    legal=obj.get("legal"),
                    plies=obj.get("plies"),
                    fen=obj.get("final_fen"),
                    result_by_rule=obj.get("result_by_rule"),
                    termination=obj.get("termination") or "none",
                    detail={
                        "line": obj.get("line"),
                        "errors": obj.get("errors"),
                        "warnings": obj.get("warnings"),
                        "diagnostics": [_short(d) for d in diagnostics.pop(n, [])[:3]],
                    },
                )
            )
    return records, None


def _short(diagnostic: dict) -> dict:
    """A diagnostic without what the report says already, long texts cut."""
    return {
        k: v[:197] + "..." if isinstance(v, str) and len(v) > 200 else v
        for k, v in diagnostic.items()
        if k not in ("type", "file", "game")
    }


# ---------------------------------------------------------------------------------------------
# comparison


@dataclass
class FileResult:
    name: str  # path relative to the corpus folder
    pgnkit_games: int = 0
    python_games: int = 0
    compared: int = 0
    sampled_out: int = 0
    skips: dict = field(default_factory=dict)
    notes: dict = field(default_factory=dict)
    disagreements: list = field(default_factory=list)  # (game or "count", fields, text)
    failure: str | None = None
    seconds_python: float = 0.0
    seconds_pgnkit: float = 0.0


def check_file(task: tuple[str, str, str, int]) -> FileResult:
    name, path, pgnkit, every = task
    result = FileResult(name)
    start = time.perf_counter()
    if pgnkit:
        ours, result.failure = pgnkit_records(pgnkit, path)
    else:
        ours = []
    result.seconds_pgnkit = time.perf_counter() - start
    start = time.perf_counter()
    theirs = python_chess_records(path, every)
    result.seconds_python = time.perf_counter() - start
    result.python_games = len(theirs)
    if not pgnkit:
        for other in filter(None, theirs):
            if other.variant != "standard":
                result.skips[other.variant] = result.skips.get(other.variant, 0) + 1
        return result
    result.pgnkit_games = len(ours)
    if result.failure:
        return result
    if len(ours) != len(theirs):
        result.disagreements.append(
            ("count", ["count"], f"pgnkit reads {len(ours)} games, python-chess {len(theirs)}")
        )
    for number, (mine, other) in enumerate(zip(ours, theirs), 1):
        if other is None:
            result.sampled_out += 1
            continue
        skip = next((r.variant for r in (other, mine) if r.variant != "standard"), None)
        if skip:
            result.skips[skip] = result.skips.get(skip, 0) + 1
            continue
        result.compared += 1
        fields = compare(mine, other, result.notes)
        if fields:
            result.disagreements.append((number, fields, describe(mine, other)))
    return result


def compare(mine: Record, other: Record, notes: dict) -> list[str]:
    fields = []
    if mine.legal != other.legal:
        fields.append("legal")
    if mine.plies != other.plies:
        fields.append("plies")
    if mine.fen not in other.fen_alternatives and mine.fen != other.fen:
        fields.append("final_fen")
    elif mine.fen != other.fen:
        notes["en passant square written after every double step"] = (
            notes.get("en passant square written after every double step", 0) + 1
        )
    if mine.result_by_rule != other.result_by_rule or mine.termination != other.termination:
        if {mine.termination, other.termination} & STRICT_TERMINATIONS:
            fields.append("result_by_rule")
        else:
            key = f"termination pgnkit {mine.termination} vs python-chess {other.termination}"
            notes[key] = notes.get(key, 0) + 1
    return fields


def describe(mine: Record, other: Record) -> str:
    rows = [
        ("legal", mine.legal, other.legal),
        ("plies", mine.plies, other.plies),
        ("final_fen", mine.fen, other.fen),
        ("by rule", f"{mine.result_by_rule} {mine.termination}",
         f"{other.result_by_rule} {other.termination}"),
    ]
    text = [f"      {'':10} {'pgnkit':<60} python-chess"]
    text += [f"      {k:10} {str(a):<60} {b}" for k, a, b in rows]
    text.append(f"      pgnkit: {json.dumps(mine.detail, ensure_ascii=False)}")
    text.append(f"      python-chess: {json.dumps(other.detail, ensure_ascii=False)}")
    return "\n".join(text)


def read_known(path: Path) -> dict[tuple[str, str], str]:
    known = {}
    if not path.exists():
        return known
    with open(path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if row.get("file") and not row["file"].startswith("#"):
                known[(row["file"].strip(), row["game"].strip())] = row.get("reason", "")
    return known


# ---------------------------------------------------------------------------------------------


def corpus_files(corpus: Path) -> list[tuple[str, Path]]:
    """The PGN files of the corpus folders the steps read, each with its name (`lichess/x.pgn`)."""
    return [(f"{folder}/{p.name}", p) for folder in CORPUS_FOLDERS
            for p in sorted((corpus / folder).glob("*.pgn"))]


def step_arguments(step: str, description: str):
    """The options of a corpus step (--pgnkit, --corpus, --known) read and checked: (pgnkit,
    corpus, known), or None once what is missing is said on standard error (exit status 2)."""
    parser = argparse.ArgumentParser(description=description)
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    parser.add_argument("--pgnkit", default=f"{target}/release/pgnkit")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--known", type=Path, default=DEFAULT_KNOWN)
    args = parser.parse_args()
    pgnkit = str(Path(args.pgnkit).resolve())
    if not os.access(pgnkit, os.X_OK):
        print(f"{step}: no pgnkit binary at {pgnkit}; run cargo build --release",
              file=sys.stderr)
        return None
    if not args.corpus.is_dir():
        print(f"{step}: no corpus at {args.corpus}", file=sys.stderr)
        return None
    return pgnkit, args.corpus, read_known(args.known)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    parser.add_argument("--pgnkit", default=f"{target}/release/pgnkit")
    parser.add_argument("--python-only", action="store_true",
                        help="only time python-chess on the corpus; no pgnkit needed")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--known", type=Path, default=DEFAULT_KNOWN)
    parser.add_argument("--tcec-every", type=int, default=1, metavar="N",
                        help="compare only every Nth TCEC game (default: all)")
    parser.add_argument("--no-tcec", action="store_true", help="leave the TCEC file out")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--show", type=int, default=8, help="disagreements shown in detail")
    args = parser.parse_args()

    pgnkit = None if args.python_only else str(Path(args.pgnkit).resolve())
    if pgnkit and not os.access(pgnkit, os.X_OK):
        print(f"conformance: no pgnkit binary at {pgnkit}; run cargo build --release",
              file=sys.stderr)
        return 2
    if not args.corpus.is_dir():
        print(f"conformance: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    print(f"python-chess {chess.__version__}; pgnkit {pgnkit or '(not run)'}")

    tasks = []
    with tempfile.TemporaryDirectory(prefix="pgnkit-conformance-") as tmp:
        if not args.no_tcec:
            zst = args.corpus / TCEC
            plain = Path(tmp) / "tcec-shared.pgn"
            if not shutil.which("zstd"):
                print("conformance: zstd is not installed", file=sys.stderr)
                return 2
            subprocess.run(["zstd", "-dqf", str(zst), "-o", str(plain)], check=True)
            tasks.append((TCEC, str(plain), pgnkit, args.tcec_every))
            if args.tcec_every > 1:
                print(f"TCEC: comparing every {args.tcec_every}th game only")
        for folder in CORPUS_FOLDERS:
            for path in sorted((args.corpus / folder).glob("*.pgn")):
                tasks.append((f"{folder}/{path.name}", str(path), pgnkit, 1))

        start = time.perf_counter()
        with multiprocessing.Pool(args.jobs) as pool:
            results = list(pool.imap(check_file, tasks))  # TCEC first: it is the long one
        elapsed = time.perf_counter() - start
    results.sort(key=lambda r: r.name)
    return report(results, read_known(args.known), args, elapsed)


def report(results: list[FileResult], known: dict, args, elapsed: float) -> int:
    print(f"\n{'file':<70} {'pgnkit':>7} {'python':>7} {'compared':>8} {'skipped':>7} "
          f"{'differ':>6} {'py s':>7} {'pgnkit s':>8}")
    unexplained, explained, failures = [], [], []
    skips, notes = {}, {}
    for r in results:
        print(f"{r.name:<70} {r.pgnkit_games:>7} {r.python_games:>7} {r.compared:>8} "
              f"{sum(r.skips.values()):>7} {len(r.disagreements):>6} "
              f"{r.seconds_python:>7.2f} {r.seconds_pgnkit:>8.2f}")
        if r.failure:
            failures.append(r)
        for k, v in r.skips.items():
            skips[k] = skips.get(k, 0) + v
        for k, v in r.notes.items():
            notes[k] = notes.get(k, 0) + v
        for game, fields, text in r.disagreements:
            key = (r.name, str(game))
            (explained if key in known else unexplained).append((r.name, game, fields, text))

    total = lambda attr: sum(getattr(r, attr) for r in results)  # noqa: E731
    print(f"\nfiles {len(results)}; games: pgnkit {total('pgnkit_games')}, python-chess "
          f"{total('python_games')}; compared {total('compared')}; not sampled "
          f"{total('sampled_out')}; skipped {sum(skips.values())}; wall {elapsed:.1f} s")
    for k, v in sorted(skips.items()):
        print(f"  skipped: {v} x {k}")
    for k, v in sorted(notes.items()):
        print(f"  note (not a failure): {v} x {k}")
    if args.python_only:
        return 0

    used = {(name, str(game)) for name, game, _, _ in explained}
    for key in sorted(set(known) - used):
        print(f"  stale entry in {args.known.name}: {key[0]} game {key[1]} no longer differs")
    print(f"\ndisagreements: {len(unexplained)} unexplained, {len(explained)} known")
    by_field = {}
    for _, _, fields, _ in unexplained:
        for f in fields:
            by_field[f] = by_field.get(f, 0) + 1
    for f, v in sorted(by_field.items()):
        print(f"  {f}: {v}")
    for r in failures:
        print(f"\nFAILED {r.name}: {r.failure}")
    for name, game, fields, text in unexplained[: args.show]:
        print(f"\n  {name} game {game}: {', '.join(fields)}")
        print(text)
    if len(unexplained) > args.show:
        print(f"\n  ... and {len(unexplained) - args.show} more (--show N for more)")
    if failures:
        return 2
    if unexplained:
        print("\nconformance: FAILED (explain each case in .ci/conformance-known.tsv "
              "with a test or a doc, or fix pgnkit)")
        return 1
    print("\nconformance: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
