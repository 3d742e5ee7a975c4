"""Masked softmax: a degenerate prior, and masking by -inf rather than multiplying."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from networks.policy import (
    ILLEGAL_LOG_PROB,
    count_degenerate_priors,
    masked_log_softmax,
    masked_softmax,
)
from networks.policy_numpy import (
    count_degenerate_priors_numpy,
    masked_log_softmax_numpy,
    masked_softmax_numpy,
    masked_softmax_with_count_numpy,
    uniform_priors_numpy,
)


def test_mask_with_minus_infinity_not_by_multiplying():
    logits = torch.tensor([2.0, 1.0, 0.5])
    legal = torch.tensor([True, False, True])
    expected = torch.tensor([0.8176, 0.0, 0.1824])
    probs = masked_softmax(logits, legal)
    torch.testing.assert_close(probs, expected, atol=1e-4, rtol=0)
    assert probs[1].item() == 0.0
    np.testing.assert_allclose(
        masked_softmax_numpy(logits.numpy(), legal.numpy()), expected.numpy(), atol=1e-4
    )
    # Multiplying the logits by the mask leaves mass on the illegal action: the bug masking by -inf prevents.
    wrong = torch.softmax(logits * legal, dim=-1)
    assert wrong[1].item() == pytest.approx(0.0996, abs=1e-4)


def test_degenerate_prior_gives_uniform_over_empty_cells_and_is_counted():
    # X . . / . . . / . . .  with O to move: cell 0 is occupied. The network is sure of cell 0
    # (logit 0) and gives every legal cell logit -1000.
    legal = torch.ones(9, dtype=torch.bool)
    legal[0] = False
    logits = torch.full((9,), -1000.0)
    logits[0] = 0.0
    unmasked = torch.softmax(logits, dim=-1)
    assert unmasked[0].item() == 1.0  # the prior is one-hot on the occupied cell
    probs = masked_softmax(logits[None], legal[None])[0]
    assert probs[0].item() == 0.0
    torch.testing.assert_close(probs[1:], torch.full((8,), 1 / 8))
    assert not torch.isnan(probs).any()
    assert count_degenerate_priors(logits[None], legal[None]) == 1
    probs_numpy = masked_softmax_numpy(logits.numpy(), legal.numpy())
    np.testing.assert_allclose(probs_numpy, [0] + [1 / 8] * 8, rtol=1e-6)
    assert count_degenerate_priors_numpy(logits.numpy()[None], legal.numpy()[None]) == 1
    # A healthy row in the same batch is not counted.
    healthy = torch.zeros(9)
    assert count_degenerate_priors(torch.stack([logits, healthy]), torch.stack([legal, legal])) == 1


def test_legal_logits_all_minus_1000_is_uniform_even_without_illegal_mass():
    logits = torch.full((2, 7), -1000.0)
    legal = torch.tensor([[True] * 7, [True, False, True, False, True, False, True]])
    probs = masked_softmax(logits, legal)
    torch.testing.assert_close(probs[0], torch.full((7,), 1 / 7))
    torch.testing.assert_close(probs[1], torch.tensor([0.25, 0, 0.25, 0, 0.25, 0, 0.25]))


def test_row_without_legal_action_is_all_zero_and_finite():
    logits = torch.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
    legal = torch.tensor([[False, False, False], [True, True, False]])
    probs = masked_softmax(logits, legal)
    assert probs[0].tolist() == [0.0, 0.0, 0.0]
    log_probs = masked_log_softmax(logits, legal)
    assert torch.isfinite(log_probs).all()
    assert log_probs[0].tolist() == [ILLEGAL_LOG_PROB] * 3
    assert count_degenerate_priors(logits, legal) == 0
    assert masked_softmax_numpy(logits.numpy(), legal.numpy())[0].tolist() == [0.0, 0.0, 0.0]
    assert np.isfinite(masked_log_softmax_numpy(logits.numpy(), legal.numpy())).all()


def test_log_softmax_exact_zero_probability_and_zero_gradient_on_illegal():
    # X O X / . O . / . X .  O to move, legal 3, 5, 6, 8.
    legal = torch.zeros(9, dtype=torch.bool)
    legal[[3, 5, 6, 8]] = True
    logits = torch.randn(9, requires_grad=True)
    target = torch.tensor([0, 0, 0, 0.4, 0, 0.3, 0.2, 0, 0.1])
    log_probs = masked_log_softmax(logits, legal)
    assert torch.exp(log_probs)[~legal].eq(0).all()
    torch.testing.assert_close(torch.exp(log_probs)[legal].sum(), torch.tensor(1.0))
    loss = -(target * log_probs).sum()
    loss.backward()
    assert torch.isfinite(loss)
    assert logits.grad[~legal].eq(0).all()
    # Raising the illegal logits changes neither loss nor gradient.
    raised = (logits.detach() + 10 * (~legal)).requires_grad_(True)
    loss_raised = -(target * masked_log_softmax(raised, legal)).sum()
    loss_raised.backward()
    torch.testing.assert_close(loss_raised, loss)
    torch.testing.assert_close(raised.grad, logits.grad)


def test_bf16_logits_are_computed_in_float32():
    logits = torch.tensor([[2.0, 1.0, 0.5]], dtype=torch.bfloat16)
    probs = masked_softmax(logits, torch.tensor([[True, False, True]]))
    assert probs.dtype == torch.float32
    torch.testing.assert_close(probs, torch.tensor([[0.8176, 0.0, 0.1824]]), atol=1e-4, rtol=0)


def test_input_validation():
    with pytest.raises(ValueError, match=r"expected the shape of logits \[2, 3\], got \[2, 4\]"):
        masked_softmax(torch.zeros(2, 3), torch.ones(2, 4, dtype=torch.bool))
    with pytest.raises(ValueError, match="expected dtype torch.bool"):
        masked_log_softmax(torch.zeros(2, 3), torch.ones(2, 3))
    with pytest.raises(ValueError, match="floating dtype"):
        masked_softmax(torch.zeros(2, 3, dtype=torch.int64), torch.ones(2, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"min_legal_mass: expected a value in \(0, 1\)"):
        count_degenerate_priors(torch.zeros(1, 3), torch.ones(1, 3, dtype=torch.bool), min_legal_mass=0)
    with pytest.raises(ValueError, match="expected dtype bool"):
        masked_softmax_numpy(np.zeros(3), np.ones(3))
    with pytest.raises(ValueError, match=r"expected the shape of logits \[3\], got \[4\]"):
        masked_softmax_numpy(np.zeros(3), np.ones(4, dtype=bool))
    with pytest.raises(ValueError, match="bool numpy array"):
        uniform_priors_numpy(np.ones((1, 3)))


def test_uniform_priors():
    legal = np.array([[True, False, True, True], [False, False, False, False]])
    priors = uniform_priors_numpy(legal)
    assert priors.dtype == np.float32
    np.testing.assert_allclose(priors, [[1 / 3, 0, 1 / 3, 1 / 3], [0, 0, 0, 0]], rtol=1e-7)


@settings(max_examples=50, deadline=None)
@given(
    logits=arrays(np.float32, (4, 7), elements=st.floats(-1e4, 1e4, width=32)),
    legal=arrays(np.bool_, (4, 7)),
)
def test_torch_and_numpy_agree_and_are_distributions(logits, legal):
    probs = masked_softmax(torch.from_numpy(logits), torch.from_numpy(legal)).numpy()
    probs_numpy = masked_softmax_numpy(logits, legal)
    np.testing.assert_allclose(probs, probs_numpy, atol=1e-6)
    assert np.isfinite(probs).all()
    assert (probs[~legal] == 0).all()
    has_legal = legal.any(axis=1)
    np.testing.assert_allclose(probs.sum(axis=1)[has_legal], 1.0, atol=1e-5)
    assert (probs.sum(axis=1)[~has_legal] == 0).all()
    log_probs = masked_log_softmax(torch.from_numpy(logits), torch.from_numpy(legal)).numpy()
    assert np.isfinite(log_probs).all()
    np.testing.assert_allclose(np.exp(log_probs), probs, atol=1e-6)
    np.testing.assert_allclose(masked_log_softmax_numpy(logits, legal), log_probs, rtol=1e-5, atol=1e-4)
    assert count_degenerate_priors(torch.from_numpy(logits), torch.from_numpy(legal)) == (
        count_degenerate_priors_numpy(logits, legal)
    )


@settings(max_examples=50, deadline=None)
@given(
    logits=arrays(np.float32, (5, 7), elements=st.floats(-50, 50, width=32)),
    legal=arrays(np.bool_, (5, 7)),
    sink=st.integers(0, 6),
)
def test_fused_softmax_and_count_equal_the_separate_functions(logits, legal, sink):
    # Make some rows degenerate: a huge logit on a (possibly illegal) action.
    logits = logits.copy()
    logits[::2, sink] = 1000.0
    probs, count = masked_softmax_with_count_numpy(logits, legal)
    np.testing.assert_array_equal(probs, masked_softmax_numpy(logits, legal))
    assert count == count_degenerate_priors_numpy(logits, legal)
