"""Draws, every winning line, symmetries, colour-swapped encodings and known positions of both games."""

from __future__ import annotations

import numpy as np
import pytest

import games
from games import bitboard as bb
from games.connect4.game import WIN_LINES as CONNECT4_LINES
from games.tictactoe import WIN_LINES as TICTACTOE_LINES

TTT = games.make("tictactoe")
C4 = games.make("connect4")

# A full Connect Four board with no four in a row, found by a seeded random playout.
CONNECT4_DRAWN_GAME = "666165577462463234152541333211132724554777"
# A Connect Four game whose 42nd move (the last empty cell) completes a line for O.
CONNECT4_LAST_CELL_WIN = "452122443333557614475355231164712717276666"


def row(state_tuple):
    return np.array([state_tuple], dtype=np.int64)


# ------------------------------------------------------------------------------ draws and termination
def test_tictactoe_full_board_draw_is_terminal_with_value_zero_for_both_sides():
    p4 = TTT.state_from_board("X O X / X O O / O X X")
    assert TTT.terminal_test(p4)
    assert TTT.utility(p4, 0) == 0.0 and TTT.utility(p4, 1) == 0.0
    assert TTT.terminal_value(row(p4))[0] == 0.0
    assert TTT.winner(row(p4))[0] == -1
    assert not TTT.legal_mask(row(p4)).any()


def test_one_empty_cell_left_is_not_terminal_and_its_only_move_draws():
    p5 = TTT.state_from_board("X O X / X O O / O X .")
    assert not TTT.terminal_test(p5)
    assert TTT.player(p5) == 0
    assert TTT.actions(p5) == [8]
    after = TTT.result(p5, 8)
    assert TTT.terminal_test(after) and after[bb.STATUS] == bb.DRAW
    assert TTT.terminal_value(row(after))[0] == 0.0


def test_connect4_full_drawn_board():
    state = C4.states_from_moves([CONNECT4_DRAWN_GAME])
    assert C4.ply(state)[0] == 42
    assert C4.terminal(state)[0] and C4.winner(state)[0] == -1
    assert C4.terminal_value(state)[0] == 0.0
    single = tuple(int(v) for v in state[0])
    assert C4.utility(single, 0) == 0.0 and C4.utility(single, 1) == 0.0
    assert not C4.legal_mask(state).any()
    # one move earlier the game was still on
    assert not C4.terminal(C4.states_from_moves([CONNECT4_DRAWN_GAME[:-1]]))[0]


# ------------------------------------------------------------------------------ every winning line
def _check_completing_move(game, before_moves: str, action: int, colour: int):
    state = game.states_from_moves([before_moves])
    assert not game.terminal(state)[0]
    assert game.to_play(state)[0] == colour
    after = game.step(state, np.array([action]))
    assert game.terminal(after)[0]
    assert game.winner(after)[0] == colour
    assert game.terminal_value(after)[0] == -1.0  # the player to move has lost
    assert not game.legal_mask(after).any()
    for a in range(game.num_actions):
        with pytest.raises(ValueError, match="finished game"):
            game.step(after, np.array([a]))


def _last_move_lines(lines, state_tuple, colour, last_bit):
    current, mask, _ply, _ = state_tuple
    winner_stones = current ^ mask  # the player who just moved
    return [i for i, line in enumerate(lines) if line & last_bit and winner_stones & line == line]


def test_every_tictactoe_line_both_colours_and_on_the_last_cell():
    found: dict[tuple[int, int], str] = {}
    last_cell: dict[int, str] = {}

    def walk(state, moves):
        for action in TTT.actions(state):
            child = TTT.result(state, action)
            if child[bb.STATUS] in (bb.FIRST_PLAYER_WON, bb.SECOND_PLAYER_WON):
                colour = child[bb.STATUS] - bb.FIRST_PLAYER_WON
                for line in _last_move_lines(TTT_LINES_PY, child, colour, 1 << action):
                    found.setdefault((line, colour), moves + str(action + 1))
                    if child[bb.PLY] == 9:
                        last_cell.setdefault(line, moves + str(action + 1))
            elif child[bb.STATUS] == bb.ONGOING:
                walk(child, moves + str(action + 1))

    walk(TTT.initial_state(), "")
    assert len(found) == 16
    assert sorted(last_cell) == list(range(8))  # X completes each line with the 9th stone
    for (line, colour), moves in found.items():
        _check_completing_move(TTT, moves[:-1], int(moves[-1]) - 1, colour)
    for moves in last_cell.values():
        _check_completing_move(TTT, moves[:-1], int(moves[-1]) - 1, 0)


