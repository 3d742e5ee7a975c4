"""Front ends: the command-line tools, the terminal ``play``, its engine protocol and the web page.

The room above the library: these modules may import every other package (``games``, ``search``,
``mcts``, ``networks``, ``selfplay``, ``trainer``, ``arena``), and no product package imports them
(``tests/test_architecture.py`` checks that).

Modules:

* ``frontends.arena_cli``: the ``arena`` command (matches, ladders, accuracy against perfect play),
  with ``frontends.policy_compare_cli`` (``arena expected-value`` of two poker policies).
* ``frontends.play_cli``: the ``play`` command (a human against a model in the terminal, ``--web``,
  ``--engine``), with ``frontends.engine`` (the text engine protocol of docs/engine_protocol.md)
  and ``frontends.poker_play`` (a human against a CFR policy).
* ``frontends.cfr_cli``: the ``cfr`` command (solve Kuhn or Leduc poker, write the policy).
* ``frontends.game_text``: a game as text for a person (move strings replayed, plain words), shared
  by the terminal, the engine protocol and the web page.
* ``frontends.web``: the web page of ``play --web`` (docs/web.md).
"""
