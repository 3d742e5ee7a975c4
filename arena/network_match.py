"""A batched match between two search-backed players (network + PUCT), all games at once.

Used by gating (candidate against best) and by the evaluation of trained models. Colours
alternate: player A moves first in even-numbered games. Each game starts with
``opening_random_plies`` uniformly random legal plies drawn from the seeded generator, so the
games differ although the searches are deterministic (no root noise, greedy move choice:
CASES D2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from games.base import NO_WINNER, Game
from mcts import PUCTConfig, run_puct, select_actions


@dataclass
class MatchResult:
    """W/D/L from player A's side, overall and by A's colour, and the games as move strings."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    wins_as_first: int = 0
    draws_as_first: int = 0
    losses_as_first: int = 0
    wins_as_second: int = 0
    draws_as_second: int = 0
    losses_as_second: int = 0
    games: list[str] = field(default_factory=list)

    @property
    def num_games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """(W + D/2) / N for player A; 0.0 for an empty match."""
        return (self.wins + 0.5 * self.draws) / self.num_games if self.num_games else 0.0

    @property
    def distinct_games(self) -> int:
        return len(set(self.games))


def play_match(
    game: Game,
    evaluate_a,
    evaluate_b,
    num_games: int,
    puct_config: PUCTConfig,
    rng: np.random.Generator,
    opening_random_plies: int = 2,
) -> MatchResult:
    """Play ``num_games`` games of A against B, colours alternated, all games searched together.

    Args:
        evaluate_a, evaluate_b: evaluators (see ``mcts.evaluators``) of the two players.
        puct_config: the search of both players; no root noise is added.
        rng: draws the random opening plies (and nothing else).

    Raises:
        ValueError: if ``num_games`` < 1 or ``opening_random_plies`` < 0.
    """
    if num_games < 1:
        raise ValueError(f"num_games must be >= 1, got {num_games}")
    if opening_random_plies < 0:
        raise ValueError(f"opening_random_plies must be >= 0, got {opening_random_plies}")
    states = game.initial_states(num_games)
    a_is_first = np.arange(num_games) % 2 == 0
    moves = [[] for _ in range(num_games)]
    ply = 0
    while True:
        live = np.flatnonzero(~game.terminal(states))
        if len(live) == 0:
            break
        actions = np.zeros(len(live), dtype=np.int64)
        legal = game.legal_mask(states[live])
        if ply < opening_random_plies:
            actions = np.where(legal, rng.random(legal.shape), -1.0).argmax(axis=1)
        else:
            to_play = game.to_play(states[live])
            a_to_move = (to_play == 0) == a_is_first[live]
            for side, evaluate in ((a_to_move, evaluate_a), (~a_to_move, evaluate_b)):
                if side.any():
                    output = run_puct(game, states[live[side]], evaluate, puct_config, rng, add_root_noise=False)
                    actions[side] = select_actions(output.visit_counts, 0.0, rng)
        stepped = game.step(states[live], actions)
        states[live] = stepped
        for index, action in zip(live, actions):
            moves[index].append(int(action))
        ply += 1
    result = MatchResult()
    winners = game.winner(states)
    for index in range(num_games):
        first = bool(a_is_first[index])
        winner = int(winners[index])
        if winner == NO_WINNER:
            outcome = "draws"
        else:
            outcome = "wins" if (winner == 0) == first else "losses"
        setattr(result, outcome, getattr(result, outcome) + 1)
        by_colour = f"{outcome}_as_{'first' if first else 'second'}"
        setattr(result, by_colour, getattr(result, by_colour) + 1)
        result.games.append(game.format_moves(moves[index]))
    return result
