"""The contract every registered game must pass (pgx's api_test idea), chance games included."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

import games
from arena.positions import position_sets
from games.base import CELL_MOVES, COLUMN_MOVES, EMPTY_CELL, NO_WINNER, BoardView

#: OpenSpiel games through games/openspiel_adapter.py, when open_spiel is installed
OPENSPIEL_GAMES = ["openspiel:tic_tac_toe", "openspiel:connect_four", "openspiel:breakthrough(rows=5,columns=5)",
                   "openspiel:hex(board_size=5)"]
try:
    import pyspiel  # noqa: F401
except ImportError:
    OPENSPIEL_GAMES = []
GAME_NAMES = games.names() + OPENSPIEL_GAMES
CHANCE_GAME_NAMES = [name for name in GAME_NAMES if games.make(name).num_chance_outcomes > 0]


def random_states(game, rng, count, max_plies=None):
    """``count`` states reached by random playouts of random lengths (some finished, some chance
    states); chance outcomes are drawn by their probabilities."""
    max_plies = game.max_game_length if max_plies is None else max_plies
    states = game.initial_states(count)
    lengths = rng.integers(0, max_plies + 1, size=count)
    for ply in range(max_plies):
        mask = game.legal_mask(states)
        chance = game.is_chance(states)
        decide = (lengths > ply) & mask.any(axis=1)
        roll = (lengths > ply) & chance
        if not (decide.any() or roll.any()):
            break
        if roll.any():
            states[roll] = game.apply_chance(states[roll], game.sample_chance(states[roll], rng))
        if decide.any():
            logits = np.where(mask, rng.random(mask.shape), -1.0)
            actions = logits.argmax(axis=1)
            states[decide] = game.step(states[decide], actions[decide])
    return states


def random_events(game, rng, max_events=10**6):
    """A random game (or its first ``max_events`` events): actions and chance outcomes in play
    order, as ``parse_moves`` returns them, and the single-state tuple reached."""
    state, events = game.initial_state(), []
    while not game.terminal_test(state) and len(events) < max_events:
        if game.is_chance_state(state):
            outcomes = [k for k, _ in game.chance_outcomes(state)]
            events.append(int(rng.choice(outcomes)))
            state = game.chance_result(state, events[-1])
        else:
            events.append(int(rng.choice(game.actions(state))))
            state = game.result(state, events[-1])
    return events, state


def random_events_state(game, events):
    """The ``[S]`` row after replaying ``events`` one at a time through the batched API."""
    state = game.initial_states(1)
    for event in events:
        if game.is_chance(state)[0]:
            state = game.apply_chance(state, np.array([event]))
        else:
            state = game.step(state, np.array([event]))
    return state[0]


@pytest.mark.parametrize("name", GAME_NAMES)
@settings(max_examples=60, deadline=None)
@given(choices=st.lists(st.integers(min_value=0, max_value=10**6), min_size=0, max_size=50))
def test_random_playout_invariants(name, choices):
    game = games.make(name)
    state = game.initial_states(1)
    single = game.initial_state()
    for turn, choice in enumerate(choices):
        mask = game.legal_mask(state)
        assert mask.shape == (1, game.num_actions) and mask.dtype == np.bool_
        terminal = bool(game.terminal(state)[0])
        chance = bool(game.is_chance(state)[0])
        assert game.is_chance_state(single) == chance
        assert not (chance and terminal), "a chance state is never finished"
        assert terminal or chance or mask.any(), "a decision state has a legal move"
        assert not ((terminal or chance) and mask.any()), "finished and chance states have none"
        assert game.ply(state)[0] == turn
        if game.num_chance_outcomes == 0:
            assert game.to_play(state)[0] == turn % 2
        assert game.terminal_test(single) == terminal
        assert game.actions(single) == np.flatnonzero(mask[0]).tolist()
        assert tuple(int(v) for v in state[0]) == single
        obs = game.observation(state)
        assert obs.shape == (1, *game.observation_shape) and obs.dtype == np.float32
        if terminal:
            with pytest.raises(ValueError):
                game.step(state, np.array([0]))
            with pytest.raises(ValueError):
                game.result(single, 0)
            if game.num_chance_outcomes:
                with pytest.raises(ValueError, match="not a chance state"):
                    game.apply_chance(state, np.array([0]))
            break
        if chance:  # no player acts here: the game draws the outcome
            for action in range(game.num_actions):
                with pytest.raises(ValueError, match="chance state"):
                    game.step(state, np.array([action]))
                with pytest.raises(ValueError, match="chance state"):
                    game.result(single, action)
            probabilities = game.chance_probabilities(state)[0]
            outcomes = game.chance_outcomes(single)
            assert [k for k, _ in outcomes] == np.flatnonzero(probabilities > 0).tolist()
            assert np.isclose(sum(p for _, p in outcomes), 1.0, rtol=0, atol=1e-12)
            outcome = outcomes[choice % len(outcomes)][0]
            before = state.copy()
            rolled = game.apply_chance(state, np.array([outcome]))
            np.testing.assert_array_equal(state, before)  # the input is never mutated
            state = rolled
            single = game.chance_result(single, outcome)
            continue
        legal = np.flatnonzero(mask[0])
        action = int(legal[choice % len(legal)])
        before = state.copy()
        stepped = game.step(state, np.array([action]))
        np.testing.assert_array_equal(state, before)  # the input is never mutated
        state = stepped
        single = game.result(single, action)
    winner = int(game.winner(state)[0])
    value = float(game.terminal_value(state)[0])
    if not game.terminal(state)[0] or winner == NO_WINNER:
        assert value == 0.0
    else:
        # +1 when the player to move has won (possible in Othello, where the discs decide), -1 when
        # it has lost (always in the connection games: the player who just moved made the line)
        assert value == (1.0 if winner == game.to_play(state)[0] else -1.0)
        assert game.utility(single, winner) == 1.0 and game.utility(single, 1 - winner) == -1.0


@pytest.mark.parametrize("name", GAME_NAMES)
def test_compiled_rules_agree_with_the_batched_rules_on_random_games(name):
    game = games.make(name)
    rules = game.compiled_rules()
    if rules is None:
        pytest.skip(f"{name} has no compiled rules (optional)")
    rng = np.random.default_rng(0)
    legal = np.zeros(game.num_actions, dtype=np.bool_)
    out = np.zeros(game.state_size, dtype=np.int64)
    for _ in range(20):
        state = game.initial_states(1)
        while True:
            count = rules.legal(state[0], legal)
            assert legal.tolist() == game.legal_mask(state)[0].tolist()
            assert count == legal.sum()
            assert rules.is_terminal(state[0]) == game.terminal(state)[0]
            assert rules.winner(state[0]) == game.winner(state)[0]
            assert rules.to_play(state[0]) == game.to_play(state)[0]
            if game.terminal(state)[0]:
                break
            action = int(rng.choice(np.flatnonzero(legal)))
            before = state.copy()
            rules.step(state[0], action, out)
            np.testing.assert_array_equal(state, before)
            state = game.step(state, np.array([action]))
            assert out.tolist() == state[0].tolist()


@pytest.mark.parametrize("name", GAME_NAMES)
def test_step_does_not_mutate_input(name):
    game = games.make(name)
    state = game.initial_states(2)
    copy = state.copy()
    legal = np.flatnonzero(game.legal_mask(state)[0])
    game.step(state, legal[[0, -1]])
    np.testing.assert_array_equal(state, copy)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_batched_step_equals_per_row_steps(name):
    game = games.make(name)
    rng = np.random.default_rng(7)
    states = random_states(game, rng, 300)
    live = states[~game.terminal(states) & ~game.is_chance(states)]
    mask = game.legal_mask(live)
    actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
    batched = game.step(live, actions)
    for row in range(len(live)):
        np.testing.assert_array_equal(batched[row], game.step(live[row : row + 1], actions[row : row + 1])[0])
    np.testing.assert_array_equal(game.observation(batched)[5], game.observation(batched[5:6])[0])
    rolling = states[game.is_chance(states)]
    if len(rolling):
        outcomes = game.sample_chance(rolling, rng)
        rolled = game.apply_chance(rolling, outcomes)
        for row in range(len(rolling)):
            np.testing.assert_array_equal(rolled[row], game.apply_chance(rolling[row : row + 1], outcomes[row : row + 1])[0])


@pytest.mark.parametrize("name", GAME_NAMES)
def test_illegal_and_finished_steps_are_rejected(name):
    game = games.make(name)
    state = game.initial_states(3)
    with pytest.raises(ValueError, match="illegal action"):
        game.step(state, np.array([0, game.num_actions, 1]))
    with pytest.raises(ValueError, match="illegal action"):
        game.step(state, np.array([0, -1, 1]))
    with pytest.raises(ValueError, match=r"shape \[3\]"):
        game.step(state, np.array([0, 1]))
    with pytest.raises(ValueError, match="int64"):
        game.step(state.astype(np.int32), np.array([0, 1, 2]))
    with pytest.raises(ValueError, match="batch_size"):
        game.initial_states(0)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_symmetries_map_legal_to_legal_and_preserve_outcomes(name):
    game = games.make(name)
    rng = np.random.default_rng(3)
    perms = game.action_symmetries
    assert perms.shape == (game.num_symmetries, game.num_actions)
    np.testing.assert_array_equal(perms[0], np.arange(game.num_actions))
    # A move sequence's image is a game only under the symmetries that fix the start position
    # (Othello's quarter turns swap its start colours; tests/test_othello.py checks those on states).
    start = game.initial_states(1)
    fixing = [
        g for g in range(game.num_symmetries)
        if (game.transform_observation(game.observation(start), g) == game.observation(start)).all()
        and (game.transform_policy(game.legal_mask(start), g) == game.legal_mask(start)).all()
    ]
    assert 0 in fixing
    if game.num_chance_outcomes:  # a permutation of actions would also permute chance outcomes
        assert game.num_symmetries == 1, "symmetries of games with chance are not supported yet"
    for _ in range(40):
        actions, _ = random_events(game, rng, int(rng.integers(0, game.max_game_length + 1)))
        original = game.states_from_moves([game.format_moves(actions)])
        for g in fixing:
            image = game.states_from_moves([game.format_moves(perms[g][actions] if g else actions)])
            np.testing.assert_array_equal(game.legal_mask(image), game.transform_policy(game.legal_mask(original), g))
            np.testing.assert_array_equal(game.winner(image), game.winner(original))
            np.testing.assert_array_equal(game.terminal(image), game.terminal(original))
            np.testing.assert_array_equal(
                game.observation(image), game.transform_observation(game.observation(original), g)
            )


@pytest.mark.parametrize("name", GAME_NAMES)
def test_move_strings_round_trip_and_errors(name):
    game = games.make(name)
    rng = np.random.default_rng(0)
    for _ in range(20):  # every random game's move string parses back to its actions
        actions, _ = random_events(game, rng)
        assert game.parse_moves(game.format_moves(actions)) == actions
        np.testing.assert_array_equal(
            game.states_from_moves([game.format_moves(actions)])[0], random_events_state(game, actions)
        )
        # a move that is not legal where it is played is refused, naming the move's number
        for ply in range(1, len(actions) if game.num_chance_outcomes == 0 else 0):
            before = game.initial_state()
            for action in actions[:ply]:
                before = game.result(before, action)
            illegal = sorted(set(actions[:ply]) - set(game.actions(before)))
            if illegal:
                with pytest.raises(ValueError, match=f"move {ply + 1}"):
                    game.parse_moves(game.format_moves(actions[:ply] + illegal[:1]))
                break
    # a character no notation uses, after one and after two legal moves (separated by a space)
    first, second = random_events(game, np.random.default_rng(0), 2)[0]
    with pytest.raises(ValueError, match="move 2: expected"):
        game.parse_moves(game.format_moves([first]) + " ?")
    with pytest.raises(ValueError, match="move 3: expected"):
        game.parse_moves(game.format_moves([first, second]) + " ?")
    with pytest.raises(ValueError):
        games.make("chess")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_board_view_agrees_with_the_rules(name):
    """The web page's drawing (``Game.board_view``; None: the page's text-and-buttons fallback):
    a legal action targets an empty cell (a column with an empty top cell), the grid stays the
    same size, stones never disappear, and a winning line is drawn only in a won game, in the
    winner's stones."""
    game = games.make(name)
    rng = np.random.default_rng(11)
    for _ in range(20):
        state = game.initial_state()
        view = game.board_view(state)
        if view is None:
            return
        shape = (view.rows, view.columns, view.move_kind)
        assert len(view.action_targets) == game.num_actions
        while True:
            assert isinstance(view, BoardView) and (view.rows, view.columns, view.move_kind) == shape
            assert view.move_kind in (CELL_MOVES, COLUMN_MOVES)
            for action in game.actions(state):
                # a cell's index, or a column's: the top cell of column c has index c (row 0 is the top);
                # None: an action off the grid (a pass)
                target = view.action_targets[action]
                assert target is None or view.cells[target] == EMPTY_CELL, (game.render(state), action)
            winner = int(game.winner(np.asarray([state], dtype=np.int64))[0])
            if view.winning_cells:
                assert winner != NO_WINNER and all(view.cells[c] == winner for c in view.winning_cells)
            if game.terminal_test(state):
                break
            action = int(rng.choice(game.actions(state)))
            next_state = game.result(state, action)
            next_view = game.board_view(next_state)
            assert all(
                after != EMPTY_CELL for before, after in zip(view.cells, next_view.cells) if before != EMPTY_CELL
            )
            state, view = next_state, next_view


