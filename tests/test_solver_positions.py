"""The project's labelled Connect Four sets: files parse, loader errors, stored scores re-solve."""

from __future__ import annotations

import numpy as np
import pytest

from arena.positions.connect4 import (
    NO_SCORE,
    SET_NAMES,
    load_position_set,
    parse_position_lines,
    position_set_names,
)
from games.connect4.solver import Solver, parse_moves


def plies_left(ply: int, score: int) -> int:
    """Same rule as scripts/make_connect4_sets.py, restated to check the buckets independently."""
    if score == 0:
        return 42 - ply
    winner_stones = 22 - abs(score)
    if score > 0:
        return 2 * (winner_stones - ply // 2) - 1
    return 2 * (winner_stones - (ply + 1) // 2)


PLY_RANGE = {"begin": (1, 14), "middle": (15, 28), "end": (29, 41)}
LEFT_RANGE = {"easy": (0, 13), "medium": (14, 27), "hard": (28, 41)}


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(use_book=False)


def test_all_six_sets_are_shipped():
    assert position_set_names() == list(SET_NAMES)


@pytest.mark.parametrize("name", SET_NAMES)
def test_set_parses_and_matches_its_bucket(name):
    s = load_position_set(name)
    assert len(s) >= 10
    assert s.scores.shape == (len(s), 7) and s.scores.dtype == np.int8
    assert len(set(s.moves)) == len(s)
    ply_lo, ply_hi = PLY_RANGE[name.split("_")[0]]
    left_lo, left_hi = LEFT_RANGE[name.split("_")[1]]
    for moves, row, value in zip(s.moves, s.scores, s.values):
        p = parse_moves(moves)  # legal and not finished
        assert ply_lo <= p.num_moves <= ply_hi
        assert left_lo <= plies_left(p.num_moves, int(value)) <= left_hi, (moves, value)
        full = [moves.count(str(c)) == 6 for c in range(1, 8)]
        assert (row == NO_SCORE).tolist() == full
    assert s.optimal_mask.any(axis=1).all()
    assert (s.optimal_mask <= s.legal_mask).all()


@pytest.mark.parametrize("name", ["end_easy", "middle_easy", "middle_medium", "begin_easy"])
def test_sample_re_solves_to_stored_scores(solver, name):
    s = load_position_set(name)
    for i in np.random.default_rng(0).choice(len(s), size=min(8, len(s)), replace=False):
        stored = [None if v == NO_SCORE else int(v) for v in s.scores[i]]
        assert solver.analyze(s.moves[i]) == stored, s.moves[i]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["begin_medium", "begin_hard"])
def test_sample_re_solves_to_stored_scores_slow(solver, name):
    s = load_position_set(name)
    for i in np.random.default_rng(1).choice(len(s), size=min(3, len(s)), replace=False):
        stored = [None if v == NO_SCORE else int(v) for v in s.scores[i]]
        assert solver.analyze(s.moves[i]) == stored, s.moves[i]


def test_unknown_set_name_raises():
    with pytest.raises(ValueError, match="unknown position set 'nope'; expected one of"):
        load_position_set("nope")


@pytest.mark.parametrize(
    "line,words",
    [
        ("4455 1 2 3", "expected MOVES and 7 scores, got 4 fields"),
        ("44a5 1 2 3 4 5 6 7", "position '44a5' must be column digits 1-7"),
        ("4455 1 2 x 4 5 6 7", "score 'x' is neither an integer nor '-'"),
        ("4455 1 2 19 4 5 6 7", "score 19 outside -18..18"),
        ("4455 - - - - - - -", "no legal column"),
    ],
)
def test_malformed_lines_raise(line, words):
    with pytest.raises(ValueError, match=f"src line 2: {words}"):
        parse_position_lines(["# comment", line], "src")


def test_parse_lines_reads_dashes_and_comments():
    moves, scores = parse_position_lines(["# header", "", "4455 -4 -3 18 2 2 18 -3", "1111112 - 0 0 0 0 0 0"])
    assert moves == ["4455", "1111112"]
    assert scores.tolist() == [[-4, -3, 18, 2, 2, 18, -3], [NO_SCORE, 0, 0, 0, 0, 0, 0]]