TTT_LINES_PY = [int(v) for v in TICTACTOE_LINES]


def test_every_connect4_line_both_colours():
    assert len(CONNECT4_LINES) == 69
    rng = np.random.default_rng(2024)
    found: dict[tuple[int, int], str] = {}
    batch = 2048
    for _ in range(40):
        states = C4.initial_states(batch)
        moves = np.full((batch, 42), -1, dtype=np.int64)
        for ply in range(42):
            mask = C4.legal_mask(states)
            live = mask.any(axis=1)
            if not live.any():
                break
            actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
            states[live] = C4.step(states[live], actions[live])
            moves[live, ply] = actions[live]
        for b in np.flatnonzero(C4.winner(states) >= 0):
            played = moves[b][moves[b] >= 0]
            colour = int(C4.winner(states[b : b + 1])[0])
            before = C4.states_from_moves([C4.format_moves(played[:-1])])[0]
            column = int(played[-1])
            last_bit = (int(before[bb.MASK]) + (1 << (7 * column))) & ~int(before[bb.MASK])
            for line in _last_move_lines(CONNECT4_LINES, tuple(int(v) for v in states[b]), colour, last_bit):
                found.setdefault((line, colour), C4.format_moves(played))
        if len(found) == 138:
            break
    assert len(found) == 138, f"covered {len(found)} of 138 (line, colour) pairs"
    for (line, colour), text in found.items():
        _check_completing_move(C4, text[:-1], int(text[-1]) - 1, colour)


def test_connect4_win_on_the_last_empty_cell_beats_the_draw():
    _check_completing_move(C4, CONNECT4_LAST_CELL_WIN[:-1], int(CONNECT4_LAST_CELL_WIN[-1]) - 1, 1)
    assert C4.ply(C4.states_from_moves([CONNECT4_LAST_CELL_WIN]))[0] == 42


def test_parse_rejects_moves_after_the_game_is_won():
    with pytest.raises(ValueError, match="move 8: the game is already over"):
        C4.parse_moves("1212121" + "3")
    with pytest.raises(ValueError, match="move 6: the game is already over"):
        TTT.parse_moves("14253" + "6")


# ------------------------------------------------------------------------------ tic-tac-toe symmetries
def test_tictactoe_symmetries_move_masks_and_policies_with_the_board():
    perms = TTT.action_symmetries
    assert perms.shape == (8, 9)
    assert perms[1].tolist() == [2, 5, 8, 1, 4, 7, 0, 3, 6]  # 90 degrees clockwise
    assert len({tuple(p) for p in perms}) == 8
    state = row(TTT.state_from_board("X . . / . O . / . . X"))  # O to move
    obs = TTT.observation(state)
    mask = TTT.legal_mask(state)
    policy = np.arange(9, dtype=np.float32)[None] * mask
    rotated = TTT.transform_observation(obs, 1)
    # after a clockwise turn, X's top-left stone sits top-right
    opponent_plane = rotated[0, 1]
    assert opponent_plane[0, 2] == 1 and opponent_plane[2, 0] == 1 and opponent_plane[0, 0] == 0
    rotated_policy = TTT.transform_policy(policy, 1)
    assert rotated_policy[0, 2] == policy[0, 0] and rotated_policy[0, 5] == policy[0, 1]
    rotated_mask = TTT.transform_policy(mask, 1)
    assert not rotated_mask[0, 2] and not rotated_mask[0, 4] and not rotated_mask[0, 6]
    for g in range(8):
        inverse = int(np.flatnonzero([np.array_equal(perms[h][perms[g]], np.arange(9)) for h in range(8)])[0])
        np.testing.assert_array_equal(TTT.transform_observation(TTT.transform_observation(obs, g), inverse), obs)
        np.testing.assert_array_equal(TTT.transform_policy(TTT.transform_policy(policy, g), inverse), policy)


