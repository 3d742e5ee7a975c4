"""Gating and the batched match driver: the gate's threshold rule, best snapshots, paired openings."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import games
from arena import gating
from arena.gating import GatingWorker, weights_hash
from arena.network_match import run_network_match
from arena.positions import position_sets
from arena.promotion import GateConfig, decide_gate, gate_decision, pentanomial_counts
from arena.results import GameRecord, MatchResult
from arena.sprt import SPRTConfig, pentanomial_llr
from mcts import PUCTConfig, uniform_evaluator
from networks import build_network
from networks.config import NetworkConfig
from trainer.learner import Learner, LearnerConfig


def test_gate_threshold_rule_rejects_an_empty_match_and_accepts_exactly_the_threshold():
    assert gate_decision(0, 40, 0, 0.55) == (0.5, False)
    assert gate_decision(0, 0, 0, 0.55) == (0.0, False)  # no games: rejected, no division by zero
    score, accepted = gate_decision(6, 30, 4, 0.55)
    assert score == pytest.approx(0.525) and not accepted
    assert gate_decision(11, 0, 9, 0.55) == (0.55, True)  # exactly the threshold is accepted
    assert gate_decision(10, 2, 8, 0.55) == (0.55, True)
    with pytest.raises(ValueError, match="threshold"):
        gate_decision(1, 1, 1, 0.0)
    with pytest.raises(ValueError, match="counts"):
        gate_decision(-1, 1, 1, 0.5)


def _tiny_config():
    return NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)


def test_best_snapshot_is_unchanged_by_an_optimiser_step():
    game = games.make("tictactoe")
    model = build_network(_tiny_config(), game.observation_shape, game.num_actions)
    learner = Learner(model, LearnerConfig(device="cpu"))
    best = learner.snapshot()
    best_hash = weights_hash(best)
    batch = {
        "observations": np.random.default_rng(0).random((8, 2, 3, 3), dtype=np.float32),
        "legal_masks": np.ones((8, 9), dtype=bool),
        "policies": np.full((8, 9), 1 / 9, dtype=np.float32),
        "values": np.ones(8, dtype=np.float32),
    }
    learner.train_step(batch)
    assert weights_hash(best) == best_hash
    assert weights_hash(learner.snapshot()) != best_hash


def test_identical_weights_are_refused():
    game = games.make("tictactoe")
    worker = GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=4), 4, 0.55, 1, seed=0)
    weights = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    result = worker.gate(3, weights, 2, {k: v.clone() for k, v in weights.items()})
    assert not result.accepted and result.refused_reason and result.wins + result.draws + result.losses == 0


def test_gating_worker_plays_the_configured_number_of_games():
    game = games.make("tictactoe")
    torch.manual_seed(0)
    a = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    b = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    worker = GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=13), 7, 0.55, 2, seed=0)
    result = worker.gate(1, a, 0, b)
    assert result.wins + result.draws + result.losses == 7  # arena games set to 7 give exactly 7 games
    assert 1 <= result.distinct_games <= 7
    assert result.accepted == (result.score >= 0.55)


def test_match_alternates_colours_and_counts_by_colour():
    game = games.make("tictactoe")
    result = run_network_match(
        game, uniform_evaluator, uniform_evaluator, 10, PUCTConfig(num_simulations=8),
        np.random.default_rng(1), opening_plies=2,
    )
    assert result.num_games == 10
    assert result.as_first.wins + result.as_first.draws + result.as_first.losses == 5
    assert result.as_second.wins + result.as_second.draws + result.as_second.losses == 5
    assert result.wins == result.as_first.wins + result.as_second.wins
    for index, record in enumerate(result.games):
        state = game.states_from_moves([record.moves])
        assert game.terminal(state)[0]
    # per-game log agrees with the counts: A is first in even games
    a_wins = 0
    for index, record in enumerate(result.games):
        winner = game.winner(game.states_from_moves([record.moves]))[0]
        assert record.winner == winner and record.a_first == (index % 2 == 0)
        a_wins += int(winner >= 0 and (winner == 0) == (index % 2 == 0))
    assert a_wins == result.wins


def test_without_random_openings_identical_players_repeat_one_game():
    """Why arena games need seeded openings: deterministic searches replay the same game."""
    game = games.make("tictactoe")
    search = PUCTConfig(num_simulations=200)
    result = run_network_match(game, uniform_evaluator, uniform_evaluator, 2, search, np.random.default_rng(0), 0)
    assert result.distinct_games == 1 and result.num_games == 2


def _opening(record, game):
    return game.format_moves(game.parse_moves(record.moves)[: record.opening_plies])


def test_gating_openings_are_paired_by_colour_and_independent_of_the_match_size():
    game = games.make("tictactoe")
    search = PUCTConfig(num_simulations=4)

    def match(num_games):
        return run_network_match(
            game, uniform_evaluator, uniform_evaluator, num_games, search, np.random.default_rng(3), opening_plies=2
        )

    ten, twenty = match(10), match(20)
    for pair in range(5):
        first, second = ten.games[2 * pair], ten.games[2 * pair + 1]
        assert (first.a_first, second.a_first) == (True, False)
        assert first.opening_plies == second.opening_plies == 2
        assert _opening(first, game) == _opening(second, game)
    assert [_opening(g, game) for g in ten.games] == [_opening(g, game) for g in twenty.games[:10]]
    assert len({_opening(g, game) for g in twenty.games}) > 1


def test_gating_worker_pairs_its_openings_by_colour(monkeypatch):
    game = games.make("tictactoe")
    torch.manual_seed(1)
    a = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    b = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    worker = GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=4), 6, 0.55, 2, seed=4)
    played = []
    original = gating.run_network_match

    def recording(*args, **kwargs):
        played.append(original(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(gating, "run_network_match", recording)
    result = worker.gate(1, a, 0, b)
    (match,) = played
    assert (result.wins, result.draws, result.losses) == (match.wins, match.draws, match.losses)
    openings = [_opening(g, game) for g in match.games]
    assert openings[0::2] == openings[1::2]
    assert [g.a_first for g in match.games] == [True, False] * 3


def _weights(seed: int, game) -> dict:
    torch.manual_seed(seed)
    return build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()


def test_onnx_and_torch_arena_runtimes_play_the_same_gating_match_and_measure_the_same_rates():
    # arena.inference: ONNX Runtime must not change what gating decides or what the run logs
    game = games.make("tictactoe")
    a, b = _weights(5, game), _weights(6, game)
    workers = {
        runtime: GatingWorker(
            "tictactoe", _tiny_config(), PUCTConfig(num_simulations=16), 10, 0.55, 1, seed=3, inference=runtime
        )
        for runtime in ("onnx", "torch")
    }
    results = {runtime: worker.gate(1, a, 0, b) for runtime, worker in workers.items()}
    counts = {runtime: (r.wins, r.draws, r.losses) for runtime, r in results.items()}
    assert counts["onnx"] == counts["torch"]
    assert sum(counts["onnx"]) == 10 and results["onnx"].sample_game == results["torch"].sample_game
    rates = {runtime: worker.mistake_rates(1, a)["rates"] for runtime, worker in workers.items()}
    assert rates["onnx"] == rates["torch"] and set(rates["onnx"]) == set(position_sets(game).labelled_set_names())


def test_onnx_arena_exports_each_set_of_weights_once_and_again_after_a_change():
    game = games.make("tictactoe")
    a, b, c = _weights(7, game), _weights(8, game), _weights(9, game)
    worker = GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=4), 2, 0.55, 1, seed=0)
    assert worker.inference == "onnx"  # the default: the arena actor runs on its CPU
    worker.gate(1, a, 0, b)
    first = {role: runtime for role, (_, runtime) in worker._runtimes.items()}
    worker.gate(2, c, 0, b)  # a new candidate against the same best
    assert worker._runtimes["best"][1] is first["best"]
    assert worker._runtimes["candidate"][1] is not first["candidate"]
    states = game.initial_states(3)
    states = game.step(states, np.array([0, 4, 8]))
    inputs = (game.observation(states), game.legal_mask(states))
    priors, values = worker._runtimes["candidate"][1].evaluate(*inputs)
    expected_priors, expected_values = worker.candidate.evaluate(*inputs)  # the torch evaluator of c
    np.testing.assert_allclose(priors, expected_priors, atol=1e-5)
    np.testing.assert_allclose(values, expected_values, atol=1e-5)
    assert priors[0, 0] == 0.0 and priors[1, 4] == 0.0  # the occupied cell is illegal


def test_an_unknown_arena_runtime_is_refused_in_words():
    with pytest.raises(ValueError, match=r"inference: expected one of \['torch', 'onnx'\], got 'tensorrt'"):
        GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=4), 2, 0.55, 1, seed=0,
                     inference="tensorrt")


# ---------------------------------------------------------------- the sequential gate (arena/sprt.py)
def _match(outcomes: str) -> MatchResult:
    """A match from A's side: ``outcomes`` is one letter per game, w/d/l, A first in even games."""
    match = MatchResult("A", "B", "tictactoe")
    for index, letter in enumerate(outcomes):
        a_first = index % 2 == 0
        winner = -1 if letter == "d" else (0 if (letter == "w") == a_first else 1)
        match.games.append(GameRecord(index, f"game {index}", a_first, winner, 0))
    return match


