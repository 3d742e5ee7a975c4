"""Gumbel AlphaZero root search: Gumbel-top-k, Sequential Halving, completed-Q policy target.

Source: Danihelka, Guez, Schrittwieser, Silver 2022, "Policy improvement by planning with Gumbel"
(ICLR), sec. 3-5 and appendix D; the constants and schedules follow DeepMind's ``mctx``
(``mctx/_src/policies.py`` ``gumbel_muzero_policy``, ``seq_halving.py``).

One search over ``B`` roots:

1. one Gumbel(0, 1) draw ``g(a)`` per legal root action, fresh for every search, from a seeded
   generator (no Dirichlet noise);
2. Sequential Halving over the simulation budget (``considered_visit_sequence``): simulation
   ``k`` of a row goes to the legal action, among those whose visit count equals the schedule's
   ``k``-th entry, with the largest ``g(a) + log P(a) + sigma(completed Q(a))``; the first ``m``
   simulations therefore visit the Gumbel-top-``m`` actions (``m = min(max_num_considered_actions,
   legal actions)``), and each phase keeps the better half;
3. below the root the walk is deterministic (``mcts.kernels.RULE_GUMBEL``, sec. 5, eq. 14);
4. the action played is the halving winner: the most visited considered action with the best
   ``g + log P + sigma(completed Q)``. An eliminated action is never played (it has fewer visits).
   With the MCTS-solver a proven win is played, and proven losses are neither played nor kept
   alive by the halving while another move is not proven lost (``mcts.solver.playable_actions``);
5. the policy target is the completed-Q improved policy ``softmax(log P + sigma(completed Q))``
   over every legal root action (``mcts.policy.completed_q_policy``).

In a game with chance (``GumbelConfig.chance``) the root is a decision state, and below it chance
nodes are searched as in PUCT (``mcts.search``): expectation or sampling, never chosen at by the
rule of step 3. An action that rolls dice is then one root action like any other, its Q the value
of its chance node.

Self-play plays the halving winner (the paper's choice for acting; it is already a sample from the
Gumbel-perturbed ranking, so no temperature is applied on top).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import ClassVar

import numpy as np

from games.base import Game
from mcts.batched import RootChoice
from mcts.evaluators import EvaluateFn
from mcts.halving import halving_actions_compiled
from mcts.kernels import RULE_GUMBEL, selection_params
from mcts.policy import check_rng, completed_q_policy, completed_q_sigma
from mcts.search import LoopSettings, SearchOutput, chance_code, search_loop
from mcts.solver import playable_actions, root_child_proven_values
from mcts.tree import ROOT_INDEX


@dataclass(frozen=True)
class GumbelConfig:
    """Hyper-parameters of the Gumbel root search (mctx ``gumbel_muzero_policy`` defaults).

    Attributes:
        num_simulations: simulations per search, >= 1.
        max_num_considered_actions: ``m``, root actions sampled by Gumbel-top-k, >= 1 (mctx: 16).
        gumbel_scale: scale of the Gumbel draw, >= 0 (1 in the paper; 0 is a deterministic search).
        c_visit: ``c_visit`` of ``sigma`` (mctx ``maxvisit_init``), >= 0.
        c_scale: ``c_scale`` of ``sigma`` (mctx ``value_scale``), >= 0.
        solver: MCTS-solver proofs, as ``mcts.PUCTConfig.solver``; a root action proven won is the
            one played.
        chance: how the chance nodes of a game with chance are searched, as
            ``mcts.PUCTConfig.chance`` (``"expectation"`` or ``"sampling"``, ``mcts.search``); the
            root's completed Q of an action that rolls is then its chance node's value.
    """

    algorithm: ClassVar[str] = "gumbel"
    #: flat keys of ``trainer.config``'s ``mcts`` section for fields named otherwise there
    config_keys: ClassVar[dict[str, str]] = {
        "max_num_considered_actions": "gumbel_max_considered_actions", "c_visit": "gumbel_c_visit",
        "c_scale": "gumbel_c_scale",
    }

    num_simulations: int = 32
    max_num_considered_actions: int = 16
    gumbel_scale: float = 1.0
    c_visit: float = 50.0
    c_scale: float = 0.1
    solver: bool = False
    chance: str = "expectation"

    def __post_init__(self) -> None:
        for name in ("num_simulations", "max_num_considered_actions"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"expected an int {name} >= 1, got {value!r}")
        for name in ("gumbel_scale", "c_visit", "c_scale"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"expected a finite {name} >= 0, got {value!r}")
        if not isinstance(self.solver, (bool, np.bool_)):
            raise ValueError(f"expected a bool solver, got {self.solver!r}")  # noqa: TRY004 (project rule: ValueError)
        chance_code(self.chance)


def considered_visit_sequence(max_num_considered_actions: int, num_simulations: int) -> tuple[int, ...]:
    """Sequential Halving's schedule: entry ``k`` is the visit count an action must have to get
    simulation ``k`` (mctx ``seq_halving.get_sequence_of_considered_visits``).

    Each phase gives every remaining action ``max(1, floor(n / (ceil(log2 m) * remaining)))``
    visits, then halves the remaining actions (never below 2). For a fixed ranking the visits come
    out as {3, 3, 1, 1} for ``m = 4, n = 8``; {12, 12, 4, 4} for ``m = 4, n = 32``; and
    {49, 49, 21, 21, 9, 9, 9, 9, 3 x 8} for ``m = 16, n = 200``.

    Raises:
        ValueError: if either argument is < 1.
    """
    if max_num_considered_actions < 1 or num_simulations < 1:
        raise ValueError(
            f"expected max_num_considered_actions and num_simulations >= 1, got "
            f"{max_num_considered_actions} and {num_simulations}"
        )
    if max_num_considered_actions == 1:
        return tuple(range(num_simulations))
    log2max = math.ceil(math.log2(max_num_considered_actions))
    sequence: list[int] = []
    visits = [0] * max_num_considered_actions
    num_considered = max_num_considered_actions
    while len(sequence) < num_simulations:
        num_extra_visits = max(1, int(num_simulations / (log2max * num_considered)))
        for _ in range(num_extra_visits):
            sequence.extend(visits[:num_considered])
            for i in range(num_considered):
                visits[i] += 1
        num_considered = max(2, num_considered // 2)
    return tuple(sequence[:num_simulations])


@lru_cache(maxsize=64)
def _visit_table(max_num_considered_actions: int, num_simulations: int) -> np.ndarray:
    """``[m + 1, n]`` int32: row ``k`` is the schedule for ``k`` considered actions (row 0 unused)."""
    table = np.zeros((max_num_considered_actions + 1, num_simulations), dtype=np.int32)
    for k in range(1, max_num_considered_actions + 1):
        table[k] = considered_visit_sequence(k, num_simulations)
    table.setflags(write=False)
    return table


def _root_scores(tree, gumbel, logits, config, use_solver) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(g + log P + sigma(completed Q) [B, A] float64, root visits [B, A] int32, playable [B, A]
    bool)``; scores are -inf off the mask. ``playable`` is ``mcts.solver.playable_actions`` with
    the solver (every legal action without it)."""
    legal = tree.children_legal[:, ROOT_INDEX]
    visits = tree.children_visits(ROOT_INDEX)
    q = tree.q_values(ROOT_INDEX)
    playable = legal
    if use_solver:
        proven = root_child_proven_values(tree)
        q = np.where(np.isnan(proven), q, proven)
        playable = playable_actions(proven, legal)
    _, sigma = completed_q_sigma(
        tree.root_raw_prior, legal, q, visits, tree.node_raw_value[:, ROOT_INDEX], config.c_visit, config.c_scale
    )
    return np.where(legal, gumbel + logits + sigma, -np.inf), visits, playable


