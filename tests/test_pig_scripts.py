"""scripts/experiments/pig_value_error.py and scripts/experiments/pig_encoding_check.py with the solver's exact values."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers_scripts import load_script

import games
from arena.positions.pig import labelled_set


def test_one_step_expectimax_on_exact_values_makes_no_mistake():
    script = load_script("pig_value_error")
    game = games.make("pig")
    evaluate = script.exact_evaluator(game)
    for name in ("optimal_play", "random_play"):
        labelled = labelled_set(game, name)
        actions = script.one_step_actions(game, evaluate, labelled.states)
        assert int(labelled.mistake_mask[np.arange(len(labelled)), actions].sum()) == 0
    # the evaluator reads the thermometer planes back: P(99, 99, 0) = 6/7 (Neller & Presser)
    state = game.states_at([99], [99], [0])
    _, value = evaluate(game.observation(state), game.legal_mask(state))
    assert float(value[0]) == pytest.approx(2 * 6 / 7 - 1, abs=1e-6)


def test_exact_report_has_no_value_error_and_names_each_budget(capsys):
    script = load_script("pig_value_error")
    assert script.main(["--exact", "--sims", "2", "--uniform", "50"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "exact"
    for name in ("optimal_play", "random_play", "uniform"):
        assert report["value"][name]["all"]["mae"] < 1e-6
    moves = report["moves"]["optimal_play"]
    assert moves["optimal_roll_share"] == pytest.approx(0.903)
    assert moves["one_step_expectimax"]["mistake_rate"] == 0.0
    # two simulations: both children barely visited, the tie goes to roll (the lowest index)
    assert moves["sims_2"]["mistake_rate"] == pytest.approx(0.078)
    with pytest.raises(SystemExit):
        script.main(["--exact", "--model", "x"])


def test_encodings_round_trip_and_targets_follow_the_solver():
    script = load_script("pig_encoding_check")
    numbers = np.array([[0, 5, 12], [99, 0, 140]])
    for encoding in ("onehot", "thermometer"):
        planes = script.encode(numbers, 100, encoding).reshape(2, 3, 1, 100)
        np.testing.assert_array_equal(script.decode(planes, encoding), np.minimum(numbers, 99))
    small = games.make("pig", goal=10)
    np.testing.assert_array_equal(
        script.encode(np.array([[4, 7, 9]]), 10, "thermometer").reshape(3, 10),
        small.observation(small.states_at([4], [7], [9]))[0, :, 0],
    )
    game = games.make("pig")
    # targets equal to the exact values correlate perfectly in every bucket
    solver = games.knowledge(game).exact_solver()
    rng = np.random.default_rng(0)
    numbers = np.stack(
        [rng.integers(0, 60, 400), rng.integers(0, 100, 400), rng.integers(0, 40, 400)], axis=1
    )
    exact = np.array([2 * solver.win_probability(*map(int, row)) - 1 for row in numbers])
    report = script.target_report(game, solver, numbers, exact)
    assert set(report) == {"tt 0-0", "tt 1-4", "tt 5-9", "tt 10-19", "tt 20-29", "tt 30+"}
    for bucket in report.values():
        assert bucket["corr"] == pytest.approx(1.0) and bucket["mean_z"] == pytest.approx(
            bucket["mean_exact"]
        )
