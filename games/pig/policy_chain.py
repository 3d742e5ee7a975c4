"""Exact win probabilities of two stationary Pig policies against each other.

A stationary deterministic policy of Pig is a table: hold or roll at each decision state
``(i, j, k)`` (own score, opponent's score, turn total of the player to move). Two such policies,
one per seat, make the game a Markov chain over those states whose only randomness is the die,
so the probability that each side wins is the solution of linear equations, solved here the way
``games.pig.solver`` solves optimal play (Neller & Presser, "Optimal Play of the Dice Game Pig",
*The UMAP Journal* 25(1), 2004, section "Solving Pig"), with the ``max`` of the optimality
equations replaced by each policy's own choice. With ``V_A(i, j, k)`` the probability that A wins
when A is to move (A's score ``i``, B's ``j``) and ``V_B(i, j, k)`` the same probability when B is
to move (B's score ``i``, A's ``j``), and a ``d``-sided die:

* A holds: ``V_A(i, j, k) = V_B(j, i + k, 0)``;
* A rolls: ``V_A(i, j, k) = V_B(j, i, 0) / d + sum_{r=2..d} [i + k + r >= goal ? 1 : V_A(i, j, k + r)] / d``;
* B's equations mirror these, a total reaching the goal counting 0 for A.

Every dependency has a larger score sum or the same one, so the sums are solved from the largest
down, Gauss-Seidel within a sum (turn totals from the largest down) until no value moves by more
than ``tolerance``. Started from 0 the iteration rises to the smallest solution, which is the
probability of winning in finitely many turns: two policies that both hold with a turn total of
0 pass the turn for ever from such a state, and that mass (``1 - P(A wins) - P(B wins)``) is what
the game's horizon (``games.pig.game``) would score as a draw. Like the solver, the horizon is
otherwise ignored.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.pig.game import HOLD, Pig
from games.pig.solver import DEFAULT_TOLERANCE, PigSolver, solver_for

#: sweeps within one score sum before the iteration is declared stuck
MAX_SWEEPS_PER_SUM = 100_000


@njit(cache=True)
def _policy_values(die, holds, a_reward, tolerance, max_sweeps, values):
    """Fills ``values`` (``[2, goal, goal, goal]`` float64: seat A's, then seat B's win probability
    of ``a_reward``) for the hold tables ``holds`` (``[2, goal, goal, goal]`` bool, A's then B's);
    returns -1, or the score sum that did not settle within ``max_sweeps`` sweeps."""
    goal = holds.shape[1]
    hold_a, hold_b = holds[0], holds[1]
    va, vb = values[0], values[1]
    b_reward = 1.0 - a_reward
    for total in range(2 * goal - 2, -1, -1):
        low = max(0, total - (goal - 1))
        high = min(goal - 1, total)
        sweeps = 0
        while True:
            sweeps += 1
            delta = 0.0
            for i in range(low, high + 1):
                j = total - i
                for k in range(goal - 1 - i, -1, -1):
                    # A to move, A's score i, B's score j
                    if hold_a[i, j, k]:
                        value = vb[j, i + k, 0]
                    else:
                        value = vb[j, i, 0] / die
                        for face in range(2, die + 1):
                            value += (a_reward if i + k + face >= goal else va[i, j, k + face]) / die
                    change = abs(value - va[i, j, k])
                    if change > delta:
                        delta = change
                    va[i, j, k] = value
                    # B to move, B's score i, A's score j
                    if hold_b[i, j, k]:
                        value = va[j, i + k, 0]
                    else:
                        value = va[j, i, 0] / die
                        for face in range(2, die + 1):
                            value += (b_reward if i + k + face >= goal else vb[i, j, k + face]) / die
                    change = abs(value - vb[i, j, k])
                    if change > delta:
                        delta = change
                    vb[i, j, k] = value
            if delta < tolerance:
                break
            if sweeps >= max_sweeps:
                return total
    return -1


def _check_table(name: str, table, goal: int) -> np.ndarray:
    table = np.asarray(table)
    if table.shape != (goal, goal, goal) or table.dtype != np.bool_:
        raise ValueError(f"{name}: expected a [{goal}, {goal}, {goal}] bool hold table, got {table.dtype} {table.shape}")
    return np.ascontiguousarray(table)


def policy_win_probabilities(
    goal: int, die: int, hold_first, hold_second, tolerance: float = DEFAULT_TOLERANCE
) -> tuple[float, float]:
    """``(P(first player wins), P(second player wins))`` from the start of a game of Pig.

    Args:
        goal, die: the game's parameters (``goal`` >= 1, ``die`` >= 2).
        hold_first, hold_second: ``[goal, goal, goal]`` bool, True where that seat's policy holds at
            ``(own score, opponent's score, turn total)``; entries with ``own + turn >= goal`` are
            not read (only holding is legal there, and it wins).
        tolerance: convergence threshold of the iteration.

    Returns:
        The two probabilities; their sum is below 1 by the probability that the game never ends
        (module docstring).

    Raises:
        ValueError: for tables of another shape or dtype, or if the iteration does not settle
            within ``MAX_SWEEPS_PER_SUM`` sweeps of one score sum.
    """
    if isinstance(goal, bool) or not isinstance(goal, (int, np.integer)) or goal < 1:
        raise ValueError(f"goal must be an integer >= 1, got {goal!r}")
    if isinstance(die, bool) or not isinstance(die, (int, np.integer)) or die < 2:
        raise ValueError(f"die must be an integer >= 2, got {die!r}")
    goal, die = int(goal), int(die)
    holds = np.stack([_check_table("hold_first", hold_first, goal), _check_table("hold_second", hold_second, goal)])
    out = []
    for a_reward in (1.0, 0.0):  # the first player's wins, then the second player's
        values = np.zeros((2, goal, goal, goal))
        stuck = _policy_values(die, holds, a_reward, float(tolerance), MAX_SWEEPS_PER_SUM, values)
        if stuck >= 0:
            raise ValueError(f"the policies' chain did not settle at score sum {stuck} within {MAX_SWEEPS_PER_SUM} sweeps")
        out.append(float(values[0, 0, 0, 0]))  # A (the first player) to move at the start
    return out[0], out[1]


def decision_states(game: Pig, to_play: int) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every decision state where rolling is legal, seen from seat ``to_play``.

    Returns:
        ``(states, (i, j, k))``: ``[M, 8]`` int64 states (``Pig.states_at``) and the ``[M]`` int64
        own score, opponent's score and turn total of each, for all ``i, j < goal`` and
        ``k < goal - i`` (``M = goal^2 (goal + 1) / 2``).
    """
    goal = game.goal
    i, j, k = np.meshgrid(np.arange(goal), np.arange(goal), np.arange(goal), indexing="ij")
    keep = i + k < goal
    i, j, k = i[keep], j[keep], k[keep]
    return game.states_at(i, j, k, to_play=to_play), (i, j, k)


def hold_table(game: Pig, policy_fn, to_play: int, batch_size: int = 65_536) -> np.ndarray:
    """``[goal, goal, goal]`` bool: where ``policy_fn`` holds, asked once at every decision state.

    Args:
        policy_fn: ``policy_fn(states)`` with ``[B, 8]`` int64 decision states, returning ``[B]``
            int actions (``ROLL`` 0 or ``HOLD`` 1).
        to_play: the seat the policy plays (0 or 1); the states are built for it.
        batch_size: states per call.

    Raises:
        ValueError: if ``policy_fn`` returns another shape or an action other than 0 or 1.
    """
    states, (i, j, k) = decision_states(game, to_play)
    table = np.zeros((game.goal, game.goal, game.goal), dtype=bool)
    for begin in range(0, len(states), batch_size):
        rows = slice(begin, begin + batch_size)
        actions = np.asarray(policy_fn(states[rows]))
        if actions.shape != (len(states[rows]),) or not np.all((actions == 0) | (actions == 1)):
            raise ValueError(f"policy_fn: expected [{len(states[rows])}] actions in {{0, 1}}, got {actions.shape} {np.unique(actions)}")
        table[i[rows], j[rows], k[rows]] = actions == HOLD
    return table


def optimal_hold_table(solver: PigSolver) -> np.ndarray:
    """``[goal, goal, goal]`` bool: where optimal play holds (``PigSolver.optimal_action``: hold
    only where holding is strictly better than rolling)."""
    goal, die, win = solver.goal, solver.die, solver.win_table
    i, j, k = np.meshgrid(np.arange(goal), np.arange(goal), np.arange(goal), indexing="ij")
    valid = i + k < goal
    roll = (1.0 - win[j, i, 0]) / die
    for face in range(2, die + 1):
        total = k + face
        reached = i + total >= goal
        roll = roll + np.where(reached, 1.0, win[i, j, np.minimum(total, goal - 1)]) / die
    hold = 1.0 - win[j, np.minimum(i + k, goal - 1), 0]
    return valid & (hold > roll)


def hold_at_table(goal: int, threshold: int) -> np.ndarray:
    """``[goal, goal, goal]`` bool: "hold at ``threshold``", the policy that rolls until the turn
    total reaches ``threshold`` (or the goal) and then holds (Neller & Presser, "hold at 20")."""
    k = np.arange(goal)
    return np.broadcast_to(k[None, None, :] >= threshold, (goal, goal, goal)).copy()


def tables_match_against_optimal(game: Pig, tables: np.ndarray, optimal: np.ndarray | None = None) -> dict:
    """Exact results of a hold table per seat against optimal play, from each seat.

    Args:
        tables: ``[2, goal, goal, goal]`` bool, the policy's ``hold_table`` as the first and as the
            second player.
        optimal: the optimal player's ``[goal, goal, goal]`` table (``optimal_hold_table``); None
            computes it from ``games.pig.solver``.

    Returns:
        ``{"as_first": {"win", "loss", "unfinished"}, "as_second": {...}, "mean_win": float}``:
        probabilities from the policy's side (``unfinished``: the game never ends, a draw at the
        horizon); ``mean_win`` averages the two seats' ``win`` (0.5 for a policy as good as optimal).
    """
    if optimal is None:
        optimal = optimal_hold_table(solver_for(game))
    out = {}
    for seat, label in ((0, "as_first"), (1, "as_second")):
        first, second = (tables[0], optimal) if seat == 0 else (optimal, tables[1])
        p_first, p_second = policy_win_probabilities(game.goal, game.die, first, second)
        win, loss = (p_first, p_second) if seat == 0 else (p_second, p_first)
        out[label] = {"win": win, "loss": loss, "unfinished": max(0.0, 1.0 - win - loss)}
    out["mean_win"] = 0.5 * (out["as_first"]["win"] + out["as_second"]["win"])
    return out


def policy_match_against_optimal(game: Pig, policy_fn, batch_size: int = 65_536) -> dict:
    """Exact results of a stationary policy against optimal play (``games.pig.solver``), from each
    seat: :func:`tables_match_against_optimal` of its ``hold_table`` at each seat.

    Args:
        policy_fn: as ``hold_table``; asked once at every decision state of each seat.

    Returns:
        as :func:`tables_match_against_optimal`.

    Raises:
        ValueError: as ``hold_table``.
    """
    tables = np.stack([hold_table(game, policy_fn, seat, batch_size) for seat in (0, 1)])
    return tables_match_against_optimal(game, tables)
