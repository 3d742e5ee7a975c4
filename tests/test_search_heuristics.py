"""Connect Four evaluation, noisy moves and table key, checked against cell-by-cell oracles."""

from __future__ import annotations

import numpy as np
from helpers_games import play_moves, random_positions

from games.connect4.game import HEIGHT, WIDTH, has_four
from games.connect4.heuristic import (
    CENTRE_WEIGHT,
    MAX_EVALUATION,
    OPEN_THREE_WEIGHT,
    OPEN_TWO_WEIGHT,
    winning_cells,
)
from games.connect4.heuristic import evaluate as connect4_evaluate
from games.connect4.heuristic import noisy_actions as connect4_noisy_actions
from games.connect4.heuristic import transposition_key as connect4_key
from search.minimax import PROVEN_THRESHOLD


def _cells(state):
    """Board as ``{(col, row): 'me' | 'them'}`` from the bitboards, one cell at a time."""
    current, mask = state[0], state[1]
    board = {}
    for col in range(WIDTH):
        for row in range(HEIGHT):
            bit = 1 << (col * 7 + row)
            if mask & bit:
                board[(col, row)] = "me" if current & bit else "them"
    return board


def _oracle_evaluate(state):
    board = _cells(state)
    score = 0
    for col in range(WIDTH):
        for row in range(HEIGHT):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(col + i * dc, row + i * dr) for i in range(4)]
                if not all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in cells):
                    continue
                owners = [board.get(cell) for cell in cells]
                for who, sign in (("me", 1), ("them", -1)):
                    other = "them" if who == "me" else "me"
                    if other in owners:
                        continue
                    n = owners.count(who)
                    score += sign * {3: OPEN_THREE_WEIGHT, 2: OPEN_TWO_WEIGHT}.get(n, 0)
    for row in range(HEIGHT):
        owner = board.get((WIDTH // 2, row))
        score += CENTRE_WEIGHT * {"me": 1, "them": -1, None: 0}[owner]
    return score


def test_evaluation_matches_cell_by_cell_oracle(connect4):
    rng = np.random.default_rng(0)
    for state in random_positions(connect4, rng, 300, 41, include_terminal=True):
        if not connect4.terminal_test(state):
            assert connect4_evaluate(state) == _oracle_evaluate(state), connect4.render(state)


def test_evaluation_known_positions(connect4):
    assert connect4_evaluate(connect4.initial_state()) == 0
    # after X's centre stone, O (to move) is one centre stone down; a lone stone makes no two
    after_centre = connect4.result(connect4.initial_state(), 3)
    assert connect4_evaluate(after_centre) == -CENTRE_WEIGHT
    # X to move with an open vertical three in column 1, O with two stones side by side in 2-3
    state = connect4.initial_state()
    for action in connect4.parse_moves("12131"):
        state = connect4.result(state, action)
    assert connect4.player(state) == 1
    assert connect4_evaluate(state) == _oracle_evaluate(state)


def test_evaluation_is_mirror_symmetric_and_bounded(connect4):
    rng = np.random.default_rng(1)
    for state in random_positions(connect4, rng, 200, 41, include_terminal=True):
        if not connect4.terminal_test(state):
            value = connect4_evaluate(state)
            assert connect4_evaluate(connect4.mirror_state(state)) == value
            assert abs(value) <= MAX_EVALUATION < PROVEN_THRESHOLD


def test_winning_cells_match_brute_force(connect4):
    for current, mask, *_ in random_positions(connect4, np.random.default_rng(2), 200, 41):
        for stones in (current, current ^ mask):
            expected = 0
            for col in range(WIDTH):
                for row in range(HEIGHT):
                    bit = 1 << (col * 7 + row)
                    if not mask & bit and has_four(stones | bit):
                        expected |= bit
            assert winning_cells(stones, mask) == expected


def test_noisy_actions_are_immediate_wins_and_blocks(connect4):
    state = play_moves(connect4, "12131")
    # O to move must block X's vertical three in column 1
    assert connect4_noisy_actions(state) == [0]
    # O plays column 4 instead: X to move wins at once in column 1, and column 5 would block
    # O's bottom row 2-3-4
    assert connect4_noisy_actions(connect4.result(state, 3)) == [0, 4]
    assert connect4_noisy_actions(connect4.initial_state()) == []
    won = connect4.result(connect4.result(state, 3), 0)
    assert connect4.terminal_test(won)
    assert connect4_noisy_actions(won) == []


def test_noisy_actions_match_brute_force(connect4):
    for state in random_positions(connect4, np.random.default_rng(3), 200, 41):
        current, mask = state[0], state[1]
        expected = []
        for action in connect4.actions(state):
            bit = (mask + (1 << (7 * action))) & ~mask
            if has_four(current | bit) or has_four((current ^ mask) | bit):
                expected.append(action)
        assert connect4_noisy_actions(state) == expected


def test_key_is_unique_per_position(connect4):
    rng = np.random.default_rng(4)
    seen = {}
    for state in random_positions(connect4, rng, 2000, 12, include_terminal=True):
        position = (state[0], state[1])
        assert seen.setdefault(connect4_key(state), position) == position
    assert len(seen) > 1000
