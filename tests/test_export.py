"""Export : ONNX + safetensors + JSON sidecar, ONNX Runtime parity with torch,
the torch-free loader, and the ``export-model`` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
import torch

from networks import build_network
from networks.checkpoint import save_model
from networks.config import NetworkConfig
from networks.evaluator import TorchEvaluator
from networks.export import OPSET, export_model, load_exported_torch
from networks.export_cli import main as export_cli_main
from networks.onnx_evaluator import load_exported

REPO_ROOT = Path(__file__).resolve().parents[1]
CONNECT4 = ((2, 6, 7), 7)
TICTACTOE = ((2, 3, 3), 9)


def _trained_like(config, game, seed=0):
    torch.manual_seed(seed)
    model = build_network(config, *game)
    model(torch.randn(32, *game[0]))  # non-trivial batch-norm running statistics
    return model.eval()


@pytest.mark.parametrize(
    ("config", "game"),
    [
        (NetworkConfig(num_blocks=2, channels=16, value_hidden=16), CONNECT4),
        (NetworkConfig(kind="mlp", mlp_hidden=(32, 32)), TICTACTOE),
    ],
)
def test_onnx_runtime_matches_torch_within_1e_5(tmp_path, config, game):
    model = _trained_like(config, game)
    export_model(model, config, "g", 1, tmp_path, extra={"step": 10}, verify=False)
    evaluator = load_exported(tmp_path, providers=["CPUExecutionProvider"])
    generator = np.random.default_rng(1)
    for batch in (1, 5):
        observations = generator.standard_normal((batch, *game[0])).astype(np.float32)
        with torch.no_grad():
            logits, values = model(torch.from_numpy(observations))
        onnx_logits, onnx_values = evaluator.forward(observations)
        assert onnx_logits.shape == (batch, game[1]) and onnx_values.shape == (batch,)
        np.testing.assert_allclose(onnx_logits, logits.numpy(), atol=1e-5, rtol=0)
        np.testing.assert_allclose(onnx_values, values.numpy(), atol=1e-5, rtol=0)
        legal = generator.random((batch, game[1])) < 0.5
        legal[:, -1] = True
        priors, values_out = evaluator.evaluate(observations, legal)
        torch_priors, torch_values = TorchEvaluator(model, device="cpu").evaluate(observations, legal)
        np.testing.assert_allclose(priors, torch_priors, atol=1e-5)
        np.testing.assert_allclose(values_out, torch_values, atol=1e-5)
        assert (priors[~legal] == 0).all()


def test_files_and_sidecar(tmp_path):
    config = NetworkConfig(num_blocks=1, channels=8, value_hidden=8)
    model = _trained_like(config, CONNECT4)
    extra = {"training_step": 4000, "arena": {"wins": 30, "draws": 4, "losses": 6}}
    out = export_model(model, config, "connect4", 2, tmp_path / "best", extra=extra)
    assert sorted(p.name for p in out.iterdir()) == ["model.json", "model.onnx", "model.safetensors"]
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["game"] == {"name": "connect4", "version": 2}
    assert sidecar["observation_shape"] == [2, 6, 7] and sidecar["num_actions"] == 7
    assert sidecar["network"] == config.to_dict() and sidecar["network_name"] == "b1c8"
    assert sidecar["extra"] == extra
    assert sidecar["onnx_opset"] == OPSET >= 17
    graph = onnx.load(str(out / "model.onnx"))
    onnx.checker.check_model(graph)
    assert max(o.version for o in graph.opset_import if o.domain in ("", "ai.onnx")) >= 17
    assert [i.name for i in graph.graph.input] == ["observation"]
    assert [o.name for o in graph.graph.output] == ["policy_logits", "value"]
    batch_dim = graph.graph.input[0].type.tensor_type.shape.dim[0]
    assert batch_dim.dim_param == "batch" and not batch_dim.HasField("dim_value")
    evaluator = load_exported(out / "model.json", expected_game="connect4")
    assert (evaluator.game_name, evaluator.game_version, evaluator.num_actions) == ("connect4", 2, 7)
    assert evaluator.metadata["extra"]["training_step"] == 4000
    # The safetensors weights rebuild the same torch model.
    rebuilt, metadata = load_exported_torch(out, expected_game="connect4")
    assert metadata.config == config and metadata.extra == extra
    for key, value in model.state_dict().items():
        assert torch.equal(rebuilt.state_dict()[key], value)


def test_load_exported_errors(tmp_path):
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,))
    out = export_model(_trained_like(config, TICTACTOE), config, "tictactoe", 1, tmp_path / "m")
    with pytest.raises(ValueError, match="exported model is for game 'tictactoe', expected 'connect4'"):
        load_exported(out, expected_game="connect4")
    with pytest.raises(FileNotFoundError, match="exported model not found"):
        load_exported(tmp_path / "nothing")
    (out / "model.onnx").write_bytes((out / "model.onnx").read_bytes()[:-10])
    with pytest.raises(ValueError, match="SHA-256 differs"):
        load_exported(out)
    (out / "model.json").write_text("{not json")
    with pytest.raises(ValueError, match="expected JSON written by export-model"):
        load_exported(out)
    (out / "model.json").unlink()
    with pytest.raises(FileNotFoundError, match="no model.json"):
        load_exported(out)


def test_evaluate_validates_inputs(tmp_path):
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,))
    evaluator = load_exported(
        export_model(_trained_like(config, TICTACTOE), config, "tictactoe", 1, tmp_path)
    )
    with pytest.raises(ValueError, match=r"observations: expected shape \[B, 2, 3, 3\], got \[1, 2, 6, 7\]"):
        evaluator.evaluate(np.zeros((1, 2, 6, 7), np.float32), np.ones((1, 9), bool))
    with pytest.raises(ValueError, match=r"legal_mask: expected shape \[1, 9\], got \[1, 7\]"):
        evaluator.evaluate(np.zeros((1, 2, 3, 3), np.float32), np.ones((1, 7), bool))


def test_export_validates_arguments(tmp_path):
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,))
    model = _trained_like(config, TICTACTOE)
    with pytest.raises(ValueError, match="opset: expected an int >= 17, got 13"):
        export_model(model, config, "tictactoe", 1, tmp_path, opset=13)
    with pytest.raises(ValueError, match=r"extra\['at'\]: expected only None, bool"):
        export_model(model, config, "tictactoe", 1, tmp_path, extra={"at": object()})
    with pytest.raises(ValueError, match="extra: expected JSON-serialisable"):
        export_model(model, config, "tictactoe", 1, tmp_path, extra={"loss": float("inf")})
    assert list(tmp_path.iterdir()) == []


def test_onnx_loader_imports_no_torch(tmp_path):
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,))
    export_model(_trained_like(config, TICTACTOE), config, "tictactoe", 1, tmp_path)
    script = (
        "import sys, numpy as np\n"
        "from networks.onnx_evaluator import load_exported\n"
        f"e = load_exported({str(tmp_path)!r})\n"
        "p, v = e.evaluate(np.zeros((3, 2, 3, 3), np.float32), np.ones((3, 9), bool))\n"
        "assert p.shape == (3, 9) and v.shape == (3,)\n"
        "from networks import load_evaluator\n"
        f"load_evaluator({str(tmp_path)!r}, expected_game='tictactoe')\n"
        "print(sorted(m for m in sys.modules if m == 'torch' or m.startswith('torch.')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_export_model_command(tmp_path, capsys):
    config = NetworkConfig(num_blocks=1, channels=8, value_hidden=8)
    model = _trained_like(config, CONNECT4)
    checkpoint = save_model(tmp_path / "best.pt", model, config, "connect4", 1, {"step": 77})
    assert export_cli_main([str(checkpoint), str(tmp_path / "out")]) == 0
    assert "exported b1c8 for connect4 v1" in capsys.readouterr().out
    sidecar = json.loads((tmp_path / "out" / "model.json").read_text())
    assert sidecar["extra"] == {"step": 77, "source_checkpoint": str(checkpoint)}
    evaluator = load_exported(tmp_path / "out")
    observations = np.random.default_rng(0).standard_normal((5, 2, 6, 7)).astype(np.float32)
    with torch.no_grad():
        logits, _ = model(torch.from_numpy(observations))
    np.testing.assert_allclose(evaluator.forward(observations)[0], logits.numpy(), atol=1e-5, rtol=0)

    assert export_cli_main([str(tmp_path / "missing.pt"), str(tmp_path / "o2")]) == 2
    assert capsys.readouterr().err.startswith("export-model: error: model weights file not found")
    (tmp_path / "junk.pt").write_bytes(b"\x00garbage")
    assert export_cli_main([str(tmp_path / "junk.pt"), str(tmp_path / "o2")]) == 2
    assert "error: cannot read model weights" in capsys.readouterr().err
    assert export_cli_main([str(checkpoint), str(tmp_path / "o3"), "--game", "tictactoe"]) == 2
    assert "expected 'tictactoe'" in capsys.readouterr().err


def test_load_evaluator_opens_a_weights_file_or_an_export_folder(tmp_path):
    from networks.evaluator import TorchEvaluator
    from networks.loading import is_export, load_evaluator
    from networks.onnx_evaluator import OnnxEvaluator

    config = NetworkConfig(kind="mlp", mlp_hidden=(8,))
    model = _trained_like(config, TICTACTOE)
    weights = save_model(tmp_path / "best.pt", model, config, "tictactoe", 1)
    folder = export_model(model, config, "tictactoe", 1, tmp_path / "export")
    assert is_export(folder) and is_export(folder / "model.onnx") and not is_export(weights)
    observations = np.random.default_rng(0).standard_normal((4, 2, 3, 3)).astype(np.float32)
    legal = np.ones((4, 9), dtype=bool)
    legal[:, 4] = False
    torch_evaluator = load_evaluator(weights, expected_game="tictactoe", device="cpu")
    onnx_evaluator = load_evaluator(folder, expected_game="tictactoe")
    rebuilt = load_evaluator(folder, backend="torch", device="cpu")
    assert isinstance(torch_evaluator, TorchEvaluator) and isinstance(rebuilt, TorchEvaluator)
    assert isinstance(onnx_evaluator, OnnxEvaluator)
    expected = torch_evaluator.evaluate(observations, legal)
    for other in (onnx_evaluator, rebuilt):
        priors, values = other.evaluate(observations, legal)
        np.testing.assert_allclose(priors, expected[0], atol=1e-5)
        np.testing.assert_allclose(values, expected[1], atol=1e-5)
    with pytest.raises(ValueError, match="backend 'onnx' needs an export folder"):
        load_evaluator(weights, backend="onnx")
    with pytest.raises(ValueError, match=r"backend: expected one of \['auto', 'onnx', 'torch'\], got 'tf'"):
        load_evaluator(weights, backend="tf")
    with pytest.raises(FileNotFoundError, match="model not found"):
        load_evaluator(tmp_path / "missing.pt")
    with pytest.raises(ValueError, match="expected 'connect4'"):
        load_evaluator(folder, expected_game="connect4")
