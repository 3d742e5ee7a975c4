"""Smoke tests of scripts/bench_learner.py and scripts/bench_gating.py with tiny settings: the JSON
they print, and the equal outputs their timings rest on (no timing is asserted)."""

from __future__ import annotations

import pytest
from helpers_scripts import load_script


def test_bench_learner_reports_both_layouts_with_equal_first_losses(capsys):
    report = load_script("bench_learner").main(
        ["--game", "connect4", "--network", "b1c8", "--batch", "8", "--steps", "1", "--rounds", "1"]
    )
    assert set(report["seconds_per_step"]) == {"default_layout", "channels_last"}
    assert report["network"] == "b1c8" and report["batch"] == 8
    assert report["first_step_loss_difference"] < 1e-5  # the same values, only the memory layout differs
    assert report["ratio_default_over_channels_last"] > 0
    assert '"seconds_per_step"' in capsys.readouterr().out


def test_bench_learner_refuses_a_zero_batch():
    with pytest.raises(SystemExit):
        load_script("bench_learner").main(["--batch", "0"])


def test_bench_gating_plays_the_same_match_with_both_runtimes():
    report = load_script("bench_gating").main(["--game", "tictactoe", "--games", "4", "--simulations", "8", "--rounds", "1"])
    runtimes = report["runtimes"]
    assert set(runtimes) == {"onnx", "torch"}
    assert runtimes["onnx"]["gate_wins_draws_losses"] == runtimes["torch"]["gate_wins_draws_losses"]
    assert sum(runtimes["onnx"]["gate_wins_draws_losses"][0]) == 4
    assert set(report["ratio"]) == {"gate", "mistake_rates"}
