"""MCTS-solver in the players that measure and play: the proofs decide the final move.

The position is ``X X . / O O . / . . .`` (X to move, wins at cell 2) with a prior of 0.9 on
cell 6: four simulations visit cell 6 three times and find the win at 2 on the last one
(visit counts ``[0, 0, 1, 0, 0, 0, 3, 0, 0]``), so the most visited move misses the win and the
proven one takes it.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers_models import export_tiny_mlp
from test_mcts import P1, TICTACTOE, board
from test_mcts_solver import losing_cell_prior

from arena.network_match import search_moves
from arena.network_players import MCTSPlayer
from arena.specs import build_player, parse_spec
from mcts import PUCTConfig
from mcts.search import run_puct


def test_four_simulations_visit_the_losing_cell_most():
    out = run_puct(TICTACTOE, board(P1), losing_cell_prior, PUCTConfig(num_simulations=4, solver=True),
                   np.random.default_rng(0), False)
    assert out.visit_counts[0].tolist() == [0, 0, 1, 0, 0, 0, 3, 0, 0]


def test_batched_search_plays_the_proven_win():
    rng = np.random.default_rng(0)
    plain = search_moves(TICTACTOE, board(P1), losing_cell_prior, PUCTConfig(num_simulations=4), rng)
    proven = search_moves(TICTACTOE, board(P1), losing_cell_prior, PUCTConfig(num_simulations=4, solver=True), rng)
    assert plain.tolist() == [6] and proven.tolist() == [2]


def test_mcts_player_with_the_solver_plays_the_proven_win():
    state = TICTACTOE.state_from_board(P1)
    plain = MCTSPlayer(losing_cell_prior, PUCTConfig(num_simulations=4))
    proven = MCTSPlayer(losing_cell_prior, PUCTConfig(num_simulations=4, solver=True))
    assert plain.select_action(TICTACTOE, state) == 6
    analysis = proven.analyze(TICTACTOE, state)
    assert analysis.best_action == 2 and analysis.value == 1.0
    assert analysis.visit_counts.tolist() == [0, 0, 1, 0, 0, 0, 0, 0, 0]  # only the proven win kept


def test_solver_player_refuses_minibatches_and_time_limits():
    state = TICTACTOE.state_from_board(P1)
    with pytest.raises(ValueError, match="has no MCTS-solver"):
        MCTSPlayer(losing_cell_prior, PUCTConfig(solver=True), leaves_per_call=8).select_action(TICTACTOE, state)
    with pytest.raises(ValueError, match="has no MCTS-solver"):
        MCTSPlayer(losing_cell_prior, PUCTConfig(solver=True), time_limit=0.5).select_action(TICTACTOE, state)


def test_spec_option_solver(tmp_path):
    model = export_tiny_mlp("tictactoe", tmp_path / "best")
    assert parse_spec(f"mcts:model={model},solver=true").options["solver"] is True
    assert parse_spec(f"mcts:model={model},solver=0").options["solver"] is False
    with pytest.raises(ValueError, match="option 'solver' expects true or false, got 'maybe'"):
        parse_spec(f"mcts:model={model},solver=maybe")
    player = build_player(f"mcts:model={model},sims=30,solver=true", TICTACTOE)
    assert player.config.solver and player.leaves_per_call == 1
    assert player.select_action(TICTACTOE, TICTACTOE.state_from_board(P1)) == 2
    with pytest.raises(ValueError, match="has no MCTS-solver"):
        build_player(f"mcts:model={model},solver=true,batch=8", TICTACTOE).select_action(
            TICTACTOE, TICTACTOE.state_from_board(P1)
        )
