"""Perfect-information Monte Carlo on Kuhn and Leduc poker: where it never bluffs, and its NashConv."""

from __future__ import annotations

import numpy as np
import pytest

from search.best_response import nash_conv
from search.cfr import CFRSolver
from search.game_tree import build_tree
from search.pimc import chance_reach, perfect_information_values, pimc_action_values, pimc_policy


@pytest.fixture(scope="module")
def kuhn():
    return build_tree("kuhn")


def test_perfect_information_value_of_kuhn(kuhn):
    """With every card face up the higher card wins the ante: player 0 wins 1 with the higher card
    (it bets, the other folds) and loses 1 with the lower (it checks); that averages to 0."""
    values = perfect_information_values(kuhn)
    assert values[0] == pytest.approx(0.0)
    assert chance_reach(kuhn)[kuhn.arrays.depth == 2] == pytest.approx(np.full(6, 1.0 / 6.0))


def test_pimc_never_bluffs_the_jack(kuhn):
    """After a check, the second player with the jack: the equilibrium bets 1/3 of the time; in
    every sampled world the jack loses to the visible card, so betting looks worse (-2 against
    -1) and PIMC checks, always."""
    index = kuhn.infostate_index["0p"]
    assert pimc_action_values(kuhn)[index].tolist() == [-1.0, -2.0]
    assert pimc_policy(kuhn)[index].tolist() == [1.0, 0.0]
    equilibrium = CFRSolver(kuhn, "cfr+")
    equilibrium.iterate(2000)
    assert equilibrium.average_policy()[index, 1] == pytest.approx(1.0 / 3.0, abs=0.01)


def test_pimc_nash_conv_is_a_number(kuhn):
    """PIMC's policy table is exploitable by a fixed amount (1/3 chip a hand in Kuhn), where CFR+
    drives NashConv to 0."""
    assert nash_conv(kuhn, pimc_policy(kuhn)) == pytest.approx(1.0 / 3.0)
    sampled = pimc_policy(kuhn, num_samples=50, rng=np.random.default_rng(0))
    assert nash_conv(kuhn, sampled) == pytest.approx(1.0 / 3.0)


def test_pimc_on_leduc():
    tree = build_tree("leduc")
    policy = pimc_policy(tree)
    assert set(np.unique(policy)) == {0.0, 1.0}
    assert nash_conv(tree, policy) == pytest.approx(0.8666666667, abs=1e-9)
    first = pimc_policy(tree, num_samples=5, rng=np.random.default_rng(1))
    again = pimc_policy(tree, num_samples=5, rng=np.random.default_rng(1))
    assert np.array_equal(first, again)


def test_pimc_arguments_are_checked(kuhn):
    with pytest.raises(ValueError, match="expected num_samples >= 0, got -1"):
        pimc_policy(kuhn, -1)
    with pytest.raises(ValueError, match="expected a numpy.random.Generator, got NoneType"):
        pimc_policy(kuhn, 3)
