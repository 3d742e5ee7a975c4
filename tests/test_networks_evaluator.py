"""TorchEvaluator and UniformEvaluator: numpy in/out, masking, weight swaps, device choice."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from networks import build_network
from networks.config import NetworkConfig
from networks.evaluator import TorchEvaluator, UniformEvaluator, device_from_config
from networks.model_utils import fuse_conv_batch_norm

TICTACTOE = ((2, 3, 3), 9)
CONNECT4 = ((2, 6, 7), 7)


def _inputs(shape, actions, batch, seed=0):
    generator = np.random.default_rng(seed)
    observations = generator.integers(0, 2, size=(batch, *shape)).astype(np.float32)
    legal = generator.random((batch, actions)) < 0.6
    legal[:, 0] = True  # every row has a legal action
    return observations, legal


class _FixedLogits(torch.nn.Module):
    """A fake network returning fixed logits and values (for exact expectations)."""

    def __init__(self, logits, value, observation_shape):
        super().__init__()
        self.register_buffer("logits", torch.as_tensor(logits, dtype=torch.float32))
        self.register_buffer("value", torch.as_tensor(value, dtype=torch.float32))
        self.observation_shape = observation_shape
        self.num_actions = self.logits.shape[0]

    def forward(self, observations):
        batch = observations.shape[0]
        return self.logits.expand(batch, -1), self.value.expand(batch)


def test_evaluate_matches_the_model_and_masks():
    torch.manual_seed(0)
    model = build_network(NetworkConfig(num_blocks=1, channels=8), *CONNECT4)
    evaluator = TorchEvaluator(model, device="cpu")
    observations, legal = _inputs(*CONNECT4, batch=5)
    priors, values = evaluator.evaluate(observations, legal)
    assert priors.shape == (5, 7) and priors.dtype == np.float32
    assert values.shape == (5,) and values.dtype == np.float32
    assert (priors[~legal] == 0).all()
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-6)
    with torch.no_grad():
        logits, expected_values = model.eval()(torch.from_numpy(observations))
    expected = torch.softmax(logits.masked_fill(~torch.from_numpy(legal), float("-inf")), dim=1).numpy()
    np.testing.assert_allclose(priors, expected, atol=1e-6)
    np.testing.assert_allclose(values, expected_values.numpy(), atol=1e-6)
    assert evaluator.num_calls == 1 and evaluator.num_positions == 5
    assert evaluator(observations, legal)[0].shape == (5, 7)  # callable like a plain evaluate_fn


def test_exact_values_from_a_fixed_network_and_the_degenerate_counter():
    # masking by -inf through the evaluator, and a one-hot prior on the occupied cell, legal logits -1000.
    c3 = _FixedLogits([2.0, 1.0, 0.5], 0.25, (1, 1, 3))
    priors, values = TorchEvaluator(c3, device="cpu").evaluate(
        np.zeros((1, 1, 1, 3), np.float32), np.array([[True, False, True]])
    )
    np.testing.assert_allclose(priors, [[0.8176, 0.0, 0.1824]], atol=1e-4)
    assert priors[0, 1] == 0.0
    assert values.tolist() == [0.25]
    logits = np.full(9, -1000.0)
    logits[0] = 0.0
    evaluator = TorchEvaluator(_FixedLogits(logits, 0.0, TICTACTOE[0]), device="cpu")
    legal = np.ones((2, 9), dtype=bool)
    legal[:, 0] = False
    priors, _ = evaluator.evaluate(np.zeros((2, *TICTACTOE[0]), np.float32), legal)
    np.testing.assert_allclose(priors[:, 1:], 1 / 8, rtol=1e-6)
    assert (priors[:, 0] == 0).all() and np.isfinite(priors).all()
    assert evaluator.num_degenerate_priors == 2


def test_returned_arrays_are_not_reused_between_calls():
    evaluator = TorchEvaluator(build_network(NetworkConfig(kind="mlp"), *TICTACTOE), device="cpu")
    observations, legal = _inputs(*TICTACTOE, batch=3)
    first, _ = evaluator.evaluate(observations, legal)
    kept = first.copy()
    evaluator.evaluate(np.ones_like(observations), np.ones_like(legal))
    np.testing.assert_array_equal(first, kept)


def test_empty_batch_and_float64_observations():
    evaluator = TorchEvaluator(build_network(NetworkConfig(kind="mlp"), *TICTACTOE), device="cpu")
    priors, values = evaluator.evaluate(np.zeros((0, 2, 3, 3), np.float32), np.zeros((0, 9), bool))
    assert priors.shape == (0, 9) and values.shape == (0,)
    observations, legal = _inputs(*TICTACTOE, batch=2)
    p64, _ = evaluator.evaluate(observations.astype(np.float64), legal)
    p32, _ = evaluator.evaluate(observations, legal)
    np.testing.assert_array_equal(p64, p32)


@pytest.mark.parametrize(
    ("observations", "legal", "pattern"),
    [
        (
            np.zeros((2, 2, 6, 7), np.float32),
            np.ones((2, 9), bool),
            r"observations: expected shape \[B, 2, 3, 3\], got \[2, 2, 6, 7\]",
        ),
        (
            np.zeros((2, 2, 3, 3), np.float32),
            np.ones((3, 9), bool),
            r"legal_mask: expected shape \[2, 9\], got \[3, 9\]",
        ),
        (np.zeros((2, 2, 3, 3), np.float32), np.ones((2, 9), np.int8), "legal_mask: expected dtype bool"),
        (torch.zeros(2, 2, 3, 3), np.ones((2, 9), bool), "observations: expected a numpy array, got Tensor"),
        (
            np.zeros((2, 2, 3, 3), np.float32),
            [[True] * 9] * 2,
            "legal_mask: expected a numpy array, got list",
        ),
    ],
)
def test_evaluate_validates_inputs(observations, legal, pattern):
    evaluator = TorchEvaluator(build_network(NetworkConfig(kind="mlp"), *TICTACTOE), device="cpu")
    with pytest.raises(ValueError, match=pattern):
        evaluator.evaluate(observations, legal)
    with pytest.raises(ValueError, match=pattern):
        UniformEvaluator(*TICTACTOE).evaluate(observations, legal)


def test_set_weights_swaps_in_place():
    torch.manual_seed(0)
    config = NetworkConfig(num_blocks=1, channels=8)
    old, new = build_network(config, *CONNECT4), build_network(config, *CONNECT4)
    old_weights = {key: value.clone() for key, value in old.state_dict().items()}
    evaluator = TorchEvaluator(old, device="cpu")
    observations, legal = _inputs(*CONNECT4, batch=4)
    before, _ = evaluator.evaluate(observations, legal)
    model_object = evaluator.model
    evaluator.set_weights({k: v.numpy() for k, v in new.state_dict().items()}, version=7)
    after, after_values = evaluator.evaluate(observations, legal)
    assert evaluator.model is model_object and evaluator.weights_version == 7
    expected, expected_values = TorchEvaluator(new, device="cpu").evaluate(observations, legal)
    np.testing.assert_allclose(after, expected, atol=1e-6)
    np.testing.assert_allclose(after_values, expected_values, atol=1e-6)
    assert np.abs(after - before).max() > 1e-4
    weights = evaluator.get_weights()
    for key, value in new.state_dict().items():
        torch.testing.assert_close(weights[key], value)
    evaluator.load_state_dict(old_weights)  # alias
    np.testing.assert_allclose(evaluator.evaluate(observations, legal)[0], before, atol=1e-6)


def test_set_weights_names_the_mismatch():
    config = NetworkConfig(num_blocks=1, channels=8)
    evaluator = TorchEvaluator(build_network(config, *CONNECT4), device="cpu")
    weights = build_network(config, *CONNECT4).state_dict()
    missing = dict(weights)
    del missing["stem.0.weight"]
    with pytest.raises(ValueError, match=r"missing keys \['stem.0.weight'\], unexpected keys \[\]"):
        evaluator.set_weights(missing)
    with pytest.raises(ValueError, match=r"unexpected keys \['surplus'\]"):
        evaluator.set_weights({**weights, "surplus": torch.zeros(1)})
    other = build_network(config.replace(channels=16), *CONNECT4).state_dict()
    with pytest.raises(
        ValueError, match=r"state_dict\['stem.0.weight'\]: expected shape \[8, 2, 3, 3\], got \[16, 2, 3, 3\]"
    ):
        evaluator.set_weights(other)
    with pytest.raises(ValueError, match="expected a mapping"):
        evaluator.set_weights([1, 2])


def test_uniform_evaluator():
    evaluator = UniformEvaluator(*TICTACTOE)
    legal = np.zeros((2, 9), dtype=bool)
    legal[0, [1, 4]] = True
    legal[1] = True
    priors, values = evaluator.evaluate(np.zeros((2, 2, 3, 3), np.float32), legal)
    np.testing.assert_allclose(priors[0], [0, 0.5, 0, 0, 0.5, 0, 0, 0, 0])
    np.testing.assert_allclose(priors[1], np.full(9, 1 / 9), rtol=1e-6)
    assert values.tolist() == [0.0, 0.0] and values.dtype == np.float32
    assert evaluator.num_calls == 1 and evaluator.num_positions == 2


def test_device_choice_on_this_machine():
    assert device_from_config("cpu") == torch.device("cpu")
    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert device_from_config("auto").type == expected
    assert TorchEvaluator(build_network(NetworkConfig(kind="mlp"), *TICTACTOE)).device.type == expected
    with pytest.raises(ValueError, match=r"expected one of \['auto', 'cpu', 'cuda'\] or 'cuda:N', got 'gpu'"):
        device_from_config("gpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the CPU-only errors")
def test_cuda_and_bf16_requests_fail_clearly_without_a_gpu():
    with pytest.raises(ValueError, match="CUDA is not available"):
        device_from_config("cuda")
    with pytest.raises(ValueError, match="CUDA is not available"):
        device_from_config("cuda:0")
    model = build_network(NetworkConfig(kind="mlp"), *TICTACTOE)
    with pytest.raises(ValueError, match="use_bf16=True: bf16 autocast needs a CUDA device"):
        TorchEvaluator(model, device="cpu", use_bf16=True)
    assert TorchEvaluator(model, device="cpu").use_bf16 is False


def test_model_without_sizes_is_rejected():
    with pytest.raises(ValueError, match="expected an attribute 'observation_shape'"):
        TorchEvaluator(torch.nn.Linear(2, 2), device="cpu")
    with pytest.raises(ValueError, match="expected a torch.nn.Module"):
        TorchEvaluator(object(), device="cpu")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_cuda_bf16_matches_float32_within_bf16_precision():
    torch.manual_seed(0)
    model = build_network(NetworkConfig(num_blocks=2, channels=32), *CONNECT4)
    observations, legal = _inputs(*CONNECT4, batch=64)
    cpu_priors, cpu_values = TorchEvaluator(model, device="cpu").evaluate(observations, legal)
    gpu = TorchEvaluator(model, device="cuda")
    assert gpu.use_bf16 == torch.cuda.is_bf16_supported()
    priors, values = gpu.evaluate(observations, legal)
    assert priors.dtype == np.float32 and values.dtype == np.float32
    assert (priors[~legal] == 0).all()
    np.testing.assert_allclose(priors, cpu_priors, atol=3e-2)
    np.testing.assert_allclose(values, cpu_values, atol=3e-2)
    # A larger batch regrows the pinned staging buffer; a smaller one reuses it.
    big, big_legal = _inputs(*CONNECT4, batch=300, seed=1)
    assert gpu.evaluate(big, big_legal)[0].shape == (300, 7)
    np.testing.assert_array_equal(gpu.evaluate(observations, legal)[0], priors)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("cc") is None and shutil.which("gcc") is None, reason="inductor needs a C compiler"
)
def test_compiled_model_matches_and_sees_new_weights():
    torch.manual_seed(0)
    config = NetworkConfig(kind="mlp", mlp_hidden=(16,))
    model, other = build_network(config, *TICTACTOE), build_network(config, *TICTACTOE)
    observations, legal = _inputs(*TICTACTOE, batch=4)
    expected, _ = TorchEvaluator(model, device="cpu").evaluate(observations, legal)
    compiled = TorchEvaluator(model, device="cpu", compile=True)
    np.testing.assert_allclose(compiled.evaluate(observations, legal)[0], expected, atol=1e-5)
    compiled.set_weights(other.state_dict())
    expected_other, _ = TorchEvaluator(other, device="cpu").evaluate(observations, legal)
    np.testing.assert_allclose(compiled.evaluate(observations, legal)[0], expected_other, atol=1e-5)


def test_batch_norm_folding_keeps_outputs_and_the_original_model():
    torch.manual_seed(0)
    model = build_network(NetworkConfig(num_blocks=2, channels=8), *CONNECT4)
    for _ in range(3):
        model(torch.randn(16, *CONNECT4[0]))  # move the running statistics away from (0, 1)
    model.eval()
    reference = {key: value.clone() for key, value in model.state_dict().items()}
    fused = fuse_conv_batch_norm(model)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in fused.modules())
    assert sum(isinstance(m, torch.nn.BatchNorm2d) for m in model.modules()) == 1 + 2 * 2 + 2
    for key, value in model.state_dict().items():
        assert torch.equal(value, reference[key])
    observations, legal = _inputs(*CONNECT4, batch=6)
    plain = TorchEvaluator(model, device="cpu", fuse_batch_norm=False).evaluate(observations, legal)
    folded = TorchEvaluator(model, device="cpu").evaluate(observations, legal)
    np.testing.assert_allclose(folded[0], plain[0], atol=1e-6)
    np.testing.assert_allclose(folded[1], plain[1], atol=1e-6)


def test_the_callers_model_is_not_modified():
    model = build_network(NetworkConfig(num_blocks=1, channels=8), *CONNECT4)
    assert model.training
    evaluator = TorchEvaluator(model, device="cpu")
    assert model.training and evaluator.model is not model and not evaluator.model.training
    observations, legal = _inputs(*CONNECT4, batch=2)
    before, _ = evaluator.evaluate(observations, legal)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
    np.testing.assert_array_equal(evaluator.evaluate(observations, legal)[0], before)