def test_move_string_errors_of_the_shipped_games():
    for name in ("connect4", "tictactoe"):
        with pytest.raises(ValueError, match="move 2"):
            games.make(name).parse_moves("1x")
        with pytest.raises(ValueError, match="move 3: expected"):
            games.make(name).parse_moves("120")
    with pytest.raises(ValueError, match="move 7: column 1 is full"):
        games.make("connect4").parse_moves("1111111")
    with pytest.raises(ValueError, match="move 2: cell 1 is occupied"):
        games.make("tictactoe").parse_moves("11")
    assert games.make("connect4").format_moves(games.make("connect4").parse_moves("4453")) == "4453"
    assert games.make("tictactoe").format_moves(games.make("tictactoe").parse_moves("5137")) == "5137"


def _late_states(game, rng, count, plies_left=6):
    """Single-state tuples a few plies before the longest game's end, by random playouts (only
    the unfinished ones)."""
    out = []
    for _ in range(count):
        state = game.initial_state()
        for _ in range(max(0, game.max_game_length - plies_left)):
            if game.terminal_test(state):
                break
            if game.is_chance_state(state):
                state = game.chance_result(state, int(rng.choice([k for k, _ in game.chance_outcomes(state)])))
            else:
                state = game.result(state, int(rng.choice(game.actions(state))))
        if game.is_chance_state(state):  # a player's decision, not the dice's
            state = game.chance_result(state, game.chance_outcomes(state)[-1][0])
        if not game.terminal_test(state):
            out.append(state)
    return out


