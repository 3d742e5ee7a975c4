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


def test_selfplay_diversity_counts_games_openings_and_distinct_positions(tmp_path):
    import torch

    import games
    from networks import build_network
    from networks.checkpoint import save_model
    from networks.config import NetworkConfig

    game = games.make("tictactoe")
    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    torch.manual_seed(0)
    save_model(tmp_path / "model.pt", build_network(config, game.observation_shape, game.num_actions), config,
               game.name, game.version)
    script = load_script("selfplay_diversity")
    report = script.main(["--model", str(tmp_path), "--setting", "default", "--setting", "random_opening_plies=2",
                          "--games", "4", "--calls", "2", "--cache-size", "64"])
    assert report["game"] == "tictactoe" and report["plies_per_call"] == 8 and report["simulations"] == 64
    rows = {row["setting"]: row for row in report["settings"]}
    assert set(rows) == {"default", "random_opening_plies=2"}
    for row in rows.values():
        assert row["games"] >= 4  # 16 plies of 4 tic-tac-toe games finish at least one game each
        assert 1 <= row["distinct_positions"] <= row["positions"]
        assert 1 <= row["distinct_8_ply_openings"] <= row["games"]
        assert 0.0 <= row["eval_cache_hit_rate"] < 1.0
    with pytest.raises(ValueError, match="KEY in"):
        script.parse_setting("c_puct=2")
    assert script.parse_setting("temperature_plies=16") == {"temperature_plies": 16}
