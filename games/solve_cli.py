"""``solve``: exact answers for positions read from stdin, for the games that have a solver
command.

``solve [--game GAME] [OPTIONS]``: ``--game`` picks the front end (default ``connect4``) and every
other option goes to it:

* ``connect4`` (``games.connect4.solve_cli``): positions as 1-based column digits, Pons' scores;
* ``pig`` (``games.pig.solve_cli``): lines ``I J K``, the win probability and ``roll``/``hold``.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import TextIO

#: solver front ends by game id: the module whose ``main(argv, stdin, stdout, stderr)`` runs it
FRONT_ENDS = {"connect4": "games.connect4.solve_cli", "pig": "games.pig.solve_cli"}


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
    if known.game == "connect4" and any(a in ("-h", "--help") for a in rest):
        print(f"solve --game {{{','.join(sorted(FRONT_ENDS))}}} (default connect4); the options of connect4 follow:")
    module = importlib.import_module(FRONT_ENDS[known.game])
    return module.main(rest, stdin=stdin, stdout=stdout, stderr=stderr)


if __name__ == "__main__":
    raise SystemExit(main())
