"""Recorded moves, root visit counts and Q values of the single-position search.

``arena.players.MCTSPlayer.analyze`` is the search of ``play``, the engine protocol
(docs/engine_protocol.md), the web page and the arena's ``mcts:`` players: one root, one leaf per
network call, no root noise. With the deterministic evaluator of tests/test_mcts_regression.py
(integer functions of the observation, exact on every machine) and the mirror averaging of
``mcts.evaluators.symmetry_averaged``, the numbers below change only when the search or the move
choice does: any change is a change of strength. Re-record only on purpose.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_mcts_regression import hashed_evaluator

import games
from arena.players import MCTSPlayer
from games.base import WithoutCompiledRules
from mcts import GumbelConfig, PUCTConfig, run_search
from mcts.evaluators import symmetry_averaged

SETTINGS = {
    "puct": (PUCTConfig(num_simulations=200), False, False),
    "puct_mirror": (PUCTConfig(num_simulations=200), True, False),
    "puct_mirror_q_ties": (PUCTConfig(num_simulations=200), True, True),
    "gumbel": (GumbelConfig(num_simulations=200), False, False),
    "puct_solver": (PUCTConfig(num_simulations=200, solver=True), False, False),
}

#: (moves from the start, settings) -> (move played, root visit counts, Q(root, a) to 5 decimals)
RECORDED = {
    ("", "puct"): (3, [25, 17, 8, 61, 22, 35, 32], [-0.096, -0.17647, -0.3, -0.04262, -0.10909, -0.06857, -0.00625]),
    ("", "puct_mirror"): (
        3, [27, 21, 32, 40, 32, 21, 27], [-0.06296, -0.10476, -0.03437, -0.025, -0.03437, -0.10476, -0.06296]
    ),
    ("", "puct_mirror_q_ties"): (
        3, [27, 21, 32, 40, 32, 21, 27], [-0.06296, -0.10476, -0.03437, -0.025, -0.03437, -0.10476, -0.06296]
    ),
    ("", "gumbel"): (5, [9, 66, 9, 9, 31, 67, 9], [-0.11111, -0.00303, -0.4, -0.15556, -0.05806, 0.02388, -0.15556]),
    ("", "puct_solver"): (
        3, [25, 17, 8, 61, 22, 35, 32], [-0.096, -0.17647, -0.3, -0.04262, -0.10909, -0.06857, -0.00625]
    ),
    ("4453", "puct"): (6, [11, 1, 6, 3, 8, 30, 141], [-0.16364, -0.2, -0.23333, -0.13333, -0.075, 0.19333, 0.24965]),
    ("4453", "puct_mirror"): (
        6, [9, 1, 8, 7, 11, 74, 90], [-0.17778, -0.4, -0.075, -0.05714, 0.06364, 0.28514, 0.20667]
    ),
    ("4453", "puct_mirror_q_ties"): (
        6, [9, 1, 8, 7, 11, 74, 90], [-0.17778, -0.4, -0.075, -0.05714, 0.06364, 0.28514, 0.20667]
    ),
    ("4453", "gumbel"): (6, [9, 9, 31, 9, 9, 66, 67], [-0.02222, -0.08889, 0.0, 0.06667, -0.06667, 0.1, 0.79403]),
    ("4453", "puct_solver"): (
        5, [16, 1, 7, 7, 9, 118, 42], [-0.1625, -0.2, -0.25714, -0.02857, -0.15556, 0.14746, 0.11429]
    ),
    ("44444", "puct"): (1, [28, 114, 45, 3, 2, 2, 6], [0.04286, 0.02456, -0.01778, -0.2, -0.3, -0.3, -0.16667]),
    ("44444", "puct_mirror"): (
        1, [20, 58, 26, 3, 26, 47, 20], [-0.025, -0.01897, -0.08077, -0.16667, -0.08077, -0.03404, -0.025]
    ),
    ("44444", "puct_mirror_q_ties"): (
        1, [20, 58, 26, 3, 26, 47, 20], [-0.025, -0.01897, -0.08077, -0.16667, -0.08077, -0.03404, -0.025]
    ),
    ("44444", "gumbel"): (1, [31, 67, 9, 9, 9, 66, 9], [0.00645, 0.45075, -0.08889, -0.04444, -0.08889, 0.01212, -0.08889]),
    ("44444", "puct_solver"): (
        1, [28, 115, 44, 3, 2, 2, 6], [0.04286, 0.02435, -0.03636, -0.2, -0.3, -0.3, -0.16667]
    ),
}


@pytest.mark.parametrize(("moves", "setting"), list(RECORDED))
def test_single_position_search_gives_the_recorded_move_visits_and_q(moves, setting):
    game = games.make("connect4")
    config, mirror, q_ties = SETTINGS[setting]
    evaluate_fn = hashed_evaluator(game)
    if mirror:
        evaluate_fn = symmetry_averaged(game, evaluate_fn)
    state = tuple(int(x) for x in game.states_from_moves([moves])[0])
    analysis = MCTSPlayer(evaluate_fn, config, rng=7, break_ties=q_ties).analyze(game, state)
    move, visits, q_values = RECORDED[(moves, setting)]
    assert analysis.best_action == move
    assert analysis.visit_counts.tolist() == visits
    np.testing.assert_allclose(analysis.q_values, q_values, atol=6e-6)
    assert analysis.value == pytest.approx(q_values[move], abs=6e-6)


@pytest.mark.parametrize(
    ("game_name", "moves", "solver"),
    [("tictactoe", "5", False), ("tictactoe", "51", True), ("connect4", "4453", True), ("othello", "", False)],
)
def test_compiled_one_root_loop_builds_the_batched_loops_tree(game_name, moves, solver):
    game = games.make(game_name)
    assert game.compiled_rules() is not None
    root = game.states_from_moves([moves]) if moves else game.initial_states(1)
    config = PUCTConfig(num_simulations=150, solver=solver)
    outputs = [
        run_search(rules, root, hashed_evaluator(game), config, np.random.default_rng(1))
        for rules in (game, WithoutCompiledRules(game))
    ]
    compiled, batched = (output.tree for output in outputs)
    assert compiled.num_nodes.tolist() == batched.num_nodes.tolist()
    for name in ("node_visits", "node_value_sum", "children_index", "children_prior", "node_proof", "node_states"):
        assert np.array_equal(getattr(compiled, name), getattr(batched, name)), name
    assert outputs[0].num_terminal_leaves.tolist() == outputs[1].num_terminal_leaves.tolist()
    assert outputs[0].num_evaluations.tolist() == outputs[1].num_evaluations.tolist()
    assert int(outputs[0].actions[0]) == int(outputs[1].actions[0])
    assert outputs[0].visit_counts.sum() == 150
    if game_name == "tictactoe":  # finished games inside the tree: the compiled loop backs them up too
        assert outputs[0].num_terminal_leaves[0] > 0
