#!/usr/bin/env python3
"""Times pgnkit on inputs that once took quadratic time, at doubling sizes, and prints the ratio
of each time to the one before: about 2 when the time grows linearly, 4 when it grows with the
square. The inputs are made here:

  cr         games with bare-CR line endings (old Mac files)
  one-line   games that all share one line
  braces     one game of `{ ` then `} ` (a finding for every brace, on one line)
  tags       one game of many distinct tags, blank lines between them
  long-line  one game whose movetext is one line of unreadable tokens

Then it runs the inputs that once took quadratic time or unbounded memory at N and 4N MB
(N = MAX_MB / 4) and prints the time and the peak memory (RSS) of each, with their ratios:
at most about 4.5 when both grow linearly (the memory often stays flat).

  big-tags     a game whose tag section (distinct tags) is larger than --max-game-size 1,
               between two small games: skipped once, in one pass (validate -j 1 and -j 2)
  big-comment  a game whose comment is larger than --max-game-size 1 (validate -j 1, -j 2)
  variations   one game of sibling variations `(1. d4)` under the size limit, converted to
               each format (convert --format jsonl, csv, pgn; select --format jsonl): its
               memory is bounded by 8 times --max-game-size (P022 past it)

Then, for `pgnkit dedup`, small games at N and 4N (DEDUP_GAMES=N, 100000 by default) at the
least --memory-budget (1M) and at 64M, with the peak memory of each run too.

Last, `pgnkit stats --tiebreaks`: a Swiss of TIEBREAK_PLAYERS players (100000 by default) over
9 rounds, and besides it N and 4N games (TIEBREAK_GAMES=N, 100000 by default) of other events
(four-player round robins): the event log spills to disk, and the tie-break tables are built
from its replay one event at a time, so the peak memory stays flat as the other events grow; it
is what the one large event needs within itself (its games and players), not the database.

Usage: benches/linear.py [PGNKIT] [MAX_MB]   (default target/release/pgnkit, 16)
       benches/linear.py --tiebreaks [PGNKIT]   (the tie-break case alone)
"""
import os
import subprocess
import sys
import tempfile
import time

GAME = ('[Event "e"]\n[Site "s"]\n[Date "2024.01.01"]\n[Round "1"]\n[White "w"]\n'
        '[Black "b"]\n[Result "1-0"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 '
        '6. Re1 b5 7. Bb3 d6 8. c3 O-O 1-0\n\n')


