"""The network's CPU threads: one, without spinning, unless asked (``networks.onnx_evaluator``,
``networks.evaluator``, ``play --threads``, ``threads=`` in player specs)."""

from __future__ import annotations

import pytest
from helpers_models import export_tiny_mlp

import games
from arena.specs import load_model_evaluator
from frontends.play_cli import main as play_main
from networks import build_network
from networks.config import NetworkConfig
from networks.export import onnx_runtime_evaluator
from networks.onnx_evaluator import DEFAULT_NUM_THREADS, load_exported, session_options


def _threads_and_spinning(options):
    return options.intra_op_num_threads, options.inter_op_num_threads, options.get_session_config_entry(
        "session.intra_op.allow_spinning"
    )


def test_sessions_default_to_one_thread_without_spinning():
    pytest.importorskip("onnxruntime")
    assert DEFAULT_NUM_THREADS == 1
    assert _threads_and_spinning(session_options()) == (1, 1, "0")
    assert _threads_and_spinning(session_options(3, spinning=True)) == (3, 1, "1")
    assert _threads_and_spinning(session_options(0, spinning=True)) == (0, 1, "1")  # ONNX Runtime's own choice


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_session_options_refuse_a_thread_count_that_is_not_a_count(bad):
    pytest.importorskip("onnxruntime")
    with pytest.raises(ValueError, match=rf"num_threads: expected None or an integer >= 0, got {bad!r}"):
        session_options(bad)


def test_an_exported_model_and_a_spec_with_threads_open_sessions_with_those_threads(tmp_path):
    folder = export_tiny_mlp("tictactoe", tmp_path / "model")
    default = load_exported(folder)
    assert default.session.get_session_options().intra_op_num_threads == 1
    assert default.session.get_session_options().get_session_config_entry("session.intra_op.allow_spinning") == "0"
    two = load_model_evaluator(str(folder), games.make("tictactoe"), 2)
    assert two.__self__.session.get_session_options().intra_op_num_threads == 2


def test_play_refuses_threads_below_one(tmp_path, capsys):
    folder = export_tiny_mlp("tictactoe", tmp_path / "model")
    assert play_main(["--model", str(folder), "--engine", "--threads", "0"]) == 2
    assert "play: error: --threads: expected an integer >= 1, got 0" in capsys.readouterr().err


def test_torch_threads_default_to_one_and_refuse_zero():
    torch = pytest.importorskip("torch")
    from networks.evaluator import (  # heavy dependency (torch): imported where it is used
        DEFAULT_TORCH_THREADS,
        set_torch_threads,
    )

    before = torch.get_num_threads()
    try:
        assert set_torch_threads() == DEFAULT_TORCH_THREADS == 1
        assert torch.get_num_threads() == 1
        with pytest.raises(ValueError, match=r"num_threads: expected None or an integer >= 1, got 0"):
            set_torch_threads(0)
    finally:
        torch.set_num_threads(before)


def test_the_in_memory_evaluator_of_the_actors_runs_without_spinning():
    """``networks.export.onnx_runtime_evaluator`` (self-play actors and the arena actor) opens its
    session with ``session_options``: the threads asked for, one inter-op thread, no spinning."""
    pytest.importorskip("onnxruntime")
    game = games.make("tictactoe")
    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    model = build_network(config, game.observation_shape, game.num_actions)
    for threads in (1, 2):
        evaluator = onnx_runtime_evaluator(model, game, config, threads=threads)
        assert _threads_and_spinning(evaluator.session.get_session_options()) == (threads, 1, "0")


_AFFINITY_PROBE = r"""
import os, sys
import numpy as np
sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "tests"))
from helpers_models import export_tiny_mlp
from networks.onnx_evaluator import load_exported
folder = export_tiny_mlp("tictactoe", sys.argv[1])
evaluate = load_exported(folder, num_threads=int(sys.argv[2]))
import games
game = games.make("tictactoe")
states = game.initial_states(64)
evaluate(game.observation(states), game.legal_mask(states))
masks = set()
for task in os.listdir("/proc/self/task"):
    with open(f"/proc/self/task/{task}/status") as handle:
        masks.update(line.split()[1] for line in handle if line.startswith("Cpus_allowed_list"))
print(len(os.listdir("/proc/self/task")), *sorted(masks))
"""


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/task"), reason="Linux /proc needed")
@pytest.mark.parametrize("threads", [1, 2])
def test_sessions_pin_no_thread_to_a_core(tmp_path, threads):
    """ONNX Runtime pins its worker threads to cores only when left to choose their count (ONNX
    Runtime's "Thread management" page: the default count "also enables some affinitization"), so
    two processes of one machine would pin to the same cores. Every session here names its count,
    and every thread of a process that ran one keeps the process's own CPU set."""
    pytest.importorskip("onnxruntime")
    import os
    import subprocess
    import sys

    from helpers_scripts import REPO_ROOT

    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("one CPU: nothing to pin apart")
    out = subprocess.run(
        [sys.executable, "-c", _AFFINITY_PROBE, str(tmp_path / "model"), str(threads)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=True,
    ).stdout.split()
    with open("/proc/self/status") as handle:
        own = next(line.split()[1] for line in handle if line.startswith("Cpus_allowed_list"))
    assert int(out[0]) >= threads  # the pool's threads exist: the check has something to read
    assert out[1:] == [own], (allowed, out)
