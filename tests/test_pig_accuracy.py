"""Accuracy against perfect play on Pig: decisions that lose win probability, and how much."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pytest

import games
from arena.accuracy import expected_random_mistake_rate, mistake_rate
from arena.positions import position_sets
from arena.positions.labelled import LabelledSet
from frontends.arena_cli import main


def test_sets_are_labelled_by_the_solver():
    game = games.make("pig", goal=20)
    solver = games.knowledge(game).exact_solver()
    for name in position_sets(game).labelled_set_names():
        labelled = position_sets(game).labelled_set(name)
        assert 20 < len(labelled) <= 2000 and labelled.values is not None
        np.testing.assert_array_equal(game.states_from_moves(labelled.moves[:50]), labelled.states[:50])
        for row in range(0, len(labelled), 7):
            state = tuple(int(v) for v in labelled.states[row])
            scores = solver.action_scores(state)
            assert {a: labelled.values[row, a] for a in scores} == scores
            best = solver.optimal_actions(state)
            assert [a for a in scores if labelled.outcomes[row, a] == 1] == best
    optimal = position_sets(game).labelled_set("optimal_play")
    assert optimal.moves[0] == "" and optimal.values[0, 0] == pytest.approx(solver.win_probability(0, 0, 0))


def test_mistakes_and_mean_loss_of_a_hand_made_set():
    values = np.array([[0.6, 0.4], [0.5, 0.5 - 1e-12], [np.nan, 1.0]])
    labelled = LabelledSet.from_values("hand", ["", "r2", "r4r6"], np.zeros((3, 8), dtype=np.int64), values)
    assert labelled.outcomes.tolist() == [[1, -1], [1, 1], [-2, 1]]  # a 1e-12 difference is a tie
    assert mistake_rate(labelled, np.array([1, 1, 1])) == pytest.approx(1 / 3)
    np.testing.assert_allclose(labelled.value_losses(np.array([1, 1, 1])), [0.2, 1e-12, 0.0], atol=1e-15)
    assert expected_random_mistake_rate(labelled) == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="win probabilities in"):
        LabelledSet.from_values("bad", [""], np.zeros((1, 8), dtype=np.int64), np.array([[1.5, 0.2]]))


def accuracy_json(*argv: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["accuracy", *argv, "--json"]) == 0
    return json.loads(out.getvalue())


def test_arena_accuracy_of_the_solver_and_of_a_player_that_always_rolls():
    result = accuracy_json("solver", "--game", "pig", "--limit", "300")
    for row in result["sets"].values():
        assert row["mistakes"] == 0 and row["mean_win_probability_loss"] == 0.0
    result = accuracy_json("random", "--game", "pig", "--limit", "300", "--seed", "3")
    for name, row in result["sets"].items():
        labelled = position_sets(games.make("pig")).labelled_set(name).head(300)
        assert 0.3 < row["mistake_rate"] < 0.7
        assert row["random_expected_rate"] == pytest.approx(expected_random_mistake_rate(labelled))
        assert row["mean_win_probability_loss"] > 0.005


def test_two_players_on_the_same_positions_get_mcnemars_test():
    result = accuracy_json("solver", "--against", "random", "--game", "pig", "--limit", "300", "--seed", "3")
    assert result["against"] == "random"
    for row in result["sets"].values():
        errs = row["against"]["mistakes"]
        assert row["mistakes"] == 0 and 90 < errs < 210  # the random player errs on about half of 300
        # every discordant position is one only the random player got wrong: p = 2 / 2^errs
        assert row["mcnemar"] == {
            "positions": 300, "mistakes_a": 0, "mistakes_b": errs, "only_a": 0, "only_b": errs,
            "p_value": pytest.approx(2 * 0.5**errs, rel=1e-9),
        }
        assert row["against"]["mean_win_probability_loss"] > 0.005


def test_a_second_player_is_refused_with_the_exact_match(capsys):
    assert main(["accuracy", "random", "--against", "solver", "--game", "pig", "--exact"]) == 2
    assert "--against: expected the labelled sets' mistakes, without --exact and --chosen-moves" in capsys.readouterr().err


def test_exact_accuracy_of_a_networks_greedy_policy_from_each_seat(tmp_path):
    from helpers_models import export_tiny_mlp

    from arena.accuracy import exact_policy_match, greedy_policy_fn
    from arena.model_player import load_model
    from games.pig.policy_chain import hold_table, optimal_hold_table, policy_win_probabilities

    folder = export_tiny_mlp("pig", tmp_path / "best")
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["accuracy", f"policy:model={folder}", "--game", "pig", "--exact", "--json"]) == 0
    report = json.loads(out.getvalue())
    assert report["policy"] == "greedy"
    exact = report["exact"]
    game, evaluate_fn = load_model(str(folder))
    table = hold_table(game, greedy_policy_fn(game, evaluate_fn), 0)
    optimal = optimal_hold_table(games.knowledge(game).exact_solver())
    assert exact["as_first"]["win"] == pytest.approx(policy_win_probabilities(100, 6, table, optimal)[0], abs=1e-12)
    assert exact == exact_policy_match(game, greedy_policy_fn(game, evaluate_fn))
    # no policy beats optimal play: at most 0.5 averaged over the seats
    assert exact["mean_win"] <= 0.5 + 1e-9
    for seat in ("as_first", "as_second"):
        row = exact[seat]
        assert row["win"] + row["loss"] + row["unfinished"] == pytest.approx(1.0, abs=1e-9)


def test_exact_accuracy_is_refused_for_a_game_without_it():
    from arena.accuracy import exact_policy_match

    with pytest.raises(ValueError, match="tictactoe: no exact policy evaluation; expected a game that provides one"):
        exact_policy_match(games.make("tictactoe"), lambda states: np.zeros(len(states), dtype=np.int64))


def test_the_arena_actor_measures_a_pig_policy_exactly_against_optimal_play():
    """A network whose policy always rolls (policy head: zero weights, bias for roll) is, in Pig,
    the policy "hold at the goal"; its exact win probabilities against optimal play, from the
    arena actor's measurement of a new best model, are those of that table solved directly
    (``games.pig.policy_chain``). Games without an exact evaluation report None."""
    import torch

    from arena.gating import GatingWorker
    from games.pig.game import ROLL
    from games.pig.policy_chain import hold_at_table, optimal_hold_table, policy_win_probabilities
    from games.pig.solver import solver_for
    from mcts import PUCTConfig
    from networks import build_network
    from networks.config import NetworkConfig

    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    game = games.make("pig")
    weights = build_network(config, game.observation_shape, game.num_actions).state_dict()
    weights["policy_head.weight"] = torch.zeros_like(weights["policy_head.weight"])
    weights["policy_head.bias"] = torch.zeros_like(weights["policy_head.bias"])
    weights["policy_head.bias"][ROLL] = 5.0
    worker = GatingWorker("pig", config, PUCTConfig(num_simulations=4), 2, 0.55, 0, seed=0, inference="torch")
    exact = worker.measure_best(3, weights)["exact"]
    always_roll, optimal = hold_at_table(game.goal, game.goal), optimal_hold_table(solver_for(game))
    first, _ = policy_win_probabilities(game.goal, game.die, always_roll, optimal)
    _, second = policy_win_probabilities(game.goal, game.die, optimal, always_roll)
    assert exact["as_first"]["win"] == pytest.approx(first, abs=1e-9)
    assert exact["as_second"]["win"] == pytest.approx(second, abs=1e-9)
    assert exact["mean_win"] == pytest.approx(0.5 * (first + second), abs=1e-9)
    assert exact["mean_win"] == pytest.approx(0.11641, abs=1e-5)  # rolling to the goal: 0.1209 first, 0.1119 second
    ttt_config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    ttt = games.make("tictactoe")
    plain = GatingWorker("tictactoe", ttt_config, PUCTConfig(num_simulations=4), 4, 0.55, 1, seed=0, inference="torch")
    assert plain.measure_best(7, build_network(ttt_config, ttt.observation_shape, ttt.num_actions).state_dict())["exact"] is None
