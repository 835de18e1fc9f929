#!/usr/bin/env python3
"""Round trips of `pgnkit convert` on the shared corpus, checked against python-chess.

For every file of ../shared/corpus/{lichess,twic,python-chess,eco,chess-library} and every
game of the TCEC archive (Chess960 and engine comments included):

1. `pgnkit convert --to san FILE` (san.pgn) must be read by python-chess to the same main-line
   moves and final position as python-chess reads from FILE itself, game by game (games are
   paired by their number in FILE, given by `--format jsonl`; variants and Chess960 games are
   skipped for this comparison).
2. For X in lan, uci, fan, zh, zh-long: `convert --to X FILE` and back with `convert --to san`
   must give san.pgn again, byte for byte (same moves, comments, variations, tags).
3. The main-line moves of the `--to lan` and `--to uci` outputs must equal python-chess's
   `board.lan(move)` and `move.uci()`, move for move.

Exit status 0 when everything agrees, 1 on a disagreement, 2 on a setup problem.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import chess
import chess.pgn

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "corpus"
FOLDERS = ["lichess", "twic", "python-chess", "eco", "chess-library"]
# Every Nth game of the 150 MB TCEC archive (decompressed into a temporary file); 1 = all
# (about four minutes in all on 2 cores).
TCEC_EVERY = 1
NOTATIONS = ["lan", "uci", "fan", "zh", "zh-long"]
STANDARD_TAGS = {"", "standard", "chess", "normal", "from position", "from_position"}
NUMBER = re.compile(r"^\d+\.(\.\.)?")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def convert(pgnkit: str, args: list[str], data: bytes | None = None, path: Path | None = None) -> bytes:
    cmd = [pgnkit, "convert", "-q", *args, str(path) if path else "-"]
    done = subprocess.run(cmd, input=data, capture_output=True)
    if done.returncode == 2:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode(errors='replace')[:500]}")
    return done.stdout


def split_games(text: str) -> list[str]:
    """pgnkit's PGN output: each game starts with `[Event`."""
    parts = re.split(r"\n(?=\[Event )", text.strip("\n"))
    return [p for p in parts if p.strip()]


def mainline_tokens(game: str) -> list[str]:
    """The main-line moves of one game of pgnkit's PGN output, as written."""
    movetext = game.split("\n\n", 1)[1] if "\n\n" in game else ""
    tokens: list[str] = []
    depth = 0
    word = ""
    i = 0
    while i < len(movetext):
        c = movetext[i]
        if c == "{":
            end = movetext.find("}", i)
            i = len(movetext) if end < 0 else end + 1
            continue
        if c == ";":  # a line comment runs to the end of the line
            end = movetext.find("\n", i)
            i = len(movetext) if end < 0 else end
            continue
        if c in "() \n":
            if word and depth == 0:
                tokens.append(word)
            word = ""
            depth += {"(": 1, ")": -1}.get(c, 0)
        else:
            word += c
        i += 1
    if word and depth == 0:
        tokens.append(word)
    moves = []
    for t in tokens:
        t = NUMBER.sub("", t)
        if not t or t.startswith("$") or t in RESULTS:
            continue
        moves.append(t)
    return moves


def read_games(text: str) -> list[chess.pgn.Game]:
    games = []
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


def is_standard(game: chess.pgn.Game) -> bool:
    if game.headers.get("Variant", "").lower() not in STANDARD_TAGS:
        return False
    try:
        board = game.board()
    except ValueError:
        return False
    return board.uci_variant == "chess" and not board.chess960


def mainline(game: chess.pgn.Game) -> tuple[list[str], list[str], list[str], str]:
    """SAN, LAN and UCI of the main line, and the final FEN."""
    board = game.board()
    sans, lans, ucis = [], [], []
    for move in game.mainline_moves():
        sans.append(board.san(move))
        lans.append(board.lan(move))
        # pgnkit writes null moves `--` in every notation (`0000` reads as a move number).
        ucis.append(move.uci() if move else "--")
        board.push(move)
    return sans, lans, ucis, board.fen()