# ------------------------------------------------------------------------------ Connect Four mirror
def test_connect4_mirror_moves_board_mask_and_policy():
    state = C4.states_from_moves(["1122375"])
    obs, mask = C4.observation(state), C4.legal_mask(state)
    policy = np.array([[0.5, 0.2, 0.1, 0.1, 0.05, 0.05, 0.0]], dtype=np.float32)
    value = np.float32(0.25)
    mirrored_obs = C4.transform_observation(obs, 1)
    np.testing.assert_array_equal(mirrored_obs, obs[..., ::-1])
    np.testing.assert_array_equal(C4.transform_policy(policy, 1), policy[:, ::-1])
    np.testing.assert_array_equal(C4.transform_policy(mask, 1), mask[:, ::-1])
    mirrored_state = C4.states_from_moves(["7766513"])
    np.testing.assert_array_equal(C4.observation(mirrored_state), mirrored_obs)
    assert value == np.float32(0.25)  # z is not transformed
    np.testing.assert_array_equal(C4.transform_observation(mirrored_obs, 1), obs)
    np.testing.assert_array_equal(C4.transform_policy(C4.transform_policy(policy, 1), 1), policy)
    assert C4.mirror_state(C4.mirror_state(tuple(int(v) for v in state[0]))) == tuple(int(v) for v in state[0])


# ------------------------------------------------------------------------------ colour-swapped twins
@pytest.mark.parametrize("name,moves", [("connect4", "44536"), ("tictactoe", "519")])
def test_colour_swapped_twin_has_the_same_encoding(name, moves):
    game = games.make(name)
    state = game.states_from_moves([moves])
    current, mask, ply, status = (int(v) for v in state[0])
    x_stones = current if ply % 2 == 0 else current ^ mask
    o_stones = mask ^ x_stones
    # the twin: colours swapped (X's stones become O's) and the other side to move
    twin_ply = ply + 1
    twin_x = o_stones
    twin_to_move_stones = twin_x if twin_ply % 2 == 0 else mask ^ twin_x
    twin = np.array([[twin_to_move_stones, mask, twin_ply, status]], dtype=np.int64)
    assert game.to_play(twin)[0] != game.to_play(state)[0]
    np.testing.assert_array_equal(game.observation(twin), game.observation(state))
    np.testing.assert_array_equal(game.legal_mask(twin), game.legal_mask(state))


def test_observation_planes_are_from_the_player_to_move():
    state = C4.states_from_moves(["4"])  # X played the centre; O to move
    obs = C4.observation(state)[0]
    assert obs[0].sum() == 0 and obs[1, 5, 3] == 1  # bottom row is image row 5
    assert C4.render(state[0]).splitlines()[5] == ". . . X . . ."


def test_known_connect4_wins():
    assert C4.states_from_moves(["1212121"])[0, bb.STATUS] == bb.FIRST_PLAYER_WON  # vertical
    assert C4.states_from_moves(["11223344"[:-1]])[0, bb.STATUS] == bb.FIRST_PLAYER_WON  # horizontal
    assert C4.states_from_moves(["1223343447"])[0, bb.STATUS] == bb.ONGOING
    assert C4.states_from_moves(["12233434474"])[0, bb.STATUS] == bb.FIRST_PLAYER_WON  # diagonal
    assert C4.states_from_moves(["7665545441"])[0, bb.STATUS] == bb.ONGOING
    assert C4.states_from_moves(["76655454414"])[0, bb.STATUS] == bb.FIRST_PLAYER_WON  # anti-diagonal
