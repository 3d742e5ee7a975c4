"""The whole loop on a game with chance: ``train experiment=tiny game=pig`` (self-play with chance
nodes, gating matches that roll the dice, mistake rates against the exact solver, export), then
the exported model in ``arena`` and ``play``."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import games
from trainer import checkpoint as ckpt

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pig_run(tmp_path_factory) -> Path:
    run_dir = tmp_path_factory.mktemp("run") / "pig"
    command = [sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=pig", f"hydra.run.dir={run_dir}"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if result.returncode != 0:
        raise AssertionError(f"train failed ({result.returncode}):\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    assert "run finished (max_steps): 20 steps" in result.stdout
    return run_dir


def test_tiny_pig_run_trains_gates_measures_and_exports(pig_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    latest = ckpt.load_latest_checkpoint(pig_run)
    assert latest.step == 20
    assert latest.config["game"]["name"] == "pig"
    assert latest.config["mcts"]["chance"] == "expectation"
    # self-play backs up the robust max; gating, the mistake rates and the exported model play max_self
    search = json.loads((pig_run / "best" / "model.json").read_text())["provenance"]["search"]
    assert (search["trained_with"]["backup"], search["play_with"]["backup"]) == ("robust", "max_self")
    assert latest.counters["games"] > 0 and latest.counters["positions"] >= latest.counters["games"]
    accumulator = EventAccumulator(str(pig_run / "tensorboard"))
    accumulator.Reload()
    tags = accumulator.Tags()["scalars"]
    for tag in ("arena/mistake_rate/optimal_play", "arena/mistake_rate/random_play", "arena/score_vs_best"):
        assert tag in tags, f"missing {tag}; have {sorted(tags)}"
    for tag in ("arena/mistake_rate/optimal_play", "arena/mistake_rate/random_play"):
        assert all(0.0 <= event.value <= 1.0 for event in accumulator.Scalars(tag))
    # the best model's policy against optimal play, exactly, each time the arena measured it
    exact = {tag: [event.value for event in accumulator.Scalars(f"arena/exact_win/{tag}")]
             for tag in ("mean", "as_first", "as_second")}
    assert len(exact["mean"]) == len(accumulator.Scalars("arena/mistake_rate/optimal_play")) >= 1
    for mean, first, second in zip(exact["mean"], exact["as_first"], exact["as_second"]):
        assert 0.0 <= first <= 1.0 and 0.0 <= second <= 1.0 and mean == pytest.approx((first + second) / 2, abs=1e-6)
    assert (pig_run / "best" / "model.onnx").is_file()
    # a sample self-play game is a finished game of Pig (decisions and dice in play order)
    sample = (pig_run / "games" / "selfplay.txt").read_text().split()[-1]
    pig = games.make("pig")
    assert pig.terminal(pig.states_from_moves([sample]))[0]


def test_exported_pig_model_plays_in_arena_and_play(pig_run, capsys):
    from frontends.arena_cli import main as arena_main
    from frontends.play_cli import main as play_main

    best = pig_run / "best"
    for spec in (f"mcts:model={best},sims=8", f"mcts:model={best},sims=8,chance=sampling", f"policy:model={best}"):
        assert arena_main([spec, "random", "--game", "pig", "--games", "2", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert data["wins"] + data["draws"] + data["losses"] == 2
    # the dice make a time-limited (minibatched) search meaningless: refused with what to give instead
    assert arena_main([f"mcts:model={best},time=0.1", "random", "--game", "pig", "--games", "2"]) == 2
    assert "give a number of simulations" in capsys.readouterr().err
    out = io.StringIO()
    status = play_main(["--model", str(best), "--game", "pig", "--sims", "8", "--opponent", "random"], stdin=io.StringIO(""), stdout=out)
    assert status == 0
    text = out.getvalue()
    assert "the dice: " in text
    assert re.search(r"result: (X wins \(1-0\)|O wins \(0-1\))", text)
    moves = [line for line in text.splitlines() if line.startswith("moves: ")][-1].split()[-1]
    pig = games.make("pig")
    assert pig.terminal(pig.states_from_moves([moves]))[0]
