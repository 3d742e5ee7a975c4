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

import numpy as np
from numba import njit

from games.base import CompiledRules, Game
from mcts.formulas import ucb1_score
from mcts.policy import check_rng

#: error codes of the kernel
_OK, _PLAYOUT_TOO_LONG = 0, 1

_KERNELS: dict[CompiledRules, object] = {}


def compiled_uct_kernel(rules: CompiledRules):
    """The compiled single-tree UCT search for the game whose ``compiled_rules()`` is ``rules``.

    Returns ``search(root [S] int64, num_simulations, c, max_game_length, num_actions, rng,
    visit_counts [A] int32 (out), q_values [A] float64 (out)) -> (error code, root value, playouts)``
    (``playouts``: random playouts run, the root's included); memoised per ``rules``.
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
    def search(root, num_simulations, c, max_game_length, num_actions, rng, visit_counts, q_values):  # pragma: no cover - compiled
        capacity = num_simulations + 1
        state_size = root.shape[0]
        states = np.empty((capacity, state_size), dtype=np.int64)
        children = np.full((capacity, num_actions), -1, dtype=np.int32)
        legal = np.zeros((capacity, num_actions), dtype=np.bool_)
        parents = np.full(capacity, -1, dtype=np.int32)
        to_play = np.zeros(capacity, dtype=np.int8)
        terminal = np.zeros(capacity, dtype=np.bool_)
        raw_value = np.zeros(capacity, dtype=np.float64)
        visits = np.zeros(capacity, dtype=np.int32)
        value_sum = np.zeros(capacity, dtype=np.float64)
        current = np.empty(state_size, dtype=np.int64)
        scratch = np.empty(state_size, dtype=np.int64)
        legal_buffer = np.zeros(num_actions, dtype=np.bool_)

        # the root: its own playout counts one visit
        states[0, :] = root
        to_play[0] = to_play_fn(root)
        legal_fn(root, legal[0])
        value, error = playout(root, rng, max_game_length, current, scratch, legal_buffer)
        if error:
            return error, 0.0, 0
        raw_value[0] = value
        playouts = 1
        visits[0] = 1
        value_sum[0] = value
        num_nodes = 1

        for _ in range(num_simulations):
            node = 0
            while True:
                if terminal[node]:
                    value = raw_value[node]
                    break
                log_parent = math.log(max(visits[node], 1))
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
                child = num_nodes
                num_nodes += 1
                step_fn(states[node], best_action, states[child])
                children[node, best_action] = child
                parents[child] = node
                to_play[child] = to_play_fn(states[child])
                if is_terminal_fn(states[child]):
                    terminal[child] = True
                    winner = winner_fn(states[child])
                    value = 0.0 if winner < 0 else (1.0 if winner == to_play[child] else -1.0)
                else:
                    legal_fn(states[child], legal[child])
                    value, error = playout(states[child], rng, max_game_length, current, scratch, legal_buffer)
                    playouts += 1
                    if error:
                        return error, 0.0, 0
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

        for a in range(num_actions):
            child = children[0, a]
            if child >= 0 and visits[child] > 0:
                visit_counts[a] = visits[child]
                q = value_sum[child] / visits[child]
                q_values[a] = -q if to_play[child] != to_play[0] else q
            else:
                visit_counts[a] = 0
                q_values[a] = np.nan
        return _OK, value_sum[0] / visits[0], playouts

    return search


def compiled_uct_search(
    game: Game, state_row: np.ndarray, num_simulations: int, rng: np.random.Generator, c: float
) -> tuple[int, np.ndarray, np.ndarray, float, int]:
    """UCT for one non-terminal state in one compiled call.

    Args:
        game: a game whose ``compiled_rules()`` is not None.
        state_row: ``[S]`` int64 non-terminal state.
        num_simulations: >= 1; c: UCB1 constant on ``[0, 1]`` results, finite, >= 0 (the caller
            validates both, as ``mcts.uct.UCTConfig`` does).
        rng: every playout move is drawn from it.

    Returns:
        ``(action, visit_counts [A] int32, q_values [A] float64, root_value, num_playouts)``: the
        most visited root child (lowest index on ties), the root children's visits (summing to
        ``num_simulations``), Q(root, a) for the player to move (NaN where unvisited), the mean
        backed-up root value for the player to move (the root's own playout included), and the
        random playouts run (the root's included; a simulation ending on a terminal node runs none).

    Raises:
        ValueError: if the game has no compiled rules, ``rng`` is not a generator, or a playout
            runs past ``game.max_game_length`` plies.
    """
    rules = game.compiled_rules()
    if rules is None:
        raise ValueError(f"{game.name} has no compiled rules (Game.compiled_rules() is None)")
    check_rng(rng)
    kernel = compiled_uct_kernel(rules)
    stream = np.array([rng.integers(0, 2**63, dtype=np.uint64)], dtype=np.uint64)
    visit_counts = np.zeros(game.num_actions, dtype=np.int32)
    q_values = np.zeros(game.num_actions, dtype=np.float64)
    root = np.ascontiguousarray(state_row, dtype=np.int64)
    error, root_value, num_playouts = kernel(
        root, int(num_simulations), float(c), int(game.max_game_length), int(game.num_actions), stream,
        visit_counts, q_values,
    )
    if error == _PLAYOUT_TOO_LONG:
        raise ValueError(f"{game.name}: random playout longer than max_game_length={game.max_game_length}")
    return int(np.argmax(visit_counts)), visit_counts, q_values, float(root_value), int(num_playouts)
