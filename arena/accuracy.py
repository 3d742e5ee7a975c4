"""Accuracy against perfect play: the share of positions where a player's move is a mistake.

A move is a *mistake* when another legal move has a strictly better game-theoretic outcome for the
player to move, with win > draw > loss (the definition AlphaZero.jl uses in its Connect Four
benchmark against Pons' solver). Choosing a slower win, or a draw among draws, is not a mistake.

Labelled positions come from the game's position sets (``arena.positions.position_sets(game)``:
``labelled_set_names``, ``labelled_set``; ``arena.positions.labelled.LabelledSet``):

* Connect Four: the project's solver-labelled sets (``arena/positions/connect4``: exact Pons
  score of every column; its sign is the outcome). One rate per set. Measured only when named
  (``labelled_set_groups``): Pascal Pons' six published test sets, ``pons-end-easy`` ...
  ``pons-begin-hard`` or the group ``pons`` (``arena.positions.pons``: read beside the checkout,
  every move's win/draw/loss from a cache that ``scripts/label_pons_sets.py`` fills).
* Tic-tac-toe: every reachable non-terminal position (4,520), labelled by exhaustive negamax
  (``arena.positions.exhaustive``), as the single set ``"all"``.

Public API:

* ``labelled_sets(game, sets=None) -> dict[str, LabelledSet]``
* ``mistake_rate(labelled, actions) -> float`` and ``expected_random_mistake_rate(labelled)``
* ``player_mistake_rates(game, player, sets=None) -> dict[str, float]`` (any ``arena.players``
  player, one position at a time)
* ``network_mistake_rates(game, evaluate_fn, search_config, sets=None) -> dict[str, float]`` (the
  training loop's call: one batched greedy search over all positions of a set at once)
* ``exact_policy_match(game, policy_fn) -> dict``: a stationary policy's exact win probability
  against optimal play from each seat, where the game computes it (Pig); ``greedy_policy_fn``
  and ``player_policy_fn`` make the policy of a network or of any player
* ``chosen_move_rate(game, name, choose) -> dict``: a set measured on every line with only the
  chosen moves solved (``chosen_move_set_names``; Connect Four: Pons' sets,
  ``arena.positions.pons_chosen``), for the sets too dear to label whole
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

import games
from arena.network_match import search_moves
from arena.positions import position_sets
from arena.positions.labelled import ILLEGAL, LabelledSet, mistake_mask
from games.base import Game

#: name of tic-tac-toe's single set
TICTACTOE_SET = "all"

__all__ = [
    "ILLEGAL",
    "LabelledSet",
    "available_sets",
    "chosen_move_rate",
    "connect4_labelled_set",
    "exact_policy_match",
    "expected_random_mistake_rate",
    "greedy_policy_fn",
    "labelled_sets",
    "mistake_mask",
    "mistake_rate",
    "network_actions",
    "network_mistake_rates",
    "player_actions",
    "player_mistake_rates",
    "player_policy_fn",
]


def mistake_rate(labelled: LabelledSet, actions: np.ndarray) -> float:
    """Share of positions in ``labelled`` where ``actions`` (``[N]`` int, 0-based) is a mistake.

    Raises:
        ValueError: if ``actions`` has the wrong shape or holds an illegal action (row named).
    """
    actions = np.asarray(actions)
    if actions.shape != (len(labelled),):
        raise ValueError(f"expected actions of shape ({len(labelled)},), got {actions.shape}")
    num_actions = labelled.outcomes.shape[1]
    rows = np.arange(len(labelled))
    in_range = (actions >= 0) & (actions < num_actions)
    legal = in_range & labelled.legal_mask[rows, np.clip(actions, 0, num_actions - 1)]
    if not np.all(legal):
        bad = int(np.flatnonzero(~legal)[0])
        raise ValueError(
            f"{labelled.name}: illegal action {int(actions[bad])} at position {bad} ({labelled.moves[bad]!r})"
        )
    return float(labelled.mistake_mask[rows, actions].mean()) if len(labelled) else 0.0


def expected_random_mistake_rate(labelled: LabelledSet) -> float:
    """Mistake rate of a uniformly random player, exactly: the mean over positions of the share
    of legal actions that are mistakes."""
    if not len(labelled):
        return 0.0
    per_position = labelled.mistake_mask.sum(axis=1) / labelled.legal_mask.sum(axis=1)
    return float(per_position.mean())


# --------------------------------------------------------------------------- the labelled sets
def connect4_labelled_set(position_set, game: Game | None = None) -> LabelledSet:
    """A ``LabelledSet`` from a ``arena.positions.connect4.PositionSet`` (outcome = sign of score)."""
    return position_set.to_labelled_set(game)


def available_sets(game: Game) -> list[str]:
    """Names of the labelled sets of ``game`` (``PositionSets.labelled_set_names``): Connect Four, the
    shipped files present now; tic-tac-toe, ``"all"``; a game without the hook, none (its mistake
    rates are measured only on ``LabelledSet`` objects given explicitly, and training logs none)."""
    return list(position_sets(game).labelled_set_names())


def labelled_sets(game: Game, sets: Iterable | None = None) -> dict[str, LabelledSet]:
    """The labelled sets to measure, by name.

    Args:
        game: any game; named sets come from ``position_sets(game).labelled_set(name)``.
        sets: None for every available set (``labelled_set_names``), or an iterable of set
            names, group names (``labelled_set_groups``: Connect Four's ``"pons"`` is
            Pons' six sets, ``"pons-end-easy"`` ...), ``LabelledSet`` objects or objects with a
            ``to_labelled_set(game)`` method (such as ``arena.positions.connect4.PositionSet``).

    Raises:
        ValueError: for an unknown set name (the message lists the known ones), or as
            ``PositionSets.labelled_set``.
    """
    own = position_sets(game)
    groups = own.labelled_set_groups()
    known = available_sets(game)
    named = known + [name for members in groups.values() for name in members if name not in known]
    if sets is None:
        sets = known
    elif isinstance(sets, str):
        sets = [sets]
    expanded: list = []
    for item in sets:
        expanded.extend(groups[item] if isinstance(item, str) and item in groups else [item])
    out: dict[str, LabelledSet] = {}
    for item in expanded:
        if isinstance(item, LabelledSet):
            out[item.name] = item
        elif isinstance(item, str):
            if item not in named:
                raise ValueError(
                    f"unknown position set {item!r} for {game.name}; expected one of {named + list(groups)}"
                )
            out[item] = own.labelled_set(item)
        elif hasattr(item, "to_labelled_set"):
            out[item.name] = item.to_labelled_set(game)
        else:
            raise ValueError(f"expected a set name, LabelledSet or PositionSet, got {type(item).__name__}")
    return out


# --------------------------------------------------------------------------- measuring players
@dataclass(frozen=True)
class Positions:
    """Positions to choose moves in, without labels (``LabelledSet`` has the same first fields).

    Attributes:
        name: set name.
        moves: ``N`` move strings from the start.
        states: ``[N, S]`` int64 states.
    """

    name: str
    moves: list[str]
    states: np.ndarray

    def __len__(self) -> int:
        return len(self.moves)


def chosen_move_rate(
    game: Game,
    name: str,
    choose: Callable[[Positions], np.ndarray],
    *,
    limit: int | None = None,
    workers: int = 1,
    progress=None,
) -> dict:
    """Mistake rate on every line of the set ``name``, solving only the chosen moves.

    For sets too dear to label whole (``PositionSets.chosen_move_set_names``; Connect Four: Pons'
    sets, ``arena.positions.pons_chosen``). ``choose`` maps the set's positions (``Positions``; the first
    ``limit`` lines, all with None) to ``[N]`` int 0-based actions, such as
    ``lambda p: player_actions(game, player, p)``; each move is then a mistake or not by one
    null-window solve, cached (``PositionSets.chosen_move_mistakes``).

    Returns:
        ``{"positions", "mistakes", "mistake_rate", "solved": moves searched now, "solve_seconds",
        "mistake_mask": [positions] bool, True where the chosen move is a mistake}``.

    Raises:
        ValueError: for a name outside ``chosen_move_set_names()`` (the message lists them),
            or as ``PositionSets.chosen_move_mistakes``.
        FileNotFoundError: if the set's file is absent.
    """
    own = position_sets(game)
    moves = own.chosen_move_positions(name)[:limit]
    actions = np.asarray(choose(Positions(name, moves, game.states_from_moves(moves))), dtype=np.int64)
    result = own.chosen_move_mistakes(name, actions, workers=workers, progress=progress)
    wrong = result["mistakes"]
    return {
        "positions": int(len(wrong)),
        "mistakes": int(wrong.sum()),
        "mistake_rate": float(wrong.mean()) if len(wrong) else 0.0,
        "solved": result["solved"],
        "solve_seconds": result["seconds"],
        "mistake_mask": np.asarray(wrong, dtype=bool),
    }


def player_actions(game: Game, player, labelled: LabelledSet | Positions) -> np.ndarray:
    """``[N]`` int64: the action ``player`` (``select_action(game, state)``) picks in each position."""
    return np.array(
        [player.select_action(game, tuple(int(v) for v in row)) for row in labelled.states], dtype=np.int64
    ).reshape(len(labelled))


def player_mistake_rates(game: Game, player, sets: Iterable | None = None) -> dict[str, float]:
    """Mistake rate of any player on each labelled set: ``{set name: share in [0, 1]}``.

    Positions are asked one at a time, so this suits classical players; use
    ``network_mistake_rates`` for a network.

    Raises:
        ValueError: as ``labelled_sets``, and if the player picks an illegal action.
    """
    return {
        name: mistake_rate(labelled, player_actions(game, player, labelled))
        for name, labelled in labelled_sets(game, sets).items()
    }


def network_actions(
    game: Game, evaluate_fn, search_config, labelled: LabelledSet | Positions, batch_size: int = 1024, rng=None
) -> np.ndarray:
    """``[N]`` int64 greedy moves of the search ``search_config`` names (``mcts.registry``: visit-count
    searches play the most visited, lowest index on ties; no root noise), with one
    batched search per ``batch_size`` positions (``arena.network_match.search_moves``, the move
    choice of the arena's batched driver)."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size must be an integer >= 1, got {batch_size!r}")
    rng = rng if rng is not None else np.random.default_rng(0)
    chunks = []
    for begin in range(0, len(labelled), int(batch_size)):
        states = labelled.states[begin : begin + int(batch_size)]
        chunks.append(search_moves(game, states, evaluate_fn, search_config, rng))
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int64)