def test_pentanomial_counts_score_each_colour_paired_pair():
    # pairs: ww (2 points), wl (1), dd (1), ld (1/2), ll (0), dw (3/2); a last lone game is not counted
    counts = pentanomial_counts(_match("wwwlddldlldww"))
    assert counts.tolist() == [1, 1, 2, 1, 1]


def _scripted(pattern: str, calls: list):
    """A play function whose games repeat ``pattern`` from A's view; records each call's length."""

    def play(num_games: int) -> MatchResult:
        calls.append(num_games)
        return _match((pattern * num_games)[:num_games])

    return play


def test_sprt_gate_accepts_a_candidate_that_wins_every_pair_after_110_pairs():
    calls: list = []
    config = GateConfig(rule="sprt", sprt=SPRTConfig(elo0=0.0, elo1=10.0, max_games=400, pairs_per_look=10))
    verdict = decide_gate(_scripted("w", calls), config)
    assert verdict.accepted and calls == [20] * 11  # 100 pairs: LLR 2.84 < log 19; 110 pairs: 3.12
    assert verdict.pentanomial == (0, 0, 0, 0, 110) and (verdict.wins, verdict.draws, verdict.losses) == (220, 0, 0)
    assert verdict.llr == pytest.approx(3.1205535113301828, abs=1e-9) and verdict.score == 1.0


