"""The grids the web page draws (``Game.board_view``) for the shipped games, cell by cell."""

from __future__ import annotations

import pytest

import games
from games.base import CELL_MOVES, COLUMN_MOVES, DISCS, MARKS, BoardView


def _view(name: str, moves: str) -> BoardView:
    game = games.make(name)
    state = game.initial_state()
    for action in game.parse_moves(moves):
        state = game.result(state, action)
    return game.board_view(state)


def _drawing(view: BoardView) -> list[str]:
    symbols = {-1: ".", 0: "X", 1: "O"}
    return [
        "".join(symbols[view.cells[row * view.columns + col]] for col in range(view.columns))
        for row in range(view.rows)
    ]


def test_connect_four_grid_is_drawn_top_row_first_with_the_winning_diagonal():
    # X fills the rising diagonal from the bottom-left corner with its sixth stone
    view = _view("connect4", "12233434464")
    assert (view.rows, view.columns, view.move_kind, view.stone_shape) == (6, 7, COLUMN_MOVES, DISCS)
    assert view.action_targets == (0, 1, 2, 3, 4, 5, 6)
    assert _drawing(view) == [
        ".......",
        ".......",
        "...X...",
        "..XX...",
        ".XXO...",
        "XOOO.O.",
    ]
    # the four X stones (row, column) (5, 0), (4, 1), (3, 2), (2, 3) as row-major indices
    assert view.winning_cells == (2 * 7 + 3, 3 * 7 + 2, 4 * 7 + 1, 5 * 7 + 0)


def test_tic_tac_toe_grid_with_the_winning_row_and_a_draw_without_one():
    view = _view("tictactoe", "14253")
    assert (view.rows, view.columns, view.move_kind, view.stone_shape) == (3, 3, CELL_MOVES, MARKS)
    assert view.action_targets == tuple(range(9))
    assert _drawing(view) == ["XXX", "OO.", "..."]
    assert view.winning_cells == (0, 1, 2)
    drawn = _view("tictactoe", "123546879")  # X O X / X O O / O X X, cf. the drawn board of the cases
    assert drawn.winning_cells == ()
    assert -1 not in drawn.cells


def test_an_ongoing_game_has_no_winning_cells_and_an_empty_board_no_stones():
    assert _view("connect4", "").cells == (-1,) * 42
    assert _view("connect4", "4455").winning_cells == ()


def test_othello_grid_puts_black_on_x_and_the_pass_off_the_grid():
    view = _view("othello", "")
    assert (view.rows, view.columns, view.move_kind, view.stone_shape) == (8, 8, CELL_MOVES, DISCS)
    assert view.action_targets == (*range(64), None)
    assert _drawing(view)[3:5] == ["...OX...", "...XO..."]  # d4 and e5 White (O), e4 and d5 Black (X)
    after = _drawing(_view("othello", "d3"))  # Black at d3 flips d4
    assert after[2:5] == ["...X....", "...XX...", "...XO..."]


def test_board_view_rejects_inconsistent_grids():
    with pytest.raises(ValueError, match="expected 4 cells"):
        BoardView(2, 2, (-1, -1, -1), CELL_MOVES, (0,))
    with pytest.raises(ValueError, match="expected cells of -1, 0 or 1"):
        BoardView(1, 2, (-1, 2), CELL_MOVES, (0,))
    with pytest.raises(ValueError, match="move_kind"):
        BoardView(1, 2, (-1, -1), "drop", (0,))
    with pytest.raises(ValueError, match=r"action targets in \[0, 2\)"):
        BoardView(3, 2, (-1,) * 6, COLUMN_MOVES, (0, 2))
    with pytest.raises(ValueError, match="winning cells"):
        BoardView(1, 2, (-1, -1), CELL_MOVES, (0, 1), winning_cells=(2,))
    with pytest.raises(ValueError, match="stone_shape"):
        BoardView(1, 2, (-1, -1), CELL_MOVES, (0, None), stone_shape="square")