def _halving_actions(scores, visits, playable, wanted) -> np.ndarray:
    """Sequential Halving's root action of each row: ``[B]`` int32.

    The best-scoring playable action whose visit count is the schedule's ``wanted[b]``; a row with
    no playable action at that count (the actions kept alive are proven lost, MCTS-solver) takes
    the least visited playable action instead, the best-scoring among equals, so proven losses
    are not kept alive while another move is unproven."""
    at_level = np.where(playable & (visits == wanted[:, None]), scores, -np.inf)
    actions = np.argmax(at_level, axis=1)
    stuck = ~np.isfinite(at_level.max(axis=1))
    if stuck.any():
        fewest = np.where(playable, visits, np.iinfo(np.int32).max).min(axis=1, keepdims=True)
        fallback = np.where(playable & (visits == fewest), scores, -np.inf)
        actions = np.where(stuck, np.argmax(fallback, axis=1), actions)
    return actions.astype(np.int32)


def run_gumbel(
    game: Game,
    root_states: np.ndarray,
    evaluate_fn: EvaluateFn,
    config: GumbelConfig,
    rng: np.random.Generator,
    add_gumbel_noise: bool = True,
) -> SearchOutput:
    """Gumbel AlphaZero search of ``config.num_simulations`` simulations from ``B`` root states.

    Args:
        game: the rules.
        root_states: ``[B, S]`` int64 non-terminal states.
        evaluate_fn: as for ``mcts.search.run_puct``.
        config: see ``GumbelConfig``.
        rng: the generator of the Gumbel draw (one ``[B, A]`` draw per call when noise is on).
        add_gumbel_noise: draw ``g`` (self-play); False uses ``g = 0`` (a deterministic search).

    Returns:
        ``SearchOutput`` with ``actions`` the Sequential Halving winners, ``policy_targets`` the
        completed-Q improved policy (exactly 0 on illegal actions, one positive entry per legal
        root action, rows sum to 1), and ``considered`` and ``gumbel`` set.

    Raises:
        ValueError: as ``mcts.search.run_puct``, and if ``rng`` is not a ``numpy.random.Generator``.
    """
    check_rng(rng)
    num_simulations = config.num_simulations
    table = _visit_table(config.max_num_considered_actions, num_simulations)
    state: dict[str, np.ndarray] = {}

    def start(tree) -> None:
        if not state:
            legal = tree.children_legal[:, ROOT_INDEX]
            with np.errstate(divide="ignore"):
                state["logits"] = np.where(
                    legal, np.log(np.maximum(tree.root_raw_prior.astype(np.float64), np.finfo(np.float32).tiny)), 0.0
                )
            if add_gumbel_noise and config.gumbel_scale > 0:
                draw = rng.gumbel(size=legal.shape) * config.gumbel_scale
                state["gumbel"] = np.where(legal, draw, 0.0)
            else:
                state["gumbel"] = np.zeros(legal.shape)
            num_considered = np.minimum(config.max_num_considered_actions, legal.sum(axis=1))
            state["num_considered"] = num_considered.astype(np.int64)
            state["actions"] = np.zeros(legal.shape[0], dtype=np.int32)

    def root_action_fn(tree, simulation: int) -> np.ndarray:
        start(tree)
        if not config.solver:  # the same scores and choice in one compiled call
            if "arrays" not in state:  # the loop's tree keeps its arrays for the whole search
                state["arrays"] = tree.arrays()
                state["schedule"] = np.ascontiguousarray(table[state["num_considered"]])
            halving_actions_compiled(
                state["arrays"], state["gumbel"], state["logits"], state["schedule"], simulation,
                float(config.c_visit), float(config.c_scale), state["actions"],
            )
            return state["actions"]
        scores, visits, playable = _root_scores(tree, state["gumbel"], state["logits"], config, config.solver)
        return _halving_actions(scores, visits, playable, table[state["num_considered"], simulation])

    def compiled_root(tree) -> RootChoice | None:
        """The same choice for ``mcts.batched``'s compiled loop (None with the solver's rule)."""
        if config.solver:
            return None
        start(tree)
        schedule = np.ascontiguousarray(table[state["num_considered"]])
        return RootChoice(True, state["gumbel"], state["logits"], schedule, float(config.c_visit), float(config.c_scale))

    root_action_fn.compiled_root = compiled_root

    selection = selection_params(
        RULE_GUMBEL, use_solver=config.solver, c_visit=config.c_visit, c_scale=config.c_scale,
        chance_mode=chance_code(config.chance),
    )
    search = search_loop(
        game, root_states, evaluate_fn, rng, LoopSettings(num_simulations, selection), root_action_fn=root_action_fn
    )
    tree = search.tree
    # the tree's edges are max(actions, chance outcomes) wide: the root's first A are its actions
    width = game.num_actions
    legal = tree.children_legal[:, ROOT_INDEX, :width]
    scores, visits, playable = (
        a[:, :width] for a in _root_scores(tree, state["gumbel"], state["logits"], config, config.solver)
    )
    # the playable actions Sequential Halving kept: the most visited of them, then the best score
    most = np.where(playable, visits, -1).max(axis=1, keepdims=True)
    candidates = playable & (visits == most)
    actions = np.argmax(np.where(candidates, scores, -np.inf), axis=1).astype(np.int64)
    if config.solver:
        won = root_child_proven_values(tree) == 1.0
        actions = np.where(won.any(axis=1), np.argmax(np.where(won, visits + 1, 0), axis=1), actions)
    policy_targets = completed_q_policy(
        tree.root_raw_prior[:, :width], legal, search.q_values, visits, tree.node_raw_value[:, ROOT_INDEX],
        config.c_visit, config.c_scale,
    )
    # the first m simulations visit exactly the Gumbel-top-m actions
    draw = state["gumbel"][:, :width]
    order = np.argsort(-np.where(legal, draw + state["logits"][:, :width], -np.inf), axis=1, kind="stable")
    ranks = np.argsort(order, axis=1, kind="stable")
    considered = legal & (ranks < state["num_considered"][:, None])
    search.actions = actions
    search.policy_targets = policy_targets
    search.considered = considered
    search.gumbel = draw
    return search
