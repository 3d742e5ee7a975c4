"""Two-player Pig: rules, chance, OpenSpiel agreement and the exact solver (Neller & Presser 2004)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import games
from games.pig.game import HOLD, ROLL, Pig
from games.pig.solver import PigSolver, solve


def test_rules_by_move_string():
    game = Pig(goal=10)
    # player 0 rolls a 4 and a 6 (turn total 10) and holds: 10 >= goal wins
    state = game.states_from_moves(["r4r6h"])[0]
    assert game.terminal(state[None])[0] and game.winner(state[None])[0] == 0
    assert float(game.terminal_value(state[None])[0]) == -1.0  # player 1 is to move and has lost
    # a 1 loses the turn total and passes the turn
    single = tuple(int(v) for v in game.states_from_moves(["r5r1"])[0])
    assert game.scores(single) == (0, 0, 0) and game.player(single) == 1
    # holding banks the turn total and passes the turn
    single = tuple(int(v) for v in game.states_from_moves(["r3r2h"])[0])
    assert game.scores(single) == (0, 5, 0) and game.player(single) == 1
    assert game.format_moves(game.parse_moves("r3r2hr1")) == "r3r2hr1"


def test_move_string_errors_name_the_move_and_what_was_expected():
    game = Pig(goal=10)
    for moves, message in (
        ("4", "move 1: expected 'r' (roll) or 'h' (hold), got '4'"),
        ("rh", "move 2: expected a die face 1-6 after a roll, got 'h'"),
        ("r7", "move 2: expected a die face 1-6 after a roll, got '7'"),
        ("r4r6hr", "move 6: the game is already over"),
    ):
        with pytest.raises(ValueError, match=re.escape(message)):
            game.parse_moves(moves)
    with pytest.raises(ValueError, match="move 5: expected 'h' \\(hold\\): the goal is reached"):
        game.parse_moves("r4r6r")
    with pytest.raises(ValueError, match=r"illegal action 0; expected one of \[1\]"):
        game.step(game.states_from_moves(["r4r6"]), np.array([ROLL]))


def test_horizon_ends_the_game_as_a_draw():
    game = Pig(goal=100, horizon=3)
    state = game.states_from_moves(["r2r3r"])[0][None]  # the third decision reaches the horizon
    assert game.terminal(state)[0] and game.winner(state)[0] == -1
    assert not game.is_chance(state)[0] and float(game.terminal_value(state)[0]) == 0.0


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="goal must be >= 1, got 0"):
        Pig(goal=0)
    with pytest.raises(ValueError, match=r"die must be in \[2, 9\], got 12"):
        Pig(die=12)
    with pytest.raises(ValueError, match="does not take the parameters"):
        games.make("pig", colour="red")
    assert games.make("pig", goal=10, die=3).num_chance_outcomes == 3


class _UnfairDie(Pig):
    """A broken game whose chance table does not sum to 1."""

    def __init__(self, table):
        super().__init__(goal=10)
        self.table = np.asarray(table, dtype=np.float64)

    def _chance_table(self, states):
        out = np.zeros((states.shape[0], self.die))
        out[self.is_chance(states)] = self.table
        return out


def test_a_probability_table_not_summing_to_one_is_refused():
    chance = Pig(goal=10).states_from_moves(["r"])
    with pytest.raises(ValueError, match=r"chance probabilities of row 0 sum to 0\.9.*, expected 1"):
        _UnfairDie([0.15] * 6).chance_probabilities(chance)
    with pytest.raises(ValueError, match="must be finite and >= 0"):
        _UnfairDie([-0.1, 0.3, 0.2, 0.2, 0.2, 0.2]).chance_probabilities(chance)
    with pytest.raises(ValueError, match="sum to"):
        _UnfairDie([0.15] * 6).sample_chance(chance, np.random.default_rng(0))
    # a loaded but valid die: an outcome of probability 0 is never drawn and is refused
    loaded = _UnfairDie([0.0, 0.5, 0.0, 0.25, 0.25, 0.0])
    draws = loaded.sample_chance(np.repeat(chance, 4000, axis=0), np.random.default_rng(1))
    assert set(np.unique(draws).tolist()) == {1, 3, 4}
    assert abs(np.mean(draws == 1) - 0.5) < 0.03
    with pytest.raises(ValueError, match=r"impossible chance outcome 0 in row 0; expected one of \[1, 3, 4\]"):
        loaded.apply_chance(chance, np.array([0]))


def test_rules_agree_with_openspiel_pig():
    pyspiel = pytest.importorskip("pyspiel")
    rng = np.random.default_rng(5)
    for die, goal in ((6, 20), (3, 10)):
        game = Pig(goal=goal, die=die, horizon=60)
        reference = pyspiel.load_game("pig", {"diceoutcomes": die, "winscore": goal, "horizon": 60})
        for _ in range(30):
            ours, theirs = game.initial_state(), reference.new_initial_state()
            while not theirs.is_terminal():
                assert not game.terminal_test(ours)
                assert game.is_chance_state(ours) == theirs.is_chance_node()
                if theirs.is_chance_node():
                    outcomes = theirs.chance_outcomes()
                    assert [k for k, _ in game.chance_outcomes(ours)] == [k for k, _ in outcomes]
                    assert [p for _, p in game.chance_outcomes(ours)] == pytest.approx([p for _, p in outcomes])
                    event = int(rng.integers(die))
                    ours = game.chance_result(ours, event)
                else:
                    assert theirs.legal_actions() == game.actions(ours)
                    assert theirs.current_player() == game.player(ours)
                    event = int(rng.choice(game.actions(ours)))
                    ours = game.result(ours, event)
                theirs.apply_action(event)
                text = str(theirs).splitlines()[0]  # "Scores: a b, Turn total: t"
                scores, turn = text.removeprefix("Scores: ").split(", Turn total: ")
                assert (ours[3], ours[4]) == tuple(int(x) for x in scores.split())
                if not theirs.is_terminal():
                    assert ours[5] == int(turn)
            assert game.terminal_test(ours)
            assert [game.utility(ours, p) for p in (0, 1)] == theirs.returns()


# ------------------------------------------------------------------------------------ solver
def test_known_win_probabilities_of_neller_and_presser():
    assert round(solve(100).win_probability(0, 0, 0), 7) == 0.5305927
    assert round(solve(10).win_probability(0, 0, 0), 7) == 0.7094243
    assert solve(100).win_probability(99, 99, 0) == pytest.approx(6 / 7, abs=1e-12)
    assert solve(100).win_probability(50, 50, 50) == 1.0  # holding wins


def test_solver_satisfies_the_optimality_equations():
    solver = PigSolver(goal=15, die=4)
    goal, die = 15, 4
    for i in range(goal):
        for j in range(goal):
            for k in range(goal - i):
                roll, hold = solver.action_values(i, j, k)
                expected_roll = (1 - solver.win_probability(j, i, 0)) / die + sum(
                    solver.win_probability(i, j, k + r) if i + k + r < goal else 1.0 for r in range(2, die + 1)
                ) / die
                expected_hold = 1 - solver.win_probability(j, i + k, 0)
                assert roll == pytest.approx(expected_roll, abs=1e-11)
                assert hold == pytest.approx(expected_hold, abs=1e-11)
                assert solver.win_probability(i, j, k) == pytest.approx(max(roll, hold), abs=1e-11)


def test_optimal_actions_of_game_states():
    game = Pig()
    solver = games.knowledge(game).exact_solver()
    start = game.initial_state()
    scores = solver.action_scores(start)
    assert scores[ROLL] == pytest.approx(0.5305927, abs=1e-7) and scores[HOLD] < scores[ROLL]
    assert solver.optimal_actions(start) == [ROLL]
    # player 1 to move at 99-99 with 0 on the turn: roll (6/7), holding passes (1/7)
    state = tuple(int(v) for v in game.states_at([99], [99], [0], to_play=1)[0])
    assert game.scores(state) == (99, 99, 0)
    assert solver.optimal_actions(state) == [ROLL]
    assert solver.state_value(state) == pytest.approx(6 / 7, abs=1e-12)
    assert solver.optimal_actions(tuple(int(v) for v in game.states_at([90], [0], [10])[0])) == [HOLD]
    with pytest.raises(ValueError, match="expected a decision state"):
        solver.action_scores(game.result(start, ROLL))
    with pytest.raises(ValueError, match=r"own score must be in \[0, 100\), got 100"):
        solver.win_probability(100, 0, 0)


def test_players_refuse_a_chance_state():
    from arena.players import RandomPlayer

    game = Pig(goal=10)
    rolling = game.result(game.initial_state(), ROLL)
    with pytest.raises(ValueError, match="a chance state was handed to a player"):
        RandomPlayer(0).select_action(game, rolling)


def test_observation_is_thermometer_planes_from_the_movers_view():
    game = Pig(goal=10)
    # player 1 to move with 4 banked, player 0 has 7, turn total 12 (capped at goal - 1 = 9)
    state = game.states_at([4], [7], [12], to_play=1)
    obs = game.observation(state)
    assert obs.shape == (1, 3, 1, 10) and obs.dtype == np.float32
    np.testing.assert_array_equal(obs[0, 0, 0], [1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    np.testing.assert_array_equal(obs[0, 1, 0], [1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    np.testing.assert_array_equal(obs[0, 2, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1, 0])
    # the opening position has empty planes; the same scores seen by the other player swap rows
    assert not game.observation(game.initial_states(1)).any()
    swapped = game.observation(game.states_at([7], [4], [12], to_play=0))
    np.testing.assert_array_equal(swapped[0, 0], obs[0, 1])
    np.testing.assert_array_equal(swapped[0, 1], obs[0, 0])


def test_batched_win_probabilities_match_the_single_queries():
    solver = solve(10)
    rng = np.random.default_rng(3)
    own, opponent, turn = rng.integers(0, 10, 200), rng.integers(0, 10, 200), rng.integers(0, 15, 200)
    batched = solver.win_probabilities(own, opponent, turn)
    assert batched.shape == (200,) and batched.dtype == np.float64
    np.testing.assert_array_equal(
        batched, [solver.win_probability(int(i), int(j), int(k)) for i, j, k in zip(own, opponent, turn)]
    )
    assert solver.win_probabilities([9], [9], [0])[0] == pytest.approx(solver.win_probability(9, 9, 0))
    with pytest.raises(ValueError, match=r"opponent's score must be in \[0, 10\)"):
        solver.win_probabilities([0], [10], [0])
    with pytest.raises(ValueError, match="turn total must be >= 0"):
        solver.win_probabilities([0], [0], [-1])
