"""The opponents the web page offers for a game, and the check of an opponent a request names.

An opponent is a player spec (``arena.specs``) of one of a few kinds, each with at most one
setting the page shows as a selector:

* games without chance: alpha-beta at a depth (``alphabeta:depth=N``, the game's heuristic at the
  horizon, ``search.alphabeta``) and UCT with random rollouts (``uct:sims=N``; Kocsis and
  Szepesvari 2006, "Bandit based Monte-Carlo Planning");
* games with chance (Pig): expectiminimax with Ballard's star2 pruning (``star2:depth=N``;
  Ballard 1983, "The *-minimax search procedure for trees containing chance nodes");
* perfect play (``solver``) where the game has an exact solver (``Knowledge.exact_solver``:
  Pons' Connect Four solver, exhaustive negamax for tic-tac-toe, value iteration for Pig's
  optimal policy, ``games.pig.solver``);
* the server's own ``--opponent`` spec, offered as it was written.

The served model is no opponent spec: it is a seat kind of its own (``frontends.web.sessions.MODEL``).
"""

from __future__ import annotations

from dataclasses import dataclass

import games
from arena.specs import PlayerSpec, parse_spec
from games.base import Game

#: alpha-beta depths the page offers (plies)
ALPHABETA_DEPTHS = (1, 2, 3, 4, 5, 6, 7, 8)
#: UCT simulations per move the page offers
UCT_SIMULATIONS = (100, 300, 1000, 3000, 10000)
#: star2 depths the page offers (decisions)
STAR2_DEPTHS = (1, 2, 3, 4)


@dataclass(frozen=True)
class OpponentChoice:
    """One kind of opponent of a game, with the values its setting may take.

    Attributes:
        kind: the player spec's kind (``alphabeta``, ``uct``, ``star2``, ``solver``, or the kind of
            the server's ``--opponent`` spec).
        label: how the page names it (``alpha-beta``, ``UCT``, ``perfect play``, ...).
        option: the spec option the page's selector sets (``depth``, ``sims``), or None.
        values: the values ``option`` may take, increasing (empty without an option).
        default: the value the selector starts at (None without an option).
        fixed: a spec accepted exactly as written (the server's ``--opponent``), else "".
    """

    kind: str
    label: str
    option: str | None = None
    values: tuple[int, ...] = ()
    default: int | None = None
    fixed: str = ""

    def spec(self, value: int | None = None) -> str:
        """The spec text of this choice with ``value`` (None: ``default``), e.g. ``alphabeta:depth=4``."""
        if self.fixed:
            return self.fixed
        if self.option is None:
            return self.kind
        return f"{self.kind}:{self.option}={self.default if value is None else value}"

    def accepts(self, spec: PlayerSpec) -> bool:
        """True if ``spec`` is this choice with one of its values (and no other option)."""
        if self.fixed:
            return spec.text == self.fixed
        if spec.kind != self.kind:
            return False
        if self.option is None:
            return not spec.options
        return set(spec.options) == {self.option} and spec.options[self.option] in self.values

    def describe(self) -> str:
        """The accepted specs in words: ``alphabeta:depth=1..8``, ``uct:sims=100|300``, ``solver``."""
        if self.fixed or self.option is None:
            return self.spec()
        contiguous = list(self.values) == list(range(self.values[0], self.values[-1] + 1))
        shown = f"{self.values[0]}..{self.values[-1]}" if contiguous and len(self.values) > 2 else "|".join(
            str(v) for v in self.values
        )
        return f"{self.kind}:{self.option}={shown}"

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "label": self.label,
            "option": self.option,
            "values": list(self.values),
            "default": self.default,
            "spec": self.spec(),
        }


def has_exact_solver(game: Game) -> bool:
    """True if ``games.knowledge(game).exact_solver()`` exists (it may build the solver's tables:
    Pig's value iteration takes a few seconds once per process)."""
    return games.knowledge(game).exact_solver() is not None


def opponent_choices(game: Game, fixed: str = "") -> tuple[OpponentChoice, ...]:
    """The opponents the page offers for ``game``: ``fixed`` (the server's ``--opponent`` spec)
    first when given, then the searches of the module docstring, then perfect play where the game
    has an exact solver."""
    choices: list[OpponentChoice] = []
    if fixed:
        choices.append(OpponentChoice(parse_spec(fixed).kind, fixed, fixed=fixed))
    if game.num_chance_outcomes:
        choices.append(OpponentChoice("star2", "expectiminimax (star2)", "depth", STAR2_DEPTHS, 2))
    else:
        choices.append(OpponentChoice("alphabeta", "alpha-beta", "depth", ALPHABETA_DEPTHS, 4))
        choices.append(OpponentChoice("uct", "UCT (random rollouts)", "sims", UCT_SIMULATIONS, 1000))
    if has_exact_solver(game):
        choices.append(OpponentChoice("solver", "perfect play"))
    return tuple(choices)


def check_opponent(choices: tuple[OpponentChoice, ...], game_name: str, text: object) -> str:
    """The spec text of the opponent ``text`` names, if it is one of ``choices``.

    Raises:
        ValueError: for anything else; the message starts ``opponent:`` and lists what the game
            offers, e.g. ``opponent: expected one of alphabeta:depth=1..8, uct:sims=100|300|1000|3000|10000,
            solver for connect4, got 'alphabeta:depth=9'``.
    """
    offered = ", ".join(choice.describe() for choice in choices)
    expected = f"opponent: expected one of {offered} for {game_name}, got {text!r}"[:400]
    try:  # parse_spec refuses a non-string too
        spec = parse_spec(text)
    except ValueError:
        raise ValueError(expected) from None
    for choice in choices:
        if choice.accepts(spec):
            return choice.fixed or choice.spec(spec.options.get(choice.option) if choice.option else None)
    raise ValueError(expected)
