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
from mcts.evaluators import bound_network, symmetry_averaged
from mcts.single import count_degenerate_rows, normalise_weights, shift_legal_logits
from networks.onnx_evaluator import load_exported
from networks.policy_numpy import DEGENERATE_LEGAL_MASS, masked_softmax_with_count_numpy
from networks.shipped import shipped_path

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


def _shipped_evaluator():
    return load_exported(shipped_path("connect4"), providers=["CPUExecutionProvider"], num_threads=1)


def _plain(evaluate_fn):
    """``evaluate_fn`` behind a plain function: the search then calls it from Python at every leaf."""
    return lambda observations, legal_mask: evaluate_fn(observations, legal_mask)


#: (moves from the start, mirror-averaged): positions the shipped Connect Four model searches with
#: 200 simulations through its bound buffers and through its evaluate method
SHIPPED_POSITIONS = [("", False), ("", True), ("44444", False), ("44444", True), ("3343", False), ("3343", True), ("256", True)]


@pytest.mark.parametrize(("moves", "mirror"), SHIPPED_POSITIONS)
def test_bound_network_search_builds_the_tree_of_the_search_through_evaluate(moves, mirror):
    game = games.make("connect4")
    evaluator = _shipped_evaluator()
    root = game.states_from_moves([moves])
    outputs, counters = [], []
    for evaluate_fn in (evaluator.evaluate, _plain(evaluator.evaluate)):
        assert (bound_network(evaluate_fn, game) is not None) == (evaluate_fn == evaluator.evaluate)
        if mirror:
            evaluate_fn = symmetry_averaged(game, evaluate_fn)
        before = (evaluator.num_calls, evaluator.num_positions, evaluator.num_degenerate_priors)
        outputs.append(run_search(game, root, evaluate_fn, PUCTConfig(num_simulations=200), np.random.default_rng(1)))
        counters.append(np.subtract((evaluator.num_calls, evaluator.num_positions, evaluator.num_degenerate_priors), before))
    bound, through_evaluate = outputs
    for name in ("node_visits", "node_value_sum", "node_raw_value", "children_index", "children_prior", "node_states"):
        assert np.array_equal(getattr(bound.tree, name), getattr(through_evaluate.tree, name)), name
    assert int(bound.actions[0]) == int(through_evaluate.actions[0])
    assert bound.visit_counts.tolist() == through_evaluate.visit_counts.tolist()
    assert bound.num_evaluations.tolist() == through_evaluate.num_evaluations.tolist()
    assert counters[0].tolist() == counters[1].tolist()
    assert counters[0][1] == counters[0][0] * (2 if mirror else 1)  # one network run of 1 or 2 rows per leaf


def test_bound_network_is_found_for_an_onnx_evaluate_alone_or_mirror_averaged_only():
    game = games.make("connect4")
    evaluator = _shipped_evaluator()
    network, images = bound_network(evaluator.evaluate, game)
    assert images == 1 and network.observations.shape == (1, 2, 6, 7) and network.logits.shape == (1, 7)
    network, images = bound_network(symmetry_averaged(game, evaluator.evaluate), game)
    assert images == 2 and network.observations.shape == (2, 2, 6, 7) and network.values.shape == (2,)
    assert bound_network(evaluator, game)[1] == 1
    assert bound_network(_plain(evaluator.evaluate), game) is None
    assert bound_network(hashed_evaluator(game), game) is None
    assert bound_network(evaluator.evaluate, games.make("tictactoe")) is None  # buffers of another game's shape


def test_bound_buffers_run_gives_session_run_outputs_and_counts_the_call():
    game = games.make("connect4")
    evaluator = _shipped_evaluator()
    bound = evaluator.bind_buffers(2)
    observations = game.observation(game.states_from_moves(["4453", "1"]))
    bound.observations[:] = observations
    bound.run()
    logits, values = evaluator.session.run(None, {"observation": observations})
    assert np.array_equal(bound.logits, logits) and np.array_equal(bound.values, values.reshape(-1))
    assert (evaluator.num_calls, evaluator.num_positions) == (1, 2)
    with pytest.raises(ValueError, match=r"rows: expected an integer >= 1, got 0"):
        evaluator.bind_buffers(0)


class _PublicSession:
    """An ONNX Runtime session seen through its public methods only (no ``_sess``), as a session
    wrapper or another runtime version might offer it."""

    def __init__(self, session):
        self._session = session
        self.public_runs = 0

    def io_binding(self):
        return self._session.io_binding()

    def get_outputs(self):
        return self._session.get_outputs()

    def run_with_iobinding(self, binding):
        self.public_runs += 1
        self._session.run_with_iobinding(binding)


