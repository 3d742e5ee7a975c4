"""``solve``: exact Connect Four scores for positions read from stdin.

Each input line holds a position as 1-based column digits played from the empty board; only the
first whitespace-separated token is read, so Pascal Pons' test files (``POSITION SCORE``) can be
piped in unchanged. Output, one line per valid input line, on stdout:

* default: ``POSITION SCORE``;
* ``--analyze``: ``POSITION`` and the scores of columns 1-7, ``-`` for a full column.

Scores follow Pons' convention (positive: the side to move wins; ``22 - stones of the winner``;
see ``games.connect4.solver``). An invalid line (empty, a character other than 1-7, a move into a
full column, a position already won) gives ``line N: ...`` on stderr and no output; the other lines
are still answered and the exit status is 1 at the end. Status 2 is for bad options (argparse).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from games.connect4.solver import Solver, parse_moves
from games.line_cli import Answer, InvalidLine, line_command

#: Positions with fewer plies than this may take seconds to minutes each unless the book covers them.
SLOW_BEFORE_PLY = 6


def _format_scores(scores: list[int | None]) -> str:
    return " ".join("-" if s is None else str(s) for s in scores)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="solve",
        description="Exact Connect Four scores (Pons' convention) for positions read from stdin, one per line.",
    )
    parser.add_argument(
        "--analyze", action="store_true", help="print the score of each column 1-7 ('-' if full)"
    )
    parser.add_argument("--no-book", action="store_true", help="search without the opening book")
    parser.add_argument("--nodes", action="store_true", help="append the number of nodes searched")
    return parser


def _answerer(args: argparse.Namespace, stderr: TextIO) -> Answer:
    """The answer to one line: ``POSITION SCORE`` (or the column scores with ``--analyze``), after a
    note on ``stderr`` the first time a position before ``SLOW_BEFORE_PLY`` is outside the book."""
    solver = Solver(use_book=not args.no_book)
    warned = False

    def answer(line: str) -> str:
        nonlocal warned
        tokens = line.split()
        if not tokens:
            raise InvalidLine("empty line, expected a position (column digits 1-7)")
        moves = tokens[0]
        try:
            plies = parse_moves(moves).num_moves
        except ValueError as error:
            raise InvalidLine(f"{moves!r}: {error}") from error
        searched_from = plies + 1 if args.analyze else plies  # analyze solves each child
        if not warned and solver.book_depth < searched_from and plies < SLOW_BEFORE_PLY:
            if solver.book_depth < 0:
                book, remedy = "no opening book", "scripts/build_opening_book.py builds a book"
            else:
                book = f"the opening book stops at ply {solver.book_depth}"
                remedy = "scripts/build_opening_book.py --depth N builds a deeper one"
            print(
                f"note: {book}; a position before ply {SLOW_BEFORE_PLY} can take seconds to minutes ({remedy})",
                file=stderr,
                flush=True,
            )
            warned = True
        if args.analyze:
            text = f"{moves} {_format_scores(solver.analyze(moves))}"
        else:
            text = f"{moves} {solver.solve(moves)}"
        if args.nodes:
            text += f" {solver.node_count}"
        return text

    return answer


main = line_command(
    _parser,
    _answerer,
    """Run the command; returns the exit status (0 all lines valid, 1 some line invalid or the
    output pipe closed, 130 interrupted).

    Args:
        argv: options (default ``sys.argv[1:]``).
        stdin, stdout, stderr: streams (default the process's).
    """,
)


if __name__ == "__main__":
    raise SystemExit(main())
