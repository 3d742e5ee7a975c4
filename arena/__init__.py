"""Arena: players (baselines, network + MCTS, human), matches, Elo, gating, perfect-play accuracy.

Modules:

* ``arena.players``: the baseline players (random, minimax, alpha-beta, UCT), and by re-export every
  other player: ``arena.player_base`` (the interface), ``arena.solver_player``,
  ``arena.network_players`` (network + PUCT, network policy), ``arena.human``.
* ``arena.specs``: player specs, one text syntax everywhere (``alphabeta:depth=5``,
  ``mcts:model=PATH,sims=200``, ...): ``parse_spec``, ``build_player``.
* The match engine: ``arena.results`` (the one result type, ``MatchResult``), ``arena.openings``
  (paired seeded openings: game k's opening depends only on the opening seed and k, each played once
  with each colour), ``arena.match`` (the sequential driver over any players, and round-robin
  ladders: ``run_match``, ``run_ladder``) and ``arena.network_match`` (the batched driver for
  network against network: ``run_network_match``).
* ``arena.elo``: score with a Wilson interval, Elo difference, Bradley-Terry ladder fit.
* ``arena.accuracy``: mistake rates against perfect play (``player_mistake_rates``,
  ``network_mistake_rates``).
* ``arena.gating``: training's gating (candidate against best on the batched driver).

The commands that use these (``arena``, ``play``, ``cfr``, the web page) live in ``frontends/``.
"""
