"""Chosen-move mistakes on Pons' sets: one null-window solve per chosen move, cached.

Pons-format files are built from the project's own labelled sets (every column's exact score is
shipped in ``arena/positions/connect4``), so the exact mistakes are known and no outside data is
needed.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers_positions import own_set_mistakes as exact_mistakes
from helpers_positions import pons_file_of_own_set

import games
from arena.accuracy import chosen_move_rate, labelled_sets, mistake_rate, player_actions
from arena.players import AlphaBetaPlayer
from arena.positions import pons, position_sets
from arena.positions.connect4 import load_position_set
from arena.positions.pons_chosen import UNKNOWN, chosen_move_mistakes, load_mistakes
from frontends.arena_cli import main
from games.connect4.solver import Solver

SET = "pons-begin-hard"


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(tt_size=(1 << 20) + 7)


@pytest.fixture
def own_set():
    return load_position_set("middle_medium")


@pytest.fixture
def pons_dir(tmp_path, monkeypatch, own_set):
    """``pons-begin-hard``'s file holding the project's middle_medium positions (score: the best
    column's), with an empty cache of the test's own."""
    return pons_file_of_own_set(tmp_path, monkeypatch, own_set, SET)


def kth_legal(own_set, k: int) -> np.ndarray:
    """``[N]`` the ``k``-th legal column of each position (cycling)."""
    legal = own_set.legal_mask
    return np.array([np.flatnonzero(row)[k % row.sum()] for row in legal], dtype=np.int64)


# --------------------------------------------------------------------------- the null-window solve
def test_move_reaches_agrees_with_the_exact_scores_of_every_column(solver, own_set):
    for moves, scores, legal in zip(own_set.moves[:60], own_set.scores[:60], own_set.legal_mask[:60]):
        for column in np.flatnonzero(legal):
            outcome = int(np.sign(scores[column]))
            assert solver.move_reaches(moves, int(column), 1) == (outcome == 1), (moves, column)
            assert solver.move_reaches(moves, int(column), 0) == (outcome >= 0), (moves, column)


def test_move_reaches_of_known_positions(solver):
    # "4455": columns 3 and 6 make an open three on the bottom row and win (Pons scores it 18)
    assert solver.move_reaches("4455", 2, 1) and solver.move_reaches("4455", 5, 1)
    assert not solver.move_reaches("4455", 0, 1)
    # "44455554221": the opponent wins next move whatever is played
    assert not any(solver.move_reaches("44455554221", c, 0) for c in range(7))
    # an immediate win is found without a search
    assert solver.move_reaches("445566", 6, 1) and solver.node_count == 0


@pytest.mark.parametrize(
    ("column", "target", "message"),
    [(7, 1, "column must be an int in 0..6"), (3, 2, "target must be 0"), (0, True, "target must be 0")],
)
def test_move_reaches_rejects_bad_arguments(solver, column, target, message):
    with pytest.raises(ValueError, match=message):
        solver.move_reaches("44", column, target)


def test_move_reaches_rejects_a_full_column(solver):
    with pytest.raises(ValueError, match="column 4 of '444444' is full"):
        solver.move_reaches("444444", 3, 1)


# --------------------------------------------------------------------------- chosen moves
def test_chosen_moves_match_the_exact_labels_and_are_cached(pons_dir, own_set):
    exact = exact_mistakes(own_set)
    rows = np.arange(len(own_set.moves))
    first = kth_legal(own_set, 0)
    result = chosen_move_mistakes(SET, first)
    assert result["positions"] == 200
    assert np.array_equal(result["mistakes"], exact[rows, first])
    lost = own_set.values < 0
    assert result["solved"] == int((~lost).sum())  # lost positions need no search
    again = chosen_move_mistakes(SET, first)
    assert again["solved"] == 0 and np.array_equal(again["mistakes"], result["mistakes"])
    # another column per position: only the new pairs are searched, answers still exact
    second = kth_legal(own_set, 3)
    other = chosen_move_mistakes(SET, second, workers=2)
    assert np.array_equal(other["mistakes"], exact[rows, second])
    assert other["solved"] == int(((first != second) & ~lost).sum())
    known = load_mistakes(pons.read_set(SET))
    assert np.array_equal(known[rows, first], exact[rows, first].astype(np.int8))


def test_a_changed_line_is_asked_again(pons_dir, own_set):
    first = kth_legal(own_set, 0)
    chosen_move_mistakes(SET, first[:10])
    path = pons_dir / pons.SETS[SET]
    lines = path.read_text().splitlines()
    lines[4] = f"{own_set.moves[5]} {int(own_set.values[5])}"  # line 5 now holds line 6's position
    path.write_text("\n".join(lines) + "\n")
    actions = first[:10].copy()
    actions[4] = first[5]
    known = load_mistakes(pons.read_set(SET))
    assert known[4, actions[4]] == UNKNOWN or own_set.values[5] < 0
    result = chosen_move_mistakes(SET, actions)
    assert result["solved"] == (0 if own_set.values[5] < 0 else 1)
    assert bool(result["mistakes"][4]) == bool(exact_mistakes(own_set)[5, first[5]])


def test_full_labels_are_used_without_searching(pons_dir, own_set):
    pons.label_set(SET, limit=30)
    first = kth_legal(own_set, 1)
    result = chosen_move_mistakes(SET, first[:30])
    assert result["solved"] == 0
    assert np.array_equal(result["mistakes"], exact_mistakes(own_set)[np.arange(30), first[:30]])


def test_bad_actions_are_named(pons_dir, own_set):
    actions = kth_legal(own_set, 0)
    full = np.flatnonzero(~own_set.legal_mask.all(axis=1))
    with pytest.raises(ValueError, match=r"expected \[K <= 200\] integer actions"):
        chosen_move_mistakes(SET, np.zeros(201, dtype=np.int64))
    with pytest.raises(ValueError, match="line 3 .*column 8 is not a legal move"):
        bad = actions.copy()
        bad[2] = 7
        chosen_move_mistakes(SET, bad)
    if len(full):
        line = int(full[0])
        bad = actions.copy()
        bad[line] = int(np.flatnonzero(~own_set.legal_mask[line])[0])
        with pytest.raises(ValueError, match=f"line {line + 1} .*is not a legal move"):
            chosen_move_mistakes(SET, bad)
    with pytest.raises(ValueError, match="workers must be an integer >= 1"):
        chosen_move_mistakes(SET, actions, workers=0)


def test_chosen_move_rate_of_a_player_equals_the_full_label_rate(pons_dir, own_set):
    game = games.make("connect4")
    player = AlphaBetaPlayer(depth=2)
    row = chosen_move_rate(game, SET, lambda positions: player_actions(game, player, positions), limit=50)
    pons.label_set(SET, limit=50)
    labelled = labelled_sets(game, [SET])[SET]
    expected = mistake_rate(labelled, player_actions(game, player, labelled))
    assert row["positions"] == 50 and row["mistake_rate"] == expected
    assert row["mistakes"] == round(expected * 50)


def test_arena_accuracy_chosen_moves_command(pons_dir, own_set, capsys):
    assert (
        main(
            [
                "accuracy",
                "alphabeta:depth=2",
                "--game",
                "connect4",
                "--set",
                SET,
                "--chosen-moves",
                "--limit",
                "40",
                "--json",
            ]
        )
        == 0
    )
    row = json.loads(capsys.readouterr().out)["sets"][SET]
    game = games.make("connect4")
    actions = player_actions(
        game, AlphaBetaPlayer(depth=2), load_position_set("middle_medium").to_labelled_set(game).head(40)
    )
    assert row["positions"] == 40
    assert row["mistakes"] == int(exact_mistakes(own_set)[np.arange(40), actions].sum())
    assert main(["accuracy", "random", "--game", "tictactoe", "--chosen-moves"]) == 2
    assert "--chosen-moves measures the sets a game lists for it" in capsys.readouterr().err
    assert main(["accuracy", "random", "--game", "connect4", "--set", "pons-end-easy", "--chosen-moves"]) == 2
    assert "unknown set 'pons-end-easy'; expected one of ['pons-begin-hard', 'pons']" in capsys.readouterr().err


def test_game_hooks_for_chosen_move_sets(pons_dir, own_set):
    game = games.make("connect4")
    assert position_sets(game).chosen_move_set_names() == [SET]
    assert position_sets(game).chosen_move_positions(SET) == own_set.moves
    with pytest.raises(ValueError, match="no set measured by chosen moves named 'middle_easy'"):
        position_sets(game).chosen_move_positions("middle_easy")
    assert position_sets(games.make("tictactoe")).chosen_move_set_names() == []