def test_bound_buffers_run_through_the_public_method_when_the_session_hides_its_extension():
    game = games.make("connect4")
    evaluator = _shipped_evaluator()
    observations = game.observation(game.states_from_moves(["4453"]))
    direct = evaluator.bind_buffers(1)
    direct.observations[:] = observations
    direct.run()
    evaluator.session = public = _PublicSession(evaluator.session)
    bound = evaluator.bind_buffers(1)
    bound.observations[:] = observations
    bound.run()
    assert public.public_runs == 1
    assert np.array_equal(bound.logits, direct.logits) and np.array_equal(bound.values, direct.values)
    assert (evaluator.num_calls, evaluator.num_positions) == (2, 2)


class _NonFiniteNetwork:
    """Bound buffers whose network answers NaN values, or raises ``failure`` when it has one."""

    min_legal_mass = 1e-6

    def __init__(self, game, failure=None):
        self.game = game
        self.failure = failure

    def evaluate(self, observations, legal_mask):
        return legal_mask / legal_mask.sum(axis=1, keepdims=True), np.zeros(len(legal_mask), np.float32)

    def bind_buffers(self, rows):
        outer = self

        class Bound:
            observations = np.zeros((rows, *outer.game.observation_shape), np.float32)
            logits = np.zeros((rows, outer.game.num_actions), np.float32)
            values = np.full(rows, np.nan, np.float32)

            def run(self):
                if outer.failure is not None:
                    raise outer.failure

            def count_degenerate(self, count):
                pass

        bound = Bound()
        bound.min_legal_mass = self.min_legal_mass
        return bound


def test_bound_network_search_refuses_a_non_finite_value():
    game = games.make("connect4")
    network = _NonFiniteNetwork(game)
    with pytest.raises(ValueError, match=r"evaluate_fn returned non-finite values: \[nan\]"):
        run_search(game, game.initial_states(1), network.evaluate, PUCTConfig(num_simulations=5), np.random.default_rng(0))


def test_bound_network_search_raises_what_the_network_run_raises():
    game = games.make("connect4")
    network = _NonFiniteNetwork(game, failure=RuntimeError("network run failed"))
    with pytest.raises(RuntimeError, match=r"^network run failed$"):
        run_search(game, game.initial_states(1), network.evaluate, PUCTConfig(num_simulations=5), np.random.default_rng(0))


@pytest.mark.parametrize("num_actions", [7, 9, 20, 65])
@pytest.mark.parametrize("rows", [1, 2])
def test_compiled_softmax_steps_give_numpys_masked_softmax_to_the_last_bit(num_actions, rows):
    draw = np.random.default_rng(num_actions * 10 + rows)
    for trial in range(200):
        scale = [1.0, 10.0, 60.0][trial % 3]
        logits = (draw.standard_normal((rows, num_actions)) * scale).astype(np.float32)
        legal = draw.random((rows, num_actions)) < 0.6
        legal[:, trial % num_actions] = True
        shifted, weights, probabilities = (np.empty_like(logits) for _ in range(3))
        shift_legal_logits(logits, legal, shifted)
        np.exp(shifted, out=weights)  # numpy's exp, as the search's second callback
        normalise_weights(weights, probabilities)
        expected, degenerate = masked_softmax_with_count_numpy(logits, legal)
        assert np.array_equal(probabilities.view(np.int32), expected.view(np.int32))
        assert count_degenerate_rows(logits, legal, DEGENERATE_LEGAL_MASS) == degenerate


def test_a_legal_nan_logit_makes_the_row_nan_as_in_numpy():
    logits = np.array([[0.5, np.nan, 1.0]], np.float32)
    legal = np.array([[True, True, False]])
    shifted = np.empty_like(logits)
    shift_legal_logits(logits, legal, shifted)
    assert np.isnan(shifted).all()
    assert count_degenerate_rows(logits, legal, DEGENERATE_LEGAL_MASS) == 0


@pytest.mark.parametrize("game_name", ["connect4", "tictactoe"])
def test_compiled_observation_writes_the_observation_of_each_state(game_name):
    game = games.make(game_name)
    observe = game.compiled_observation()
    draw = np.random.default_rng(5)
    states = game.initial_states(1)
    seen = 0
    while seen < 60:
        out = np.full(game.observation_shape, 7.0, np.float32)
        observe(states[0], out)
        assert np.array_equal(out, game.observation(states)[0])
        seen += 1
        if game.terminal(states)[0]:
            states = game.initial_states(1)
            continue
        legal = np.flatnonzero(game.legal_mask(states)[0])
        states = game.step(states, np.array([draw.choice(legal)], np.int64))
