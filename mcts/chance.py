"""Chance nodes of the tree search: the expansion step of games with chance (``games.base``).

A chance node is never the root and never sent to the evaluator. When a walk ends below a decision
that leads to a chance state, ``expand_with_chance`` creates the chance node and its outcomes:
every outcome at once with ``CHANCE_EXPECTATION`` (the chance node's value is then the
probability-weighted mean of its outcomes', expectimax's chance rule; Russell & Norvig 3rd ed.
section 5.5), or one outcome drawn by its probability with ``CHANCE_SAMPLING``; all new
decision states of the step go to the evaluator in one call. The compiled half (selection at
chance nodes, outcome creation, expectation backups) is in ``mcts.kernels``; ``mcts.search``
describes both modes.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from games.base import Game
from mcts.evaluators import evaluate_leaves
from mcts.kernels import CHANCE_EXPECTATION, CHANCE_SAMPLING, NewNodes, NewOutcomes, Walks
from mcts.tree import Tree


class LeafCounters(NamedTuple):
    """Per-row counters of one search, ``[B]`` int32 each: simulations that ended on a terminal
    state, states sent to the evaluator, and evaluations whose priors fell back to uniform."""

    num_terminal: np.ndarray
    num_evaluations: np.ndarray
    num_degenerate: np.ndarray


class ChanceBuffers:
    """Per-step arrays of the chance outcomes created below new chance nodes (``outcomes``, a
    ``mcts.kernels.NewOutcomes``; ``K = 0`` columns for games without chance, so the kernels'
    signatures are the same for every game) and the walks' sampling seeds."""

    def __init__(self, batch: int, num_outcomes: int, width: int, state_size: int, mode: int) -> None:
        k = num_outcomes
        self.mode = int(mode)
        self.outcomes = NewOutcomes(
            is_chance=np.zeros(batch, dtype=np.bool_),
            probs=np.zeros((batch, k), dtype=np.float64),
            present=np.zeros((batch, k), dtype=np.bool_),
            states=np.zeros((batch, k, state_size), dtype=np.int64),
            to_play=np.zeros((batch, k), dtype=np.int8),
            terminal=np.zeros((batch, k), dtype=np.bool_),
            values=np.zeros((batch, k), dtype=np.float32),
            priors=np.zeros((batch, k, width), dtype=np.float32),
            legal=np.zeros((batch, k, width), dtype=np.bool_),
        )
        self._seeds = np.zeros(batch, dtype=np.uint64)

    def seeds(self, rng: np.random.Generator) -> np.ndarray:
        """Fresh SplitMix64 seeds ``[B]`` uint64 from ``rng`` for the walks of one step (sampling
        mode only; nothing is drawn otherwise, so games without chance keep their random streams)."""
        if self.mode == CHANCE_SAMPLING:
            self._seeds[:] = rng.integers(0, np.iinfo(np.int64).max, size=self._seeds.shape[0], dtype=np.int64).astype(np.uint64)
        return self._seeds


