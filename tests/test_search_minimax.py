"""Exhaustive minimax: the textbook tic-tac-toe counts and solved positions (AIMA chapter 5)."""

from __future__ import annotations

import pytest

from search.minimax import (
    WIN_SCORE,
    Minimax,
    count_games,
    count_nodes,
    count_positions,
    depth_limited_minimax,
    solve,
    terminal_score,
)


def test_tictactoe_tree_counts(tictactoe):
    assert count_games(tictactoe) == 255_168
    assert count_nodes(tictactoe) == 549_946
    assert count_positions(tictactoe) == 5_478


def test_plain_minimax_visits_every_node_of_the_full_tree(tictactoe):
    search = Minimax(tictactoe, use_transposition_table=False)
    assert search.value(tictactoe.initial_state()) == 0.0
    assert search.nodes == 549_946


def test_transposition_table_holds_each_position_once(tictactoe):
    search = Minimax(tictactoe)
    assert search.value(tictactoe.initial_state()) == 0.0
    assert len(search.table) == 5_478


def test_empty_board_is_a_draw_and_every_first_move_draws(tictactoe):
    value, best = solve(tictactoe, tictactoe.initial_state())
    assert value == 0.0
    assert best == list(range(9))


@pytest.mark.parametrize(
    ("board", "value", "best"),
    [
        # X to move completes the top row at cell 2 (cells 0-8 row-major from the top-left)
        ("X X . / O O . / . . .", 1.0, [2]),
        # O to move wins at once in the middle row, ignoring X's threat at cell 2
        ("X X . / O O . / X . .", 1.0, [5]),
        # X to move must block O's middle column at cell 7; then it is a draw
        ("X O X / . O . / . . .", 0.0, [7]),
        # after a corner opening, only the centre reply draws
        ("X . . / . . . / . . .", 0.0, [4]),
        # after a centre opening, only the corner replies draw
        (". . . / . X . / . . .", 0.0, [0, 2, 6, 8]),
        # corner, centre, opposite corner: O must take an edge, a corner loses
        ("X . . / . O . / . . X", 0.0, [1, 3, 5, 7]),
        # corner, adjacent edge: X wins, and exactly these three moves keep the win
        ("X O . / . . . / . . .", 1.0, [3, 4, 6]),
        # O to move faces a double threat (cells 1 and 5): every move loses
        ("X . X / . O . / O . X", -1.0, [1, 3, 5, 7]),
    ],
)
def test_solved_positions_from_board_drawings(tictactoe, board, value, best):
    state = tictactoe.state_from_board(board)
    assert solve(tictactoe, state) == (value, best)


def test_action_values_are_negamax_values_of_the_children(tictactoe):
    state = tictactoe.state_from_board("X O X / . O . / . . .")
    values = Minimax(tictactoe).action_values(state)
    assert values == {3: -1.0, 5: -1.0, 6: -1.0, 7: 0.0, 8: -1.0}


def test_terminal_state_is_rejected(tictactoe):
    finished = tictactoe.state_from_board("X X X / O O . / . . .")
    with pytest.raises(ValueError, match="non-terminal"):
        solve(tictactoe, finished)
    with pytest.raises(ValueError, match="non-terminal"):
        Minimax(tictactoe).best_actions(finished)


def test_terminal_score_prefers_faster_wins(tictactoe):
    # O to move has lost: the score is for the player to move, so negative
    lost = tictactoe.state_from_board("X X X / O O . / . . .")
    assert terminal_score(tictactoe, lost, 1) == -(WIN_SCORE - 1)
    assert terminal_score(tictactoe, lost, 5) == -(WIN_SCORE - 5)
    drawn = tictactoe.state_from_board("X O X / X O O / O X X")
    assert terminal_score(tictactoe, drawn, 3) == 0


def test_depth_limited_minimax_scores(tictactoe):
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    # depth 0 is the evaluation (zero here); depth 1 sees the win one ply down
    assert depth_limited_minimax(tictactoe, state, 0) == 0
    assert depth_limited_minimax(tictactoe, state, 1) == WIN_SCORE - 1
    # searched to the end, the forced block at cell 7 leads to a draw
    blocked = tictactoe.state_from_board("X O X / . O . / . . .")
    assert depth_limited_minimax(tictactoe, blocked, 5) == 0
    assert depth_limited_minimax(tictactoe, tictactoe.result(blocked, 3), 4) == WIN_SCORE - 1


@pytest.mark.parametrize(("depth", "quiescence"), [(-1, 0), (2, -1)])
def test_depth_limited_minimax_rejects_negative_limits(tictactoe, depth, quiescence):
    with pytest.raises(ValueError, match=">= 0"):
        depth_limited_minimax(tictactoe, tictactoe.initial_state(), depth, max_quiescence_plies=quiescence)
