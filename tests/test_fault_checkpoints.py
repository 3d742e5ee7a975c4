"""Bad checkpoints at the ``train resume=`` level (truncated, unreadable, crafted, another game's).

The loader itself (truncated files, random bytes, crafted pickles, other games and shapes) is
tested in tests/test_checkpoint.py and tests/test_networks_checkpoint.py; here the real entry point
resumes a run directory whose newest checkpoint is damaged (it falls back to the previous one and
says so) or whose checkpoints are all unreadable (it stops with a message naming each file, before
Ray starts, and no code in a crafted file runs).
"""

from __future__ import annotations

import os
import pickle
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch
from helpers_train import TINY_TRAIN, run_train
from test_checkpoint import damage_entry

from trainer import checkpoint as ckpt

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[1]
TRAIN = TINY_TRAIN
#: nothing listens here: a run that started Ray before failing would say it could not connect
NO_RAY = "ray.address=127.0.0.1:1"


class _Exploit:
    """Pickles to a call that creates ``marker`` when unpickled."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


def train(*overrides: str, timeout: float = 300) -> tuple[int, str]:
    result = run_train([*TRAIN, *overrides], timeout=timeout)
    return result.returncode, " ".join((result.stdout + result.stderr).split())


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A tiny run with checkpoints at steps 10 and 20."""
    run_dir = tmp_path_factory.mktemp("bad-checkpoints") / "run"
    code, output = train(f"hydra.run.dir={run_dir}")
    assert code == 0, output[-3000:]
    assert [path.name for path in ckpt.list_checkpoints(run_dir)] == ["ckpt_00000010.pt", "ckpt_00000020.pt"]
    return run_dir


def copy_of(run_dir: Path, tmp_path: Path) -> Path:
    target = tmp_path / "run"
    shutil.copytree(run_dir, target)
    return target


