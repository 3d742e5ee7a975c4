"""Self-play: K games at once with the batched search (``runner``), the Ray-free worker that
wraps it (``worker``), typed records (``records``) and the replay buffer (``replay_buffer``)."""
