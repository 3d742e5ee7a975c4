"""Classical adversarial search on the six single-state game functions of ``games.base``.

* ``search.minimax``: exhaustive minimax (negamax form) with a transposition table, the textbook
  tic-tac-toe counts, and a plain depth-limited minimax used as the reference for alpha-beta.
* ``search.alphabeta``: negamax alpha-beta with a transposition table, iterative deepening under a
  time limit, switchable move ordering (transposition-table move, killer moves, history heuristic,
  static centre-first order) and a quiescence hook for games that declare noisy moves.
* ``search.expectimax``: expectiminimax, star1 and star2 for games with chance nodes. The
  evaluation, move order and table key come from the game's knowledge (``games.knowledge``).
* ``search.game_tree``, ``search.cfr``, ``search.best_response``, ``search.pimc``: imperfect-information
  games (``games.imperfect``, kind ``games.IMPERFECT``) as flat tree arrays; CFR, CFR+ and external-sampling Monte Carlo CFR;
  exact best response, NashConv and expected value of tabular policies; the perfect-information
  Monte Carlo player. Their values are each player's own chips (zero-sum), not the negamax view.

Value convention everywhere: negamax, i.e. a value is for the player to move at that node.
Imports ``games`` (and numpy/numba) only.
"""
