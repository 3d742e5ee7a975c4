"""scripts/experiments/pig_value_error.py, pig_encoding_check.py, pig_policy_regions.py and pig_value_coverage.py with the solver's exact values."""

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


def test_max_self_backup_on_exact_values_makes_no_mistake_by_q_where_the_mean_errs(capsys):
    script = load_script("pig_value_error")
    argv = ["--exact", "--sims", "32", "--backup", "mean", "max_self", "--limit", "150", "--uniform", "0",
            "--sets", "optimal_play"]
    assert script.main(argv) == 0
    moves = json.loads(capsys.readouterr().out)["moves"]["optimal_play"]
    assert moves["sims_32_mean"]["mistake_rate"] == pytest.approx(0.18)
    assert moves["sims_32_max_self"]["mistake_rate"] == pytest.approx(0.06)  # 16-16 visit ties go to roll
    assert moves["tq_sims_32_max_self"]["mistake_rate"] == 0.0
    assert moves["q_sims_32_max_self"]["mistake_rate"] == 0.0


def test_noisy_value_is_fixed_per_state_and_exact_priors_make_no_mistake(capsys):
    script = load_script("pig_value_error")
    game = games.make("pig")
    evaluate = script.exact_evaluator(game, value_noise=0.1, prior_error=0.0)
    state = game.states_at([40, 40], [30, 30], [5, 5])
    priors, values = evaluate(game.observation(state), game.legal_mask(state))
    assert values[0] == values[1]
    assert sorted(priors[0].tolist()) == pytest.approx([0.2, 0.8])
    argv = ["--exact", "--sims", "8", "--prior-error", "0", "--value-noise", "0.1", "--limit", "150",
            "--uniform", "0", "--sets", "optimal_play"]
    assert script.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["moves"]["optimal_play"]["policy"]["mistake_rate"] == 0.0
    assert 0.06 < report["value"]["optimal_play"]["all"]["mae"] < 0.1  # sd 0.1: E|e| = 0.1 sqrt(2 / pi)


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


@pytest.mark.slow
def test_policy_regions_of_hold_at_20_change_only_where_its_play_goes(capsys):
    script = load_script("pig_policy_regions")
    assert script.main(["--hold-at", "20"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["policy"] == "hold at 20"
    assert report["mean_win"] == pytest.approx(0.5 * (report["as_first"] + report["as_second"]), abs=1e-12)
    # hold at 20 against optimal play, exactly: 0.4917 first, 0.4285 second
    assert report["as_first"] == pytest.approx(0.491658, abs=1e-6)
    assert report["as_second"] == pytest.approx(0.428502, abs=1e-6)
    assert report["hold_totals"]["0,0"]["policy"] == list(range(20, 32))
    counts = report["disagreements"]
    assert counts["holds_where_optimal_rolls"] + counts["rolls_where_optimal_holds"] == counts["states"] > 0
    regions = report["regions"]
    # optimal play everywhere is optimal play: 0.5 averaged over the seats (0.5306 and 0.4694)
    assert regions["everywhere"] == pytest.approx(0.5, abs=1e-9)
    # states this policy never decides in (it rolls at 0 and has held before 30): nothing changes
    assert regions["turn total 0"] == pytest.approx(report["mean_win"], abs=1e-12)
    assert regions["turn total 30 and over"] == pytest.approx(report["mean_win"], abs=1e-12)
    # where hold at 20 gives most away: holding at 20-29 where optimal play rolls on
    assert regions["turn total 20-29"] > regions["turn total 10-19"] > report["mean_win"]
    with pytest.raises(SystemExit):
        script.main(["--hold-at", "0"])


def test_value_coverage_of_exact_values_is_zero_and_the_labelled_near_ties_are_counted():
    coverage = load_script("pig_value_coverage")
    game = games.make("pig")
    report = coverage.turn_start_report(game, load_script("pig_value_error").exact_evaluator(game), band=10, corner=80)
    assert report["corner"]["n"] == 400 and report["elsewhere"]["n"] == 9600  # 20 x 20 of 100 x 100 score pairs
    assert report["corner"]["mae"] < 1e-6 and report["elsewhere"]["mae"] < 1e-6
    assert len(report["bands"]) == 100 and report["bands"]["90-99,0-9"]["n"] == 100
    # gaps in win probability between roll and hold, from the solver (both moves legal)
    ties = coverage.near_tie_report(game)
    assert ties["optimal_play"] == {
        "decisions": 1962, "below": {"0.0005": 27, "0.001": 58, "0.002": 114, "0.005": 264, "0.01": 481},
    }
    assert ties["random_play"] == {
        "decisions": 1976, "below": {"0.0005": 2, "0.001": 7, "0.002": 13, "0.005": 26, "0.01": 48},
    }


def test_value_coverage_reads_a_buffer_back_and_counts_its_corner(tmp_path):
    coverage = load_script("pig_value_coverage")
    game = games.make("pig")
    solver = games.knowledge(game).exact_solver()
    own, opponent, turn_total = np.array([85, 90, 10, 40]), np.array([95, 80, 20, 99]), np.array([0, 3, 7, 0])
    exact = 2 * solver.win_probabilities(own, opponent, turn_total) - 1
    targets = (exact + np.array([0.5, -0.1, 0.0, 0.02])).astype(np.float32)
    path = tmp_path / "buffer.npz"
    np.savez(
        path,
        **{"train/observations": game.observation(game.states_at(own, opponent, turn_total)), "train/values": targets},
    )
    numbers, read = coverage.read_buffer(str(path))
    np.testing.assert_array_equal(numbers, np.stack([own, opponent, turn_total], axis=1))
    report = coverage.buffer_report(game, numbers, read, corner=80)
    assert report["positions"] == 4
    assert report["corner"]["n"] == 2 and report["corner"]["share"] == 0.5
    assert report["corner"]["bias"] == pytest.approx(0.2, abs=1e-6)
    assert report["corner"]["mae"] == pytest.approx(0.3, abs=1e-6)
    assert report["elsewhere"]["bias"] == pytest.approx(0.01, abs=1e-6)
    with pytest.raises(SystemExit):
        coverage.main(["--band", "0"])
