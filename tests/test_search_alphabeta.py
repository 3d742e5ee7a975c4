"""Alpha-beta: exact against plain minimax, ordering-invariant, iterative deepening, quiescence."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers_games import play_moves, random_positions

import games
import search.alphabeta as alphabeta_module
from games.connect4.game import ConnectFour
from search.alphabeta import (
    NO_ORDERING,
    AlphaBeta,
    MoveOrdering,
    alphabeta,
    iterative_deepening,
    static_action_order,
)
from games.connect4.heuristic import evaluate as connect4_evaluate
from games.connect4.heuristic import noisy_actions as connect4_noisy_actions
from search.minimax import PROVEN_THRESHOLD, WIN_SCORE, Minimax, depth_limited_minimax


# ------------------------------------------------------------------------------- exactness
@pytest.mark.parametrize(("depth", "count", "seed"), [(3, 300, 0), (4, 100, 1)])
def test_alphabeta_equals_plain_minimax_on_random_connect4_positions(connect4, depth, count, seed):
    for state in random_positions(connect4, np.random.default_rng(seed), count, max_plies=30):
        # plain depth-limited minimax, one root action at a time; a child's proven scores count
        # plies from the child, so they are shifted by one ply to count from the root
        action_scores = {
            action: -_shift_proven(
                depth_limited_minimax(connect4, connect4.result(state, action), depth - 1, connect4_evaluate),
                -1,
            )
            for action in connect4.actions(state)
        }
        expected = max(action_scores.values())
        # ties go to the lowest action index
        best_action = min(a for a, score in action_scores.items() if score == expected)
        for ordering in (MoveOrdering(), NO_ORDERING):
            result = alphabeta(connect4, state, depth, ordering=ordering)
            assert (result.score, result.action) == (expected, best_action), connect4.render(state)


def _shift_proven(score: int, plies: int) -> int:
    """A score seen from a root ``plies`` plies higher (proven scores count plies from the root)."""
    if score > PROVEN_THRESHOLD:
        return score + plies
    if score < -PROVEN_THRESHOLD:
        return score - plies
    return score


def test_alphabeta_with_quiescence_equals_plain_minimax_with_quiescence(connect4):
    for state in random_positions(connect4, np.random.default_rng(2), 200, max_plies=30):
        for depth in (1, 2):
            expected = depth_limited_minimax(
                connect4, state, depth, connect4_evaluate, connect4_noisy_actions, max_quiescence_plies=4
            )
            result = alphabeta(
                connect4, state, depth, noisy_actions_fn=connect4_noisy_actions, max_quiescence_plies=4
            )
            assert result.score == expected, connect4.render(state)


def test_move_ordering_and_table_never_change_the_score(connect4):
    positions = [play_moves(connect4, moves) for moves in ("", "4453", "334455", "44444433")]
    for state in positions:
        expected = depth_limited_minimax(connect4, state, 4, connect4_evaluate)
        actions = set()
        for flags in itertools.product((False, True), repeat=4):
            ordering = MoveOrdering(*flags)
            for use_table in (False, True):
                result = alphabeta(connect4, state, 4, ordering=ordering, use_transposition_table=use_table)
                assert result.score == expected, (flags, use_table)
                actions.add(result.action)
        assert len(actions) == 1  # the same move too: ties go to the lowest index
        deeper = [alphabeta(connect4, state, 6, ordering=o) for o in (MoveOrdering(), NO_ORDERING)]
        assert (deeper[0].score, deeper[0].action) == (deeper[1].score, deeper[1].action)


def test_move_ordering_searches_fewer_nodes(connect4):
    state = connect4.initial_state()
    ordered = alphabeta(connect4, state, 7)
    unordered = alphabeta(connect4, state, 7, ordering=NO_ORDERING)
    assert ordered.score == unordered.score
    assert ordered.nodes < unordered.nodes / 2


def test_static_action_order():
    assert static_action_order(games.make("connect4")) == [3, 2, 4, 1, 5, 0, 6]
    assert static_action_order(games.make("tictactoe")) == [4, 0, 2, 6, 8, 1, 3, 5, 7]


# ------------------------------------------------------------------------ solved positions
def test_tictactoe_solved_by_alphabeta(tictactoe):
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    result = alphabeta(tictactoe, state, 7)
    assert (result.action, result.score) == (2, WIN_SCORE - 1)
    assert result.proven
    empty = alphabeta(tictactoe, tictactoe.initial_state(), 9)
    assert empty.score == 0
    # searched to the end, the draw is exact: iterative deepening may stop before depth 9
    # only when no line reached the horizon
    full = iterative_deepening(tictactoe, tictactoe.initial_state(), max_depth=9)
    assert full.score == 0
    assert full.depth == 9


def test_full_depth_alphabeta_agrees_with_exhaustive_minimax(tictactoe):
    solver = Minimax(tictactoe)
    for state in random_positions(tictactoe, np.random.default_rng(5), 150, max_plies=8):
        result = alphabeta(tictactoe, state, 9)
        value = solver.value(state)
        assert np.sign(result.score) == value
        assert solver.action_values(state)[result.action] == value
        assert result.proven == (value != 0)


def test_prefers_the_fastest_win(connect4):
    # X to move: column 1 wins now (vertical three); deeper wins exist too
    state = play_moves(connect4, "121314")
    assert connect4.player(state) == 0
    result = alphabeta(connect4, state, 5)
    assert (result.action, result.score) == (0, WIN_SCORE - 1)


def test_blocks_a_vertical_three(connect4):
    # O to move must block column 1
    state = play_moves(connect4, "12131")
    for depth in (2, 3, 4):
        assert alphabeta(connect4, state, depth).action == 0


# ----------------------------------------------------------------------- iterative deepening
def test_iterative_deepening_to_a_depth_matches_fixed_depth(connect4):
    state = play_moves(connect4, "4453")
    result = iterative_deepening(connect4, state, max_depth=5)
    assert [it.depth for it in result.iterations] == [1, 2, 3, 4, 5]
    assert result.depth == 5
    assert not result.timed_out
    assert result.score == depth_limited_minimax(connect4, state, 5, connect4_evaluate)
    assert result.nodes == sum(it.nodes for it in result.iterations)


def test_zero_time_limit_still_completes_depth_1(connect4):
    state = play_moves(connect4, "4453")
    result = iterative_deepening(connect4, state, time_limit=0.0)
    assert result.depth == 1
    assert result.action in connect4.actions(state)
    assert result.score == depth_limited_minimax(connect4, state, 1, connect4_evaluate)
    assert len(result.iterations) == 1


def test_time_limit_returns_a_legal_move_and_records_the_depth(connect4):
    state = connect4.initial_state()
    result = iterative_deepening(connect4, state, time_limit=0.05)
    assert result.action in connect4.actions(state)
    assert result.depth == result.iterations[-1].depth >= 1
    assert [it.depth for it in result.iterations] == list(range(1, result.depth + 1))


class _FakeClock:
    """Deterministic stand-in for ``time``: each ``perf_counter()`` call advances one tick."""

    def __init__(self) -> None:
        self.ticks = 0

    def perf_counter(self) -> float:
        self.ticks += 1
        return float(self.ticks)


def test_unfinished_iteration_is_discarded(connect4, monkeypatch):
    state = connect4.initial_state()
    clock = _FakeClock()
    monkeypatch.setattr(alphabeta_module, "time", clock)
    # the clock is read once per node, so a limit of 5,000 ticks stops the search mid-iteration
    result = AlphaBeta(connect4).iterative_deepening(state, time_limit=5_000)
    assert result.timed_out
    completed = result.iterations
    assert result.depth == completed[-1].depth == len(completed)
    assert (result.action, result.score) == (completed[-1].action, completed[-1].score)
    # the abandoned iteration's nodes are counted in the total
    assert result.nodes > sum(it.nodes for it in completed)
    monkeypatch.undo()
    # and each completed iteration is the fixed-depth search of its depth
    for iteration in completed:
        assert iteration.score == alphabeta(connect4, state, iteration.depth).score


def test_proven_result_stops_iterative_deepening(connect4):
    state = play_moves(connect4, "121314")
    result = iterative_deepening(connect4, state, max_depth=12)
    assert result.depth == 1
    assert (result.action, result.score) == (0, WIN_SCORE - 1)


# ------------------------------------------------------------------------------- quiescence
def test_quiescence_sees_the_threat_behind_the_horizon(connect4):
    # O to move; X threatens to fill the gap of its bottom row X . X X in column 2
    state = play_moves(connect4, "373543371")
    assert connect4.player(state) == 1
    plain = alphabeta(connect4, state, 1)
    quiet = alphabeta(connect4, state, 1, noisy_actions_fn=connect4_noisy_actions)
    # at depth 1 the heuristic alone misses the threat; quiescence blocks it
    assert plain.action != 1
    assert quiet.action == 1
    assert not quiet.proven
    # behind the horizon, the quiescence score of plain's choice is O's win one ply later
    child = connect4.result(state, plain.action)
    assert depth_limited_minimax(connect4, child, 0, connect4_evaluate, connect4_noisy_actions) == (
        WIN_SCORE - 1
    )
    assert depth_limited_minimax(connect4, child, 0, connect4_evaluate) == connect4_evaluate(child)


class _ConnectFourWithNoisyMoves(ConnectFour):
    """A game that declares its noisy moves: the hook ``AlphaBeta`` picks up by default."""

    def noisy_actions(self, state: tuple) -> list[int]:
        return connect4_noisy_actions(state)


def test_game_declared_noisy_actions_are_used():
    game = _ConnectFourWithNoisyMoves()
    state = play_moves(game, "373543371")
    search = AlphaBeta(game)
    assert search.noisy_actions_fn == game.noisy_actions
    assert search.search(state, 1).action == 1
    assert AlphaBeta(game, max_quiescence_plies=0).search(state, 1).action != 1


# -------------------------------------------------------------------------------- validation
def test_invalid_inputs_raise_value_error(connect4):
    state = connect4.initial_state()
    finished = play_moves(connect4, "1213141")
    assert connect4.terminal_test(finished)
    search = AlphaBeta(connect4)
    with pytest.raises(ValueError, match="depth must be"):
        search.search(state, 0)
    with pytest.raises(ValueError, match="non-terminal"):
        search.search(finished, 3)
    with pytest.raises(ValueError, match="time_limit"):
        search.iterative_deepening(state, time_limit=-1.0)
    with pytest.raises(ValueError, match="got neither"):
        search.iterative_deepening(state)
    with pytest.raises(ValueError, match="depth must be"):
        search.iterative_deepening(state, max_depth=0)
    with pytest.raises(ValueError, match="max_quiescence_plies"):
        AlphaBeta(connect4, max_quiescence_plies=-1)