@pytest.mark.parametrize("name", GAME_NAMES)
def test_knowledge_hooks_keep_their_contracts(name):
    from networks.config import NetworkConfig

    game = games.make(name)
    rng = np.random.default_rng(5)
    knowledge, sets = games.knowledge(game), position_sets(game)
    assert sorted(knowledge.action_order()) == list(range(game.num_actions))
    heuristic = knowledge.heuristic_fn()
    keys = {}
    for row in random_states(game, rng, 80):
        state = tuple(int(v) for v in row)
        key = knowledge.transposition_key(state)
        assert knowledge.transposition_key(tuple(int(v) for v in row)) == key
        assert keys.setdefault(key, state) == state  # one key, one position
        if heuristic is not None and not game.terminal_test(state):
            assert abs(heuristic(state)) <= knowledge.heuristic_bound
    solver = knowledge.exact_solver()
    if solver is not None:
        for state in _late_states(game, rng, 10):
            scores = solver.action_scores(state)
            assert sorted(scores) == game.actions(state)
            best = max(scores.values())
            assert solver.optimal_actions(state) == [a for a, s in scores.items() if s == best]
    for set_name in sets.labelled_set_names():
        labelled = sets.labelled_set(set_name)
        assert labelled.name == set_name and len(labelled) > 0
        np.testing.assert_array_equal(game.legal_mask(labelled.states), labelled.legal_mask)
    with pytest.raises(ValueError, match="unknown position set"):
        sets.labelled_set("no such set")
    for gpu in (False, True):
        assert isinstance(NetworkConfig(**knowledge.default_network(gpu=gpu)), NetworkConfig)


