"""Batched PUCT search (AlphaZero) over ``B`` root states, one evaluator call per simulation step.

One search step for all ``B`` rows:

1. ``select_leaves`` (compiled) walks each tree from the root to a missing child or a terminal
   node already in the tree;
2. ``game.step`` is called once on the batch of new leaves;
3. terminal leaves take ``game.terminal_value`` (exact, never sent to the evaluator); the others
   go to ``evaluate_fn`` in one call;
4. ``expand_and_backup`` (compiled) stores the leaves and backs the values up.

Games with chance (``games.base``): a node whose state is a chance state is a chance node (see
``mcts.tree``). It is never the root (the caller plays the dice first), gets no priors and is
never sent to the evaluator; ``PUCTConfig.chance`` says how it is searched:

* ``"expectation"``: when a decision leads to a chance state, the chance node and *all* its
  outcomes are created in the same simulation, the outcomes' states evaluated in the same
  evaluator call as the other rows' leaves, and the chance node's value is always the
  probability-weighted mean of its outcomes' values (expectimax's chance rule on the tree's
  estimates; ``mcts.kernels.expand_and_backup``). Later walks go to the outcome furthest below
  its share of the visits. A simulation creates up to ``1 + K`` nodes.
* ``"sampling"``: the chance node is created with one outcome drawn by its probability from the
  search's seeded generator, and every later walk through it draws again (a missing outcome is
  then created); values back up as plain means. Up to 2 nodes per simulation.

Root visits: the root's own evaluation counts one visit (mctx convention), so after a fresh
search ``node_visits[:, ROOT] == num_simulations + 1`` and the root's children visits sum to
exactly ``num_simulations``. With subtree reuse the children also keep their earlier visits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from games.base import Game, check_batch, check_not_chance
from games.checks import is_int
from mcts.backup import BACKUP_MEAN, BACKUP_MODES, rebackup_paths
from mcts.batched import run_batched_network_search
from mcts.chance import ChanceBuffers, LeafCounters, expand_with_chance
from mcts.evaluators import EvaluateFn, evaluate_leaves
from mcts.kernels import (
    CHANCE_EXPECTATION,
    CHANCE_NONE,
    CHANCE_SAMPLING,
    NO_FORCED_ACTION,
    RULE_PUCT,
    NewNodes,
    SelectionParams,
    Walks,
    expand_and_backup,
    select_leaves,
    selection_params,
)
from mcts.policy import add_dirichlet_noise, check_rng
from mcts.single import MAX_ACTIONS as SINGLE_MAX_ACTIONS
from mcts.single import SingleRootLoop, run_single_root
from mcts.solver import root_child_proven_values, solver_visit_counts
from mcts.tree import PROVEN_DRAW, ROOT_INDEX, UNPROVEN, Tree, empty_tree, grow_tree

#: ``PUCTConfig.chance`` settings, and the kernels' codes for them
CHANCE_MODES = {"expectation": CHANCE_EXPECTATION, "sampling": CHANCE_SAMPLING}


def chance_code(chance: str) -> int:
    """The kernels' code (``CHANCE_*``) of a ``chance`` setting of a search that handles chance nodes
    (``PUCTConfig``, ``mcts.GumbelConfig``). Raises ValueError for a name not in ``CHANCE_MODES``."""
    if chance not in CHANCE_MODES:
        raise ValueError(f"expected chance in {list(CHANCE_MODES)}, got {chance!r}")
    return CHANCE_MODES[chance]


@dataclass(frozen=True)
class LoopSettings:
    """What ``search_loop`` takes from an algorithm.

    Attributes:
        num_simulations: simulations per search, >= 1.
        selection: the kernels' selection rule and constants (``mcts.kernels.selection_params``).
        dirichlet_alpha, dirichlet_epsilon: root noise, used when the caller asks for it.
        backup: the decision-node backup, a ``mcts.backup`` code (``BACKUP_MEAN``: the running mean).
    """

    num_simulations: int
    selection: SelectionParams
    dirichlet_alpha: float = 1.0
    dirichlet_epsilon: float = 0.0
    backup: int = BACKUP_MEAN


@dataclass(frozen=True)
class PUCTConfig:
    """Hyper-parameters of the PUCT search.

    Attributes:
        num_simulations: simulations per search, >= 1 (each adds at most one node).
        c_puct: exploration constant when ``c_base`` is None.
        c_base: if set, use the AlphaZero pseudocode's growing constant
            ``c(s) = log((1 + N(s) + c_base) / c_base) + c_init`` (Silver et al. 2018,
            supplementary, ``ucb_score``; they use ``c_base = 19652``, ``c_init = 1.25``).
        c_init: see ``c_base``.
        fpu_value: first-play urgency, the Q assumed for an unvisited child, from the parent's
            view, in ``[-1, 1]``. Default 0.0 (a draw): unvisited moves are neither presumed lost
            (the pseudocode's 0 on its [0, 1] scale) nor won, so a child with a negative Q is
            passed over for untried moves, and a winning one keeps being preferred.
        dirichlet_alpha: root noise concentration, > 0.
        dirichlet_epsilon: root noise weight in ``[0, 1]``.
        solver: MCTS-solver (Winands et al. 2008): back up proven wins, losses and draws, let them
            drive selection (``mcts.kernels.select_leaves``) and report them exactly
            (``SearchOutput.root_proof``; ``mcts.solver.solver_visit_counts`` for the move).
            Games with chance have no proofs here: the solver must be off for them.
        chance: how chance nodes of games with chance are searched (module docstring):
            ``"expectation"`` (the default: exact probability-weighted backups over every outcome,
            lowest variance per simulation, ``K`` evaluations per new chance node) or
            ``"sampling"`` (one outcome drawn per visit: one evaluation per simulation). Ignored
            by games without chance.
        backup: a node's value (``mcts.backup``): ``"mean"`` (the default: the mean of every
            simulation through it, AlphaZero's), ``"max"`` (a decision node takes its best visited
            child's Q), ``"max_self"`` (the best of its own evaluation and its visited children's
            Q; exact everywhere when the evaluator's values are) or ``"robust"`` (the Q of its
            most visited child). Chance nodes stay expectations.
            Visits, and so the move played and the policy target, still follow the PUCT rule.
    """

    algorithm: ClassVar[str] = "puct"

    num_simulations: int = 800
    c_puct: float = 1.25
    c_base: float | None = None
    c_init: float = 1.25
    fpu_value: float = 0.0
    dirichlet_alpha: float = 0.3
    dirichlet_epsilon: float = 0.25
    solver: bool = False
    chance: str = "expectation"
    backup: str = "mean"

    def __post_init__(self) -> None:
        if not is_int(self.num_simulations):
            raise ValueError(f"expected an int num_simulations, got {self.num_simulations!r}")  # noqa: TRY004 (project rule: ValueError)
        if self.num_simulations < 1:
            raise ValueError(f"expected num_simulations >= 1, got {self.num_simulations}")
        if not (math.isfinite(self.c_puct) and self.c_puct >= 0):
            raise ValueError(f"expected c_puct finite and >= 0, got {self.c_puct}")
        if self.c_base is not None and not (math.isfinite(self.c_base) and self.c_base > 0):
            raise ValueError(f"expected c_base None or > 0, got {self.c_base}")
        if not (math.isfinite(self.c_init) and self.c_init >= 0):
            raise ValueError(f"expected c_init finite and >= 0, got {self.c_init}")
        if not -1.0 <= self.fpu_value <= 1.0:
            raise ValueError(f"expected fpu_value in [-1, 1], got {self.fpu_value}")
        if not (math.isfinite(self.dirichlet_alpha) and self.dirichlet_alpha > 0):
            raise ValueError(f"expected dirichlet_alpha > 0, got {self.dirichlet_alpha}")
        if not 0.0 <= self.dirichlet_epsilon <= 1.0:
            raise ValueError(f"expected dirichlet_epsilon in [0, 1], got {self.dirichlet_epsilon}")
        if not isinstance(self.solver, (bool, np.bool_)):
            raise ValueError(f"expected a bool solver, got {self.solver!r}")  # noqa: TRY004 (project rule: ValueError)
        chance_code(self.chance)
        if self.backup not in BACKUP_MODES:
            raise ValueError(f"expected backup in {list(BACKUP_MODES)}, got {self.backup!r}")


@dataclass
class SearchOutput:
    """Result of a batched search: the one result type of every algorithm (``mcts.registry``).

    Attributes:
        visit_counts: ``[B, A]`` int32, visits of each root child (0 for illegal actions).
        root_values: ``[B]`` float32, mean backed-up value of the root, root player's view
            (includes the root's own evaluation).
        q_values: ``[B, A]`` float32, ``Q(root, a)`` from the root player's view; NaN where the
            child was never visited (including illegal actions).
        root_priors: ``[B, A]`` float32, root priors used by the search (noisy if noise was added).
        root_raw_priors: ``[B, A]`` float32, masked root priors before noise.
        tree: the full ``Tree``; pass it to ``mcts.tree.reroot`` for subtree reuse.
        num_degenerate_priors: ``[B]`` int32, evaluations per row whose priors had no usable mass
            on legal actions and fell back to uniform (e.g. a one-hot prior on an occupied cell).
        num_evaluations: ``[B]`` int32, leaves per row sent to the evaluator (root included).
        num_terminal_leaves: ``[B]`` int32, simulations per row that ended on a terminal state.
        root_proof: ``[B]`` int8, the root's ``mcts.tree`` proof code (``UNPROVEN`` without the
            solver). With the solver, ``root_values`` of a proven root is its exact proven value
            and ``q_values`` of a proven child its exact value (root player's view).
        actions: ``[B]`` int64, the move each row plays. Visit-count searches (PUCT, UCT): the most
            visited root child after the solver's rule (``mcts.solver.solver_visit_counts``),
            lowest index on ties, until ``mcts.registry.search`` chooses at a temperature or breaks
            ties; Gumbel: the Sequential Halving winner.
        policy_targets: ``[B, A]`` float32, the training target: the normalised (solver) visit
            counts, or Gumbel's completed-Q improved policy; 0 on illegal actions, rows sum to 1.
        considered: ``[B, A]`` bool, Gumbel only (None otherwise): the Gumbel-top-``m`` actions.
        gumbel: ``[B, A]`` float64, Gumbel only (None otherwise): the draw ``g`` (0 on illegal
            actions and when not drawn).
    """

    visit_counts: np.ndarray
    root_values: np.ndarray
    q_values: np.ndarray
    root_priors: np.ndarray
    root_raw_priors: np.ndarray
    tree: Tree
    num_degenerate_priors: np.ndarray
    num_evaluations: np.ndarray
    num_terminal_leaves: np.ndarray
    root_proof: np.ndarray
    actions: np.ndarray
    policy_targets: np.ndarray
    considered: np.ndarray | None = None
    gumbel: np.ndarray | None = None


def run_puct(
    game: Game,
    root_states: np.ndarray,
    evaluate_fn: EvaluateFn,
    config: PUCTConfig,
    rng: np.random.Generator,
    add_root_noise: bool,
    tree: Tree | None = None,
) -> SearchOutput:
    """Run ``config.num_simulations`` PUCT simulations from each of ``B`` root states.

    Selection: ``Q(s, a) + c(s) * P(s, a) * sqrt(N(s)) / (1 + N(s, a))`` (AlphaZero,
    Silver et al. 2018 supplementary pseudocode), with ``N(s)`` the node's own visit count and
    unvisited children valued at ``config.fpu_value``; see ``mcts.kernels.select_leaves``.

    Args:
        game: the rules (batched API of ``games.base.Game``).
        root_states: ``[B, S]`` int64 non-terminal decision states (never chance states).
        evaluate_fn: see ``mcts.evaluators``: observations (or states, if marked) and legal mask to
            priors ``[B', A]`` and values ``[B']`` (player to move). Called once for the roots
            that need expanding and then at most once per simulation step, with only the
            non-terminal new leaves.
        config: search hyper-parameters.
        rng: the generator for root noise and, in a game with chance searched by sampling, for
            the outcomes drawn at chance nodes (the only randomness of the search itself).
        add_root_noise: mix Dirichlet noise into the root priors (self-play); False for arena and
            play. Interior nodes always hold the raw masked priors.
        tree: optional tree from ``mcts.tree.reroot`` (subtree reuse); rows with ``num_nodes > 0``
            keep their statistics and must have ``root_states[b]`` as root. Without it every
            search starts from an empty tree.

    Returns:
        ``SearchOutput``.

    Raises:
        ValueError: for malformed ``root_states``, a terminal or chance root, the solver on a
            game with chance, a chance outcome that leads to another chance state, a ``tree`` that does not match
            ``root_states``, evaluator output of the wrong shape or with non-finite values, or an
            ``rng`` that is not a ``numpy.random.Generator``. (Finite values outside ``[-1, 1]``
            are clipped to it.)
    """
    selection = selection_params(
        RULE_PUCT, c_puct=config.c_puct, c_base=config.c_base, c_init=config.c_init,
        fpu_value=config.fpu_value, use_solver=config.solver, chance_mode=chance_code(config.chance),
    )
    settings = LoopSettings(
        config.num_simulations, selection, config.dirichlet_alpha, config.dirichlet_epsilon, BACKUP_MODES[config.backup]
    )
    output = search_loop(game, root_states, evaluate_fn, rng, settings, add_root_noise, tree)
    return with_visit_choice(output, bool(config.solver))


def with_visit_choice(output: SearchOutput, solver: bool) -> SearchOutput:
    """``output`` with the greedy move and policy target of a visit-count search filled in: the
    (solver, ``mcts.solver.solver_visit_counts``) visit counts normalised, and their most visited
    action, lowest index on ties. ``mcts.registry.search`` re-chooses at a temperature."""
    counts = solver_visit_counts(output) if solver else output.visit_counts
    output.policy_targets = (counts / counts.sum(axis=1, keepdims=True)).astype(np.float32)
    output.actions = np.argmax(counts, axis=1).astype(np.int64)
    return output


def search_loop(
    game: Game,
    root_states: np.ndarray,
    evaluate_fn: EvaluateFn,
    rng: np.random.Generator,
    settings: LoopSettings,
    add_root_noise: bool = False,
    tree: Tree | None = None,
    root_action_fn=None,
) -> SearchOutput:
    """The search loop every tree search of this package shares (PUCT, Gumbel, UCT).

    ``settings.selection`` (``mcts.kernels.SelectionParams``) chooses the child at every node;
    ``root_action_fn(tree, simulation) -> [B] int32`` forces the root action of each simulation
    (``mcts.gumbel``). A ``selection.chance_mode`` other than ``CHANCE_NONE`` searches games with
    chance (``mcts.chance``); ``CHANCE_NONE`` refuses them. Arguments otherwise as ``run_puct``.
    Returns a ``SearchOutput`` whose ``actions`` and ``policy_targets`` are None: the algorithm
    fills them in (``with_visit_choice`` for visit-count searches). Raises ValueError as
    ``run_puct``."""
    num_simulations = int(settings.num_simulations)
    params = settings.selection
    check_rng(rng)
    check_batch(game, root_states)
    batch = root_states.shape[0]
    if batch < 1:
        raise ValueError("expected at least one root state, got an empty batch")
    root_terminal = game.terminal(root_states)
    if np.any(root_terminal):
        raise ValueError(f"root states must not be terminal; rows {np.flatnonzero(root_terminal).tolist()} are")
    num_outcomes = int(game.num_chance_outcomes)
    if num_outcomes:
        if params.chance_mode == CHANCE_NONE:
            raise ValueError(
                f"{game.name} has chance states: this search handles games without chance only; "
                "use run_puct or run_gumbel (their chance setting) for games with chance"
            )
        if params.use_solver:
            raise ValueError(f"{game.name} has chance states: the MCTS-solver proves deterministic games only; expected solver=False")
        check_not_chance(game, root_states)
    else:
        params = params._replace(chance_mode=CHANCE_NONE)
    chance_mode = params.chance_mode
    num_actions = game.num_actions
    width = max(num_actions, num_outcomes)
    nodes_per_simulation = 1 if not num_outcomes else 1 + num_outcomes if chance_mode == CHANCE_EXPECTATION else 2
    if tree is None:
        tree = empty_tree(batch, nodes_per_simulation * num_simulations + 1, num_actions, game.state_size, num_outcomes)
    else:
        if (
            tree.batch_size != batch or tree.num_actions != width or tree.node_states.shape[2] != game.state_size
            or tree.num_chance_outcomes != num_outcomes
        ):
            raise ValueError(
                f"expected a tree for {batch} rows, {width} edges, state size {game.state_size}, {num_outcomes} chance "
                f"outcomes; got {tree.batch_size} rows, {tree.num_actions} edges, state size {tree.node_states.shape[2]}, "
                f"{tree.num_chance_outcomes} chance outcomes"
            )
        kept = tree.num_nodes > 0
        mismatch = kept & np.any(tree.node_states[:, ROOT_INDEX] != root_states, axis=1)
        if np.any(mismatch):
            raise ValueError(f"tree roots differ from root_states in rows {np.flatnonzero(mismatch).tolist()}")
        tree = grow_tree(tree, int(tree.num_nodes.max()) + nodes_per_simulation * num_simulations + 1)

    num_degenerate = np.zeros(batch, dtype=np.int32)
    num_evaluations = np.zeros(batch, dtype=np.int32)
    num_terminal = np.zeros(batch, dtype=np.int32)

    # Expand the roots that are not in the tree yet (all of them without reuse).
    fresh = np.flatnonzero(tree.num_nodes == 0)
    if fresh.size:
        states = root_states[fresh]
        legal = game.legal_mask(states)
        priors, values, degenerate = evaluate_leaves(game, evaluate_fn, states, legal)
        num_degenerate[fresh] += degenerate
        num_evaluations[fresh] += 1
        tree.node_states[fresh, ROOT_INDEX] = states
        tree.node_to_play[fresh, ROOT_INDEX] = game.to_play(states)
        tree.node_terminal[fresh, ROOT_INDEX] = False
        tree.node_raw_value[fresh, ROOT_INDEX] = values
        tree.node_visits[fresh, ROOT_INDEX] = 1
        tree.node_value_sum[fresh, ROOT_INDEX] = values
        tree.children_prior[fresh, ROOT_INDEX, :num_actions] = priors
        tree.children_legal[fresh, ROOT_INDEX, :num_actions] = legal
        tree.root_raw_prior[fresh, :num_actions] = priors
        tree.num_nodes[fresh] = 1
    root_legal = tree.children_legal[:, ROOT_INDEX]
    if add_root_noise:
        tree.children_prior[:, ROOT_INDEX] = add_dirichlet_noise(
            tree.root_raw_prior, root_legal, settings.dirichlet_alpha, settings.dirichlet_epsilon, rng
        )
    else:
        tree.children_prior[:, ROOT_INDEX] = tree.root_raw_prior

    walks = Walks(
        parent=np.empty(batch, dtype=np.int32), action=np.empty(batch, dtype=np.int32),
        leaf=np.empty(batch, dtype=np.int32), parent_states=np.empty((batch, game.state_size), dtype=np.int64),
    )
    new = NewNodes(
        states=np.zeros((batch, game.state_size), dtype=np.int64), to_play=np.zeros(batch, dtype=np.int8),
        terminal=np.zeros(batch, dtype=np.bool_), values=np.zeros(batch, dtype=np.float32),
        priors=np.zeros((batch, width), dtype=np.float32), legal=np.zeros((batch, width), dtype=np.bool_),
    )
    chance = ChanceBuffers(batch, num_outcomes, width, game.state_size, chance_mode)
    counters = LeafCounters(num_terminal, num_evaluations, num_degenerate)
    all_rows = np.arange(batch)
    root_actions = np.full(batch, NO_FORCED_ACTION, dtype=np.int32)
    arrays = tree.arrays()
    use_solver = bool(params.use_solver)
    backup = int(settings.backup)
    # The compiled single-root loop backs up means only: another backup takes the batched loop.
    single = (
        batch == 1 and not num_outcomes and root_action_fn is None and num_actions <= SINGLE_MAX_ACTIONS
        and backup == BACKUP_MEAN
    )
    rules = game.compiled_rules() if single else None
    if rules is not None:  # one root: the simulations in compiled calls, the same tree (mcts.single)
        loop = SingleRootLoop(arrays, params, walks, root_actions, chance.seeds(rng), new, chance.outcomes, counters)
        run_single_root(game, rules, evaluate_fn, num_simulations, loop)
        num_simulations = 0
    elif not num_outcomes and backup == BACKUP_MEAN:
        # a bound network (behind a cache or not): the whole loop in one compiled call (mcts.batched)
        compiled_root = getattr(root_action_fn, "compiled_root", None) if root_action_fn is not None else None
        root = compiled_root(tree) if compiled_root is not None else None
        if root_action_fn is None or root is not None:
            loop = SingleRootLoop(arrays, params, walks, root_actions, chance.seeds(rng), new, chance.outcomes, counters)
            if run_batched_network_search(game, evaluate_fn, num_simulations, loop, root):
                num_simulations = 0

    for simulation in range(num_simulations):
        if root_action_fn is not None:
            root_actions[:] = root_action_fn(tree, simulation)
        select_leaves(arrays, params, walks, root_actions, chance.seeds(rng))
        expand = walks.leaf < 0
        if num_outcomes:
            expand_with_chance(game, evaluate_fn, rng, tree, chance, expand, walks, new, counters)
            expand_and_backup(arrays, walks, new, chance.outcomes, use_solver, chance_mode)
            if backup != BACKUP_MEAN:
                rebackup_paths(arrays, walks, backup, chance_mode)
            continue
        if expand.all():
            rows = all_rows
            stepped = game.step(walks.parent_states, walks.action.astype(np.int64))
        else:
            rows = np.flatnonzero(expand)
            num_terminal[~expand] += 1
            stepped = game.step(walks.parent_states[rows], walks.action[rows].astype(np.int64)) if rows.size else None
        if rows is all_rows:  # every row creates a node (the usual step): whole-array writes
            terminal = game.terminal(stepped)
            new.states[:] = stepped
            new.to_play[:] = game.to_play(stepped)
            new.terminal[:] = terminal
            if not terminal.any():
                legal = game.legal_mask(stepped)
                priors, values, degenerate = evaluate_leaves(game, evaluate_fn, stepped, legal)
                new.priors[:] = priors
                new.legal[:] = legal
                new.values[:] = values
                num_evaluations += 1
                if degenerate.any():
                    num_degenerate += degenerate
                expand_and_backup(arrays, walks, new, chance.outcomes, use_solver, chance_mode)
                if backup != BACKUP_MEAN:
                    rebackup_paths(arrays, walks, backup, chance_mode)
                continue
        else:
            terminal = game.terminal(stepped) if rows.size else None
            if rows.size:
                new.states[rows] = stepped
                new.to_play[rows] = game.to_play(stepped)
                new.terminal[rows] = terminal
        if rows.size:
            if terminal.any():
                finished = rows[terminal]
                num_terminal[finished] += 1
                new.values[finished] = game.terminal_value(stepped[terminal])
                new.priors[finished] = 0.0
                new.legal[finished] = False
                live = ~terminal
                eval_rows = rows[live]
                eval_states = stepped[live]
            else:
                eval_rows = rows
                eval_states = stepped
            if eval_rows.size:
                legal = game.legal_mask(eval_states)
                priors, values, degenerate = evaluate_leaves(game, evaluate_fn, eval_states, legal)
                new.priors[eval_rows] = priors
                new.legal[eval_rows] = legal
                new.values[eval_rows] = values
                num_evaluations[eval_rows] += 1
                if degenerate.any():
                    num_degenerate[eval_rows] += degenerate
        expand_and_backup(arrays, walks, new, chance.outcomes, use_solver, chance_mode)
        if backup != BACKUP_MEAN:
            rebackup_paths(arrays, walks, backup, chance_mode)

    root_values = (tree.node_value_sum[:, ROOT_INDEX] / tree.node_visits[:, ROOT_INDEX]).astype(np.float32)
    q_values = tree.q_values(ROOT_INDEX)
    root_proof = tree.node_proof[:, ROOT_INDEX].copy()
    if use_solver:
        proven = root_proof != UNPROVEN
        root_values = np.where(proven, root_proof.astype(np.float32) - PROVEN_DRAW, root_values).astype(np.float32)
        child_proven = root_child_proven_values(tree)
        q_values = np.where(np.isnan(child_proven), q_values, child_proven)
    return SearchOutput(
        visit_counts=tree.children_visits(ROOT_INDEX)[:, :num_actions],
        root_values=root_values,
        q_values=q_values[:, :num_actions].astype(np.float32),
        root_priors=tree.children_prior[:, ROOT_INDEX, :num_actions].copy(),
        root_raw_priors=tree.root_raw_prior[:, :num_actions].copy(),
        tree=tree,
        num_degenerate_priors=num_degenerate,
        num_evaluations=num_evaluations,
        num_terminal_leaves=num_terminal,
        root_proof=root_proof,
        actions=None,
        policy_targets=None,
    )