def network_mistake_rates(
    game: Game, evaluate_fn, search_config, sets: Iterable | None = None, *, batch_size: int = 1024, rng=None
) -> dict[str, float]:
    """Mistake rate of a network with a greedy search on each labelled set: ``{set name: share}``.

    For TensorBoard as ``arena/mistake_rate/<set>``. All positions of a set (up to ``batch_size``
    at a time) are searched together in one ``mcts.run_search`` call with ``search_config``, no root
    noise, and the search's greedy move is played (arena searches use no root noise).

    Args:
        game: ``connect4`` (one entry per shipped set; none if no set is shipped yet) or
            ``tictactoe`` (the single set ``"all"``).
        evaluate_fn: batched evaluator (``mcts.evaluators``), values for the player to move.
        search_config: the frozen settings of a registered search (``mcts.PUCTConfig``, ...); its
            ``num_simulations`` is the search budget per position.
        sets: as ``labelled_sets``.
        batch_size: positions per search call, >= 1 (bounds the tree's memory).
        rng: generator handed to the search (unused without noise; default seed 0).

    Raises:
        ValueError: as ``labelled_sets`` and ``mcts.run_search``, or for ``batch_size`` < 1.
    """
    return {
        name: mistake_rate(
            labelled, network_actions(game, evaluate_fn, search_config, labelled, batch_size, rng)
        )
        for name, labelled in labelled_sets(game, sets).items()
    }


