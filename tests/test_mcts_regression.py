"""Recorded self-play games and root visit counts of PUCT and Gumbel for fixed seeds.

The games are played by ``selfplay.runner.SelfPlayRunner`` with a deterministic evaluator whose
priors and values are integer functions of the observation (exact on every machine and at every
batch size), so the move strings below change only when the search, the move choice or the order
of the runner's random draws changes. Any change to them is a change of behaviour: re-record only
on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest

import games
from mcts import GumbelConfig, PUCTConfig
from mcts.gumbel import run_gumbel
from mcts.search import run_puct
from selfplay.runner import SelfPlayRunner, SelfPlaySettings


def hashed_evaluator(game):
    """Priors ``softmax(((x @ W) mod 11) / 4)`` and values ``((x @ w) mod 9 - 4) / 5`` of the
    observation ``x`` read as integers (0/1 planes), with ``W``, ``w`` fixed integer matrices."""
    size = int(np.prod(game.observation_shape))
    draw = np.random.default_rng(20260101)
    weights = draw.integers(-5, 6, size=(size, game.num_actions), dtype=np.int64)
    value_weights = draw.integers(-5, 6, size=size, dtype=np.int64)

    def evaluate(observations, legal_mask):
        x = np.rint(np.asarray(observations).reshape(len(observations), -1)).astype(np.int64)
        logits = ((x @ weights) % 11).astype(np.float64) / 4.0
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        priors = np.where(legal_mask, priors, 0.0)
        priors /= priors.sum(axis=1, keepdims=True)
        values = (((x @ value_weights) % 9) - 4).astype(np.float64) / 5.0
        return priors.astype(np.float32), values.astype(np.float32)

    return evaluate


def _games(game, config, seed, num_moves):
    runner = SelfPlayRunner(
        game, hashed_evaluator(game), config, 3, np.random.default_rng(seed), settings=SelfPlaySettings(temperature=1.0, temperature_plies=4),
    )
    records, _ = runner.play_moves(num_moves)
    return [game.format_moves(record.actions) for record in records]


RECORDED_GAMES = {
    ("tictactoe", "puct"): ["15784", "627835", "736514982"],
    ("tictactoe", "gumbel"): ["3975182", "21386957", "287963541"],
    ("connect4", "puct"): [
        "5564637221", "775776764147263", "6111252136242", "115513226633341261631452", "6145737263646",
        "64767574347", "4342353713434", "15324271367252",
    ],
    ("connect4", "gumbel"): [
        "63656716771472", "75427547542145133", "267245341", "612714677114311723536274", "43416673775",
        "6472251673", "6174643454", "652551772136232",
    ],
}

CONFIGS = {
    "puct": PUCTConfig(num_simulations=24, dirichlet_alpha=1.0),
    "gumbel": GumbelConfig(num_simulations=16, max_num_considered_actions=4),
}


@pytest.mark.parametrize(("game_name", "algorithm"), list(RECORDED_GAMES))
def test_self_play_games_are_the_recorded_ones(game_name, algorithm):
    game = games.make(game_name)
    moves = _games(game, CONFIGS[algorithm], seed=3, num_moves=game.max_game_length)
    assert moves == RECORDED_GAMES[(game_name, algorithm)]


def test_puct_root_visits_of_connect4_are_the_recorded_ones():
    game = games.make("connect4")
    roots = game.states_from_moves(["", "4453"])
    output = run_puct(game, roots, hashed_evaluator(game), CONFIGS["puct"], np.random.default_rng(5), add_root_noise=True)
    assert output.visit_counts.tolist() == [[9, 1, 1, 1, 2, 8, 2], [4, 0, 3, 2, 3, 4, 8]]


def test_gumbel_root_visits_of_connect4_are_the_recorded_ones():
    game = games.make("connect4")
    roots = game.states_from_moves(["", "4453"])
    output = run_gumbel(game, roots, hashed_evaluator(game), CONFIGS["gumbel"], np.random.default_rng(5))
    assert output.visit_counts.tolist() == [[0, 0, 0, 2, 6, 6, 2], [6, 2, 0, 0, 2, 6, 0]]
    assert output.actions.tolist() == [4, 0]
