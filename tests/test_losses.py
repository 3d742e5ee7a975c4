"""AlphaZero loss: masked policy cross-entropy (illegal logits change nothing) and value MSE, known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from trainer.losses import alphazero_loss

TICTACTOE = games.make("tictactoe")


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _p6_mask() -> torch.Tensor:
    """P6 `X O X / . O . / . X .`, O to move: legal 3, 5, 6, 8."""
    state = np.array([TICTACTOE.state_from_board("X O X / . O . / . X .")], dtype=np.int64)
    mask = torch.from_numpy(TICTACTOE.legal_mask(state))
    assert torch.nonzero(mask[0]).flatten().tolist() == [3, 5, 6, 8]
    return mask


def _p6_target() -> torch.Tensor:
    target = torch.zeros(1, 9)
    target[0, [3, 5, 6, 8]] = torch.tensor([0.4, 0.3, 0.2, 0.1])
    return target


def _loss_and_grad(logits: torch.Tensor):
    logits = logits.clone().requires_grad_(True)
    total, parts = alphazero_loss(logits, torch.zeros(1), _p6_target(), torch.zeros(1), _p6_mask())
    total.backward()
    return total.detach(), parts, logits.grad


def test_illegal_logits_change_neither_loss_nor_gradient():
    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(1, 9, generator=generator)
    loss, _, grad = _loss_and_grad(logits)
    raised = logits.clone()
    illegal = ~_p6_mask()
    assert int(illegal.sum()) == 5
    raised[illegal] += 10.0
    loss_raised, _, grad_raised = _loss_and_grad(raised)
    assert torch.equal(loss, loss_raised)
    assert torch.equal(grad, grad_raised)
    assert torch.all(grad[illegal] == 0.0)
    assert torch.isfinite(loss) and torch.isfinite(grad).all()
    # the legal gradient is softmax-over-legal minus target (batch of 1)
    legal = _p6_mask()[0]
    probs = torch.softmax(logits[0, legal], dim=0)
    torch.testing.assert_close(grad[0, legal], probs - _p6_target()[0, legal])


def test_huge_illegal_logits_stay_finite():
    logits = torch.zeros(1, 9)
    logits[~_p6_mask()] = 1e30
    loss, _, grad = _loss_and_grad(logits)
    assert loss.item() == pytest.approx(-(0.4 + 0.3 + 0.2 + 0.1) * math.log(0.25))
    assert torch.all(grad[~_p6_mask()] == 0.0)


def test_uniform_logits_known_values():
    loss, parts, _ = _loss_and_grad(torch.zeros(1, 9))
    # p = 1/4 on each legal action: cross-entropy = -sum pi log(1/4) = log 4; entropy log 4
    assert parts["policy_loss"].item() == pytest.approx(math.log(4), abs=1e-6)
    assert parts["policy_entropy"].item() == pytest.approx(math.log(4), abs=1e-6)
    assert parts["value_loss"].item() == 0.0
    assert loss.item() == pytest.approx(math.log(4), abs=1e-6)


def test_value_mse_and_weight():
    logits = torch.zeros(2, 3)
    mask = torch.ones(2, 3, dtype=torch.bool)
    target = torch.full((2, 3), 1 / 3)
    value = torch.tensor([0.5, -0.5])
    z = torch.tensor([1.0, 1.0])
    total, parts = alphazero_loss(logits, value, target, z, mask, value_weight=2.0)
    # ((0.5 - 1)^2 + (-0.5 - 1)^2) / 2 = 1.25
    assert parts["value_loss"].item() == pytest.approx(1.25)
    assert parts["policy_loss"].item() == pytest.approx(math.log(3), abs=1e-6)
    assert total.item() == pytest.approx(math.log(3) + 2 * 1.25, abs=1e-6)


def test_cross_entropy_matches_a_direct_computation_on_a_batch():
    generator = torch.Generator().manual_seed(3)
    logits = torch.randn(6, 7, generator=generator)
    mask = torch.rand(6, 7, generator=generator) < 0.6
    mask[:, 0] = True
    target = torch.rand(6, 7, generator=generator) * mask
    target = target / target.sum(dim=1, keepdim=True)
    _, parts = alphazero_loss(logits, torch.zeros(6), target, torch.zeros(6), mask)
    expected = 0.0
    for row in range(6):
        legal = mask[row]
        log_p = torch.log_softmax(logits[row, legal], dim=0)
        expected += -(target[row, legal] * log_p).sum().item()
    assert parts["policy_loss"].item() == pytest.approx(expected / 6, rel=1e-6)


def test_bf16_logits_are_computed_in_float32():
    logits = torch.zeros(1, 9, dtype=torch.bfloat16)
    total, parts = alphazero_loss(
        logits, torch.zeros(1, dtype=torch.bfloat16), _p6_target(), torch.zeros(1), _p6_mask()
    )
    assert total.dtype == torch.float32
    assert parts["policy_loss"].item() == pytest.approx(math.log(4), abs=1e-6)


def test_nan_value_target_gives_a_non_finite_total():
    total, parts = alphazero_loss(
        torch.zeros(1, 9), torch.zeros(1), _p6_target(), torch.tensor([float("nan")]), _p6_mask()
    )
    assert not torch.isfinite(total)
    assert torch.isfinite(parts["policy_loss"])


@pytest.mark.parametrize(
    "change, message",
    [
        ({"policy_logits": torch.zeros(9)}, r"policy_logits: expected shape \[B, A\], got \[9\]"),
        ({"target_policy": torch.zeros(1, 7)}, r"target_policy: expected shape \[1, 9\], got \[1, 7\]"),
        ({"legal_mask": torch.ones(1, 9)}, "legal_mask: expected dtype torch.bool"),
        ({"value": torch.zeros(2)}, r"value: expected shape \[1\], got \[2\]"),
        ({"target_value": np.zeros(1)}, "target_value: expected a torch.Tensor, got ndarray"),
        ({"target_policy": torch.zeros(1, 9, dtype=torch.long)}, "target_policy: expected a floating dtype"),
    ],
)
def test_input_validation(change, message):
    arguments = {
        "policy_logits": torch.zeros(1, 9),
        "value": torch.zeros(1),
        "target_policy": _p6_target(),
        "target_value": torch.zeros(1),
        "legal_mask": _p6_mask(),
        **change,
    }
    with pytest.raises(ValueError, match=message):
        alphazero_loss(**arguments)


@settings(max_examples=60, deadline=None)
@given(
    batch=st.integers(min_value=1, max_value=6),
    actions=st.integers(min_value=1, max_value=12),
    seed=st.integers(min_value=0, max_value=2**31 - 1),
    shift=st.sampled_from([-1e30, -10.0, 10.0, 1e30, float("inf")]),
)
def test_illegal_logits_never_matter_property(batch, actions, seed, shift):
    generator = torch.Generator().manual_seed(seed)
    logits = torch.randn(batch, actions, generator=generator) * 5
    mask = torch.rand(batch, actions, generator=generator) < 0.5
    mask[torch.arange(batch), torch.randint(0, actions, (batch,), generator=generator)] = True
    target = torch.rand(batch, actions, generator=generator) * mask
    target = target / target.sum(dim=1, keepdim=True)

    def run(raw):
        raw = raw.clone().requires_grad_(True)
        total, _ = alphazero_loss(raw, torch.zeros(batch), target, torch.zeros(batch), mask)
        total.backward()
        return total.detach(), raw.grad

    loss, grad = run(logits)
    shifted = logits.clone()
    shifted[~mask] = shift
    loss_shifted, grad_shifted = run(shifted)
    assert torch.isfinite(loss) and torch.isfinite(grad).all()
    assert torch.equal(loss, loss_shifted)
    assert torch.equal(grad, grad_shifted)
    assert torch.all(grad[~mask] == 0)
