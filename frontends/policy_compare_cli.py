"""``arena expected-value A B``: two tabular policies compared by their exact expected value.

Usage::

    arena expected-value kuhn_cfr.json kuhn_pimc.json [--game kuhn] [--json]

Each of ``A`` and ``B`` is a policy file written by ``cfr`` or ``uniform``. The numbers are those
of ``arena.policy_compare.compare``: A's expected chips as the first player, as the second player
and per hand with seats alternated, summed exactly over every deal and action, and the NashConv
of each policy.
"""

from __future__ import annotations

import argparse
import json
import sys

import games
from arena.policy_compare import compare


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
