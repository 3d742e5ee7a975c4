"""Othello rules (games/othello.py): perft, the pass, the end, symmetries, notation, heuristic."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from arena.match import run_match
from arena.specs import build_player
from games.othello import PLY

OTHELLO = games.make("othello")
SMALL = games.make("othello6x6")

#: numbers of move sequences of length 1-7 from the standard start (perft; the standard
#: published values, e.g. in Aart Bik's Othello perft tables)
PERFT = [4, 12, 56, 244, 1396, 8200, 55092]


def perft(game, depth: int) -> list[int]:
    """Leaf counts of every depth 1..depth, by breadth-first expansion of the batched API."""
    states, counts = game.initial_states(1), []
    for _ in range(depth):
        rows, actions = np.nonzero(game.legal_mask(states))
        states = game.step(states[rows], actions)
        counts.append(len(states))
    return counts


def single_perft(game, state: tuple, depth: int) -> int:
    if depth == 0:
        return 1
    return sum(single_perft(game, game.result(state, a), depth - 1) for a in game.actions(state))


def test_perft_from_the_start_up_to_six_plies():
    assert perft(OTHELLO, 6) == PERFT[:6]
    assert [single_perft(OTHELLO, OTHELLO.initial_state(), d) for d in range(1, 5)] == PERFT[:4]


@pytest.mark.slow
def test_perft_seven_plies():
    assert perft(OTHELLO, 7) == PERFT


def test_start_position_and_notation():
    state = OTHELLO.initial_state()
    assert [OTHELLO.action_to_string(a) for a in OTHELLO.actions(state)] == ["d3", "c4", "f5", "e6"]
    assert OTHELLO.render(state).splitlines()[4:6] == ["4 . . . O X . . .", "5 . . . X O . . ."]
    assert OTHELLO.parse_moves("d3 C5 f6") == OTHELLO.parse_moves("d3c5f6") == [19, 34, 45]
    assert OTHELLO.format_moves([19, 34, 45, 64]) == "d3c5f6pass"
    assert [SMALL.action_to_string(a) for a in SMALL.actions(SMALL.initial_state())] == ["c2", "b3", "e4", "d5"]
    with pytest.raises(ValueError, match=r"move 1: d4 is illegal \(the cell is occupied\)"):
        OTHELLO.parse_moves("d4")
    with pytest.raises(ValueError, match=r"move 2: a1 is illegal \(it flips no disc\)"):
        OTHELLO.parse_moves("d3a1")
    with pytest.raises(ValueError, match=r"move 2: pass is illegal \(a placement exists\)"):
        OTHELLO.parse_moves("d3 pass")
    with pytest.raises(ValueError, match="move 2: expected a row 1-8"):
        OTHELLO.parse_moves("d3d9")
    with pytest.raises(ValueError, match="move 1: expected a cell a1-h8 or 'pass'"):
        OTHELLO.parse_moves("z1")


def position(black: list[str], white: list[str], black_to_move: bool = True, game=OTHELLO) -> tuple:
    """A state tuple from lists of cells in move notation."""

    def bits(cells):
        return sum(1 << game.parse_cell(c) for c in cells) if cells else 0

    b, w = bits(black), bits(white)
    current, opponent = (b, w) if black_to_move else (w, b)
    return (int(np.int64(np.uint64(current))), int(np.int64(np.uint64(opponent))), 0 if black_to_move else 1, 0)


def test_a_player_without_a_placement_passes_and_the_game_goes_on():
    # Black c1, White a1 b1, Black to move: no Black placement brackets a White disc
    state = position(["c1"], ["a1", "b1"])
    assert OTHELLO.actions(state) == [OTHELLO.pass_action]
    assert not OTHELLO.terminal_test(state)
    row = np.array([state], dtype=np.int64)
    mask = OTHELLO.legal_mask(row)[0]
    assert np.flatnonzero(mask).tolist() == [64] and not OTHELLO.terminal(row)[0]
    after = OTHELLO.result(state, OTHELLO.pass_action)
    assert after[PLY] == 1 and OTHELLO.player(after) == 1
    assert [OTHELLO.action_to_string(a) for a in OTHELLO.actions(after)] == ["d1"]
    # White d1 flips c1: Black has no disc left, neither side can move, White won 4-0
    final = OTHELLO.result(after, OTHELLO.parse_cell("d1"))
    assert OTHELLO.terminal_test(final) and OTHELLO.actions(final) == []
    assert OTHELLO.utility(final, 1) == 1.0 and OTHELLO.utility(final, 0) == -1.0
    final_row = np.array([final], dtype=np.int64)
    assert OTHELLO.winner(final_row).tolist() == [1]
    assert OTHELLO.disc_counts(final_row).tolist() == [[0, 4]]
    assert OTHELLO.terminal_value(final_row).tolist() == [-1.0]  # Black to move, lost
    with pytest.raises(ValueError, match=r"illegal action 3; expected one of \[64\]"):
        OTHELLO.step(row, np.array([OTHELLO.parse_cell("d1")]))  # Black cannot play White's move


def test_the_game_ends_when_neither_player_can_move_with_discs_left_unplaced():
    # Black a1 b1, White c1 d1 ... : Black e1 flips c1 d1 and leaves White without a disc
    state = position(["a1", "b1"], ["c1", "d1"])
    final = OTHELLO.result(state, OTHELLO.parse_cell("e1"))
    row = np.array([final], dtype=np.int64)
    assert OTHELLO.terminal(row)[0] and OTHELLO.winner(row).tolist() == [0]
    assert not OTHELLO.legal_mask(row).any()  # a finished game has no legal action, not even the pass
    with pytest.raises(ValueError, match="finished"):
        OTHELLO.step(row, np.array([OTHELLO.pass_action]))


def test_equal_disc_counts_at_the_end_are_a_draw():
    # 400 seeded random 6x6 games: some end level, and the winner always follows the disc count
    rng = np.random.default_rng(11)
    states = SMALL.initial_states(400)
    for _ in range(SMALL.max_game_length):
        mask = SMALL.legal_mask(states)
        live = mask.any(axis=1)
        if not live.any():
            break
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        states[live] = SMALL.step(states[live], actions[live])
    assert SMALL.terminal(states).all()
    counts = SMALL.disc_counts(states)
    winners = SMALL.winner(states)
    draws = counts[:, 0] == counts[:, 1]
    assert draws.any() and (winners[draws] == -1).all()
    assert (winners[counts[:, 0] > counts[:, 1]] == 0).all() and (winners[counts[:, 0] < counts[:, 1]] == 1).all()
    assert (SMALL.ply(states) <= SMALL.max_game_length).all()
    # unlike a connection game, the player to move at the end may be the winner: its value is +1
    values = SMALL.terminal_value(states)
    to_move_won = winners == SMALL.to_play(states)
    assert to_move_won.any() and (values[to_move_won] == 1.0).all()
    assert (values[(winners != -1) & ~to_move_won] == -1.0).all() and (values[draws] == 0.0).all()


def random_states(game, rng, count):
    states = game.initial_states(count)
    lengths = rng.integers(0, 70, size=count)
    for ply in range(70):
        mask = game.legal_mask(states)
        active = (lengths > ply) & mask.any(axis=1)
        if not active.any():
            break
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        states[active] = game.step(states[active], actions[active])
    return states


@pytest.mark.parametrize("game", [OTHELLO, SMALL], ids=lambda g: g.name)
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_batched_equals_single_state_and_discs_are_conserved(game, seed):
    rng = np.random.default_rng(seed)
    states = random_states(game, rng, 24)
    masks = game.legal_mask(states)
    counts = game.disc_counts(states)
    for row in range(len(states)):
        state = tuple(int(v) for v in states[row])
        assert game.actions(state) == np.flatnonzero(masks[row]).tolist()
        assert game.terminal_test(state) == (not masks[row].any())
        for action in game.actions(state)[:3]:
            child = game.result(state, action)
            batched = game.step(states[row : row + 1], np.array([action]))[0]
            assert child == tuple(int(v) for v in batched)
            after = game.disc_counts(batched[None])[0]
            if action == game.pass_action:
                assert after.tolist() == counts[row].tolist()
            else:  # the mover gains the new disc and at least one flipped one, the other loses them
                mover = game.player(state)
                gained = after[mover] - counts[row][mover]
                assert gained >= 2 and counts[row][1 - mover] - after[1 - mover] == gained - 1
    # the pass is legal exactly where no placement is
    live = ~game.terminal(states)
    assert (masks[live, game.pass_action] == ~masks[live, : game.pass_action].any(axis=1)).all()


@pytest.mark.parametrize("game", [OTHELLO, SMALL], ids=lambda g: g.name)
def test_all_eight_symmetries_commute_with_the_rules(game):
    rng = np.random.default_rng(5)
    states = random_states(game, rng, 60)
    states = states[~game.terminal(states)]
    perms = game.action_symmetries
    assert perms.shape == (8, game.num_actions) and (perms[:, game.pass_action] == game.pass_action).all()
    assert len({tuple(p) for p in perms}) == 8
    mask = game.legal_mask(states)
    actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
    children = game.step(states, actions)
    for g in range(8):
        image = game.transform_states(states, g)
        np.testing.assert_array_equal(game.legal_mask(image), game.transform_policy(mask, g))
        np.testing.assert_array_equal(game.observation(image), game.transform_observation(game.observation(states), g))
        np.testing.assert_array_equal(game.step(image, perms[g][actions]), game.transform_states(children, g))
    # the start position is fixed by the identity, the half turn and the two diagonal reflections
    start = game.initial_states(1)
    fixed = [g for g in range(8) if (game.transform_states(start, g) == start).all()]
    assert fixed == [0, 2, 5, 7]


@pytest.mark.parametrize("game", [OTHELLO, SMALL], ids=lambda g: g.name)
def test_compiled_single_state_rules_equal_the_batched_ones(game):
    rules = game.compiled_rules()
    rng = np.random.default_rng(9)
    states = random_states(game, rng, 200)
    masks = game.legal_mask(states)
    out = np.zeros(game.num_actions, dtype=np.bool_)
    child = np.zeros(game.state_size, dtype=np.int64)
    for row, mask in zip(states, masks):
        out[:] = True  # stale entries must be overwritten
        assert rules.legal(row, out) == mask.sum()
        np.testing.assert_array_equal(out, mask)
        assert rules.is_terminal(row) == (not mask.any())
        assert rules.to_play(row) == row[PLY] % 2
        assert rules.winner(row) == game.winner(row[None])[0]
        for action in np.flatnonzero(mask)[:3]:
            rules.step(row, action, child)
            np.testing.assert_array_equal(child, game.step(row[None], np.array([action]))[0])


def test_heuristic_counts_corners_mobility_and_discs_for_the_player_to_move():
    knowledge = games.knowledge(OTHELLO)
    evaluate = knowledge.heuristic_fn()
    assert evaluate(OTHELLO.initial_state()) == 0  # 4 moves each, 2 discs each, no corner
    # Black c1, White a1 b1, Black to move: White owns a corner (-25), Black has no placement and
    # White one (d1: -5), discs 1 - 2 (-1)
    state = position(["c1"], ["a1", "b1"])
    assert evaluate(state) == -25 - 5 - 1
    assert evaluate(OTHELLO.result(state, OTHELLO.pass_action)) == 25 + 5 + 1  # the same, White's view
    rng = np.random.default_rng(2)
    for row in random_states(OTHELLO, rng, 100):
        assert abs(evaluate(tuple(int(v) for v in row))) <= knowledge.heuristic_bound == 4 * 25 + 2 * 64 * 5 + 64
    order = knowledge.action_order()
    assert sorted(order) == list(range(65)) and order[:4] == [0, 7, 56, 63] and order[-1] == 64
    assert knowledge.default_network()["kind"] == "resnet" and knowledge.default_network(gpu=True)["channels"] == 128


def test_alphabeta_with_the_heuristic_takes_a_corner():
    from search.alphabeta import AlphaBeta

    # Black to move can take the corner a1 (flipping b2 over c3); the heuristic prefers it at depth 1
    state = position(["c3", "d4", "e5"], ["b2", "d5", "e4"])
    assert OTHELLO.parse_cell("a1") in OTHELLO.actions(state)
    search = AlphaBeta(OTHELLO, games.knowledge(OTHELLO).heuristic_fn())
    assert OTHELLO.action_to_string(search.search(state, 1).action) == "a1"


@pytest.mark.slow
def test_uct_beats_random_at_othello():
    # 12 games of 8x8 Othello, colours alternated, 2 random opening plies: UCT with 32 random-rollout
    # simulations a move wins at least 10 (it won 10 of 10 when this test was written)
    uct = build_player("uct:sims=32", OTHELLO, seed=1)
    rand = build_player("random", OTHELLO, seed=2)
    result = run_match(OTHELLO, uct, rand, 12, np.random.default_rng(0))
    assert result.wins + result.draws + result.losses == 12
    assert result.wins >= 10, (result.wins, result.draws, result.losses)


def test_a_human_move_token_is_the_cell_name_or_the_action_number():
    from arena.human import parse_move_token

    start = OTHELLO.initial_state()
    assert parse_move_token(OTHELLO, start, "D3") == 19 and parse_move_token(OTHELLO, start, "20") == 19
    assert parse_move_token(OTHELLO, start, "pass") is None and parse_move_token(OTHELLO, start, "a1") is None
    assert parse_move_token(OTHELLO, position(["c1"], ["a1", "b1"]), "pass") == OTHELLO.pass_action


def lockstep_playouts(game, seed: int, num_games: int):
    """Play ``num_games`` seeded random games three ways at once and check them ply by ply.

    The single-state functions (``actions``/``result`` on tuples), the batched API at batch 1 and
    the batched API over all live games together must list the same legal actions and reach the
    same states. Returns ``(winners, passes)``: each game's winner (-1 draw) and the passes played.
    """
    rng = np.random.default_rng(seed)
    batch = game.initial_states(num_games)
    singles = [game.initial_state()] * num_games
    passes = 0
    for _ in range(game.max_game_length + 1):
        live = np.flatnonzero(~game.terminal(batch))
        if live.size == 0:
            break
        masks = game.legal_mask(batch[live])
        actions = np.where(masks, rng.random(masks.shape), -1.0).argmax(axis=1)
        for row, game_index in enumerate(live):
            one = batch[game_index : game_index + 1]
            legal = game.actions(singles[game_index])
            assert legal == np.flatnonzero(masks[row]).tolist() == np.flatnonzero(game.legal_mask(one)[0]).tolist()
            singles[game_index] = game.result(singles[game_index], int(actions[row]))
            assert singles[game_index] == tuple(int(v) for v in game.step(one, actions[row : row + 1])[0])
            passes += int(actions[row] == game.pass_action)
        batch[live] = game.step(batch[live], actions)
        assert singles == [tuple(int(v) for v in state) for state in batch]
    assert game.terminal(batch).all() and all(game.terminal_test(state) for state in singles)
    return game.winner(batch).tolist(), passes


@pytest.mark.parametrize("game", [OTHELLO, SMALL], ids=lambda g: g.name)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_single_state_batch_one_and_batched_steps_agree_over_random_games(game, seed):
    winners, _ = lockstep_playouts(game, seed, 6)
    assert set(winners) <= {-1, 0, 1}


def test_seeded_random_games_pass_and_end_the_same_on_every_path():
    """Seed 3, 40 games on 6x6 through passes and every kind of end; the counts are those the
    batched kernels gave before the rules had one compiled call per method, so they pin the results."""
    winners, passes = lockstep_playouts(SMALL, 3, 40)
    assert passes == 19
    assert {result: winners.count(result) for result in (0, 1, -1)} == {0: 15, 1: 23, -1: 2}


def test_random_games_match_openspiel_move_by_move():
    """OpenSpiel's C++ Othello (``pyspiel``, same action ids: the cell ``row * 8 + col``, then the
    pass) lists the same legal actions and player to move at every ply of 40 seeded random games,
    ends them at the same ply and gives the same winner."""
    pyspiel = pytest.importorskip("pyspiel")
    reference = pyspiel.load_game("othello")
    rng = np.random.default_rng(11)
    outcomes = {0: 0, 1: 0, -1: 0}
    passes = 0
    for _ in range(40):
        state, theirs = OTHELLO.initial_state(), reference.new_initial_state()
        while not OTHELLO.terminal_test(state):
            assert not theirs.is_terminal() and theirs.current_player() == OTHELLO.player(state)
            legal = OTHELLO.actions(state)
            assert theirs.legal_actions() == legal
            action = int(rng.choice(legal))
            passes += action == OTHELLO.pass_action
            state = OTHELLO.result(state, action)
            theirs.apply_action(action)
        assert theirs.is_terminal()
        winner = int(OTHELLO.winner(np.array([state]))[0])
        returns = theirs.returns()
        assert returns == ([0.0, 0.0] if winner == -1 else [1.0, -1.0] if winner == 0 else [-1.0, 1.0])
        outcomes[winner] += 1
    assert passes == 5 and outcomes == {0: 18, 1: 20, -1: 2}  # passes, wins both ways and draws were all met


@pytest.mark.parametrize("game", [OTHELLO, SMALL], ids=lambda g: g.name)
def test_step_and_result_accept_exactly_the_actions_of_the_legal_mask(game):
    """Every action from -1 to A, in 40 random live positions: the batched step and the
    single-state result play it exactly where the legal mask is True and refuse it elsewhere
    (occupied cells, cells that flip nothing, the pass beside a placement, out of range)."""
    rng = np.random.default_rng(17)
    states = random_states(game, rng, 120)
    states = states[~game.terminal(states)][:40]
    assert len(states) == 40
    masks = game.legal_mask(states)
    refused = 0
    for row, mask in zip(states, masks):
        state = tuple(int(v) for v in row)
        for action in range(-1, game.num_actions + 1):
            legal = 0 <= action < game.num_actions and bool(mask[action])
            if legal:
                child = game.step(row[None], np.array([action]))[0]
                assert game.result(state, action) == tuple(int(v) for v in child)
                continue
            refused += 1
            with pytest.raises(ValueError, match=f"row 0: illegal action {action}; expected one of"):
                game.step(row[None], np.array([action]))
            with pytest.raises(ValueError, match=f"illegal action {action}: expected one of"):
                game.result(state, action)
    assert refused == 40 * (game.num_actions + 2) - int(masks.sum())


def test_other_layouts_and_dtypes_give_the_same_results_and_bad_batches_the_usual_errors():
    """The batched calls are compiled for C-contiguous int64 arrays only; a strided, Fortran-order
    or read-only batch, and actions as a list or another integer dtype, are converted and give
    the same states, while a wrong dtype or shape is refused with expected and actual."""
    states = random_states(OTHELLO, np.random.default_rng(2), 16)
    states = states[~OTHELLO.terminal(states)][:8]
    mask = OTHELLO.legal_mask(states)
    actions = mask.argmax(axis=1)
    children = OTHELLO.step(states, actions)
    read_only = states.copy()
    read_only.flags.writeable = False
    wide = np.zeros((8, 6), dtype=np.int64)
    wide[:, :4] = states
    for batch in (np.asfortranarray(states), read_only, wide[:, :4], np.repeat(states, 2, axis=0)[::2]):
        np.testing.assert_array_equal(OTHELLO.legal_mask(batch), mask)
        np.testing.assert_array_equal(OTHELLO.step(batch, actions), children)
    for moves in (actions.tolist(), actions.astype(np.int32), np.repeat(actions, 2)[::2]):
        np.testing.assert_array_equal(OTHELLO.step(states, moves), children)
    with pytest.raises(ValueError, match=r"othello: expected int64 states, got int32"):
        OTHELLO.legal_mask(states.astype(np.int32))
    with pytest.raises(ValueError, match=r"othello: expected states of shape \[B, 4\], got \(8, 3\)"):
        OTHELLO.legal_mask(np.ascontiguousarray(states[:, :3]))
    with pytest.raises(ValueError, match=r"othello: expected states of shape \[B, 4\], got \(8, 3\)"):
        OTHELLO.step(np.ascontiguousarray(states[:, :3]), actions)
    with pytest.raises(ValueError, match=r"othello: expected actions of shape \[8\], got \(7,\)"):
        OTHELLO.step(states, actions[:7])
