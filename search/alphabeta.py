"""Alpha-beta search (negamax form) with the classical enhancements, on the six single-state functions.

Sources:

* alpha-beta pruning and the negamax formulation: Knuth & Moore, "An analysis of alpha-beta
  pruning", *Artificial Intelligence* 6 (1975); Russell & Norvig, *Artificial Intelligence: A
  Modern Approach* (AIMA), 3rd ed., section 5.3 (ALPHA-BETA-SEARCH);
* transposition table and iterative deepening: AIMA 3rd ed., section 5.3.1 (move ordering);
  quiescence search: section 5.4.2 (cutting off search);
* killer moves: Akl & Newborn, "The principal continuation and the killer heuristic", ACM '77
  (1977);
* history heuristic: Schaeffer, "The history heuristic and alpha-beta search enhancements in
  practice", *IEEE PAMI* 11 (1989).

**Value convention.** Negamax: every score is for the player to move at that node, and a child's
score is negated once per ply. Scores are integers. A finished state ``n`` plies below the root
scores ``utility * (WIN_SCORE - n)`` (``search.minimax.terminal_score``): a win at the root's
child scores ``WIN_SCORE - 1``, so faster wins and slower losses are preferred. A non-terminal
state at the horizon scores ``evaluate_fn(state)``, which must stay strictly inside
``(-PROVEN_THRESHOLD, PROVEN_THRESHOLD)``; a score beyond that threshold is a proven result.

**Exactness.** At a fixed depth the root score equals ``search.minimax.depth_limited_minimax``
with the same evaluation and quiescence settings, whatever the move ordering: the table is fresh
for each call, cut-offs use only entries searched to exactly the same remaining depth, and proven
scores are stored relative to the node (the usual mate-distance adjustment) so transpositions
reached at different plies stay correct. The chosen action does not depend on the ordering either:
the root searches each action with a window one point wider than the best score so far, so ties
are exact, and among actions with the best score the lowest action index is played (the
project's tie rule: deterministic unless a seeded generator is asked for).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass

import games
from games.base import Game
from search.minimax import (
    DEFAULT_MAX_QUIESCENCE_PLIES,
    PROVEN_THRESHOLD,
    WIN_SCORE,
    EvaluateFn,
    NoisyActionsFn,
    terminal_score,
    zero_evaluate,
)

#: bound flags of a transposition-table entry
EXACT, LOWER_BOUND, UPPER_BOUND = 0, 1, 2
#: larger than any score
INFINITY = 10 * WIN_SCORE

KeyFn = Callable[[tuple], Hashable]
#: ``expand_fn(state, moves, depth) -> moves in search order`` (see ``AlphaBeta``)
ExpandFn = Callable[[tuple, list[int], int], list[int]]


@dataclass(frozen=True)
class MoveOrdering:
    """Which move-ordering heuristics are on. Ordering changes the node count, never the score.

    Applied in this order of priority: the transposition-table move (the best move stored for the
    position, e.g. by the previous iteration of iterative deepening) first, then the two killer
    moves of the ply (Akl & Newborn 1977), then the rest sorted by the history heuristic (Schaeffer
    1989), ties broken by the static order (``Knowledge.action_order``: centre-first for Connect Four,
    centre-corners-edges for tic-tac-toe). With everything off, actions are searched in increasing
    order.
    """

    transposition_move: bool = True
    killer_moves: bool = True
    history: bool = True
    static_order: bool = True

    @classmethod
    def none(cls) -> MoveOrdering:
        """Every heuristic off: actions in increasing order."""
        return cls(transposition_move=False, killer_moves=False, history=False, static_order=False)


@dataclass(frozen=True)
class Iteration:
    """One completed iteration of iterative deepening.

    Attributes:
        depth: plies searched.
        action: best action found.
        score: its score for the player to move at the root (see the module docstring).
        nodes: nodes searched by this iteration alone.
        elapsed_s: seconds from the start of the whole search to the end of this iteration.
    """

    depth: int
    action: int
    score: int
    nodes: int
    elapsed_s: float


@dataclass(frozen=True)
class SearchResult:
    """Outcome of a search.

    Attributes:
        action: the move to play: the best action of the last completed iteration (the lowest
            action index among equally scored best actions).
        score: its score for the player to move (negamax convention, integer points).
        depth: plies of the last completed iteration (the depth completed).
        nodes: nodes searched in total, the discarded unfinished iteration included.
        elapsed_s: wall-clock seconds of the whole search.
        iterations: the completed iterations, shallowest first.
        timed_out: True if the time limit interrupted an iteration, which was then discarded.
    """

    action: int
    score: int
    depth: int
    nodes: int
    elapsed_s: float
    iterations: tuple[Iteration, ...]
    timed_out: bool

    @property
    def proven(self) -> bool:
        """True if ``score`` is a proven win or loss, not a heuristic estimate."""
        return abs(self.score) > PROVEN_THRESHOLD


#: every move-ordering heuristic on (the default)
ALL_ORDERING = MoveOrdering()
#: every move-ordering heuristic off: actions in increasing order
NO_ORDERING = MoveOrdering.none()


class _Timeout(Exception):
    """Raised inside the search when the deadline has passed; unwinds the unfinished iteration."""


#: evaluations bounded by at least this many points are used as they are (integer points, as
#: Connect Four's); smaller bounds (a value in [-1, 1], say) are stretched to it and rounded
HEURISTIC_POINTS = 1000


def static_action_order(game: Game) -> list[int]:
    """Actions from most to least promising a priori: the game's ``Knowledge.action_order()``.

    Connect Four: columns by distance from the centre column (``[3, 2, 4, 1, 5, 0, 6]``);
    tic-tac-toe: centre, corners, edges; a game without the hook: increasing order.

    Raises:
        ValueError: if the order is not a permutation of the game's actions.
    """
    order = [int(a) for a in games.knowledge(game).action_order()]
    if sorted(order) != list(range(game.num_actions)):
        raise ValueError(
            f"{game.name} action_order(): expected each of the {game.num_actions} actions once, got {order}"
        )
    return order


def default_evaluate_fn(game: Game) -> EvaluateFn:
    """The evaluation used when none is given: the game's ``Knowledge.heuristic_fn()`` in integer
    points, else all zeros.

    A heuristic with ``heuristic_bound >= HEURISTIC_POINTS`` is used unchanged (it returns
    integer points); one with a smaller bound is multiplied by ``HEURISTIC_POINTS /
    heuristic_bound`` and rounded, so that its values stay distinct as integers.

    Raises:
        ValueError: if the game has a heuristic but its bound is not a positive number below
            ``PROVEN_THRESHOLD`` points.
    """
    knowledge = games.knowledge(game)
    heuristic = knowledge.heuristic_fn()
    if heuristic is None:
        return zero_evaluate
    bound = float(knowledge.heuristic_bound)
    if not 0.0 < bound < PROVEN_THRESHOLD:
        raise ValueError(
            f"{game.name} heuristic_bound: expected a number in (0, {PROVEN_THRESHOLD}), "
            f"got {knowledge.heuristic_bound!r}"
        )
    if bound >= HEURISTIC_POINTS:
        return heuristic
    scale = HEURISTIC_POINTS / bound

    def scaled(state: tuple) -> int:
        return round(heuristic(state) * scale)

    return scaled


def default_key_fn(game: Game) -> KeyFn:
    """Transposition-table key: the game's ``Knowledge.transposition_key`` (Connect Four:
    ``current + mask``; by default the state tuple itself)."""
    return games.knowledge(game).transposition_key


class AlphaBeta:
    """Negamax alpha-beta with transposition table, iterative deepening, move ordering, quiescence.

    One object holds the configuration; each ``search`` or ``iterative_deepening`` call starts
    with an empty transposition table, killer table and history table (they are shared by the
    iterations of one iterative-deepening call).

    Args:
        game: any ``games.Game``; only its six single-state functions are used.
        evaluate_fn: heuristic score of a non-terminal state for the player to move, an integer
            strictly inside ``(-PROVEN_THRESHOLD, PROVEN_THRESHOLD)``; default
            ``default_evaluate_fn(game)``.
        ordering: which move-ordering heuristics are on (default: all).
        noisy_actions_fn: the quiescence hook: legal actions that must be searched past the
            horizon. Default: the game's ``noisy_actions`` method if it has one, else no
            quiescence. For Connect Four pass ``games.connect4.heuristic.noisy_actions``.
        max_quiescence_plies: plies the quiescence search may extend below the horizon; 0 turns
            quiescence off.
        key_fn: transposition-table key of a state (default ``default_key_fn(game)``).
        use_transposition_table: False disables the table (and so the table move).
        expand_fn: the learned-evaluation hook, ``expand_fn(state, moves, depth) -> moves``: called
            at every node before its moves are searched, with the plies left below it (``depth``;
            0 at a quiescence node, whose moves are the noisy ones), it returns the same moves in
            search order. A network evaluation (``search.hybrid``) evaluates the children of a
            frontier node there in one batched call and orders the moves by its policy. When given it replaces the killer, history and static orderings; the
            transposition-table move still goes first. Scores do not depend on it.

    Raises:
        ValueError: if ``max_quiescence_plies`` is negative.

    Attributes:
        nodes: nodes searched by the current (or last) iteration: every state entered, horizon
            and quiescence nodes included.
    """

    def __init__(
        self,
        game: Game,
        evaluate_fn: EvaluateFn | None = None,
        *,
        ordering: MoveOrdering = ALL_ORDERING,
        noisy_actions_fn: NoisyActionsFn | None = None,
        max_quiescence_plies: int = DEFAULT_MAX_QUIESCENCE_PLIES,
        key_fn: KeyFn | None = None,
        use_transposition_table: bool = True,
        expand_fn: ExpandFn | None = None,
    ) -> None:
        if max_quiescence_plies < 0:
            raise ValueError(f"max_quiescence_plies must be >= 0, got {max_quiescence_plies}")
        self.game = game
        self.evaluate_fn = evaluate_fn if evaluate_fn is not None else default_evaluate_fn(game)
        self.ordering = ordering
        if noisy_actions_fn is None:
            noisy_actions_fn = getattr(game, "noisy_actions", None)
        self.noisy_actions_fn = noisy_actions_fn
        self.max_quiescence_plies = max_quiescence_plies if noisy_actions_fn is not None else 0
        self.key_fn = key_fn if key_fn is not None else default_key_fn(game)
        self.use_transposition_table = use_transposition_table
        self.expand_fn = expand_fn
        self._static_rank = [0] * game.num_actions
        for rank, action in enumerate(static_action_order(game)):
            self._static_rank[action] = rank
        self._reorder = ordering != NO_ORDERING or expand_fn is not None
        self.nodes = 0
        self._reset()

    # ------------------------------------------------------------------------- public API
    def search(self, state: tuple, depth: int) -> SearchResult:
        """Fixed-depth search of ``state``: ``depth`` plies, no time limit.

        Raises:
            ValueError: if ``depth`` < 1 or ``state`` is terminal.
        """
        self._validate(state, depth=depth)
        start = time.perf_counter()
        self._reset()
        score, action = self._root(state, depth)
        elapsed = time.perf_counter() - start
        iteration = Iteration(depth, action, score, self.nodes, elapsed)
        return SearchResult(action, score, depth, self.nodes, elapsed, (iteration,), False)

    def iterative_deepening(
        self, state: tuple, time_limit: float | None = None, max_depth: int | None = None
    ) -> SearchResult:
        """Search depth 1, 2, ... until the time limit, ``max_depth`` or a proven result.

        The clock is checked at every node; when ``time_limit`` seconds have passed the unfinished
        iteration is abandoned and discarded, and the result is that of the last completed one.
        Depth 1 always completes, whatever the time limit, so a move is always returned. The search
        also stops early when an iteration proves a win or loss, or when no line reached the
        horizon (the score is then exact and deeper iterations cannot change it), or when the time
        is up between iterations.

        Args:
            time_limit: seconds, >= 0, or None for no limit.
            max_depth: plies, >= 1, or None for ``game.max_game_length``.

        Raises:
            ValueError: if both limits are None, ``time_limit`` < 0, ``max_depth`` < 1, or
                ``state`` is terminal.
        """
        if time_limit is None and max_depth is None:
            raise ValueError("expected a time_limit (seconds) or a max_depth (plies), got neither")
        if time_limit is not None and not time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit}")
        self._validate(state, depth=1 if max_depth is None else max_depth)
        start = time.perf_counter()
        deadline = None if time_limit is None else start + time_limit
        depth_limit = self.game.max_game_length if max_depth is None else max_depth
        self._reset()
        iterations: list[Iteration] = []
        total_nodes = 0
        timed_out = False
        for depth in range(1, depth_limit + 1):
            self._deadline = None if depth == 1 else deadline
            try:
                score, action = self._root(state, depth)
            except _Timeout:
                total_nodes += self.nodes
                timed_out = True
                break
            total_nodes += self.nodes
            iterations.append(Iteration(depth, action, score, self.nodes, time.perf_counter() - start))
            if abs(score) > PROVEN_THRESHOLD or not self._horizon_reached:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        self._deadline = None
        last = iterations[-1]
        return SearchResult(
            last.action,
            last.score,
            last.depth,
            total_nodes,
            time.perf_counter() - start,
            tuple(iterations),
            timed_out,
        )

    # ----------------------------------------------------------------------------- internals
    def _validate(self, state: tuple, depth: int) -> None:
        if not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1 ply, got {depth!r}")
        if self.game.terminal_test(state):
            raise ValueError(f"{self.game.name}: expected a non-terminal state, got a finished one: {state}")

    def _reset(self) -> None:
        self._table: dict[Hashable, tuple[int, int, int, int | None]] = {}
        self._killers: list[list[int | None]] = []
        self._history = [[0] * self.game.num_actions, [0] * self.game.num_actions]
        self._deadline: float | None = None
        self._horizon_reached = False

    def _ordered(
        self, state: tuple, moves: list[int], ply: int, table_move: int | None, depth: int
    ) -> list[int]:
        ordering = self.ordering
        if self.expand_fn is not None:
            moves = self.expand_fn(state, moves, depth)
            if ordering.transposition_move and table_move is not None and table_move in moves:
                moves = [table_move] + [a for a in moves if a != table_move]
            return moves
        if ordering.static_order:
            moves.sort(key=self._static_rank.__getitem__)
        if ordering.history:
            # stable: equal history scores keep the static order; sides alternate, so ply parity
            # identifies the side to move
            moves.sort(key=self._history[ply & 1].__getitem__, reverse=True)
        front: list[int] = []
        if ordering.transposition_move and table_move is not None and table_move in moves:
            front.append(table_move)
        if ordering.killer_moves and ply < len(self._killers):
            for killer in self._killers[ply]:
                if killer is not None and killer not in front and killer in moves:
                    front.append(killer)
        if front:
            moves = front + [a for a in moves if a not in front]
        return moves

    def _record_cutoff(self, action: int, depth: int, ply: int) -> None:
        if self.ordering.killer_moves:
            killers = self._killers
            while len(killers) <= ply:
                killers.append([None, None])
            slots = killers[ply]
            if slots[0] != action:
                slots[1] = slots[0]
                slots[0] = action
        if self.ordering.history:
            self._history[ply & 1][action] += depth * depth

    def _root(self, state: tuple, depth: int) -> tuple[int, int]:
        self.nodes = 1
        self._horizon_reached = False
        key = self.key_fn(state)
        entry = self._table.get(key) if self.use_transposition_table else None
        moves = self.game.actions(state)
        if self._reorder:
            moves = self._ordered(state, moves, 0, None if entry is None else entry[3], depth)
        result = self.game.result
        alpha = -INFINITY
        best_score, best_action = -INFINITY, moves[0]
        for action in moves:
            # the window's lower edge is one point below the best score so far, so an equal score
            # is exact (scores are integers) and ties go to the lowest action index, whatever the
            # move ordering
            score = -self._negamax(result(state, action), depth - 1, -INFINITY, -(alpha - 1), 1)
            if score > best_score or (score == best_score and action < best_action):
                best_score, best_action = score, action
                alpha = max(alpha, score)
        if self.use_transposition_table:
            self._table[key] = (depth, _to_table(best_score, 0), EXACT, best_action)
        return best_score, best_action

    def _negamax(self, state: tuple, depth: int, alpha: int, beta: int, ply: int) -> int:
        if depth <= 0:
            return self._quiescence(state, alpha, beta, ply, self.max_quiescence_plies)
        self.nodes += 1
        deadline = self._deadline
        if deadline is not None and time.perf_counter() >= deadline:
            raise _Timeout
        game = self.game
        if game.terminal_test(state):
            return terminal_score(game, state, ply)

        table_move = None
        key = None
        alpha_in = alpha
        if self.use_transposition_table:
            key = self.key_fn(state)
            entry = self._table.get(key)
            if entry is not None:
                entry_depth, entry_score, flag, table_move = entry
                if entry_depth == depth:
                    score = _from_table(entry_score, ply)
                    if abs(score) <= PROVEN_THRESHOLD:
                        # the entry's subtree reached the horizon, so this iteration's did too
                        self._horizon_reached = True
                    if flag == EXACT:
                        return score
                    if flag == LOWER_BOUND:
                        alpha = max(alpha, score)
                    else:
                        beta = min(beta, score)
                    if alpha >= beta:
                        return score

        moves = game.actions(state)
        if self._reorder:
            moves = self._ordered(state, moves, ply, table_move, depth)
        result = game.result
        best_score, best_action = -INFINITY, moves[0]
        for action in moves:
            score = -self._negamax(result(state, action), depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_action = score, action
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._record_cutoff(action, depth, ply)
                        break

        if key is not None:
            if best_score <= alpha_in:
                flag = UPPER_BOUND
            elif best_score >= beta:
                flag = LOWER_BOUND
            else:
                flag = EXACT
            self._table[key] = (depth, _to_table(best_score, ply), flag, best_action)
        return best_score

    def _quiescence(self, state: tuple, alpha: int, beta: int, ply: int, plies_left: int) -> int:
        self.nodes += 1
        deadline = self._deadline
        if deadline is not None and time.perf_counter() >= deadline:
            raise _Timeout
        game = self.game
        if game.terminal_test(state):
            return terminal_score(game, state, ply)
        self._horizon_reached = True
        best_score = self.evaluate_fn(state)
        if plies_left == 0 or best_score >= beta:
            return best_score
        noisy = self.noisy_actions_fn(state)
        if not noisy:
            return best_score
        if self.expand_fn is not None:
            noisy = self.expand_fn(state, list(noisy), 0)
        alpha = max(alpha, best_score)
        result = game.result
        for action in noisy:
            score = -self._quiescence(result(state, action), -beta, -alpha, ply + 1, plies_left - 1)
            if score > best_score:
                best_score = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best_score


def _to_table(score: int, ply: int) -> int:
    """Root-relative proven score -> node-relative (a win ``n`` plies below this node)."""
    if score > PROVEN_THRESHOLD:
        return score + ply
    if score < -PROVEN_THRESHOLD:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    """Inverse of ``_to_table`` for a node ``ply`` plies below the root."""
    if score > PROVEN_THRESHOLD:
        return score - ply
    if score < -PROVEN_THRESHOLD:
        return score + ply
    return score


def alphabeta(
    game: Game, state: tuple, depth: int, evaluate_fn: EvaluateFn | None = None, **options
) -> SearchResult:
    """Fixed-depth alpha-beta: ``AlphaBeta(game, evaluate_fn, **options).search(state, depth)``.

    Raises:
        ValueError: see ``AlphaBeta`` and ``AlphaBeta.search``.
    """
    return AlphaBeta(game, evaluate_fn, **options).search(state, depth)


def iterative_deepening(
    game: Game,
    state: tuple,
    time_limit: float | None = None,
    max_depth: int | None = None,
    evaluate_fn: EvaluateFn | None = None,
    **options,
) -> SearchResult:
    """``AlphaBeta(game, evaluate_fn, **options).iterative_deepening(state, time_limit, max_depth)``.

    Raises:
        ValueError: see ``AlphaBeta`` and ``AlphaBeta.iterative_deepening``.
    """
    return AlphaBeta(game, evaluate_fn, **options).iterative_deepening(state, time_limit, max_depth)
