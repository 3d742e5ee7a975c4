"""The player interface every arena player follows, and the helpers players share.

A player is anything with a ``name``, a seeded ``rng`` (``numpy.random.Generator``) and
``select_action(game, state) -> int`` that returns a legal action for the player to move in the
single-state tuple ``state`` (the six-function representation of ``games.base``). Every random
choice a player makes comes from its ``rng``, so a match is reproducible.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from games.base import Game


@runtime_checkable
class Player(Protocol):
    """The player interface: ``select_action(game, state) -> action`` with a seeded ``rng``."""

    name: str
    rng: np.random.Generator

    def select_action(self, game: Game, state: tuple) -> int:
        """A legal action for the player to move in the non-terminal ``state``."""
        ...


def make_rng(rng: np.random.Generator | int) -> np.random.Generator:
    """A generator from a seed (int) or a generator (returned as is).

    Raises:
        ValueError: for anything else (``None`` included: every player is seeded).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise ValueError(f"expected a numpy.random.Generator or an int seed, got {rng!r}")


def legal_actions(game: Game, state: tuple) -> list[int]:
    """The legal actions of ``state``, increasing.

    Raises:
        ValueError: if ``state`` is terminal, or a chance state (no player acts there).
    """
    if game.is_chance_state(state):
        raise ValueError(
            f"{game.name}: a chance state was handed to a player: the game draws its outcome "
            f"(chance_outcomes / sample_chance), no player moves there: {state}"
        )
    actions = game.actions(state)
    if not actions:
        raise ValueError(f"{game.name}: expected a non-terminal state, got a finished one: {state}")
    return actions
