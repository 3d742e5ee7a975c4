"""``play --game kuhn|leduc``: a human against a saved tabular policy, in the terminal.

Usage::

    play --game kuhn --policy kuhn.json [--hands 10] [--seed 0] [--human-second]

The policy file is what ``cfr`` writes (``arena/tabular_policy.py``), or ``uniform``. Seats
alternate every hand (you start as the first player unless ``--human-second``). Before each of
your moves you see your card, the public card (Leduc, second round), the betting so far and the
pot; type an action word or its first letter (Kuhn: ``pass``/``bet``, also ``check``, ``fold``,
``call``; Leduc: ``fold``, ``call``/``check``, ``raise``/``bet``) or ``quit``. The policy samples
its actions from its table with a seeded generator, and so do the deals. After each hand both
cards are shown, with the chips won and the running total.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

import numpy as np

import games
from arena.tabular_policy import load_policy
from search.best_response import nash_conv

MAX_HANDS = 1_000_000


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="play", description="Play Kuhn or Leduc poker against a saved policy.")
    parser.add_argument("--game", required=True, choices=games.names([games.IMPERFECT]))
    parser.add_argument("--policy", required=True, metavar="FILE", help="policy JSON written by cfr, or 'uniform'")
    parser.add_argument("--hands", type=int, default=10, help="hands to play (default 10)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the deals and the policy's draws")
    side = parser.add_mutually_exclusive_group()
    side.add_argument("--human-first", dest="human_seat", action="store_const", const=0,
                      help="you are the first player in the first hand (default)")
    side.add_argument("--human-second", dest="human_seat", action="store_const", const=1,
                      help="you are the second player in the first hand")
    return parser


class PokerSession:
    """One terminal session of ``hands`` hands; ``run`` returns the exit status."""

    def __init__(self, tree, policy: np.ndarray, hands: int, first_seat: int, rng: np.random.Generator, stdin, stdout):
        self.tree = tree
        self.game = tree.game
        self.policy = policy
        self.hands = hands
        self.first_seat = first_seat
        self.rng = rng
        self.stdin = stdin
        self.stdout = stdout
        self.total = 0.0

    def say(self, text: str = "") -> None:
        print(text, file=self.stdout, flush=True)

    def _chips(self, amount: float) -> str:
        value = int(amount) if float(amount).is_integer() else amount
        return f"{value} chip" + ("" if abs(value) == 1 else "s")

    def _human_action(self, state: tuple, seat: int) -> int | None:
        legal = self.game.legal_actions(state)
        words = ", ".join(f"{self.game.action_names[a]} ({self.game.action_names[a][0]})" for a in legal)
        while True:
            self.say(self.game.describe(state, seat))
            print(f"your move [{words}, quit]: ", end="", file=self.stdout, flush=True)
            line = self.stdin.readline()
            if not line or line.strip().lower() in ("quit", "q", "exit"):
                return None
            try:
                action = self.game.parse_action(line)
            except ValueError as error:
                self.say(f"error: {error}")
                continue
            if action not in legal:
                self.say(f"error: {self.game.action_names[action]} is not legal now; legal: {words}")
                continue
            return action

    def play_hand(self, number: int) -> bool:
        """Play one hand; False when the human quits."""
        seat = (self.first_seat + number) % 2
        self.say(f"--- hand {number + 1} of {self.hands}: you are player {seat} ({'first' if seat == 0 else 'second'} to act)")
        state = self.game.initial_state()
        while not self.game.is_terminal(state):
            if self.game.is_chance(state):
                outcomes = self.game.chance_outcomes(state)
                pick = self.rng.choice(len(outcomes), p=[p for _, p in outcomes])
                state = self.game.result(state, outcomes[pick][0])
                continue
            mover = self.game.player_to_move(state)
            if mover == seat:
                action = self._human_action(state, seat)
                if action is None:
                    return False
            else:
                row = self.policy[self.tree.infostate_index[self.game.information_state(state, mover)]]
                action = int(self.rng.choice(len(row), p=row))
                self.say(f"policy: {self.game.action_names[action]}")
            state = self.game.result(state, action)
        won = self.game.returns(state)[seat]
        self.total += won
        self.say(f"the policy's card: {self.game.card_name(state[1 - seat])}")
        self.say(self.game.describe(state, seat))
        result = "you win " + self._chips(won) if won > 0 else ("you lose " + self._chips(-won) if won < 0 else "split pot")
        self.say(f"{result}; your total {self.total:+g} after {number + 1} hand(s)")
        return True

    def run(self) -> int:
        self.say(f"{self.game.name} poker against the policy (NashConv {nash_conv(self.tree, self.policy):.6f} chips)")
        played = 0
        for number in range(self.hands):
            if not self.play_hand(number):
                break
            played += 1
        if played:
            self.say(f"you {'won' if self.total >= 0 else 'lost'} {self._chips(abs(self.total))} in {played} hand(s), "
                     f"{self.total / played:+.3f} a hand")
        return 0


def main(argv: list[str] | None = None, stdin=None, stdout=None) -> int:
    """``play --game kuhn|leduc ...``; returns the exit status (0 done, 2 bad arguments, 130 interrupted)."""
    args = _parser().parse_args(argv)
    stdin = stdin if stdin is not None else sys.stdin
    stdout = stdout if stdout is not None else sys.stdout
    return exit_status(lambda: _play(args, stdin, stdout))


def _play(args: argparse.Namespace, stdin, stdout) -> int:
    if not 1 <= args.hands <= MAX_HANDS:
        raise ValueError(f"--hands: expected 1..{MAX_HANDS}, got {args.hands}")
    if args.seed < 0:
        raise ValueError(f"--seed: expected an integer >= 0, got {args.seed}")

    tree, policy = load_policy(args.policy, args.game)
    seat = 0 if args.human_seat is None else args.human_seat
    return PokerSession(tree, policy, args.hands, seat, np.random.default_rng(args.seed), stdin, stdout).run()


def exit_status(run: Callable[[], int]) -> int:
    """``run()``'s exit status, or that of what it raises: 2 for a ``ValueError`` or
    ``FileNotFoundError`` (printed as ``play: error: ...`` on stderr), 130 for an interrupt, 0 when
    the output is closed (``BrokenPipeError``). Shared by both ``play`` front ends
    (``frontends/play_cli.py`` and this module)."""
    try:
        return run()
    except (ValueError, FileNotFoundError) as error:
        print(f"play: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def wants_poker(argv: list[str]) -> bool:
    """True when ``play``'s arguments name an imperfect-information game (``--game kuhn``) for the
    terminal: with ``--web`` the page serves it (``frontends/web/poker.py``)."""
    if "--web" in argv:
        return False
    for index, token in enumerate(argv):
        if token == "--game" and index + 1 < len(argv):
            return argv[index + 1] in games.names([games.IMPERFECT])
        if token.startswith("--game="):
            return token.partition("=")[2] in games.names([games.IMPERFECT])
    return False