def check_file(pgnkit: str, path: Path, failures: list[str]) -> tuple[int, int]:
    raw = path.read_bytes()
    name = path.relative_to(path.parents[1])
    san = convert(pgnkit, ["--to", "san"], path=path).decode()
    numbers = [json.loads(line)["game"] for line in
               convert(pgnkit, ["--format", "jsonl"], path=path).decode().splitlines()]
    san_games = split_games(san)
    if len(san_games) != len(numbers):
        failures.append(f"{name}: {len(san_games)} games in the PGN output, {len(numbers)} in JSON lines")
        return 0, 0

    # 2. Every notation and back gives the same SAN output.
    outputs = {}
    for notation in NOTATIONS:
        out = convert(pgnkit, ["--to", notation], path=path)
        outputs[notation] = out.decode()
        back = convert(pgnkit, ["--to", "san"], data=out).decode()
        if back != san:
            theirs = split_games(back)
            k = next((k for k, (a, b) in enumerate(zip(san_games, theirs)) if a != b),
                     min(len(san_games), len(theirs)))
            failures.append(f"{name}: san -> {notation} -> san differs at output game {k + 1} "
                            f"(input game {numbers[k] if k < len(numbers) else '?'})")

    # 1 and 3. python-chess on the original and on pgnkit's outputs.
    originals = [g for g in read_games(raw.decode("utf-8-sig", errors="replace"))
                 if g.mainline_moves() or g.headers != chess.pgn.Game().headers]
    mine = read_games(san)
    lan_games = split_games(outputs["lan"])
    uci_games = split_games(outputs["uci"])
    compared = skipped = 0
    for k, number in enumerate(numbers):
        if number - 1 >= len(originals) or k >= len(mine):
            failures.append(f"{name}: game {number}: no counterpart in python-chess's reading")
            continue
        original = originals[number - 1]
        if not is_standard(original):
            skipped += 1
            continue
        compared += 1
        where = f"{name}: game {number}"
        if original.errors:
            failures.append(f"{where}: python-chess cannot read the original: {original.errors[0]}")
            continue
        if mine[k].errors:
            failures.append(f"{where}: python-chess cannot read pgnkit's SAN: {mine[k].errors[0]}")
            continue
        o_san, o_lan, o_uci, o_fen = mainline(original)
        m_san, _, _, m_fen = mainline(mine[k])
        if (o_san, o_fen) != (m_san, m_fen):
            failures.append(f"{where}: --to san output replays to {m_fen}, the original to {o_fen}")
        if mainline_tokens(lan_games[k]) != o_lan:
            failures.append(f"{where}: --to lan differs from python-chess's lan()")
        if mainline_tokens(uci_games[k]) != o_uci:
            failures.append(f"{where}: --to uci differs from python-chess's uci()")
    return compared, skipped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target = os.environ.get("CARGO_TARGET_DIR", str(REPO / "target"))
    parser.add_argument("--pgnkit", default=f"{target}/release/pgnkit")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--show", type=int, default=20, help="disagreements shown")
    args = parser.parse_args()
    if not Path(args.pgnkit).is_file():
        print(f"roundtrip: no pgnkit binary at {args.pgnkit}", file=sys.stderr)
        return 2
    files = sorted(p for folder in FOLDERS for p in (args.corpus / folder).glob("*.pgn"))
    tcec = args.corpus / "tcec" / "tcec-shared.pgn.zst"
    if tcec.is_file():
        import subprocess as sp
        import tempfile
        raw = sp.run(["zstd", "-dqc", str(tcec)], check=True, capture_output=True).stdout
        games = raw.split(b"\n[Event ")
        sample = b"\n[Event ".join(g for i, g in enumerate(games) if i % TCEC_EVERY == 0)
        with tempfile.NamedTemporaryFile(prefix="tcec-sample-", suffix=".pgn", delete=False) as f:
            f.write(sample)
        files.append(Path(f.name))
    if not files:
        print(f"roundtrip: no corpus at {args.corpus}", file=sys.stderr)
        return 2
    started = time.monotonic()
    failures: list[str] = []
    compared = skipped = 0
    for path in files:
        try:
            c, s = check_file(args.pgnkit, path, failures)
        except RuntimeError as e:
            print(f"roundtrip: {e}", file=sys.stderr)
            return 2
        compared += c
        skipped += s
    for line in failures[: args.show]:
        print(f"  {line}")
    print(f"roundtrip: {len(files)} files, {compared} games compared with python-chess, "
          f"{skipped} variant games skipped, {len(failures)} disagreements "
          f"in {time.monotonic() - started:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
