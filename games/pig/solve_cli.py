"""``solve --game pig``: exact win probabilities and optimal actions of Pig positions from stdin.

Each input line is ``I J K``: the score of the player to move, the opponent's score and the turn
total (integers, ``0 <= I, J < goal``, ``K >= 0``). Each valid line prints ``I J K P ACTION`` on
stdout: ``P`` the probability that the player to move wins under optimal play by both, to 10
decimals, and ``ACTION`` the optimal one, ``roll`` or ``hold`` (Neller & Presser 2004; solver in
``games.pig.solver``). An invalid line prints ``line N: ...`` on stderr, naming what was expected;
the other lines are still answered and the exit status is 1 at the end. Nothing typed on stdin
makes the process die: undecodable bytes are an invalid line.
"""

from __future__ import annotations

import argparse
from typing import TextIO

from games.checks import int_argument
from games.line_cli import Answer, InvalidLine, line_command
from games.pig.game import DEFAULT_DIE, DEFAULT_GOAL, MAX_DIE
from games.pig.solver import solve

ACTION_NAMES = ("roll", "hold")


def _die(text: str) -> int:
    value = int_argument(1)(text)
    if not 2 <= value <= MAX_DIE:
        raise argparse.ArgumentTypeError(f"expected a die of 2 to {MAX_DIE} faces, got {value}")
    return value


def parse_line(text: str, goal: int) -> tuple[int, int, int]:
    """``(i, j, k)`` of one input line.

    Raises:
        ValueError: naming what was expected: three integers, scores in ``[0, goal)``, a turn
            total >= 0.
    """
    tokens = text.split()
    expected = f"expected 'I J K': own score, opponent's score (0-{goal - 1}) and turn total (>= 0)"
    if len(tokens) != 3:
        raise ValueError(f"{expected}, got {len(tokens)} field(s)")
    values = []
    for label, token in zip(("I", "J", "K"), tokens):
        if not token.isascii() or not token.lstrip("-").isdigit():
            raise ValueError(f"{expected}; {label} is not an integer: {token!r}")
        values.append(int(token))
    i, j, k = values
    for label, value in (("I (own score)", i), ("J (opponent's score)", j)):
        if not 0 <= value < goal:
            raise ValueError(f"{label} must be in [0, {goal - 1}] at goal {goal}, got {value}")
    if k < 0:
        raise ValueError(f"K (turn total) must be >= 0, got {k}")
    return i, j, k


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="solve --game pig",
        description="Win probability under optimal play and the optimal action of Pig positions 'I J K' read from stdin.",
    )
    parser.add_argument("--goal", type=int_argument(1), default=DEFAULT_GOAL, help=f"points to win (default {DEFAULT_GOAL})")
    parser.add_argument("--die", type=_die, default=DEFAULT_DIE, help=f"faces of the die (default {DEFAULT_DIE})")
    return parser


def _answerer(args: argparse.Namespace, stderr: TextIO) -> Answer:
    """The answer to one line ``I J K``: ``I J K P ACTION``."""
    solver = solve(args.goal, args.die)

    def answer(line: str) -> str:
        try:
            i, j, k = parse_line(line, args.goal)
        except ValueError as error:
            raise InvalidLine(f"{line.strip()!r}: {error}") from error
        probability = solver.win_probability(i, j, k)
        action = ACTION_NAMES[1 if i + k >= args.goal else solver.optimal_action(i, j, k)]
        return f"{i} {j} {k} {probability:.10f} {action}"

    return answer


main = line_command(
    _parser,
    _answerer,
    """Run the command; returns the exit status (0 all lines valid, 1 some line invalid, 2 bad
    options, 130 interrupted).""",
)


if __name__ == "__main__":
    raise SystemExit(main())
