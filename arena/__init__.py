"""Arena: players (baselines, network + MCTS, human), matches, Elo, gating, perfect-play accuracy.

Modules:

* ``arena.players``: the player interface and every player (random, minimax, alpha-beta, UCT,
  solver, network + PUCT, network policy, human).
* ``arena.specs``: player specs, one text syntax everywhere (``alphabeta:depth=5``,
  ``mcts:model=PATH,sims=200``, ...): ``parse_spec``, ``build_player``.
* ``arena.match``: matches with colours alternated and paired seeded openings, round-robin
  ladders (``run_match``, ``run_ladder``).
* ``arena.elo``: score with a Wilson interval, Elo difference, Bradley-Terry ladder fit.
* ``arena.accuracy``: mistake rates against perfect play (``player_mistake_rates``,
  ``network_mistake_rates``).
* ``arena.network_match`` and ``arena.gating``: batched network-against-network matches for
  training's gating.
* ``arena.cli`` (``arena``) and ``arena.play_cli`` (``play``, including the engine protocol of
  ``docs/engine_protocol.md``).
"""