def test_sprt_gate_rejects_an_equal_candidate_at_the_lower_bound():
    calls: list = []
    config = GateConfig(rule="sprt", sprt=SPRTConfig(elo0=0.0, elo1=10.0, max_games=1000, pairs_per_look=10))
    verdict = decide_gate(_scripted("d", calls), config)
    assert not verdict.accepted and sum(calls) == 220 and verdict.pentanomial == (0, 0, 110, 0, 0)
    assert verdict.llr == pytest.approx(pentanomial_llr([0, 0, 110, 0, 0], 0.0, 10.0)) and verdict.llr < -2.9444


def test_sprt_gate_stops_exactly_at_the_game_cap_and_rejects_there():
    calls: list = []
    # pairs ww then ll, over and over: the LLR stays between the bounds
    config = GateConfig(rule="sprt", sprt=SPRTConfig(elo0=0.0, elo1=10.0, max_games=30, pairs_per_look=4))
    verdict = decide_gate(_scripted("wwll", calls), config)
    assert calls == [8, 8, 8, 6] and not verdict.accepted
    assert verdict.pentanomial == (7, 0, 0, 0, 8) and (verdict.wins, verdict.losses) == (16, 14)
    assert verdict.llr == pytest.approx(pentanomial_llr([7, 0, 0, 0, 8], 0.0, 10.0))


def test_fixed_gate_plays_one_match_and_applies_the_threshold():
    calls: list = []
    verdict = decide_gate(_scripted("wwwwwwwwwwwlllllllll", calls), GateConfig(rule="fixed", num_games=20))
    assert calls == [20] and verdict.accepted and verdict.score == 0.55 and verdict.llr == 0.0
    assert verdict.pentanomial == (4, 0, 1, 0, 5)  # five 2-0 pairs, one split pair, four 0-2


def test_gate_settings_refuse_an_unknown_rule_and_anything_but_their_own_objects():
    with pytest.raises(ValueError, match=r"gate rule: expected one of \['sprt', 'fixed'\], got 'elo'"):
        GateConfig(rule="elo")
    with pytest.raises(ValueError, match="gate sprt: expected an SPRTConfig, got dict"):
        GateConfig(rule="sprt", sprt={"elo1": 10.0})
    with pytest.raises(ValueError, match="network_config: expected a NetworkConfig, got dict"):
        GatingWorker("tictactoe", _tiny_config().to_dict(), PUCTConfig(num_simulations=4), 2, 0.55, 1, seed=0)


def test_gating_worker_with_the_sequential_rule_plays_colour_paired_games_up_to_the_cap():
    game = games.make("tictactoe")
    a, b = _weights(11, game), _weights(12, game)
    gate = GateConfig(rule="sprt", sprt=SPRTConfig(elo0=0.0, elo1=10.0, max_games=12, pairs_per_look=2))
    worker = GatingWorker("tictactoe", _tiny_config(), PUCTConfig(num_simulations=4), 40, 0.55, 1, seed=0,
                          inference="torch", gate=gate)
    result = worker.gate(1, a, 0, b)
    # 12 games cannot move the LLR past log 19 (at most 6 x 0.0284 per 2-0 pair): the cap rejects
    assert result.rule == "sprt" and result.num_games == 12 and result.num_pairs == 6 and not result.accepted
    assert result.llr == pytest.approx(pentanomial_llr(list(result.pentanomial), 0.0, 10.0))


def test_the_training_config_builds_the_gate_once_and_refuses_bad_sprt_settings():
    from trainer.config import TrainSchema, arena_gate, validate

    config = TrainSchema()
    gate = arena_gate(config)
    assert gate.rule == "sprt" and gate.sprt == SPRTConfig(0.0, 50.0, 0.05, 0.05, 400, 10)
    config.arena.gate, config.arena.num_games = "fixed", 30
    assert arena_gate(config) == GateConfig(rule="fixed", num_games=30, threshold=0.55, sprt=gate.sprt)
    config.arena.gate, config.arena.sprt_elo1, config.arena.sprt_max_games = "sprt", -5.0, 401
    with pytest.raises(ValueError, match=r"arena.sprt_\*: sprt Elo bounds: expected finite elo0 < elo1, got 0.0 and -5.0"):
        validate(config)