def expand_with_chance(
    game: Game, evaluate_fn, rng: np.random.Generator, tree: Tree, chance: ChanceBuffers, expand: np.ndarray,
    walks: Walks, new: NewNodes, counters: LeafCounters,
) -> None:
    """One step's new leaves of a game with chance: play the decisions (``step``) and the chance
    outcomes (``apply_chance``) that end the walks (``walks``; ``expand`` ``[B]`` bool marks the
    rows whose walk ended at a missing child), create the outcomes of new chance nodes (all, or one
    drawn with ``rng``), and evaluate every new non-terminal decision state in one call. Fills
    ``new`` and ``chance.outcomes`` for ``mcts.kernels.expand_and_backup`` and adds to
    ``counters``. Raises ValueError for a chance outcome that leads to another chance state, and
    as ``mcts.evaluators.evaluate_leaves``."""
    num_actions = game.num_actions
    outcomes = chance.outcomes
    leaf_parent, leaf_action, parent_states = walks.parent, walks.action, walks.parent_states
    new_states, new_to_play, new_terminal, new_values = new.states, new.to_play, new.terminal, new.values
    new_priors, new_legal = new.priors, new.legal
    num_terminal, num_evaluations, num_degenerate = counters
    outcomes.is_chance[:] = False
    outcomes.present[:] = False
    num_terminal[~expand] += 1
    rows = np.flatnonzero(expand)
    if not rows.size:
        return
    from_chance = tree.node_chance[rows, leaf_parent[rows]]
    stepped = np.empty((rows.size, game.state_size), dtype=np.int64)
    if from_chance.any():
        stepped[from_chance] = game.apply_chance(parent_states[rows[from_chance]], leaf_action[rows[from_chance]].astype(np.int64))
    if (~from_chance).any():
        stepped[~from_chance] = game.step(parent_states[rows[~from_chance]], leaf_action[rows[~from_chance]].astype(np.int64))
    is_chance = game.is_chance(stepped)
    check_no_chain(game, is_chance & from_chance)
    new_states[rows] = stepped
    new_to_play[rows] = game.to_play(stepped)
    new_terminal[rows] = game.terminal(stepped)
    # Leaves to evaluate: the decision leaves themselves and the outcomes below new chance nodes.
    leaf_rows = rows[~is_chance]
    leaf_states = stepped[~is_chance]
    chance_rows = rows[is_chance]
    outcome_rows = np.zeros(0, dtype=np.int64)
    outcome_index = np.zeros(0, dtype=np.int64)
    outcome_states = np.zeros((0, game.state_size), dtype=np.int64)
    if chance_rows.size:
        chance_states = stepped[is_chance]
        probs = game.chance_probabilities(chance_states)
        if chance.mode == CHANCE_EXPECTATION:
            parent, outcome = np.nonzero(probs > 0)
        else:
            parent = np.arange(chance_rows.size)
            outcome = game.sample_chance(chance_states, rng)
        outcome_rows = chance_rows[parent]
        outcome_index = outcome.astype(np.int64)
        outcome_states = game.apply_chance(chance_states[parent], outcome_index)
        check_no_chain(game, game.is_chance(outcome_states))
        outcomes.is_chance[chance_rows] = True
        outcomes.probs[chance_rows] = probs
        outcomes.present[outcome_rows, outcome_index] = True
        outcomes.states[outcome_rows, outcome_index] = outcome_states
        outcomes.to_play[outcome_rows, outcome_index] = game.to_play(outcome_states)
        new_priors[chance_rows] = 0.0
        new_legal[chance_rows] = False
        new_legal[chance_rows, : probs.shape[1]] = probs > 0
    all_states = np.concatenate([leaf_states, outcome_states])
    terminal = game.terminal(all_states)
    values = np.zeros(all_states.shape[0], dtype=np.float32)
    priors = np.zeros((all_states.shape[0], new_priors.shape[1]), dtype=np.float32)
    legal = np.zeros((all_states.shape[0], new_legal.shape[1]), dtype=np.bool_)
    owner = np.concatenate([leaf_rows, outcome_rows])
    if terminal.any():
        values[terminal] = game.terminal_value(all_states[terminal])
        np.add.at(num_terminal, owner[terminal], 1)
    live = np.flatnonzero(~terminal)
    if live.size:
        live_legal = game.legal_mask(all_states[live])
        live_priors, live_values, degenerate = evaluate_leaves(game, evaluate_fn, all_states[live], live_legal)
        values[live] = live_values
        priors[live, :num_actions] = live_priors
        legal[live, :num_actions] = live_legal
        np.add.at(num_evaluations, owner[live], 1)
        np.add.at(num_degenerate, owner[live], degenerate.astype(np.int32))
    count = leaf_rows.size
    new_values[leaf_rows] = values[:count]
    new_priors[leaf_rows] = priors[:count]
    new_legal[leaf_rows] = legal[:count]
    if chance_rows.size:
        outcomes.terminal[outcome_rows, outcome_index] = terminal[count:]
        outcomes.values[outcome_rows, outcome_index] = values[count:]
        outcomes.priors[outcome_rows, outcome_index] = priors[count:]
        outcomes.legal[outcome_rows, outcome_index] = legal[count:]
        # The chance node's value, from the view of the player who rolled: the probability-weighted
        # mean of its outcomes (expectation) or the drawn outcome's value (sampling).
        roller = new_to_play[outcome_rows]
        signed = np.where(outcomes.to_play[outcome_rows, outcome_index] == roller, 1.0, -1.0) * values[count:]
        weights = outcomes.probs[outcome_rows, outcome_index] if chance.mode == CHANCE_EXPECTATION else 1.0
        totals = np.zeros(new_values.shape[0], dtype=np.float64)
        np.add.at(totals, outcome_rows, weights * signed)
        new_values[chance_rows] = totals[chance_rows]
        new_terminal[chance_rows] = False


def check_no_chain(game: Game, chained: np.ndarray) -> None:
    """Raise ValueError if a chance outcome led to another chance state (``chained`` ``[N]`` bool)."""
    if np.any(chained):
        raise ValueError(
            f"{game.name}: a chance outcome led to another chance state; the search expects a "
            "decision or a finished state after each chance outcome"
        )