def test_truncated_newest_checkpoint_falls_back_to_the_previous_one(finished_run, tmp_path):
    run_dir = copy_of(finished_run, tmp_path)
    newest = ckpt.checkpoint_file(run_dir, 20)
    newest.write_bytes(newest.read_bytes()[: newest.stat().st_size // 2])
    before = ckpt.load_checkpoint(ckpt.checkpoint_file(run_dir, 10))
    code, output = train(f"hydra.run.dir={run_dir}", f"resume={run_dir}", "run.max_steps=25")
    assert code == 0, output[-3000:]
    assert "Traceback" not in output
    assert "warning: skipping unreadable checkpoint" in output and "ckpt_00000020.pt" in output
    assert "cannot read checkpoint" in output  # the reason is given
    assert f"resumed {run_dir} at step 10" in output
    assert "run finished (max_steps): 25 steps" in output
    after = ckpt.load_latest_checkpoint(run_dir)
    assert after.step == 25
    assert after.counters["games"] >= before.counters["games"]
    # the resumed run wrote a readable step-20 checkpoint over the damaged one
    assert ckpt.load_checkpoint(newest).step == 20


def test_a_damaged_buffer_entry_falls_back_to_the_previous_checkpoint(finished_run, tmp_path):
    run_dir = copy_of(finished_run, tmp_path)
    damage_entry(ckpt.buffer_file(run_dir, 20), "train/observations.npy")  # the zip directory still reads
    code, output = train(f"hydra.run.dir={run_dir}", f"resume={run_dir}", "run.max_steps=21")
    assert code == 0, output[-3000:]
    assert "Traceback" not in output and "not a readable replay buffer file" not in output
    assert "warning: skipping unreadable checkpoint" in output and "ckpt_00000020.pt" in output
    assert "entry 'train/observations.npy' is damaged" in output
    assert f"resumed {run_dir} at step 10" in output
    assert ckpt.load_latest_checkpoint(run_dir).step == 21


def test_no_readable_checkpoint_stops_before_ray_and_runs_no_code(finished_run, tmp_path):
    run_dir = copy_of(finished_run, tmp_path)
    marker = tmp_path / "pwned"
    random_bytes = np.random.default_rng(7).integers(0, 256, 5000, dtype=np.uint8).tobytes()
    ckpt.checkpoint_file(run_dir, 10).write_bytes(random_bytes)
    torch.save(
        {"format": "tabula-rasa-checkpoint", "model": _Exploit(marker)}, ckpt.checkpoint_file(run_dir, 20)
    )
    pickle.loads(pickle.dumps(_Exploit(tmp_path / "proof")))  # the payload does run under plain pickle
    assert (tmp_path / "proof").is_dir()
    code, output = train(f"hydra.run.dir={run_dir}", f"resume={run_dir}", NO_RAY)
    assert code == 1, output[-3000:]
    assert "Traceback" not in output
    assert f"train: cannot resume {run_dir}: no readable checkpoint" in output
    assert (
        "ckpt_00000010.pt: cannot read checkpoint" in output
        and "ckpt_00000020.pt: cannot read checkpoint" in output
    )
    assert "UnpicklingError" in output  # refused by torch.load(weights_only=True), not run
    assert not marker.exists()
    assert not _mentions_ray_address(output)  # it never tried to reach Ray
    # nothing was deleted or overwritten
    assert ckpt.checkpoint_file(run_dir, 10).read_bytes() == random_bytes


@pytest.mark.parametrize(
    "override, named",
    [
        ("game=connect4", "game.name: the run has 'tictactoe'"),
        ("network.mlp_hidden=[16,16]", "network.mlp_hidden"),
    ],
)
def test_another_game_or_network_is_refused_before_ray(finished_run, tmp_path, override, named):
    run_dir = copy_of(finished_run, tmp_path)
    (run_dir / "config.json").unlink()  # only the checkpoint can tell
    command = [*TRAIN[:-1], override if override.startswith("game=") else "game=tictactoe"]
    if not override.startswith("game="):
        command.append(override)
    result = run_train([*command, f"hydra.run.dir={run_dir}", f"resume={run_dir}", NO_RAY])
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 1, output[-3000:]
    assert "Traceback" not in output
    assert "cannot change these keys when resuming a run:" in output and named in output
    assert not _mentions_ray_address(output)


def _mentions_ray_address(output: str) -> bool:
    """True if the unreachable Ray address of ``NO_RAY`` appears in ``output`` other than in the
    resume report's line for the changed key (``ray.address: 'local' -> '127.0.0.1:1'``)."""
    return "127.0.0.1:1" in re.sub(r"ray\.address: \S+ -> '127\.0\.0\.1:1'", "", output)


def _assert_same(a, b, where: str) -> None:
    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b), where
    elif isinstance(a, np.ndarray):
        np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (where, sorted(set(a) ^ set(b)))
        for key in a:
            _assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for index, (x, y) in enumerate(zip(a, b)):
            _assert_same(x, y, f"{where}[{index}]")
    else:
        assert a == b, (where, a, b)


def test_a_resumed_run_starts_exactly_where_the_checkpoint_left_off(finished_run, tmp_path):
    """Resume equivalence at the run level: a new ``train`` process resumed at step 20 with ``run.max_steps=20``
    trains nothing and writes its step-20 checkpoint again; it holds the same step, weights, optimiser
    and schedule state, learning rate, counters (but the actor incarnations, which count the new
    run's actors too), random streams (numpy and torch), best weights and replay buffer (the saved
    positions first, in order; self-play may have added games since).
    That 50 + 50 steps equal 100 straight is tests/test_checkpoint_resume_process.py (the learner
    alone: with Ray actors, which games arrive when is not reproducible)."""
    run_dir = copy_of(finished_run, tmp_path)
    saved = ckpt.load_checkpoint(ckpt.checkpoint_file(run_dir, 20))
    saved_buffer = saved.buffer_state()
    code, output = train(f"hydra.run.dir={run_dir}", f"resume={run_dir}", "run.max_steps=20")
    assert code == 0, output[-3000:]
    assert f"resumed {run_dir} at step 20" in output and "run finished (max_steps): 20 steps" in output
    again = ckpt.load_checkpoint(ckpt.checkpoint_file(run_dir, 20))
    assert again.step == saved.step == 20
    for key in ("model", "learner", "rng_states", "game"):
        _assert_same(saved.payload[key], again.payload[key], key)
    # the same counters, except that the resumed run started its own actors after the saved ones
    started = {"actor_incarnations": 2, "arena_incarnations": 1}
    _assert_same(
        {**saved.counters, **{key: saved.counters[key] + more for key, more in started.items()}},
        again.counters, "counters",
    )
    _assert_same({**saved.config, "resume": None}, {**again.config, "resume": None}, "config")
    assert again.config["resume"] == str(run_dir)
    _assert_same(saved.extra["best_weights"], again.extra["best_weights"], "extra.best_weights")
    assert saved.payload["learner"]["counters"]["steps"] == 20
    buffer = again.buffer_state()
    assert buffer["rng_state"] == saved_buffer["rng_state"]  # no batch was sampled in between
    assert buffer["train_games_added"] >= saved_buffer["train_games_added"] > 0
    count = len(saved_buffer["train/values"])
    for name in ("observations", "legal_masks", "policies", "values", "game_ids"):
        np.testing.assert_array_equal(
            buffer[f"train/{name}"][:count], saved_buffer[f"train/{name}"], err_msg=name
        )