# ----------------------------------------------------------------------------- chance games
def chance_rows(game, seed, count=400):
    rng = np.random.default_rng(seed)
    states = random_states(game, rng, count, max_plies=min(game.max_game_length, 60))
    return states[game.is_chance(states)]


@pytest.mark.parametrize("name", GAME_NAMES)
def test_deterministic_games_have_no_chance_states(name):
    game = games.make(name)
    states = random_states(game, np.random.default_rng(1), 200, max_plies=min(game.max_game_length, 60))
    if game.num_chance_outcomes == 0:
        assert not game.is_chance(states).any()
        assert game.chance_probabilities(states).shape == (200, 0)
        with pytest.raises(ValueError, match="not a chance state"):
            game.apply_chance(states[:1], np.array([0]))
    else:
        assert game.is_chance(states).any()


@pytest.mark.parametrize("name", CHANCE_GAME_NAMES)
def test_chance_probabilities_sum_to_one(name):
    game = games.make(name)
    if game.num_chance_outcomes == 0:
        pytest.skip(f"{name} has no chance states")
    rng = np.random.default_rng(2)
    states = random_states(game, rng, 400, max_plies=min(game.max_game_length, 60))
    chance = game.is_chance(states)
    assert chance.any() and (~chance).any()
    table = game.chance_probabilities(states)
    assert table.shape == (400, game.num_chance_outcomes) and table.dtype == np.float64
    assert np.all(table >= 0)
    np.testing.assert_allclose(table[chance].sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.all(table[~chance] == 0)
    for row in np.flatnonzero(chance)[:20]:
        single = tuple(int(v) for v in states[row])
        assert game.chance_outcomes(single) == [(int(k), float(table[row, k])) for k in np.flatnonzero(table[row])]


@pytest.mark.parametrize("name", CHANCE_GAME_NAMES)
def test_sampled_outcomes_follow_the_probabilities(name):
    """Pearson's chi-square goodness of fit at the 0.1% level, fixed seed, on a chance state."""
    game = games.make(name)
    if game.num_chance_outcomes == 0:
        pytest.skip(f"{name} has no chance states")
    state = chance_rows(game, 3)[:1]
    draws = 12_000
    outcomes = game.sample_chance(np.repeat(state, draws, axis=0), np.random.default_rng(20040101))
    probabilities = game.chance_probabilities(state)[0]
    counts = np.bincount(outcomes, minlength=game.num_chance_outcomes)
    assert counts[probabilities == 0].sum() == 0  # an impossible outcome is never drawn
    possible = probabilities > 0
    expected = draws * probabilities[possible]
    statistic = float(((counts[possible] - expected) ** 2 / expected).sum())
    assert statistic < chi2.ppf(0.999, df=int(possible.sum()) - 1)


@pytest.mark.parametrize("name", CHANCE_GAME_NAMES)
def test_chance_states_are_never_given_to_a_player(name):
    game = games.make(name)
    if game.num_chance_outcomes == 0:
        pytest.skip(f"{name} has no chance states")
    rows = chance_rows(game, 4)
    assert len(rows) > 10
    assert not game.legal_mask(rows).any() and not game.terminal(rows).any()
    for action in range(game.num_actions):
        with pytest.raises(ValueError, match="chance state"):
            game.step(rows, np.full(len(rows), action))
    single = tuple(int(v) for v in rows[0])
    assert game.actions(single) == []
    with pytest.raises(ValueError, match="chance state"):
        game.result(single, 0)
    # and decision states are not chance states
    decision = game.initial_states(2)
    with pytest.raises(ValueError, match="not a chance state"):
        game.apply_chance(decision, np.array([0, 0]))
    with pytest.raises(ValueError, match="not a chance state"):
        game.sample_chance(decision, np.random.default_rng(0))
    with pytest.raises(ValueError, match="expected a chance state"):
        game.chance_outcomes(game.initial_state())
    with pytest.raises(ValueError, match="impossible chance outcome"):
        game.apply_chance(rows[:1], np.array([game.num_chance_outcomes]))
