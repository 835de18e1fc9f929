#!/usr/bin/env python3
"""Times pgnkit on inputs that once took quadratic time, at doubling sizes, and prints the ratio
of each time to the one before: about 2 when the time grows linearly, 4 when it grows with the
square. The inputs are made here:

  cr         games with bare-CR line endings (old Mac files)
  one-line   games that all share one line
  braces     one game of `{ ` then `} ` (a finding for every brace, on one line)
  tags       one game of many distinct tags, blank lines between them
  long-line  one game whose movetext is one line of unreadable tokens

Usage: benches/linear.py [PGNKIT] [MAX_MB]   (default target/release/pgnkit, 16)
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
    raise ValueError(kind)


def main():
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


if __name__ == '__main__':
    main()
