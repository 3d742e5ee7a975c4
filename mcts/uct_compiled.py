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

    Returns ``search(root [S] int64, num_simulations, c, max_game_length, num_actions, rng) ->
    (error code, root value, playouts, visit_counts [A] int32, q_values [A] float64, tree)``
    (``playouts``: random playouts run, the root's included; ``tree``: the arrays of
    ``mcts.tree.Tree`` in its field order, one row); memoised per ``rules``.
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
    def search(root, num_simulations, c, max_game_length, num_actions, rng):  # pragma: no cover - compiled
        capacity = num_simulations + 1
        state_size = root.shape[0]
        # mcts.tree.Tree's arrays, in its field order, one row
        node_visits = np.zeros((1, capacity), dtype=np.int32)
        node_value_sum = np.zeros((1, capacity), dtype=np.float64)
        node_raw_value = np.zeros((1, capacity), dtype=np.float32)
        node_to_play = np.zeros((1, capacity), dtype=np.int8)
        node_terminal = np.zeros((1, capacity), dtype=np.bool_)
        node_states = np.zeros((1, capacity, state_size), dtype=np.int64)
        parents = np.full((1, capacity), -1, dtype=np.int32)
        action_from_parent = np.full((1, capacity), -1, dtype=np.int32)
        children_index = np.full((1, capacity, num_actions), -1, dtype=np.int32)
        children_prior = np.zeros((1, capacity, num_actions), dtype=np.float32)
        children_legal = np.zeros((1, capacity, num_actions), dtype=np.bool_)
        num_nodes = np.zeros(1, dtype=np.int32)
        root_raw_prior = np.zeros((1, num_actions), dtype=np.float32)
        node_proof = np.zeros((1, capacity), dtype=np.int8)
        node_chance = np.zeros((1, capacity), dtype=np.bool_)
        chance_probs = np.zeros((1, capacity, 0), dtype=np.float64)
        tree = (
            node_visits, node_value_sum, node_raw_value, node_to_play, node_terminal, node_states, parents,
            action_from_parent, children_index, children_prior, children_legal, num_nodes, root_raw_prior,
            node_proof, node_chance, chance_probs,
        )
        visit_counts = np.zeros(num_actions, dtype=np.int32)
        q_values = np.full(num_actions, np.nan, dtype=np.float64)
        states = node_states[0]
        visits = node_visits[0]
        value_sum = node_value_sum[0]
        to_play = node_to_play[0]
        terminal = node_terminal[0]
        current = np.empty(state_size, dtype=np.int64)
        scratch = np.empty(state_size, dtype=np.int64)
        legal_buffer = np.zeros(num_actions, dtype=np.bool_)

        # the root: its own playout counts one visit
        states[0, :] = root
        to_play[0] = to_play_fn(root)
        if is_terminal_fn(root):
            return _TERMINAL_ROOT, 0.0, 0, visit_counts, q_values, tree
        legal_fn(root, children_legal[0, 0])
        value, error = playout(root, rng, max_game_length, current, scratch, legal_buffer)
        if error:
            return error, 0.0, 0, visit_counts, q_values, tree
        node_raw_value[0, 0] = value
        playouts = 1
        visits[0] = 1
        value_sum[0] = value
        count = 1

        for _ in range(num_simulations):
            node = 0
            while True:
                if terminal[node]:
                    value = node_raw_value[0, node]
                    break
                log_parent = math.log(max(visits[node], 1))
                player = to_play[node]
                best_action = -1
                best_score = -np.inf
                for a in range(num_actions):
                    if not children_legal[0, node, a]:
                        continue
                    child = children_index[0, node, a]
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
                child = children_index[0, node, best_action]
                if child >= 0:
                    node = child
                    continue
                # expand the edge: a new node, valued exactly or by one playout
                child = count
                count += 1
                step_fn(states[node], best_action, states[child])
                children_index[0, node, best_action] = child
                parents[0, child] = node
                action_from_parent[0, child] = best_action
                to_play[child] = to_play_fn(states[child])
                if is_terminal_fn(states[child]):
                    terminal[child] = True
                    winner = winner_fn(states[child])
                    value = 0.0 if winner < 0 else (1.0 if winner == to_play[child] else -1.0)
                else:
                    legal_fn(states[child], children_legal[0, child])
                    value, error = playout(states[child], rng, max_game_length, current, scratch, legal_buffer)
                    playouts += 1
                    if error:
                        return error, 0.0, 0, visit_counts, q_values, tree
                node_raw_value[0, child] = value
                node = child
                break
            # back up, negating when the player to move changes
            while True:
                visits[node] += 1
                value_sum[node] += value
                parent = parents[0, node]
                if parent < 0:
                    break
                if to_play[parent] != to_play[node]:
                    value = -value
                node = parent

        num_nodes[0] = count
        # uniform priors over each node's legal moves (UCT has none of its own)
        for node in range(count):
            legal_count = 0
            for a in range(num_actions):
                legal_count += children_legal[0, node, a]
            for a in range(num_actions):
                if children_legal[0, node, a]:
                    children_prior[0, node, a] = 1.0 / legal_count
        root_raw_prior[0, :] = children_prior[0, 0]
        for a in range(num_actions):
            child = children_index[0, 0, a]
            if child >= 0 and visits[child] > 0:
                visit_counts[a] = visits[child]
                q = value_sum[child] / visits[child]
                q_values[a] = -q if to_play[child] != to_play[0] else q
        return _OK, value_sum[0] / visits[0], playouts, visit_counts, q_values, tree

    return search


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
        tree: the whole search tree, ``mcts.tree.Tree`` with one row and ``num_simulations + 1``
            slots: node ``i`` created at simulation ``i`` (a simulation that ends on a terminal
            node already in the tree creates none), uniform priors over each node's legal actions,
            ``node_raw_value`` the node's playout (or exact terminal) value, no proofs.
    """

    action: int
    visit_counts: np.ndarray
    q_values: np.ndarray
    root_value: float
    num_playouts: int
    tree: Tree


def compiled_uct_search(
    game: Game, state_row: np.ndarray, num_simulations: int, rng: np.random.Generator, c: float
) -> CompiledUCTResult:
    """UCT for one non-terminal state in one compiled call.

    Args:
        game: a game whose ``compiled_rules()`` is not None.
        state_row: ``[S]`` int64 non-terminal state.
        num_simulations: >= 1; c: UCB1 constant on ``[0, 1]`` results, finite, >= 0 (the caller
            validates both, as ``mcts.uct.UCTConfig`` does).
        rng: the generator of the playouts' seed (one draw).

    Returns:
        ``CompiledUCTResult``.

    Raises:
        ValueError: if the game has no compiled rules, ``rng`` is not a generator, the state is
            terminal, or a playout runs past ``game.max_game_length`` plies.
    """
    rules = game.compiled_rules()
    if rules is None:
        raise ValueError(f"{game.name} has no compiled rules (Game.compiled_rules() is None)")
    check_rng(rng)
    kernel = compiled_uct_kernel(rules)
    stream = rng.integers(0, 2**63, size=1, dtype=np.uint64)
    root = np.ascontiguousarray(state_row, dtype=np.int64)
    error, root_value, num_playouts, visit_counts, q_values, arrays = kernel(
        root, int(num_simulations), float(c), int(game.max_game_length), int(game.num_actions), stream
    )
    if error == _TERMINAL_ROOT:
        raise ValueError("root states must not be terminal; rows [0] are")
    if error == _PLAYOUT_TOO_LONG:
        raise ValueError(f"{game.name}: random playout longer than max_game_length={game.max_game_length}")
    return CompiledUCTResult(
        int(np.argmax(visit_counts)), visit_counts, q_values, float(root_value), int(num_playouts), Tree(*arrays)
    )
