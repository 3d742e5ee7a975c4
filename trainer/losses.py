"""The AlphaZero loss: masked policy cross-entropy plus value mean squared error.

Silver et al. 2017, "Mastering the game of Go without human knowledge", Methods, equation (1)::

    l = (z - v)^2 - pi^T log p + c ||theta||^2

* ``(z - v)^2``: value MSE between the game outcome ``z`` and the predicted value ``v``, both in
  ``[-1, 1]`` for the player to move; averaged over the batch.
* ``- pi^T log p``: cross-entropy between the search's visit distribution ``pi`` (the policy
  target) and the network's policy ``p``. Here ``p`` is the softmax over the *legal* actions only
  (:func:`networks.policy.masked_log_softmax`: illegal logits are replaced, never multiplied by
  the mask), and the product ``pi * log p`` is masked to the legal actions, so illegal logits
  change neither the loss nor its gradient, and their gradient is exactly 0. A target
  with mass on an illegal action is rejected earlier, by the replay buffer.
* ``c ||theta||^2``: weight decay is *not* part of this function; it is applied by the optimiser
  (:class:`trainer.learner.Learner`): with SGD, ``weight_decay`` is the coupled L2 term, equal to
  eq. (1) with ``c = weight_decay / 2``; with AdamW it is decoupled weight decay (Loshchilov &
  Hutter 2019), which is what AdamW users expect and not an exact L2 term.

Everything is computed in float32, also when the network ran under bf16 autocast.
"""

from __future__ import annotations

import torch

from networks.policy import masked_log_softmax


def _check_inputs(policy_logits, value, target_policy, target_value, legal_mask) -> None:
    tensors = {
        "policy_logits": policy_logits,
        "value": value,
        "target_policy": target_policy,
        "target_value": target_value,
        "legal_mask": legal_mask,
    }
    for name, tensor in tensors.items():
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"{name}: expected a torch.Tensor, got {type(tensor).__name__}")
    if policy_logits.dim() != 2:
        raise ValueError(f"policy_logits: expected shape [B, A], got {list(policy_logits.shape)}")
    batch, actions = policy_logits.shape
    for name in ("target_policy", "legal_mask"):
        if tuple(tensors[name].shape) != (batch, actions):
            raise ValueError(f"{name}: expected shape [{batch}, {actions}], got {list(tensors[name].shape)}")
    for name in ("value", "target_value"):
        if tuple(tensors[name].shape) != (batch,):
            raise ValueError(f"{name}: expected shape [{batch}], got {list(tensors[name].shape)}")
    if legal_mask.dtype != torch.bool:
        raise ValueError(f"legal_mask: expected dtype torch.bool (True = legal), got {legal_mask.dtype}")
    for name in ("policy_logits", "value", "target_policy", "target_value"):
        if not tensors[name].is_floating_point():
            raise ValueError(f"{name}: expected a floating dtype, got {tensors[name].dtype}")
    if batch == 0:
        raise ValueError("policy_logits: expected a batch of at least 1 row, got 0")


def alphazero_loss(
    policy_logits: torch.Tensor,
    value: torch.Tensor,
    target_policy: torch.Tensor,
    target_value: torch.Tensor,
    legal_mask: torch.Tensor,
    value_weight: float = 1.0,
    policy_weights: torch.Tensor | None = None,
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """AlphaGo Zero loss, eq. (1) without the L2 term (see module docstring).

    Args:
        policy_logits: ``[B, A]`` float, the network's unmasked policy logits.
        value: ``[B]`` float, the network's value in ``[-1, 1]`` for the player to move.
        target_policy: ``[B, A]`` float, the policy target ``pi`` (sums to 1 over legal actions).
        target_value: ``[B]`` float, the value target ``z`` in ``[-1, 1]`` for the player to move.
        legal_mask: ``[B, A]`` bool, True = legal (a row without a legal action adds 0 policy loss).
        value_weight: multiplier of the value term (1 in the paper).
        policy_weights: optional ``[B]`` float in ``[0, 1]``, each row's weight in the policy term
            (playout cap randomisation: 0 for cheap searches, Wu 2019, sec. 5). The policy loss is
            then ``sum_b w_b CE_b / B``: a weight of 0 removes the row's policy gradient and keeps
            its value term. None weighs every row 1.

    Returns:
        ``(total, parts)``: ``total`` a float32 scalar tensor ``policy_loss + value_weight *
        value_loss`` carrying gradients; ``parts`` a dict of detached float32 scalar tensors:
        ``policy_loss`` (mean cross-entropy, nats), ``value_loss`` (mean squared error),
        ``policy_entropy`` (mean entropy of the masked policy ``p``, nats; a metric only).
        A non-finite input gives a non-finite total; the learner checks for that and skips the batch.

    Raises:
        ValueError: if an input is not a tensor, the shapes disagree (expected vs actual), the mask
            is not bool, a tensor that must be floating is not, or the batch is empty.
    """
    _check_inputs(policy_logits, value, target_policy, target_value, legal_mask)
    log_probs = masked_log_softmax(policy_logits.float(), legal_mask)  # finite; exp = 0 off the mask
    cross = torch.where(legal_mask, target_policy.float() * log_probs, torch.zeros_like(log_probs))
    if policy_weights is None:
        policy_loss = -cross.sum(dim=-1).mean()
    else:
        if tuple(policy_weights.shape) != (cross.shape[0],):
            raise ValueError(f"policy_weights: expected shape [{cross.shape[0]}], got {list(policy_weights.shape)}")
        policy_loss = -(policy_weights.float() * cross.sum(dim=-1)).mean()
    value_loss = torch.mean((value.float() - target_value.float()) ** 2)
    total = policy_loss + float(value_weight) * value_loss
    with torch.no_grad():
        probs = log_probs.exp()
        entropy = -torch.where(legal_mask, probs * log_probs, torch.zeros_like(log_probs)).sum(dim=-1).mean()
    parts = {
        "policy_loss": policy_loss.detach(),
        "value_loss": value_loss.detach(),
        "policy_entropy": entropy,
    }
    return total, parts
