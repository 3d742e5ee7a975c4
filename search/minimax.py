"""Minimax in negamax form on the six single-state functions of ``games.base``.

Source: Russell & Norvig, *Artificial Intelligence: A Modern Approach* (AIMA), 3rd ed.,
chapter 5, MINIMAX-DECISION (section 5.2), written in the negamax form of Knuth & Moore (1975,
"An analysis of alpha-beta pruning", *Artificial Intelligence* 6): the value of a state is for
the player to move there, and a child's value is negated once per ply.

Two families live here:

* **Exhaustive search** (``Minimax``, ``solve``): game-theoretic values in ``[-1, 1]`` (the game's
  ``utility`` for the player to move), memoised in a transposition table keyed by the state tuple.
  Practical for tic-tac-toe-sized games only.
* **Depth-limited search** (``depth_limited_minimax``): plain minimax without pruning or table,
  cut off at a fixed depth (plies) with a heuristic evaluation, plus an optional quiescence
  extension of noisy moves. Its integer *scores* use the convention shared with
  ``search.alphabeta`` (see ``terminal_score``), and it is the reference that alpha-beta is tested
  against.

The textbook tic-tac-toe counts (``count_games``, ``count_nodes``, ``count_positions``) are also
here: 255,168 complete games, 549,946 nodes in the full game tree (root included) and 5,478
distinct legal positions.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable

from games.base import Game

#: Score of a win at the root itself; a win ``n`` plies below the root scores ``WIN_SCORE - n``.
WIN_SCORE = 100_000
#: Scores with absolute value above this are proven wins or losses (never heuristic estimates).
#: An evaluation function must stay strictly inside ``(-PROVEN_THRESHOLD, PROVEN_THRESHOLD)``.
PROVEN_THRESHOLD = WIN_SCORE // 2
#: Default limit on the plies of the quiescence extension below the horizon.
DEFAULT_MAX_QUIESCENCE_PLIES = 8

EvaluateFn = Callable[[tuple], int]
NoisyActionsFn = Callable[[tuple], Iterable[int]]


def terminal_score(game: Game, state: tuple, ply: int) -> int:
    """Integer score of a finished ``state`` for the player to move there, ``ply`` plies below the root.

    ``utility * (WIN_SCORE - ply)``: a win scores ``+(WIN_SCORE - ply)``, a loss
    ``-(WIN_SCORE - ply)``, a draw 0. Shorter wins therefore score higher and longer losses score
    higher than shorter ones, so a search prefers the fastest win and the slowest loss.
    """
    utility = game.utility(state, game.player(state))
    return round(utility * (WIN_SCORE - ply))


def zero_evaluate(state: tuple) -> int:
    """Evaluation that knows nothing: 0 for every non-terminal state."""
    return 0


# --------------------------------------------------------------------------- exhaustive search
class Minimax:
    """Exhaustive negamax with an optional transposition table (AIMA section 5.2).

    Values are the game's utility for the player to move, in ``[-1, 1]`` (for tic-tac-toe exactly
    -1, 0 or +1). The table maps a state tuple to its value and persists across calls, so a
    ``Minimax`` object reused over a whole game searches each position once.

    Attributes:
        nodes: states visited (value computations, table hits included) since construction.
        table: the transposition table, ``{state: value}``; ``None`` when disabled.
    """

    def __init__(self, game: Game, use_transposition_table: bool = True) -> None:
        self.game = game
        self.nodes = 0
        self.table: dict[Hashable, float] | None = {} if use_transposition_table else None

    def value(self, state: tuple) -> float:
        """Game-theoretic value of ``state`` for the player to move, in ``[-1, 1]``."""
        self.nodes += 1
        table = self.table
        if table is not None:
            cached = table.get(state)
            if cached is not None:
                return cached
        game = self.game
        if game.terminal_test(state):
            value = game.utility(state, game.player(state))
        else:
            # "+ 0.0" turns the -0.0 of a negated draw into 0.0
            value = max(-self.value(game.result(state, a)) for a in game.actions(state)) + 0.0
        if table is not None:
            table[state] = value
        return value

    def action_values(self, state: tuple) -> dict[int, float]:
        """Value of each legal action for the player to move in ``state``: ``{action: value}``.

        Raises:
            ValueError: if ``state`` is terminal (no action is legal).
        """
        _require_non_terminal(self.game, state)
        return {a: 0.0 - self.value(self.game.result(state, a)) for a in self.game.actions(state)}

    def best_actions(self, state: tuple) -> list[int]:
        """All optimal actions for the player to move, in increasing order.

        Raises:
            ValueError: if ``state`` is terminal.
        """
        values = self.action_values(state)
        best = max(values.values())
        return [a for a, v in values.items() if v == best]


def solve(game: Game, state: tuple) -> tuple[float, list[int]]:
    """Solve ``state`` exactly: ``(value for the player to move, optimal actions)``.

    Raises:
        ValueError: if ``state`` is terminal.
    """
    search = Minimax(game)
    actions = search.best_actions(state)
    return search.value(state), actions


def _require_non_terminal(game: Game, state: tuple) -> None:
    if game.terminal_test(state):
        raise ValueError(f"{game.name}: expected a non-terminal state, got a finished one: {state}")


# ----------------------------------------------------------------------------- tree counting
def count_games(game: Game, state: tuple | None = None) -> int:
    """Number of complete games (root-to-terminal paths) from ``state`` (default: the start).

    Memoised per state, so tic-tac-toe takes milliseconds; 255,168 from the empty board.
    """
    memo: dict[tuple, int] = {}

    def games_from(s: tuple) -> int:
        cached = memo.get(s)
        if cached is not None:
            return cached
        if game.terminal_test(s):
            count = 1
        else:
            count = sum(games_from(game.result(s, a)) for a in game.actions(s))
        memo[s] = count
        return count

    return games_from(game.initial_state() if state is None else state)


def count_nodes(game: Game, state: tuple | None = None) -> int:
    """Number of nodes of the full game tree below ``state``, ``state`` itself included.

    A position reached by two move orders counts twice (it is two tree nodes). Memoised per
    state; 549,946 for tic-tac-toe from the empty board.
    """
    memo: dict[tuple, int] = {}

    def nodes_from(s: tuple) -> int:
        cached = memo.get(s)
        if cached is not None:
            return cached
        count = 1
        if not game.terminal_test(s):
            count += sum(nodes_from(game.result(s, a)) for a in game.actions(s))
        memo[s] = count
        return count

    return nodes_from(game.initial_state() if state is None else state)


def count_positions(game: Game, state: tuple | None = None) -> int:
    """Number of distinct positions reachable from ``state``, ``state`` and terminals included.

    5,478 for tic-tac-toe from the empty board.
    """
    start = game.initial_state() if state is None else state
    seen = {start}
    frontier = [start]
    while frontier:
        s = frontier.pop()
        if game.terminal_test(s):
            continue
        for a in game.actions(s):
            child = game.result(s, a)
            if child not in seen:
                seen.add(child)
                frontier.append(child)
    return len(seen)


# ------------------------------------------------------------------------ depth-limited search
def depth_limited_minimax(
    game: Game,
    state: tuple,
    depth: int,
    evaluate_fn: EvaluateFn = zero_evaluate,
    noisy_actions_fn: NoisyActionsFn | None = None,
    max_quiescence_plies: int = DEFAULT_MAX_QUIESCENCE_PLIES,
) -> int:
    """Plain negamax score of ``state`` searched ``depth`` plies deep, for the player to move.

    No pruning and no table: the reference that ``search.alphabeta`` must reproduce exactly.
    Finished states score ``terminal_score``; at the horizon (``depth`` plies below ``state``)
    a non-terminal state scores ``evaluate_fn(state)``, or, when ``noisy_actions_fn`` is given,
    its quiescence score: the best of the "stand pat" evaluation and the negated quiescence scores
    of the children reached by noisy moves, at most ``max_quiescence_plies`` plies further
    (AIMA section 5.4.2, "quiescence search").

    Args:
        depth: plies to search, >= 0.
        evaluate_fn: heuristic score of a non-terminal state for the player to move; must stay
            inside ``(-PROVEN_THRESHOLD, PROVEN_THRESHOLD)``.
        noisy_actions_fn: optional; legal actions of a state that the horizon must not cut off.
        max_quiescence_plies: >= 0.

    Raises:
        ValueError: if ``depth`` or ``max_quiescence_plies`` is negative.
    """
    if depth < 0:
        raise ValueError(f"depth must be >= 0 plies, got {depth}")
    if max_quiescence_plies < 0:
        raise ValueError(f"max_quiescence_plies must be >= 0, got {max_quiescence_plies}")
    terminal_test, result, actions = game.terminal_test, game.result, game.actions

    def quiescence(s: tuple, ply: int, plies_left: int) -> int:
        if terminal_test(s):
            return terminal_score(game, s, ply)
        best = evaluate_fn(s)
        if noisy_actions_fn is None or plies_left == 0:
            return best
        for a in noisy_actions_fn(s):
            best = max(best, -quiescence(result(s, a), ply + 1, plies_left - 1))
        return best

    def negamax(s: tuple, depth_left: int, ply: int) -> int:
        if terminal_test(s):
            return terminal_score(game, s, ply)
        if depth_left == 0:
            return quiescence(s, ply, max_quiescence_plies)
        return max(-negamax(result(s, a), depth_left - 1, ply + 1) for a in actions(s))

    return negamax(state, depth, 0)
