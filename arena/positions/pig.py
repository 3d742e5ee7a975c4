"""Pig positions labelled by the exact solver: the win probability of each action.

Two seeded sets of decision positions, each with the move string that reaches it (events in play
order, ``games.pig.game``):

* ``optimal_play``: the decisions met in games between two optimal players (``PigSolver``), the
  positions that matter against perfect play;
* ``random_play``: the decisions met in games between two uniformly random players, which reach
  the far corners of the score table.

A position is kept once (by own score, opponent's score and turn total), in the order first met,
up to ``SET_SIZE`` positions or ``MAX_GAMES`` games. The value of an action is the mover's win probability after it under
optimal play (``PigSolver.action_scores``); an action more than ``arena.positions.labelled.VALUE_TOLERANCE``
below the best is a mistake.
"""

from __future__ import annotations

import functools

import numpy as np

import games
from arena.positions.labelled import LabelledSet
from games.pig.game import Pig

#: names of the sets, in display order
SET_NAMES = ("optimal_play", "random_play")
#: positions per set
SET_SIZE = 2000
#: seed of the games the positions come from
SEED = 2004
#: games played at most per set (a small goal has fewer distinct positions than ``SET_SIZE``)
MAX_GAMES = 2000


def _collect(game, policy, rng) -> tuple[list[str], list[tuple]]:
    moves, states, seen = [], [], set()
    for _ in range(MAX_GAMES):
        if len(states) >= SET_SIZE:
            break
        state, events = game.initial_state(), []
        while not game.terminal_test(state):
            if game.is_chance_state(state):
                events.append(int(rng.integers(game.die)))
                state = game.chance_result(state, events[-1])
                continue
            key = game.scores(state)
            if key not in seen and len(states) < SET_SIZE:
                seen.add(key)
                states.append(state)
                moves.append(game.format_moves(events))
            events.append(policy(state))
            state = game.result(state, events[-1])
    return moves, states


@functools.lru_cache(maxsize=8)
def _labelled(goal: int, die: int, horizon: int, name: str) -> LabelledSet:
    game = Pig(goal=goal, die=die, horizon=horizon)
    solver = games.knowledge(game).exact_solver()
    rng = np.random.default_rng([SEED, SET_NAMES.index(name)])
    if name == "optimal_play":
        def policy(state):
            return solver.optimal_actions(state)[0]
    else:
        def policy(state):
            actions = game.actions(state)
            return actions[int(rng.integers(len(actions)))]
    moves, states = _collect(game, policy, rng)
    values = np.full((len(states), game.num_actions), np.nan)
    for row, state in enumerate(states):
        for action, probability in solver.action_scores(state).items():
            values[row, action] = probability
    return LabelledSet.from_values(name, moves, np.array(states, dtype=np.int64), values)


def labelled_set(game, name: str) -> LabelledSet:
    """The set ``name`` of a ``games.pig.game.Pig`` (built once per process and game parameters).

    Raises:
        ValueError: for a name not in ``SET_NAMES``.
    """
    if name not in SET_NAMES:
        raise ValueError(f"unknown position set {name!r} for {game.name}; expected one of {list(SET_NAMES)}")
    return _labelled(game.goal, game.die, game.horizon, name)