# ---------------------------------------------------------------- exact results of a policy
def greedy_policy_fn(game: Game, evaluate_fn) -> Callable[[np.ndarray], np.ndarray]:
    """The network's policy alone as a function of states: ``[B, S]`` int64 to ``[B]`` int64, the
    legal action of the largest prior (lowest index on ties), as the ``policy:model=`` player and
    ``scripts/model_accuracy.py --sims 0`` choose."""

    def policy(states: np.ndarray) -> np.ndarray:
        legal = game.legal_mask(states)
        priors, _ = evaluate_fn(game.observation(states), legal)
        return np.argmax(np.where(legal, np.asarray(priors, dtype=np.float64), -1.0), axis=1).astype(np.int64)

    return policy


def player_policy_fn(game: Game, player) -> Callable[[np.ndarray], np.ndarray]:
    """Any player as a function of states (``select_action`` on each row in turn). A player that
    draws at random becomes one stationary policy drawn once per state."""

    def policy(states: np.ndarray) -> np.ndarray:
        return np.array(
            [player.select_action(game, tuple(int(v) for v in row)) for row in states], dtype=np.int64
        ).reshape(len(states))

    return policy


def exact_policy_match(game: Game, policy_fn) -> dict:
    """Exact win probabilities of a stationary policy against the game's optimal player from each
    seat, where the game's knowledge can compute them (``games.knowledge.Knowledge.exact_policy_match``;
    Pig: the Markov chain of the two policies, ``games.pig.policy_chain``).

    Returns:
        ``{"as_first": {"win", "loss", "unfinished"}, "as_second": {...}, "mean_win"}``.

    Raises:
        ValueError: for a game without exact policy evaluation, and as the game's method.
    """
    result = games.knowledge(game).exact_policy_match(policy_fn)
    if result is None:
        raise ValueError(f"{game.name}: no exact policy evaluation; expected a game that provides one (pig)")
    return result