def make(kind, size):
    if kind == 'cr':
        unit = GAME.replace('\n', '\r')
        return unit * (size // len(unit) + 1)
    if kind == 'one-line':
        unit = GAME.replace('\n', ' ')
        return unit * (size // len(unit) + 1)
    if kind == 'braces':
        return '[Event "e"]\n\n' + '{ ' * (size // 4) + '} ' * (size // 4) + '*\n'
    if kind == 'tags':
        out, n, total = [], 0, 0
        while total < size:
            tag = f'[T{n} "v"]\n\n'
            out.append(tag)
            total += len(tag)
            n += 1
        return ''.join(out) + '1. e4 *\n'
    if kind == 'long-line':
        return '[Event "e"]\n\n' + 'Zz9 ' * (size // 4) + '*\n'
    small = '[Event "s"]\n[White "C"]\n[Black "D"]\n\n1. d4 d5 1-0\n\n'
    players = '[Event "big"]\n[White "A"]\n[Black "B"]\n'
    if kind == 'big-tags':
        out, n, total = [small, players], 0, 0
        while total < size:
            tag = f'[T{n} "v"]\n'
            out.append(tag)
            total += len(tag)
            n += 1
        return ''.join(out) + '\n1. e4 *\n\n' + small
    if kind == 'big-comment':
        return small + players + '\n1. e4 {' + 'x' * 99 + '\n' * (size // 100) + '} e5 1-0\n\n' + small
    if kind == 'variations':
        return players + '\n1. e4 ' + '(1. d4) ' * (size // 8) + 'e5 1-0\n'
    raise ValueError(kind)


def dedup_games(n, seed=40):
    """`n` small games for dedup, like an online database's: players who play about ten games
    each, a game's own address in `Site`, games of 1 to 32 plies (pawn moves of both sides,
    each side's in its own order, all legal whatever the other side plays) and, among them,
    copies: the same game again (10%), cut short (5%), with another result (3%)."""
    import random
    rnd = random.Random(seed)
    players = max(2, n // 5)
    made = []
    out = []
    for i in range(n):
        r = rnd.random()
        if made and r < 0.18:
            tags, moves, result = made[rnd.randrange(len(made))]
            if r < 0.10:
                pass
            elif r < 0.15:
                moves, result = moves[:max(1, len(moves) // 2)], '*'
            else:
                result = {'1-0': '0-1', '0-1': '1/2-1/2'}.get(result, '1-0')
        else:
            white, black = rnd.randrange(players), rnd.randrange(players)
            tags = (f'[Event "Rated Blitz game"]\n[Site "https://lichess.org/g{i:08d}"]\n'
                    f'[Date "2024.06.{1 + i % 28:02d}"]\n[White "p{white}"]\n[Black "p{black}"]\n')
            sides = []
            for near, far in (('3', '4'), ('6', '5')):
                files = list('abcdefgh')
                rnd.shuffle(files)
                second = files[:]
                rnd.shuffle(second)
                sides.append([f + near for f in files] + [f + far for f in second])
            plies = rnd.randint(1, 6) if rnd.random() < 0.1 else rnd.randint(10, 32)
            moves = [sides[p % 2][p // 2] for p in range(plies)]
            result = rnd.choice(('1-0', '0-1', '1/2-1/2'))
            made.append((tags, moves, result))
        text = ' '.join(f'{p // 2 + 1}. {m}' if p % 2 == 0 else m for p, m in enumerate(moves))
        out.append(f'{tags}[Result "{result}"]\n\n{text} {result}\n\n')
    return ''.join(out)


def run_measured(args):
    """Runs `args`; its seconds and peak resident memory in MB.

    Measured by a fresh interpreter (`--measure`): a child's peak memory counts its parent's
    at the fork, and this process holds the inputs it made, so a child of its own would
    report this process's size (145 MB for every run once, whatever pgnkit took). The fresh
    interpreter's own size (about 14 MB) is the floor of what is reported."""
    out = subprocess.run([sys.executable, __file__, '--measure', *args], check=True,
                         stdout=subprocess.PIPE, text=True).stdout.split()
    code, took, peak = int(out[0]), float(out[1]), float(out[2])
    if code not in (0, 1):
        raise SystemExit(f'{args}: exit status {code}')
    return took, peak


def measure(args):
    """`--measure ARGS`: runs ARGS, prints its exit status, seconds and peak memory in MB."""
    start = time.perf_counter()
    child = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    took = time.perf_counter() - start
    print(os.waitstatus_to_exitcode(status), took, usage.ru_maxrss / 1024)


def dedup_doubling(binary, games, budgets=('1M', '64M')):
    """`pgnkit dedup` at N and 4N games, at the least budget and another: time and peak memory
    must grow at most about 4.5 times (4 when linear; memory stays flat past the budget)."""
    print(f'{"dedup budget":<13} {"games":>8} {"seconds":>9} {"ratio":>6} {"peak MB":>8} {"ratio":>6}')
    with tempfile.TemporaryDirectory() as tmp:
        for budget in budgets:
            before = None
            for n in (games, 4 * games):
                path = os.path.join(tmp, 'games.pgn')
                # Made by a child: the peak memory a child reports counts its parent's at
                # the fork, which the games would make grow with N.
                subprocess.run([sys.executable, __file__, '--dedup-games', str(n), path],
                               check=True)
                took, peak = run_measured([binary, 'dedup', '-q', '-j', '1', path, '-o',
                                           os.path.join(tmp, 'out.pgn'), '--memory-budget',
                                           budget])
                ratios = (f'{took / before[0]:.2f}', f'{peak / before[1]:.2f}') if before else ('-', '-')
                print(f'{budget:<13} {n:>8} {took:>9.3f} {ratios[0]:>6} {peak:>8.1f} {ratios[1]:>6}',
                      flush=True)
                before = (took, peak)


def tiebreak_games(players, others, path, rounds=9):
    """Writes a Swiss of `players` players over `rounds` rounds (in round r, a player whose bit
    r is 0 meets the one 2^r above it, if any: no pair meets twice; a player left without an
    opponent gets a bye), then `others` games of four-player round robins among 1,000 club
    players (so that the players, which memory is bounded by, do not grow with N), to
    `path`."""
    with open(path, 'w') as f:
        for r in range(rounds):
            step = 1 << r
            for p in range(players):
                if p & step:
                    continue
                q = p + step
                result = ('1-0', '1/2-1/2', '0-1')[(p * 7 + r * 13) % 3]
                black = f'P{q}' if q < players else 'bye'
                if q >= players:
                    result = '1-0'
                f.write(f'[Event "Open"]\n[Site "Big"]\n[Date "2024.07.01"]\n[Round "{r + 1}"]\n'
                        f'[White "P{p}"]\n[Black "{black}"]\n[WhiteElo "{1000 + p % 1800}"]\n'
                        f'[BlackElo "{1000 + q % 1800}"]\n[Result "{result}"]\n\n1. e4 {result}\n\n')
        pairings = ((0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2))
        for g in range(others):
            event, (w, b) = g // 6, pairings[g % 6]
            result = ('1-0', '1/2-1/2', '0-1')[g % 3]
            f.write(f'[Event "Club {event}"]\n[Site "Town"]\n[Date "2024.01.01"]\n'
                    f'[Round "{g % 6 // 2 + 1}"]\n[White "C{(event * 4 + w) % 1000}"]\n'
                    f'[Black "C{(event * 4 + b) % 1000}"]\n'
                    f'[Result "{result}"]\n\n1. d4 {result}\n\n')


def tiebreak_doubling(binary, players, games):
    """`pgnkit stats --tiebreaks` on the Swiss of `players` players and N then 4N games of other
    events: time grows with the games, peak memory stays flat (the Swiss's own)."""
    print(f'{"tiebreaks":<10} {"players":>8} {"others":>8} {"seconds":>9} {"ratio":>6} '
          f'{"peak MB":>8} {"ratio":>6}')
    with tempfile.TemporaryDirectory() as tmp:
        before = None
        for n in (games, 4 * games):
            path = os.path.join(tmp, 'events.pgn')
            # Made by a child, as dedup's games are (see dedup_doubling).
            subprocess.run([sys.executable, __file__, '--tiebreak-games', str(players), str(n),
                            path], check=True)
            took, peak = run_measured([binary, 'stats', '-q', '-j', '1', path, '--report',
                                       'standings', '-o', os.path.join(tmp, 'standings.csv'),
                                       '--tiebreaks', 'BH-C1,BH,SB,ARO,PS,WIN'])
            ratios = (f'{took / before[0]:.2f}', f'{peak / before[1]:.2f}') if before else ('-', '-')
            print(f'{"swiss":<10} {players:>8} {n:>8} {took:>9.3f} {ratios[0]:>6} {peak:>8.1f} '
                  f'{ratios[1]:>6}', flush=True)
            before = (took, peak)


# The inputs measured at N and 4N: (input, label, arguments after the binary).
AT_N_AND_4N = [
    ('big-tags', 'validate -j 1', ['validate', '-q', '-j', '1', '--max-game-size', '1']),
    ('big-tags', 'validate -j 2', ['validate', '-q', '-j', '2', '--max-game-size', '1']),
    ('big-comment', 'validate -j 1', ['validate', '-q', '-j', '1', '--max-game-size', '1']),
    ('big-comment', 'validate -j 2', ['validate', '-q', '-j', '2', '--max-game-size', '1']),
    ('variations', 'convert jsonl', ['convert', '-q', '-j', '1', '--format', 'jsonl']),
    ('variations', 'convert csv', ['convert', '-q', '-j', '1', '--format', 'csv']),
    ('variations', 'convert pgn', ['convert', '-q', '-j', '1', '--format', 'pgn']),
    ('variations', 'select jsonl', ['select', '-q', '-j', '1', '--where', 'White = "A"',
                                    '--format', 'jsonl']),
]


def main():
    if sys.argv[1:2] == ['--measure']:
        measure(sys.argv[2:])
        return
    if sys.argv[1:2] == ['--tiebreak-games']:
        tiebreak_games(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    if sys.argv[1:2] == ['--tiebreaks']:
        # Only the tie-break case: `--tiebreaks [PGNKIT]`.
        binary = sys.argv[2] if len(sys.argv) > 2 else 'target/release/pgnkit'
        tiebreak_doubling(binary, int(os.environ.get('TIEBREAK_PLAYERS', '100000')),
                          int(os.environ.get('TIEBREAK_GAMES', '100000')))
        return
    if sys.argv[1:2] == ['--dedup-games']:
        with open(sys.argv[3], 'w') as f:
            f.write(dedup_games(int(sys.argv[2])))
        return
    binary = sys.argv[1] if len(sys.argv) > 1 else 'target/release/pgnkit'
    max_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 16
    sizes = [mb for mb in (1, 2, 4, 8, 16, 32, 64) if mb <= max_mb]
    print(f'{"input":<10} {"MB":>4} {"seconds":>9} {"ratio":>6}')
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'input.pgn')
        for kind in ('cr', 'one-line', 'braces', 'tags', 'long-line'):
            before = None
            for mb in sizes:
                with open(path, 'w') as f:
                    f.write(make(kind, mb << 20))
                start = time.perf_counter()
                subprocess.run([binary, 'validate', '-q', '-j', '1', '--format', 'json', path],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                took = time.perf_counter() - start
                ratio = f'{took / before:.2f}' if before else '-'
                print(f'{kind:<10} {mb:>4} {took:>9.3f} {ratio:>6}', flush=True)
                before = took
        n = max(max_mb // 4, 1)
        print()
        print(f'{"input":<12} {"command":<14} {"MB":>4} {"seconds":>8} {"ratio":>6} '
              f'{"peak MB":>8} {"ratio":>6}')
        made = None
        for kind, label, args in AT_N_AND_4N:
            before = None
            for mb in (n, 4 * n):
                if made != (kind, mb):
                    with open(path, 'w') as f:
                        f.write(make(kind, mb << 20))
                    made = (kind, mb)
                took, peak = run_measured([binary, *args, path])
                if before:
                    ratios = f'{took / before[0]:>6.2f}', f'{peak / before[1]:>6.2f}'
                else:
                    ratios = f'{"-":>6}', f'{"-":>6}'
                print(f'{kind:<12} {label:<14} {mb:>4} {took:>8.3f} {ratios[0]} {peak:>8.1f} '
                      f'{ratios[1]}', flush=True)
                before = (took, peak)
    dedup_doubling(binary, int(os.environ.get('DEDUP_GAMES', '100000')))
    print()
    tiebreak_doubling(binary, int(os.environ.get('TIEBREAK_PLAYERS', '100000')),
                      int(os.environ.get('TIEBREAK_GAMES', '100000')))


if __name__ == '__main__':
    main()
