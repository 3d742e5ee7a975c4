"""Accuracy against perfect play on Pig: decisions that lose win probability, and how much."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

import games
from arena.accuracy import expected_random_mistake_rate, mistake_rate
from arena.cli import main
from arena.positions import position_sets
from arena.positions.labelled import LabelledSet


def test_sets_are_labelled_by_the_solver():
    game = games.make("pig", goal=20)
    solver = games.knowledge(game).exact_solver()
    for name in position_sets(game).labelled_set_names():
        labelled = position_sets(game).labelled_set(name)
        assert 20 < len(labelled) <= 2000 and labelled.values is not None
        np.testing.assert_array_equal(game.states_from_moves(labelled.moves[:50]), labelled.states[:50])
        for row in range(0, len(labelled), 7):
            state = tuple(int(v) for v in labelled.states[row])
            scores = solver.action_scores(state)
            assert {a: labelled.values[row, a] for a in scores} == scores
            best = solver.optimal_actions(state)
            assert [a for a in scores if labelled.outcomes[row, a] == 1] == best
    optimal = position_sets(game).labelled_set("optimal_play")
    assert optimal.moves[0] == "" and optimal.values[0, 0] == pytest.approx(solver.win_probability(0, 0, 0))


def test_mistakes_and_mean_loss_of_a_hand_made_set():
    values = np.array([[0.6, 0.4], [0.5, 0.5 - 1e-12], [np.nan, 1.0]])
    labelled = LabelledSet.from_values("hand", ["", "r2", "r4r6"], np.zeros((3, 8), dtype=np.int64), values)
    assert labelled.outcomes.tolist() == [[1, -1], [1, 1], [-2, 1]]  # a 1e-12 difference is a tie
    assert mistake_rate(labelled, np.array([1, 1, 1])) == pytest.approx(1 / 3)
    np.testing.assert_allclose(labelled.value_losses(np.array([1, 1, 1])), [0.2, 1e-12, 0.0], atol=1e-15)
    assert expected_random_mistake_rate(labelled) == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="win probabilities in"):
        LabelledSet.from_values("bad", [""], np.zeros((1, 8), dtype=np.int64), np.array([[1.5, 0.2]]))


def accuracy_json(*argv: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["accuracy", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def test_arena_accuracy_of_the_solver_and_of_a_player_that_always_rolls():
    result = accuracy_json("solver", "--game", "pig", "--limit", "300")
    for row in result["sets"].values():
        assert row["mistakes"] == 0 and row["mean_win_probability_loss"] == 0.0
    result = accuracy_json("random", "--game", "pig", "--limit", "300", "--seed", "3")
    for name, row in result["sets"].items():
        labelled = position_sets(games.make("pig")).labelled_set(name).head(300)
        assert 0.3 < row["mistake_rate"] < 0.7
        assert row["random_expected_rate"] == pytest.approx(expected_random_mistake_rate(labelled))
        assert row["mean_win_probability_loss"] > 0.005
