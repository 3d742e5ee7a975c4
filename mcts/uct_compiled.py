"""UCT with random rollouts for one position, the whole search in one compiled call.

The arena's classical players search one position at a time, where the batched search of
``mcts.uct`` pays Python work per simulation. Here one Numba function runs every simulation of a
single tree: the tree is preallocated arrays of ``N = num_simulations + 1`` nodes (``[N]`` per
node, ``[N, A]`` per edge, the layout of ``mcts.tree`` without the batch axis; no Python object
per node), and the rules come from the game as compiled single-state functions
(``games.base.CompiledRules``, ``Game.compiled_rules``).

``mcts.run_search`` runs it for the ``uct`` search of one root with random rollouts (one per
leaf) in a game with compiled rules (``mcts.uct``). The algorithm is that of ``mcts.uct.run_uct``
(Kocsis & Szepesvari 2006, "Bandit based Monte-Carlo Planning"): UCB1 on results scaled to ``[0, 1]`` (``mcts.formulas.ucb1_score``),

    score(s, a) = (Q(s, a) + 1) / 2 + c * sqrt(ln N(s) / N(s, a)),    untried actions first,

untried actions in increasing index order, ``N(s)`` the node's visits (its own evaluation counts
one, so the root ends with ``num_simulations + 1``); each new leaf (the root included) is valued
by one uniformly random playout, +1 win, 0 draw, -1 loss for the player to move there; a terminal
node keeps its exact value; the backup negates a value only when the player to move changes. The
move played is the most visited root child, the lowest action index on ties. The playout moves come
from a SplitMix64 stream inside the compiled code whose seed is one draw from a seeded
``numpy.random.Generator`` passed in, so a search is reproducible from that generator.

The compiled function is built once per game and process (``compiled_uct_kernel``; Numba cannot
cache a function built around another game's functions on disk); building it takes a few seconds
of CPU, searching then costs about a microsecond per simulation.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from games.base import CompiledRules, Game
from mcts.formulas import ucb1_score
from mcts.policy import check_rng
from mcts.tree import Tree

#: error codes of the kernel
_OK, _PLAYOUT_TOO_LONG, _TERMINAL_ROOT = 0, 1, 2

_KERNELS: dict[CompiledRules, object] = {}


def compiled_uct_kernel(rules: CompiledRules):
    """The compiled single-tree UCT search for the game whose ``compiled_rules()`` is ``rules``.

    Returns ``search(root [S] int64, num_simulations, c, max_game_length, num_actions, seed uint64,
    log_table) -> (error code, root value, playouts, tree, out)``: ``tree`` the arrays of
    ``mcts.tree.Tree`` in its field order (one row, ``num_simulations + 1`` slots), ``out`` those of
    ``UCTOutputArrays``; ``playouts``: random playouts run, the root's included; ``log_table[n]``
    is ``ln max(n, 1)``. The kernel allocates what it returns (cheaper than passing arrays in, for
    a search of one position). Memoised per ``rules``.
    """
    kernel = _KERNELS.get(rules)
    if kernel is None:
        kernel = _KERNELS[rules] = _build_kernel(rules)
    return kernel


@njit(cache=True, inline="always")
def _below(rng_state, bound):  # pragma: no cover - compiled
    """A uniform integer in ``[0, bound)`` from a SplitMix64 stream (Steele, Lea & Flood 2014,
    "Fast splittable pseudorandom number generators"); ``rng_state`` is a ``[1]`` uint64 array."""
    rng_state[0] += np.uint64(0x9E3779B97F4A7C15)
    z = rng_state[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    # the top 32 bits times the bound: bias below 2**-25 for the bounds of board games
    return np.int64(((z >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


def _build_kernel(rules: CompiledRules):
    legal_fn = rules.legal
    step_fn = rules.step
    is_terminal_fn = rules.is_terminal
    winner_fn = rules.winner
    to_play_fn = rules.to_play

    @njit
    def playout(state, rng, max_game_length, current, scratch, legal):  # pragma: no cover - compiled
        # one uniformly random playout from ``state``; value for the player to move there
        player = to_play_fn(state)
        current[:] = state
        plies = 0
        while not is_terminal_fn(current):
            if plies > max_game_length:
                return 0.0, _PLAYOUT_TOO_LONG
            count = legal_fn(current, legal)
            pick = _below(rng, count)
            action = 0
            while True:
                if legal[action]:
                    if pick == 0:
                        break
                    pick -= 1
                action += 1
            step_fn(current, action, scratch)
            current[:] = scratch
            plies += 1
        winner = winner_fn(current)
        if winner < 0:
            return 0.0, _OK
        return (1.0 if winner == player else -1.0), _OK

    @njit
    def search(root, num_simulations, c, max_game_length, num_actions, seed, log_table):  # pragma: no cover - compiled
        capacity = num_simulations + 1
        state_size = root.shape[0]
        rng = np.empty(1, dtype=np.uint64)
        rng[0] = seed
        # mcts.tree.Tree's arrays, one row (as mcts.tree.empty_tree makes them)
        node_visits = np.zeros((1, capacity), dtype=np.int32)
        node_value_sum = np.zeros((1, capacity), dtype=np.float64)
        node_raw_value = np.zeros((1, capacity), dtype=np.float32)
        node_to_play = np.zeros((1, capacity), dtype=np.int8)
        node_terminal = np.zeros((1, capacity), dtype=np.bool_)
        node_states = np.zeros((1, capacity, state_size), dtype=np.int64)
        parents_ = np.full((1, capacity), -1, dtype=np.int32)
        action_from_parent = np.full((1, capacity), -1, dtype=np.int32)
        children_index = np.full((1, capacity, num_actions), -1, dtype=np.int32)
        children_prior = np.zeros((1, capacity, num_actions), dtype=np.float32)
        children_legal = np.zeros((1, capacity, num_actions), dtype=np.bool_)
        num_nodes = np.zeros(1, dtype=np.int32)
        root_raw_prior = np.zeros((1, num_actions), dtype=np.float32)
        node_proof = np.zeros((1, capacity), dtype=np.int8)
        node_chance = np.zeros((1, capacity), dtype=np.bool_)
        chance_probs = np.zeros((1, capacity, 0), dtype=np.float64)
        t = (  # in Tree's field order
            node_visits, node_value_sum, node_raw_value, node_to_play, node_terminal, node_states, parents_,
            action_from_parent, children_index, children_prior, children_legal, num_nodes, root_raw_prior,
            node_proof, node_chance, chance_probs,
        )
        # UCTOutputArrays
        visit_counts = np.zeros((1, num_actions), dtype=np.int32)
        q_values = np.full((1, num_actions), np.nan, dtype=np.float64)
        q_values32 = np.full((1, num_actions), np.nan, dtype=np.float32)
        policy_targets = np.zeros((1, num_actions), dtype=np.float32)
        root_priors = np.zeros((1, num_actions), dtype=np.float32)
        actions = np.zeros(1, dtype=np.int64)
        root_values = np.zeros(1, dtype=np.float32)
        num_evaluations = np.zeros(1, dtype=np.int32)
        num_terminal_leaves = np.zeros(1, dtype=np.int32)
        out = (  # in UCTOutputArrays' field order
            visit_counts, q_values, q_values32, policy_targets, root_priors, actions, root_values, num_evaluations,
            num_terminal_leaves,
        )
        # one-row views for the loop
        states = node_states[0]
        visits = node_visits[0]
        value_sum = node_value_sum[0]
        raw_value = node_raw_value[0]
        to_play = node_to_play[0]
        terminal = node_terminal[0]
        parents = parents_[0]
        from_parent = action_from_parent[0]
        children = children_index[0]
        priors = children_prior[0]
        legal = children_legal[0]
        current = np.empty(state_size, dtype=np.int64)
        scratch = np.empty(state_size, dtype=np.int64)
        legal_buffer = np.zeros(num_actions, dtype=np.bool_)

        # the root: its own playout counts one visit
        states[0, :] = root
        to_play[0] = to_play_fn(root)
        if is_terminal_fn(root):
            return _TERMINAL_ROOT, 0.0, 0, t, out
        count = legal_fn(root, legal[0])
        uniform = np.float32(1.0 / count)  # UCT has no priors: uniform over the legal moves
        for a in range(num_actions):
            if legal[0, a]:
                priors[0, a] = uniform
        value, error = playout(root, rng, max_game_length, current, scratch, legal_buffer)
        if error:
            return error, 0.0, 0, t, out
        raw_value[0] = value
        playouts = 1
        visits[0] = 1
        value_sum[0] = value
        count = 1

        for _ in range(num_simulations):
            node = 0
            while True:
                if terminal[node]:
                    value = raw_value[node]
                    break
                log_parent = log_table[visits[node]]
                player = to_play[node]
                best_action = -1
                best_score = -np.inf
                for a in range(num_actions):
                    if not legal[node, a]:
                        continue
                    child = children[node, a]
                    if child < 0 or visits[child] == 0:
                        score = np.inf
                    else:
                        q = value_sum[child] / visits[child]
                        if to_play[child] != player:
                            q = -q
                        score = ucb1_score(q, visits[child], log_parent, c)
                    if best_action < 0 or score > best_score:
                        best_score = score
                        best_action = a
                child = children[node, best_action]
                if child >= 0:
                    node = child
                    continue
                # expand the edge: a new node, valued exactly or by one playout
                child = count
                count += 1
                step_fn(states[node], best_action, states[child])
                children[node, best_action] = child
                parents[child] = node
                from_parent[child] = best_action
                to_play[child] = to_play_fn(states[child])
                if is_terminal_fn(states[child]):
                    terminal[child] = True
                    winner = winner_fn(states[child])
                    value = 0.0 if winner < 0 else (1.0 if winner == to_play[child] else -1.0)
                else:
                    uniform = np.float32(1.0 / legal_fn(states[child], legal[child]))
                    for a in range(num_actions):
                        if legal[child, a]:
                            priors[child, a] = uniform
                    value, error = playout(states[child], rng, max_game_length, current, scratch, legal_buffer)
                    playouts += 1
                    if error:
                        return error, 0.0, 0, t, out
                raw_value[child] = value
                node = child
                break
            # back up, negating when the player to move changes
            while True:
                visits[node] += 1
                value_sum[node] += value
                parent = parents[node]
                if parent < 0:
                    break
                if to_play[parent] != to_play[node]:
                    value = -value
                node = parent

        num_nodes[0] = count
        root_raw_prior[0, :] = priors[0]
        root_priors[0, :] = priors[0]
        best = 0
        for a in range(num_actions):
            child = children[0, a]
            if child >= 0 and visits[child] > 0:
                visit_counts[0, a] = visits[child]
                q = value_sum[child] / visits[child]
                q = -q if to_play[child] != to_play[0] else q
                q_values[0, a] = q
                q_values32[0, a] = np.float32(q)
                policy_targets[0, a] = np.float32(visits[child] / float(num_simulations))
                if visits[child] > visit_counts[0, best]:
                    best = a
        root_value = value_sum[0] / visits[0]
        actions[0] = best
        root_values[0] = np.float32(root_value)
        num_evaluations[0] = playouts
        num_terminal_leaves[0] = num_simulations + 1 - playouts
        return _OK, root_value, playouts, t, out

    return search


class UCTOutputArrays(NamedTuple):
    """The root's figures a compiled search writes besides its tree (``compiled_uct_arrays``).

    Attributes:
        visit_counts: ``[1, A]`` int32, the root children's visits (summing to ``num_simulations``).
        q_values: ``[1, A]`` float64, Q(root, a) for the player to move; NaN where unvisited.
        q_values32: ``[1, A]`` float32, the same rounded to float32 (``mcts.SearchOutput.q_values``).
        policy_targets: ``[1, A]`` float32, the visit counts over ``num_simulations``.
        root_priors: ``[1, A]`` float32, uniform over the root's legal actions.
        actions: ``[1]`` int64, the most visited root child, the lowest index on ties.
        root_values: ``[1]`` float32, the mean backed-up root value for the player to move (the
            root's own playout included).
        num_evaluations: ``[1]`` int32, random playouts run, the root's included.
        num_terminal_leaves: ``[1]`` int32, simulations that ended on a terminal node.
    """

    visit_counts: np.ndarray
    q_values: np.ndarray
    q_values32: np.ndarray
    policy_targets: np.ndarray
    root_priors: np.ndarray
    actions: np.ndarray
    root_values: np.ndarray
    num_evaluations: np.ndarray
    num_terminal_leaves: np.ndarray


class CompiledUCTArrays(NamedTuple):
    """What ``compiled_uct_arrays`` returns: the search ``tree`` (``mcts.tree.Tree``, one row,
    ``num_simulations + 1`` slots: node ``i`` created at simulation ``i`` (a simulation that ends on
    a terminal node already in the tree creates none), uniform priors over each node's legal
    actions, ``node_raw_value`` the node's playout (or exact terminal) value, no proofs), the root's
    figures ``out`` (``UCTOutputArrays``), ``root_value`` (float) and ``num_playouts`` (int)."""

    tree: Tree
    out: UCTOutputArrays
    root_value: float
    num_playouts: int


class CompiledUCTResult(NamedTuple):
    """What ``compiled_uct_search`` returns.

    Attributes:
        action: the most visited root child, the lowest index on ties.
        visit_counts: ``[A]`` int32, the root children's visits (summing to ``num_simulations``).
        q_values: ``[A]`` float64, Q(root, a) for the player to move; NaN where unvisited.
        root_value: the mean backed-up root value for the player to move (the root's own playout
            included).
        num_playouts: random playouts run, the root's included (a simulation that ends on a
            terminal node runs none).
        tree: the whole search tree (``CompiledUCTArrays.tree``).
    """

    action: int
    visit_counts: np.ndarray
    q_values: np.ndarray
    root_value: float
    num_playouts: int
    tree: Tree


#: ``_LOG_TABLE[n] = math.log(max(n, 1))``, grown on demand: the ``ln N(s)`` of UCB1 looked up
#: (the same values as computing them, ``_log_table``)
_LOG_TABLE = np.zeros(0, dtype=np.float64)


@njit(cache=True)
def _log_table(size):  # pragma: no cover - compiled
    table = np.empty(size, dtype=np.float64)
    for n in range(size):
        table[n] = math.log(max(n, 1))
    return table


def _log_table_for(size: int) -> np.ndarray:
    global _LOG_TABLE
    if _LOG_TABLE.shape[0] < size:
        _LOG_TABLE = _log_table(max(size, 2 * _LOG_TABLE.shape[0]))
    return _LOG_TABLE


def compiled_uct_arrays(
    game: Game, state_row: np.ndarray, num_simulations: int, rng: np.random.Generator, c: float
) -> CompiledUCTArrays:
    """UCT for one non-terminal state in one compiled call, its tree and root figures as arrays
    (what ``mcts.uct.run_compiled_uct`` makes its ``SearchOutput`` of).

    Args:
        game: a game whose ``compiled_rules()`` is not None.
        state_row: ``[S]`` int64 non-terminal state.
        num_simulations: >= 1; c: UCB1 constant on ``[0, 1]`` results, finite, >= 0 (the caller
            validates both, as ``mcts.uct.UCTConfig`` does).
        rng: the generator of the playouts' seed (one raw 64-bit draw, shifted right by one).

    Returns:
        ``CompiledUCTArrays``.

    Raises:
        ValueError: if the game has no compiled rules, ``rng`` is not a generator, the state is
            terminal, or a playout runs past ``game.max_game_length`` plies.
    """
    rules = game.compiled_rules()
    if rules is None:
        raise ValueError(f"{game.name} has no compiled rules (Game.compiled_rules() is None)")
    check_rng(rng)
    kernel = compiled_uct_kernel(rules)
    # 63 bits of the generator's next raw output (the value rng.integers(0, 2**63, dtype=np.uint64)
    # draws, at a tenth of its cost)
    seed = np.uint64(rng.bit_generator.random_raw() >> 1)
    root = np.ascontiguousarray(state_row, dtype=np.int64)
    n = int(num_simulations)
    error, root_value, num_playouts, tree, out = kernel(
        root, n, float(c), int(game.max_game_length), int(game.num_actions), seed, _log_table_for(n + 2)
    )
    if error == _TERMINAL_ROOT:
        raise ValueError("root states must not be terminal; rows [0] are")
    if error == _PLAYOUT_TOO_LONG:
        raise ValueError(f"{game.name}: random playout longer than max_game_length={game.max_game_length}")
    return CompiledUCTArrays(Tree(*tree), UCTOutputArrays(*out), root_value, num_playouts)


def compiled_uct_search(
    game: Game, state_row: np.ndarray, num_simulations: int, rng: np.random.Generator, c: float
) -> CompiledUCTResult:
    """UCT for one non-terminal state in one compiled call (``compiled_uct_arrays``, its root's
    figures without the batch axis).

    Returns:
        ``CompiledUCTResult``.

    Raises:
        ValueError: as ``compiled_uct_arrays``.
    """
    tree, out, root_value, num_playouts = compiled_uct_arrays(game, state_row, num_simulations, rng, c)
    return CompiledUCTResult(
        int(out.actions[0]), out.visit_counts[0], out.q_values[0], float(root_value), int(num_playouts), tree
    )
