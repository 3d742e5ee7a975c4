"""Resume keeps every saved value the command line does not name, re-stated groups included
(trainer/resume.py), and says which keys change."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.config import to_dict
from trainer.resume import (
    MISSING,
    check_resume_compatible,
    describe_changes,
    named_keys,
    option_keys,
    resume_changes,
    resume_config,
)


@pytest.fixture(scope="module")
def compose(compose):
    """The train config of a command line (tests/conftest.py), as the plain dict ``config.json`` holds."""
    return lambda overrides: to_dict(compose(overrides))


def resume(compose, saved: dict, overrides: list[str]) -> dict:
    return to_dict(resume_config(saved, compose(overrides), named_keys(overrides)))


def test_a_group_choice_names_only_the_keys_of_its_own_file():
    assert named_keys(["game=tictactoe"]) == {"game.name"}  # not the trainer, mcts... groups it chooses
    assert named_keys(["network=b4c32"]) == {
        "network.kind", "network.num_blocks", "network.channels", "network.policy_channels",
        "network.value_channels", "network.value_hidden",
    }
    tiny = option_keys("experiment", "tiny")  # a global file: keys from the root
    assert {"network.mlp_hidden", "trainer.batch_size", "run.max_steps", "ray.num_cpus"} <= tiny
    assert "network.kind" not in tiny  # chosen by its defaults list (network: mlp128x2), not set by it
    assert named_keys(["resume=x", "+run.max_steps=6", "hydra.run.dir=y", "--cfg", "experiment=null"]) == {
        "run.max_steps"
    }
    with pytest.raises(ValueError, match="nosuch"):
        named_keys(["game=nosuch"])


def test_a_group_file_built_on_its_default_names_the_default_keys_too():
    # configs/trainer/tictactoe.yaml lists `default` in its defaults and sets 7 keys of its own
    trainer_keys = option_keys("trainer", "default")
    assert len(trainer_keys) == 24 and "trainer.grad_clip" in trainer_keys
    assert named_keys(["trainer=tictactoe"]) == trainer_keys
    assert named_keys(["arena=pig"]) == option_keys("arena", "default")


def test_resume_restating_the_game_keeps_the_batch_size_and_learning_rate(compose):
    # started with `experiment=tiny game=tictactoe` (batch size 32), an earlier resume set lr 0.005
    saved = compose(["experiment=tiny", "game=tictactoe"])
    saved["trainer"]["learning_rate"] = 0.005
    assert saved["trainer"]["batch_size"] == 32 and saved["arena"]["gating"] is True
    merged = resume(compose, saved, ["resume=runs/x", "run.max_steps=6", "game=tictactoe"])
    assert merged["trainer"]["batch_size"] == 32
    assert merged["trainer"]["learning_rate"] == 0.005
    assert merged["arena"]["gating"] is True  # configs/arena/tictactoe.yaml has it off
    assert resume_changes(saved, merged) == [("run.max_steps", 20, 6)]
    assert {**merged, "resume": None, "run": {**merged["run"], "max_steps": 20}} == saved


def test_resume_restating_the_game_keeps_a_resnet_network(compose):
    # started with `game=tictactoe network=b4c32`; configs/game/tictactoe.yaml chooses the MLP
    saved = compose(["game=tictactoe", "network=b4c32"])
    assert saved["network"]["kind"] == "resnet"
    merged = resume(compose, saved, ["resume=runs/x", "run.max_steps=6", "game=tictactoe"])
    assert merged["network"] == saved["network"]
    check_resume_compatible(saved, merged)  # no "network.kind" refusal
    assert resume_changes(saved, merged) == [("run.max_steps", None, 6)]
    # re-stating the network group changes nothing either
    merged = resume(compose, saved, ["resume=runs/x", "game=tictactoe", "network=b4c32"])
    assert resume_changes(saved, merged) == []
    # naming another network is refused by key
    merged = resume(compose, saved, ["resume=runs/x", "network=mlp128x2"])
    with pytest.raises(ValueError, match="network.kind: the run has 'resnet', the override asks 'mlp'"):
        check_resume_compatible(saved, merged)


def test_a_restated_experiment_applies_the_values_its_file_sets(compose):
    saved = compose(["experiment=tiny", "game=tictactoe"])
    saved["trainer"]["batch_size"] = 64
    saved["trainer"]["learning_rate"] = 0.005
    merged = resume(compose, saved, ["resume=runs/x", "experiment=tiny"])
    assert merged["trainer"]["batch_size"] == 32  # set by configs/experiment/tiny.yaml
    assert merged["trainer"]["learning_rate"] == 0.005  # tiny.yaml does not set it
    assert merged["game"]["name"] == "tictactoe"
    assert resume_changes(saved, merged) == [("trainer.batch_size", 64, 32)]


def test_the_changes_name_keys_the_saved_config_lacks():
    saved = {"run": {"max_steps": 20}}
    merged = {"run": {"max_steps": 30, "seed": 0}, "resume": "x"}
    changes = resume_changes(saved, merged)
    assert changes == [("run.max_steps", 20, 30), ("run.seed", MISSING, 0)]
    assert describe_changes(changes) == ["run.max_steps: 20 -> 30", "run.seed: (not in the saved config) -> 0"]


def test_the_command_prints_each_changed_key(compose, tmp_path, capsys):
    from trainer.cli import _resumed_config
    from trainer.config import from_dict

    saved = compose(["experiment=tiny", "game=tictactoe"])
    saved["trainer"]["learning_rate"] = 0.005
    (tmp_path / "config.json").write_text(json.dumps(saved))
    overrides = [f"resume={tmp_path}", "run.max_steps=6", "game=tictactoe", "trainer.learning_rate=0.001"]
    config = _resumed_config(from_dict(compose(overrides)), tmp_path, overrides)
    assert config.trainer.batch_size == 32 and config.trainer.learning_rate == 0.001
    out = capsys.readouterr().out
    assert f"resume {tmp_path}: the command line changes\n" in out
    assert "  run.max_steps: 20 -> 6\n" in out and "  trainer.learning_rate: 0.005 -> 0.001\n" in out
    assert "batch_size" not in out
    overrides = [f"resume={tmp_path}", "game=tictactoe"]
    _resumed_config(from_dict(compose(overrides)), tmp_path, overrides)
    assert "every setting as saved in config.json" in capsys.readouterr().out


def test_the_validation_split_cannot_change_on_resume(compose):
    saved = compose(["experiment=tiny", "game=tictactoe", "trainer.validation_every=4"])
    merged = resume(compose, saved, ["resume=runs/x", "trainer.validation_every=0"])
    with pytest.raises(ValueError, match="trainer.validation_every: the run has 4, the override asks 0"):
        check_resume_compatible(saved, merged)
    del saved["trainer"]["validation_every"]  # a run from before the key existed: not compared
    check_resume_compatible(saved, resume(compose, saved, ["resume=runs/x"]))


# ------------------------------------------------------------------------------ resume= and the folder
def test_resume_is_taken_from_the_launch_folder(tmp_path):
    from trainer.cli import resolve_resume

    launch = tmp_path / "work"
    assert resolve_resume("outputs/run1", launch) == launch / "outputs" / "run1"
    assert resolve_resume("./outputs/../runs/run1/", launch) == launch / "runs" / "run1"
    assert resolve_resume(str(tmp_path / "elsewhere" / "run2"), launch) == tmp_path / "elsewhere" / "run2"
    assert resolve_resume("~/run3", launch) == Path.home() / "run3"


@pytest.mark.slow
@pytest.mark.parametrize("form", ["relative", "absolute"])
def test_resume_with_hydra_job_chdir_finds_the_run_and_keeps_the_launch_folder(tmp_path, form):
    """With hydra.job.chdir=true the working folder is Hydra's new output folder when the run
    starts; resume= still names the run from the folder `train` was typed in, the unused output
    folder is removed after leaving it, and the run's checkpoints are read (here: unreadable ones,
    so the run stops before Ray with their names)."""
    launch = tmp_path / "launch"
    run_dir = launch / "runs" / "old"
    (run_dir / "checkpoints").mkdir(parents=True)
    (run_dir / "checkpoints" / "ckpt_00000010.pt").write_bytes(b"not a checkpoint")
    new_dir = launch / "outputs" / "new"
    resume = "runs/old" if form == "relative" else str(run_dir)
    command = [
        sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe", "hydra.job.chdir=true",
        f"hydra.run.dir={new_dir}", f"resume={resume}",
    ]
    result = subprocess.run(command, cwd=launch, capture_output=True, text=True, timeout=240, check=False)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output[-3000:]
    assert "Traceback" not in output and "FileNotFoundError" not in output
    assert f"train: cannot resume {run_dir}: no readable checkpoint in {run_dir / 'checkpoints'}" in output
    assert "ckpt_00000010.pt" in output
    assert not (launch / "outputs").exists()  # Hydra's unused folder and its empty parent are gone
    assert (run_dir / "checkpoints" / "ckpt_00000010.pt").read_bytes() == b"not a checkpoint"
