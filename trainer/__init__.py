"""The training side: losses, the learner, checkpoints, and the ``train`` loop wiring the Ray actors.

Learning core (imported explicitly, so ``import trainer`` stays light)::

    trainer.losses.alphazero_loss(policy_logits, value, target_policy, target_value, legal_mask)
        -> (total, parts)             masked policy cross-entropy + value MSE (AlphaGo Zero eq. (1))
    trainer.learner.Learner(model, LearnerConfig(optimizer=..., learning_rate=..., ...))
        .train_step(batch) -> metrics  one SGD/AdamW step with a non-finite guard (a NaN batch is skipped, never trained on)
    trainer.learner.weights_hash(model_or_state) -> str
    trainer.checkpoint.save_checkpoint(run_dir, step, learner, buffer, rng_states, counters,
                                       config_dict, code_version, ...) -> Path
    trainer.checkpoint.load_latest_checkpoint(run_dir) -> Checkpoint
    trainer.checkpoint.restore_checkpoint(checkpoint, learner, buffer, generators, ...)

The replay buffer the learner samples from is :class:`selfplay.replay_buffer.ReplayBuffer`.
"""
