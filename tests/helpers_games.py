"""Small synthetic games (implementing ``games.base.Game``) for search tests.

* ``ExplicitTreeGame``: a game given as an explicit table of nodes, so a test can build any tree:
  a player moving twice in a row, bandits with known values, rows with different
  legal masks.
* ``CycleGame``: two positions A and B that lead to each other forever; the game ends only at a
  move cap, which counts as a draw.

And two ways to reach positions of any game: ``play_moves`` (a move string from the initial state)
and ``random_positions`` (seeded uniformly random play).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games.base import NO_WINNER, Game, check_batch


class DigitMoves:
    """Move strings of one digit per action (``"012"``), for the synthetic games below."""

    def parse_moves(self, text: str) -> list[int]:
        return [int(c) for c in text]

    def format_moves(self, actions) -> str:
        return "".join(str(int(a)) for a in actions)


@dataclass
class TreeNode:
    """One position of an ``ExplicitTreeGame``.

    ``children`` maps legal actions to node ids; an empty map makes the node terminal, and then
    ``winner`` (0, 1 or ``NO_WINNER`` for a draw) is its result.
    """

    to_play: int
    children: dict[int, int] = field(default_factory=dict)
    winner: int = NO_WINNER


class ExplicitTreeGame(DigitMoves, Game):
    """A game whose positions are ``nodes[0..n)``; node 0 is the start. State row ``[node, ply]``."""

    name = "explicit_tree"
    state_size = 2

    def __init__(self, nodes: list[TreeNode], num_actions: int) -> None:
        self.nodes = nodes
        self.num_actions = num_actions
        self.observation_shape = (1, 1, len(nodes))
        self.max_game_length = len(nodes)
        n = len(nodes)
        self._next = np.full((n, num_actions), -1, dtype=np.int64)
        for i, node in enumerate(nodes):
            for action, child in node.children.items():
                self._next[i, action] = child
        self._to_play = np.array([node.to_play for node in nodes], dtype=np.int8)
        self._winner = np.array(
            [node.winner if not node.children else NO_WINNER for node in nodes], dtype=np.int8
        )
        self._terminal = np.array([not node.children for node in nodes], dtype=bool)

    def initial_states(self, batch_size: int) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"expected batch_size >= 1, got {batch_size}")
        return np.zeros((batch_size, 2), dtype=np.int64)

    def states_at(self, node_ids) -> np.ndarray:
        """States at the given node ids (ply 0): ``[len, 2]`` int64."""
        ids = np.asarray(node_ids, dtype=np.int64)
        return np.stack([ids, np.zeros_like(ids)], axis=1)

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return self._next[states[:, 0]] >= 0

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions)
        check_batch(self, states, actions)
        nxt = self._next[states[:, 0], actions]
        if np.any(nxt < 0):
            row = int(np.flatnonzero(nxt < 0)[0])
            raise ValueError(f"illegal action {int(actions[row])} in row {row}")
        return np.stack([nxt, states[:, 1] + 1], axis=1)

    def terminal(self, states: np.ndarray) -> np.ndarray:
        return self._terminal[states[:, 0]]

    def to_play(self, states: np.ndarray) -> np.ndarray:
        return self._to_play[states[:, 0]]

    def winner(self, states: np.ndarray) -> np.ndarray:
        return self._winner[states[:, 0]]

    def ply(self, states: np.ndarray) -> np.ndarray:
        return states[:, 1].copy()

    def observation(self, states: np.ndarray) -> np.ndarray:
        obs = np.zeros((states.shape[0], *self.observation_shape), dtype=np.float32)
        obs[np.arange(states.shape[0]), 0, 0, states[:, 0]] = 1.0
        return obs

    def exact_value(self, node_id: int) -> float:
        """Negamax value of a node for its player to move (same-player children are not negated)."""
        node = self.nodes[node_id]
        if not node.children:
            return 0.0 if node.winner == NO_WINNER else (1.0 if node.winner == node.to_play else -1.0)
        values = []
        for child in node.children.values():
            value = self.exact_value(child)
            values.append(value if self.nodes[child].to_play == node.to_play else -value)
        return max(values)

    def oracle_evaluator(self):
        """A state evaluator: uniform priors over legal actions, exact negamax values."""
        exact = np.array([self.exact_value(i) for i in range(len(self.nodes))], dtype=np.float32)

        def evaluate(states, legal_mask):
            priors = legal_mask / np.maximum(legal_mask.sum(axis=1, keepdims=True), 1)
            return priors.astype(np.float32), exact[states[:, 0]]

        evaluate.takes_states = True
        return evaluate

    def render(self, state) -> str:
        return f"node {int(state[0])}"


class CycleGame(DigitMoves, Game):
    """Positions A (0) and B (1); every move goes to the other one; ``move_cap`` plies is a draw.

    ``num_actions`` actions, all legal and all equivalent. State row ``[position, ply]``.
    """

    name = "cycle"
    state_size = 2
    observation_shape = (1, 1, 2)

    def __init__(self, move_cap: int = 50, num_actions: int = 1) -> None:
        self.move_cap = move_cap
        self.num_actions = num_actions
        self.max_game_length = move_cap

    def initial_states(self, batch_size: int) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"expected batch_size >= 1, got {batch_size}")
        return np.zeros((batch_size, 2), dtype=np.int64)

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return np.repeat((states[:, 1] < self.move_cap)[:, None], self.num_actions, axis=1)

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions)
        check_batch(self, states, actions)
        if np.any(states[:, 1] >= self.move_cap):
            raise ValueError("stepping a finished game")
        if np.any((actions < 0) | (actions >= self.num_actions)):
            raise ValueError(f"illegal action in {actions.tolist()}")
        return np.stack([1 - states[:, 0], states[:, 1] + 1], axis=1)

    def terminal(self, states: np.ndarray) -> np.ndarray:
        return states[:, 1] >= self.move_cap

    def to_play(self, states: np.ndarray) -> np.ndarray:
        return (states[:, 1] % 2).astype(np.int8)

    def winner(self, states: np.ndarray) -> np.ndarray:
        return np.full(states.shape[0], NO_WINNER, dtype=np.int8)

    def ply(self, states: np.ndarray) -> np.ndarray:
        return states[:, 1].copy()

    def observation(self, states: np.ndarray) -> np.ndarray:
        obs = np.zeros((states.shape[0], 1, 1, 2), dtype=np.float32)
        obs[np.arange(states.shape[0]), 0, 0, states[:, 0]] = 1.0
        return obs

    def render(self, state) -> str:
        return "AB"[int(state[0])] + f" ply {int(state[1])}"


def double_move_game() -> ExplicitTreeGame:
    """A player moving twice in a row: the root (player 0) has one move, to a node where player 0 moves again; that
    node's only move wins for player 0. Action 1 at the root is illegal."""
    return ExplicitTreeGame(
        [
            TreeNode(to_play=0, children={0: 1}),
            TreeNode(to_play=0, children={0: 2}),
            TreeNode(to_play=1, winner=0),
        ],
        num_actions=2,
    )


