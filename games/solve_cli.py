"""``solve``: exact answers for positions read from stdin, for the games that have a solver
command.

``solve [--game GAME] [OPTIONS]``: ``--game`` picks the front end (default ``connect4``) and every
other option goes to it:

* ``connect4`` (``games.connect4.solve_cli``): positions as 1-based column digits, Pons' scores;
* ``pig`` (``games.pig.solve_cli``): lines ``I J K``, the win probability and ``roll``/``hold``.

Blank lines at the end of the input (an editor's trailing newline) are dropped before the front end
reads them; a blank line followed by more input is passed on (Connect Four reports it).
``solve --help`` shows both input formats before the chosen front end's options.
"""

from __future__ import annotations

import argparse
import importlib
import io
import sys
from collections.abc import Iterable, Iterator, Sequence
from typing import TextIO

#: solver front ends by game id: the module whose ``main(argv, stdin, stdout, stderr)`` runs it
FRONT_ENDS = {"connect4": "games.connect4.solve_cli", "pig": "games.pig.solve_cli"}

#: what each front end reads and writes, printed first by ``solve --help``
INPUT_FORMATS = """input, one position a line on stdin:
  --game connect4 (default)  1-based column digits from the empty board, e.g. 4453;
                             answers 'POSITION SCORE' (Pons' scores: > 0 the side to move wins)
  --game pig                 'I J K': own score, opponent's score (0 to goal-1) and turn total (>= 0),
                             e.g. '0 0 0'; answers 'I J K P ACTION' (P: the win probability under
                             optimal play, ACTION: roll or hold; goal 100, die 6 unless --goal/--die)"""


def without_trailing_blank_lines(lines: Iterable[str]) -> Iterator[str]:
    """``lines`` as they come, except blank lines at the very end, which are dropped (a blank line
    followed by a non-blank one is kept, so line numbers stay those of the input)."""
    held: list[str] = []
    for line in lines:
        if line.strip():
            yield from held
            held.clear()
            yield line
        else:
            held.append(line)


def main(
    argv: Sequence[str] | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Dispatch to the game's front end; returns its exit status (2 for an unknown ``--game``)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="solve", add_help=False)
    parser.add_argument("--game", choices=sorted(FRONT_ENDS), default="connect4")
    known, rest = parser.parse_known_args(argv)
    if any(a in ("-h", "--help") for a in rest):
        print(f"solve --game {{{','.join(sorted(FRONT_ENDS))}}} (default connect4)\n{INPUT_FORMATS}\n"
              f"the options of {known.game} follow:", file=stdout or sys.stdout)
    if stdin is None:  # as the front ends: undecodable bytes become U+FFFD, an invalid line
        stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
    module = importlib.import_module(FRONT_ENDS[known.game])
    return module.main(rest, stdin=without_trailing_blank_lines(stdin), stdout=stdout, stderr=stderr)


if __name__ == "__main__":
    raise SystemExit(main())
