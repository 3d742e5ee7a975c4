"""The whole loop through the real ``train`` entry point: Ray with two self-play actors, the buffer
actor, training steps, gating, checkpoints, TensorBoard, and resume ."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from selfplay.replay_buffer import repeated_game_ids
from selfplay.worker import GAME_ID_BLOCK
from trainer import checkpoint as ckpt

pytestmark = pytest.mark.slow


def run_train(*overrides: str, timeout: float = 240) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "trainer.cli", *overrides]
    result = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    if result.returncode != 0:
        raise AssertionError(f"train failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def scalar_tags(run_dir: Path) -> dict[str, list]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    accumulator = EventAccumulator(str(run_dir / "tensorboard"))  # all files, as TensorBoard reads them
    accumulator.Reload()
    return {tag: accumulator.Scalars(tag) for tag in accumulator.Tags()["scalars"]}


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    run_dir = tmp_path_factory.mktemp("run") / "tiny"
    # the warmup-stable-decay schedule over the last half of the 20 steps; 60 minutes so that the
    # steps, not the wall clock, are the budget's furthest part
    result = run_train(
        "experiment=tiny", "game=tictactoe", f"hydra.run.dir={run_dir}", "run.max_minutes=60",
        "trainer.lr_schedule=wsd", "trainer.lr_decay_fraction=0.5",
    )
    return run_dir, result


def test_tiny_run_writes_checkpoints_metrics_and_best_model(tiny_run):
    run_dir, result = tiny_run
    assert "run finished (max_steps): 20 steps" in result.stdout
    # two self-play actors were placed
    assert len(json.loads((run_dir / "actors.json").read_text())["selfplay_nodes"]) == 2
    # the checkpoint loads with weights_only=True on CPU and its counters agree with the run
    latest = ckpt.load_latest_checkpoint(run_dir)
    assert latest.step == 20
    payload = torch.load(latest.path, weights_only=True, map_location="cpu")
    assert payload["step"] == 20
    counters = latest.counters
    buffer_state = latest.buffer_state()
    assert buffer_state is not None
    assert counters["games"] > 0 and counters["positions"] >= counters["games"]
    # the buffer got every game whose statistics reached the driver (and maybe a few in flight)
    buffered = buffer_state["train_positions_added"] + buffer_state["validation_positions_added"]
    assert buffered >= counters["positions"]
    assert counters["gates"] >= 1  # at least one gating match finished
    assert latest.config["game"]["name"] == "tictactoe"
    assert latest.config["selfplay"]["num_actors"] == 2
    # metrics of every namespace exist
    tags = scalar_tags(run_dir)
    for tag in (
        "train/policy_loss", "train/value_loss", "train/policy_entropy", "train/learning_rate", "train/grad_norm",
        "selfplay/games", "selfplay/positions_per_s", "selfplay/leaf_evaluations_per_s", "selfplay/buffer_size",
        "selfplay/game_length", "selfplay/batch_fill", "selfplay/buffer_age_versions_mean",
        "selfplay/buffer_age_versions_max", "arena/score_vs_best", "arena/promotions",
        "arena/mistake_rate/all",
    ):
        assert tag in tags, f"missing {tag}; have {sorted(tags)}"
    steps = [event.step for event in tags["train/policy_loss"]]
    assert steps == list(range(1, 21))
    # the best model was exported
    assert (run_dir / "best" / "model.onnx").is_file() and (run_dir / "best" / "model.json").is_file()
    sidecar = json.loads((run_dir / "best" / "model.json").read_text())["extra"]
    # training_step names the weights' own step, not how far the run had got
    assert sidecar["training_step"] == sidecar["best_version"] == latest.counters["best_version"]
    assert sidecar["run_step"] <= 20
    assert (run_dir / "games" / "selfplay.txt").read_text().strip()


def test_a_finished_run_reports_itself_links_latest_and_records_its_provenance(tiny_run):
    run_dir, result = tiny_run
    out = result.stdout
    assert out.count("status line: step = optimiser steps taken | games = ") == 1  # the legend, once
    assert f"report: {run_dir / 'report.html'}\n" in out
    assert f"next:\n  play --model {run_dir}/best  # play against it\n" in out
    latest = ckpt.load_latest_checkpoint(run_dir)
    provenance = json.loads((run_dir / "best" / "model.json").read_text())["provenance"]
    assert provenance["training"]["steps"] == 20
    assert provenance["training"]["games"] == latest.counters["games"]
    assert provenance["training"]["promotions"] == latest.counters["promotions"]
    assert provenance["training"]["best_version"] == latest.counters["best_version"]
    assert provenance["config"]["values"] == latest.config
    assert provenance["search"]["trained_with"]["num_simulations"] == 8  # experiment=tiny's mcts
    assert provenance["search"]["play_with"]["num_simulations"] == 4  # and its arena
    # the last measurement is of the final best model, and the end of the run prints it
    rates = provenance["mistake_rates"]
    assert rates["measured_version"] == latest.counters["best_version"]
    assert (
        f"mistakes against perfect play (best version {rates['measured_version']}): all {rates['rates']['all']:.2%}\n"
        in out
    )
    page = (run_dir / "report.html").read_text()
    titles = re.findall(r"<h2>([^<]+)</h2>", page)
    assert titles == [
        "Mistakes against perfect play", "Losses", "Self-play speed", "Gating", "Provenance of the best model", "Config",
    ]
    images = re.findall(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', page)
    assert len(images) == 4 and all(base64.b64decode(data)[:8] == b"\x89PNG\r\n\x1a\n" for data in images)
    assert (run_dir.parent / "latest").resolve() == run_dir.resolve()


def test_the_wsd_learning_rate_falls_linearly_over_the_last_half_of_the_step_budget(tiny_run):
    run_dir, _ = tiny_run
    rates = [event.value for event in scalar_tags(run_dir)["train/learning_rate"]]
    lr0 = 3e-3  # configs/trainer/tictactoe.yaml
    # step k (1-based) trains after k - 1 of the 20 steps: lr0 * min(1, (1 - (k - 1) / 20) / 0.5)
    expected = [lr0] * 10 + [lr0 * (21 - k) / 10 for k in range(11, 21)]
    assert rates == pytest.approx(expected, rel=1e-6)


def test_resume_continues_from_the_checkpoint_with_its_buffer(tiny_run):
    run_dir, _ = tiny_run
    before = ckpt.load_latest_checkpoint(run_dir)
    # the run's own config.json holds the game and the experiment: they need not be repeated
    result = run_train(f"resume={run_dir}", "run.max_steps=30")
    assert "resumed" in result.stdout and "at step 20" in result.stdout
    after = ckpt.load_latest_checkpoint(run_dir)
    assert after.step == 30
    assert after.config["game"]["name"] == "tictactoe" and after.config["selfplay"]["num_actors"] == 2
    assert after.config["run"]["max_steps"] == 30
    assert after.counters["games"] >= before.counters["games"]  # counters never go back
    # the buffer was restored, not refilled from zero
    assert after.buffer_state()["train_games_added"] >= before.buffer_state()["train_games_added"] > 0
    steps = [event.step for event in scalar_tags(run_dir)["train/policy_loss"]]
    assert len(steps) == len(set(steps)) == 30  # no duplicate steps after purge_step
    # the resumed run's actors came after the interrupted run's: new game-id blocks, no id twice
    old_workers = before.counters["actor_incarnations"]
    assert after.counters["actor_incarnations"] == old_workers + 2
    assert after.counters["arena_incarnations"] == before.counters["arena_incarnations"] + 1
    state = after.buffer_state()
    assert repeated_game_ids(state["train/game_ids"]).tolist() == []
    new_blocks = set((state["train/game_ids"] // GAME_ID_BLOCK).tolist()) - set(range(1, old_workers + 1))
    assert new_blocks and new_blocks <= {old_workers + 1, old_workers + 2}
    # every position knows the weights that searched it: a best version of the run
    versions = state["train/model_versions"]
    assert versions.min() >= 0 and versions.max() <= after.counters["best_version"]
    assert set(versions.tolist()) <= set(state["best_versions"])


def test_a_gating_match_in_flight_at_the_checkpoint_is_played_again_on_resume(tiny_run):
    run_dir, _ = tiny_run
    before = ckpt.load_latest_checkpoint(run_dir)
    assert before.extra["gate_in_flight"] is False  # the run ended after its last match finished
    # as if the process had died during a gating match: the checkpoint says one was playing
    payload = torch.load(before.path, weights_only=True, map_location="cpu")
    payload["extra"]["gate_in_flight"] = True
    torch.save(payload, before.path)
    result = run_train(f"resume={run_dir}", f"run.max_steps={before.step + 1}")
    assert "the interrupted run had a gating match in flight: playing it again" in result.stdout
    after = ckpt.load_latest_checkpoint(run_dir)
    assert after.step == before.step + 1
    assert after.counters["gates"] == before.counters["gates"] + 1
    assert after.extra["gate_in_flight"] is False


def test_resume_refuses_to_change_the_game_or_network(tiny_run):
    run_dir, _ = tiny_run
    command = [sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe", f"resume={run_dir}",
               "network.mlp_hidden=[64,64]"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert result.returncode != 0
    assert "network.mlp_hidden" in result.stdout + result.stderr


def test_resume_restating_the_game_keeps_the_run_settings_and_prints_the_changes(tiny_run):
    run_dir, _ = tiny_run
    before = ckpt.load_latest_checkpoint(run_dir)
    result = run_train(
        f"resume={run_dir}", f"run.max_steps={before.step + 1}", "game=tictactoe", "trainer.learning_rate=0.005"
    )
    assert f"run.max_steps: {before.step} -> {before.step + 1}" in result.stdout
    assert f"trainer.learning_rate: {before.config['trainer']['learning_rate']!r} -> 0.005" in result.stdout
    after = ckpt.load_latest_checkpoint(run_dir)
    assert after.step == before.step + 1
    # configs/game/tictactoe.yaml's groups (batch size 128, gating off) do not replace the run's
    assert after.config["trainer"]["batch_size"] == 32 and after.config["arena"]["gating"] is True
    assert after.config["trainer"]["learning_rate"] == 0.005
    assert after.config["network"] == before.config["network"]