def mixed_turn_game() -> ExplicitTreeGame:
    """Root (player 0) with two moves: action 0 to a player-0 node whose only move wins for
    player 0; action 1 to a player-1 node whose only move wins for player 1."""
    return ExplicitTreeGame(
        [
            TreeNode(to_play=0, children={0: 1, 1: 2}),
            TreeNode(to_play=0, children={0: 3}),
            TreeNode(to_play=1, children={0: 4}),
            TreeNode(to_play=1, winner=0),
            TreeNode(to_play=0, winner=1),
        ],
        num_actions=2,
    )


def play_moves(game: Game, moves: str) -> tuple:
    """The state after the move string ``moves`` (``game.parse_moves`` notation) from the initial state."""
    state = game.initial_state()
    for action in game.parse_moves(moves):
        state = game.result(state, action)
    return state


def random_positions(
    game: Game, rng: np.random.Generator, count: int, max_plies: int, include_terminal: bool = False
) -> list[tuple]:
    """``count`` states, each reached by ``rng.integers(0, max_plies)`` uniformly random plies from the
    initial state (fewer when the game ends first); terminal states are skipped unless
    ``include_terminal``."""
    positions: list[tuple] = []
    while len(positions) < count:
        state = game.initial_state()
        for _ in range(rng.integers(0, max_plies)):
            if game.terminal_test(state):
                break
            state = game.result(state, int(rng.choice(game.actions(state))))
        if include_terminal or not game.terminal_test(state):
            positions.append(state)
    return positions
