"""CFR, CFR+, external-sampling MCCFR, exact best response and NashConv on Kuhn and Leduc poker.

Reference values: Kuhn's game value -1/18 (Kuhn 1950); the uniform policies' NashConv and the
NashConv OpenSpiel's C++ ``CFRSolver``/``CFRPlusSolver`` reach after 1,000 iterations (Kuhn
0.00187523 and 0.000174731, Leduc 0.0236356 and 0.000514303).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from search.best_response import best_response, best_response_value, check_policy, expected_value, nash_conv
from search.cfr import CFRSolver
from search.game_tree import build_tree

KUHN_VALUE = -1.0 / 18.0


@pytest.fixture(scope="module")
def kuhn():
    return build_tree("kuhn")


@pytest.fixture(scope="module")
def leduc():
    return build_tree("leduc")


def solved(tree, algorithm, iterations, seed=0):
    solver = CFRSolver(tree, algorithm, rng=np.random.default_rng(seed))
    solver.iterate(iterations)
    return solver


def test_uniform_nash_conv(kuhn, leduc):
    assert nash_conv(kuhn, kuhn.uniform_policy()) == pytest.approx(11.0 / 12.0, abs=1e-12)
    assert nash_conv(leduc, leduc.uniform_policy()) == pytest.approx(4.747222222, abs=1e-8)


def test_kuhn_best_responses_to_uniform(kuhn):
    """Hand-worked: against a uniform player 1, player 0 wins 1/2 a hand; against a uniform player
    0, player 1 wins 5/12 (the two sum to the uniform NashConv 11/12)."""
    uniform = kuhn.uniform_policy()
    assert best_response_value(kuhn, uniform, 0) == pytest.approx(0.5)
    assert best_response_value(kuhn, uniform, 1) == pytest.approx(5.0 / 12.0)
    _, actions = best_response(kuhn, uniform, 1)
    index = kuhn.infostate_index
    assert actions[index["2b"]] == 1 and actions[index["0b"]] == 0  # call with the king, fold the jack
    assert actions[index["2"]] == -1  # player 0's states carry no response of player 1


@pytest.mark.parametrize(("algorithm", "reference"), [("cfr", 0.00187523), ("cfr+", 0.000174731)])
def test_kuhn_1000_iterations_match_openspiel(kuhn, algorithm, reference):
    policy = solved(kuhn, algorithm, 1000).average_policy()
    assert nash_conv(kuhn, policy) == pytest.approx(reference, rel=1e-4)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_kuhn_value_by_300_iterations(kuhn, algorithm):
    policy = solved(kuhn, algorithm, 300).average_policy()
    assert abs(expected_value(kuhn, policy, policy) - KUHN_VALUE) < 1e-3


def test_kuhn_equilibrium_bluffs_with_the_jack(kuhn):
    """Player 1's equilibrium strategy is unique: after a check it bets a jack 1/3 of the time;
    facing a bet it calls with a queen 1/3 of the time (Kuhn 1950)."""
    policy = solved(kuhn, "cfr+", 3000).average_policy()
    index = kuhn.infostate_index
    assert policy[index["0p"], 1] == pytest.approx(1.0 / 3.0, abs=0.01)
    assert policy[index["1b"], 1] == pytest.approx(1.0 / 3.0, abs=0.01)
    assert policy[index["2b"], 1] == pytest.approx(1.0, abs=0.01)


def test_leduc_cfr_plus_1000_iterations(leduc):
    policy = solved(leduc, "cfr+", 1000).average_policy()
    conv = nash_conv(leduc, policy)
    assert conv < 1e-3
    assert conv == pytest.approx(0.000514303, rel=0.1)  # other update orders differ slightly
    assert expected_value(leduc, policy, policy) == pytest.approx(-0.0856, abs=1e-3)


def test_leduc_cfr_1000_iterations(leduc):
    conv = nash_conv(leduc, solved(leduc, "cfr", 1000).average_policy())
    assert conv == pytest.approx(0.0236356, rel=1e-3)


def test_mccfr_is_seeded_and_converges_on_kuhn(kuhn):
    first = solved(kuhn, "mccfr", 2000, seed=3).average_policy()
    again = solved(kuhn, "mccfr", 2000, seed=3).average_policy()
    other = solved(kuhn, "mccfr", 2000, seed=4).average_policy()
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert nash_conv(kuhn, first) < 0.05
    longer = solved(kuhn, "mccfr", 20000, seed=3).average_policy()
    assert nash_conv(kuhn, longer) < nash_conv(kuhn, first)
    assert abs(expected_value(kuhn, longer, longer) - KUHN_VALUE) < 0.01


@pytest.mark.parametrize("algorithm", ["cfr+", "mccfr"])
def test_iterating_in_pieces_equals_one_run(kuhn, algorithm):
    """A run depends on its seed and the iteration count only (MCCFR uses its draws in order)."""
    whole = solved(kuhn, algorithm, 5000, seed=2)
    pieces = CFRSolver(kuhn, algorithm, rng=np.random.default_rng(2))
    for count in (1, 9, 40, 3950, 1000):
        pieces.iterate(count)
    assert pieces.iterations == 5000
    assert np.array_equal(whole.average_policy(), pieces.average_policy())
    assert np.array_equal(whole.current_policy(), pieces.current_policy())


def test_policies_are_checked(kuhn):
    uniform = kuhn.uniform_policy()
    with pytest.raises(ValueError, match=r"expected shape \(12, 2\), got \(12, 3\)"):
        nash_conv(kuhn, np.ones((12, 3)) / 3)
    bad = uniform.copy()
    bad[0] = [0.7, 0.7]
    with pytest.raises(ValueError, match="sum to 1, got 1.4"):
        check_policy(kuhn, bad)
    with pytest.raises(ValueError, match="expected finite probabilities >= 0"):
        check_policy(kuhn, -uniform)
    with pytest.raises(ValueError, match="expected player 0 or 1, got 2"):
        best_response(kuhn, uniform, 2)
    with pytest.raises(ValueError, match=r"expected an algorithm in \['cfr', 'cfr\+', 'mccfr'\], got 'dcfr'"):
        CFRSolver(kuhn, "dcfr")
    with pytest.raises(ValueError, match="mccfr samples: expected a numpy.random.Generator, got int"):
        CFRSolver(kuhn, "mccfr", rng=0)
    with pytest.raises(ValueError, match="expected num_iterations >= 0, got -1"):
        CFRSolver(kuhn, "cfr").iterate(-1)


def test_illegal_mass_is_rejected(leduc):
    policy = leduc.uniform_policy()
    row = int(np.flatnonzero(~leduc.arrays.infostate_legal[:, 0])[0])  # a state where fold is illegal
    policy[row] = [0.5, 0.5, 0.0]
    with pytest.raises(ValueError, match="illegal action"):
        check_policy(leduc, policy)


def openspiel_policy(pyspiel_game, tree, policy):
    from open_spiel.python import policy as policy_lib

    table = policy_lib.TabularPolicy(pyspiel_game)
    for name, row in table.state_lookup.items():
        table.action_probability_array[row] = policy[tree.infostate_index[name]]
    return table


@pytest.mark.parametrize(("name", "iterations"), [("kuhn", 200), pytest.param("leduc", 20, marks=pytest.mark.slow)])
def test_openspiel_agrees_on_nash_conv_and_value(name, iterations, request):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms import expected_game_score, exploitability

    tree = request.getfixturevalue(name)
    game = pyspiel.load_game(tree.game.openspiel_name)
    for policy in (tree.uniform_policy(), solved(tree, "cfr+", iterations).average_policy(),
                   solved(tree, "mccfr", iterations).average_policy()):
        table = openspiel_policy(game, tree, policy)
        assert exploitability.nash_conv(game, table) == pytest.approx(nash_conv(tree, policy), abs=1e-9)
    uniform = openspiel_policy(game, tree, tree.uniform_policy())
    cfr_policy = solved(tree, "cfr", iterations).average_policy()
    theirs = expected_game_score.policy_value(game.new_initial_state(), [openspiel_policy(game, tree, cfr_policy), uniform])
    assert theirs[0] == pytest.approx(expected_value(tree, cfr_policy, tree.uniform_policy()), abs=1e-9)


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_leduc_runs_follow_openspiels_cpp_solver(leduc, algorithm):
    """The same algorithm as OpenSpiel's C++ ``CFRSolver``/``CFRPlusSolver`` (alternating updates,
    same averaging): NashConv agrees to 1e-9 after 30 iterations. (Later, round-off from another
    summation order grows: 4e-12 apart at 100 iterations, 3e-5 at 1,000.)"""
    pyspiel = pytest.importorskip("pyspiel")
    game = pyspiel.load_game(leduc.game.openspiel_name)
    theirs = (pyspiel.CFRPlusSolver if algorithm == "cfr+" else pyspiel.CFRSolver)(game)
    for _ in range(30):
        theirs.evaluate_and_update_policy()
    ours = solved(leduc, algorithm, 30).average_policy()
    assert nash_conv(leduc, ours) == pytest.approx(pyspiel.nash_conv(game, theirs.average_policy()), abs=1e-9)


def random_policy(tree, rng):
    """`[I, A]`: a Dirichlet(1) draw over each information state's legal actions."""
    draws = rng.gamma(1.0, size=(tree.num_infostates, tree.num_actions)) * tree.arrays.infostate_legal
    return draws / draws.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_best_response_bounds_every_other_policy(name, seed, request):
    """For random policies p and q: q does no better against p than the best response does, and
    the best response, played as a one-hot policy, earns exactly its value; NashConv >= 0."""
    tree = request.getfixturevalue(name)
    rng = np.random.default_rng(seed)
    policy, other = random_policy(tree, rng), random_policy(tree, rng)
    value_0, actions_0 = best_response(tree, policy, 0)
    value_1, actions_1 = best_response(tree, policy, 1)
    assert expected_value(tree, other, policy) <= value_0 + 1e-9
    assert -expected_value(tree, policy, other) <= value_1 + 1e-9
    assert nash_conv(tree, policy) == pytest.approx(value_0 + value_1) and value_0 + value_1 >= 0.0
    for player, actions, value in ((0, actions_0, value_0), (1, actions_1, value_1)):
        mine = tree.arrays.infostate_player == player
        response = policy.copy()
        response[mine] = 0.0
        response[np.flatnonzero(mine), actions[mine]] = 1.0
        played = expected_value(tree, response, policy) if player == 0 else -expected_value(tree, policy, response)
        assert played == pytest.approx(value, abs=1e-9)
