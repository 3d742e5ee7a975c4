"""Perfect play for short games by exhaustive negamax: the generic ``Game.exact_solver``.

Russell & Norvig, *Artificial Intelligence: A Modern Approach*, 3rd ed., section 5.2
(MINIMAX-DECISION), in the negamax form of Knuth & Moore (1975): a value is for the player to move
and a child's value is negated once per ply. Values are the game's utility, -1.0, 0.0 or +1.0,
memoised by state tuple, so one solver reused over many games searches each position once (the
tic-tac-toe table holds 5,478 positions). ``search.minimax.Minimax`` is the same algorithm with
node counts and a switchable table, for teaching and tests; this one is what the arena's perfect
player and the labelled sets (``arena/positions/exhaustive.py``) use.
"""

from __future__ import annotations

#: longest game (plies) solved exhaustively; Connect Four's 42 plies are far beyond it
MAX_EXHAUSTIVE_PLIES = 16


class ExhaustiveSolver:
    """Exact values of every position of a short game, memoised (see the module docstring).

    Args:
        game: a ``games.Game`` of at most ``MAX_EXHAUSTIVE_PLIES`` plies.

    Raises:
        ValueError: if the game is longer.
    """

    def __init__(self, game) -> None:
        if game.max_game_length > MAX_EXHAUSTIVE_PLIES:
            raise ValueError(
                f"exhaustive search solves games of at most {MAX_EXHAUSTIVE_PLIES} plies; "
                f"{game.name} lasts up to {game.max_game_length}"
            )
        self.game = game
        self.table: dict[tuple, float] = {}

    def value(self, state: tuple) -> float:
        """Game-theoretic value of ``state`` for the player to move: -1.0, 0.0 or +1.0."""
        cached = self.table.get(state)
        if cached is not None:
            return cached
        game = self.game
        if game.terminal_test(state):
            value = game.utility(state, game.player(state))
        else:
            # "+ 0.0" turns the -0.0 of a negated draw into 0.0
            value = max(-self.value(game.result(state, a)) for a in game.actions(state)) + 0.0
        self.table[state] = value
        return value

    def action_scores(self, state: tuple) -> dict[int, float]:
        """Value of each legal action for the player to move: ``{action: value}``, increasing actions.

        Raises:
            ValueError: if ``state`` is terminal.
        """
        actions = self.game.actions(state)
        if not actions:
            raise ValueError(f"{self.game.name}: expected a non-terminal state, got a finished one: {state}")
        return {a: 0.0 - self.value(self.game.result(state, a)) for a in actions}

    def optimal_actions(self, state: tuple) -> list[int]:
        """The legal actions with the best value, in increasing order.

        Raises:
            ValueError: if ``state`` is terminal.
        """
        scores = self.action_scores(state)
        best = max(scores.values())
        return [a for a, s in scores.items() if s == best]


_SHARED: dict[tuple, ExhaustiveSolver] = {}


def shared_exhaustive_solver(game) -> ExhaustiveSolver | None:
    """One ``ExhaustiveSolver`` per game class and name (None for a game too long to solve)."""
    if game.max_game_length > MAX_EXHAUSTIVE_PLIES:
        return None
    key = (type(game).__module__, type(game).__qualname__, game.name, game.version)
    solver = _SHARED.get(key)
    if solver is None:
        solver = _SHARED[key] = ExhaustiveSolver(game)
    return solver
