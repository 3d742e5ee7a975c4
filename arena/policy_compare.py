"""``arena expected-value A B``: two tabular policies compared by their exact expected value.

Usage::

    arena expected-value kuhn_cfr.json kuhn_pimc.json [--game kuhn] [--json]

Each of ``A`` and ``B`` is a policy file written by ``cfr`` or ``uniform``. Poker is not
symmetric between the seats, so A plays both: ``A first`` is player 0's expected chips with A as
player 0 and B as player 1, ``A second`` A's expected chips as player 1; ``A per hand`` is their
mean, A's expected winnings per hand with seats alternated (0 for a policy against itself). Each
is summed exactly over every deal and action (``search.best_response.expected_value``), no
sampling; the NashConv of each policy is shown too.
"""

from __future__ import annotations

import argparse
import json
import sys

import games
from arena.tabular_policy import UNIFORM, load_policy
from search.best_response import expected_value, nash_conv


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena expected-value", description="Exact expected value of two poker policies.")
    parser.add_argument("policies", nargs=2, metavar="POLICY", help="policy JSON file (cfr --out) or 'uniform'")
    parser.add_argument("--game", choices=games.names([games.IMPERFECT]), help="the game (default: the policy files')")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def compare(spec_a: str, spec_b: str, game: str | None = None) -> dict:
    """The exact comparison of two policies (file paths or ``"uniform"``) as a dict (chips).

    Raises:
        FileNotFoundError: for a missing file; ValueError: for a bad file, policies of different
            games, or two ``uniform`` policies without a game.
    """
    if game is None:
        for spec in (spec_a, spec_b):
            if spec != UNIFORM:
                game = load_policy(spec)[0].game.name
                break
    tree, policy_a = load_policy(spec_a, game)
    _, policy_b = load_policy(spec_b, game)
    first = expected_value(tree, policy_a, policy_b)
    second = -expected_value(tree, policy_b, policy_a)
    return {
        "game": tree.game.name,
        "a": spec_a,
        "b": spec_b,
        "a_first": first,
        "a_second": second,
        "a_per_hand": (first + second) / 2.0,
        "nash_conv_a": nash_conv(tree, policy_a),
        "nash_conv_b": nash_conv(tree, policy_b),
    }


def main(argv: list[str]) -> int:
    """``arena expected-value ...``; returns the exit status (0, or 2 for bad arguments)."""
    args = _parser().parse_args(argv)
    try:
        result = compare(args.policies[0], args.policies[1], args.game)
    except (ValueError, FileNotFoundError) as error:
        print(f"arena: error: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result, sort_keys=True))
        return 0
    print(f"{result['game']}: A = {result['a']}, B = {result['b']} (exact expected chips for A)")
    print(f"  A as the first player   {result['a_first']:+.6f}")
    print(f"  A as the second player  {result['a_second']:+.6f}")
    print(f"  A per hand, seats alternated {result['a_per_hand']:+.6f}")
    print(f"  NashConv: A {result['nash_conv_a']:.6f}, B {result['nash_conv_b']:.6f}")
    return 0
