"""The hybrid: a policy/value network as alpha-beta's leaf evaluation and move ordering."""

from __future__ import annotations

import json

import numpy as np
import pytest

import games
from arena.accuracy import player_mistake_rates
from arena.hybrid_player import HybridAlphaBetaPlayer
from arena.specs import build_player, parse_spec
from search.alphabeta import NO_ORDERING, AlphaBeta
from search.hybrid import NETWORK_VALUE_SCALE, NetworkEvaluation
from search.minimax import PROVEN_THRESHOLD, WIN_SCORE, Minimax, zero_evaluate
from tests.helpers_games import play_moves, random_positions
from tests.helpers_models import export_tiny_mlp
from tests.helpers_scripts import load_script


def _state_stub(value_fn, priors_fn=None):
    """A batched evaluator on states: ``value_fn(state tuple)`` per row, priors uniform unless given."""

    def evaluate(states, legal_mask):
        values = np.array([value_fn(tuple(int(v) for v in row)) for row in states], dtype=np.float32)
        if priors_fn is None:
            priors = legal_mask / legal_mask.sum(axis=1, keepdims=True)
        else:
            priors = np.array([priors_fn(tuple(int(v) for v in row)) for row in states])
        return priors.astype(np.float32), values

    evaluate.takes_states = True
    return evaluate


# ------------------------------------------------------------------------------ exact values
def test_exact_value_network_plays_every_tictactoe_position_perfectly_at_depth_one(tictactoe):
    exact = Minimax(tictactoe)
    player = HybridAlphaBetaPlayer(tictactoe, _state_stub(exact.value), depth=1)
    rates = player_mistake_rates(tictactoe, player)
    assert rates == {"all": 0.0}
    # the depth-1 search alone sees no further than the children: the network did the work
    assert player.last_result.depth == 1


def test_a_constant_zero_network_gives_the_terminal_only_search_on_tictactoe(tictactoe):
    # random priors reorder the moves; the score and the move must not change
    rng = np.random.default_rng(3)
    priors_fn = lambda state: rng.random(tictactoe.num_actions)
    for state in random_positions(tictactoe, np.random.default_rng(0), 60, 8):
        for depth in (1, 2, 3, 5):
            network = NetworkEvaluation(tictactoe, _state_stub(lambda s: 0.0, priors_fn))
            hybrid = AlphaBeta(tictactoe, network.evaluate, expand_fn=network.expand).search(state, depth)
            plain = AlphaBeta(tictactoe, zero_evaluate, ordering=NO_ORDERING).search(state, depth)
            assert (hybrid.score, hybrid.action) == (plain.score, plain.action), tictactoe.render(state)


@pytest.mark.parametrize("constant", [0.0, 0.6, -0.25, 1.0])
def test_a_constant_network_keeps_the_terminal_only_move_on_connect4(connect4, constant):
    # no draw is reachable within 4 plies of these positions, so a constant leaf value ranks the
    # root moves as the terminal-only search does: the move is the same and a proven score equal;
    # an unproven score is the constant seen from the root, 4 plies up (negated 4 times)
    for state in random_positions(connect4, np.random.default_rng(1), 25, 24):
        network = NetworkEvaluation(connect4, _state_stub(lambda s: constant))
        hybrid = AlphaBeta(connect4, network.evaluate, expand_fn=network.expand).search(state, 4)
        plain = AlphaBeta(connect4, zero_evaluate).search(state, 4)
        assert hybrid.action == plain.action, connect4.render(state)
        if plain.proven:
            assert hybrid.score == plain.score
        else:
            assert plain.score == 0
            assert hybrid.score == round(constant * NETWORK_VALUE_SCALE)


# -------------------------------------------------------------------- proven results and range
def test_a_proven_win_outranks_the_best_network_value(tictactoe):
    # X X . / O O . / . . ., X to move: 2 wins now; the network calls every child won for X
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    network = NetworkEvaluation(tictactoe, _state_stub(lambda s: -1.0))
    result = AlphaBeta(tictactoe, network.evaluate, expand_fn=network.expand).search(state, 3)
    assert result.action == 2
    assert result.score == WIN_SCORE - 1
    assert NETWORK_VALUE_SCALE < PROVEN_THRESHOLD


def test_a_proven_loss_is_avoided_whatever_the_network_says(connect4):
    # X has three in column 1; O to move must block at column 1 or lose next move, although the
    # network prices every position that X moves in at -1 for X
    state = play_moves(connect4, "14141")
    network = NetworkEvaluation(connect4, _state_stub(lambda s: -1.0 if s[2] % 2 == 0 else 1.0))
    result = AlphaBeta(connect4, network.evaluate, expand_fn=network.expand).search(state, 2)
    assert result.action == 0
    assert not result.proven


@pytest.mark.parametrize("bad", [1.5, -1.0001, float("nan"), float("inf")])
def test_a_network_value_outside_minus_one_one_is_refused(connect4, bad):
    network = NetworkEvaluation(connect4, _state_stub(lambda s: bad))
    search = AlphaBeta(connect4, network.evaluate, expand_fn=network.expand)
    with pytest.raises(ValueError, match=r"expected values in \[-1, 1\]"):
        search.search(connect4.initial_state(), 2)


def test_network_arrays_of_the_wrong_shape_are_refused(connect4):
    def evaluate(states, legal_mask):
        return np.ones((states.shape[0], 3), dtype=np.float32), np.zeros(states.shape[0], dtype=np.float32)

    evaluate.takes_states = True
    with pytest.raises(ValueError, match=r"expected priors of shape \(1, 7\), got \(1, 3\)"):
        NetworkEvaluation(connect4, evaluate).value(connect4.initial_state())
    with pytest.raises(ValueError, match="max_cache_entries"):
        NetworkEvaluation(connect4, evaluate, max_cache_entries=0)


# ----------------------------------------------------------------------- ordering and batching
def test_the_policy_orders_the_moves(connect4):
    preferred = [5, 1, 6, 0, 4, 2, 3]
    priors = np.zeros(7)
    priors[preferred] = np.arange(7, 0, -1)
    network = NetworkEvaluation(connect4, _state_stub(lambda s: 0.0, lambda s: priors / priors.sum()))
    assert network.expand(connect4.initial_state(), list(range(7)), 3) == preferred
    # a full column is never ordered in: only the moves given come back
    assert network.expand(connect4.initial_state(), [0, 3, 5], 1) == [5, 0, 3]


def test_frontier_siblings_share_one_network_call(connect4):
    network = NetworkEvaluation(connect4, _state_stub(lambda s: 0.0))
    AlphaBeta(connect4, network.evaluate, expand_fn=network.expand).search(connect4.initial_state(), 1)
    # the root and its 7 children in one call
    assert (network.num_calls, network.num_positions) == (1, 8)
    network = NetworkEvaluation(connect4, _state_stub(lambda s: 0.0))
    AlphaBeta(connect4, network.evaluate, expand_fn=network.expand).search(connect4.initial_state(), 2)
    # the root alone (above the frontier), then one call per child with its 7 children: 8 calls,
    # 1 + 7 + 49 distinct positions
    assert (network.num_calls, network.num_positions) == (8, 57)


def test_the_cache_never_sends_a_position_twice(connect4):
    network = NetworkEvaluation(connect4, _state_stub(lambda s: 0.0))
    search = AlphaBeta(connect4, network.evaluate, expand_fn=network.expand)
    search.iterative_deepening(connect4.initial_state(), max_depth=4)
    positions = network.num_positions
    search.iterative_deepening(connect4.initial_state(), max_depth=4)
    assert network.num_positions == positions


# ------------------------------------------------------------------------------ player spec
def test_the_hybrid_spec_builds_a_network_alpha_beta_player(tmp_path, connect4):
    folder = export_tiny_mlp("connect4", tmp_path / "model")
    spec = parse_spec(f"alphabeta:depth=2,model={folder}")
    assert spec.options == {"depth": 2, "model": str(folder)}
    player = build_player(spec, connect4)
    assert isinstance(player, HybridAlphaBetaPlayer)
    assert player.name == f"alphabeta:depth=2,model={folder}"
    state = play_moves(connect4, "4453")
    action = player.select_action(connect4, state)
    assert action in connect4.actions(state)
    assert player.network.num_calls >= 1
    # the same search with the network's values taken directly: the same score and move
    network = player.network
    again = AlphaBeta(connect4, network.evaluate, expand_fn=network.expand, ordering=NO_ORDERING).search(state, 2)
    assert (again.score, again.action) == (player.last_result.score, player.last_result.action)
    timed = build_player(f"alphabeta:time=0.05,model={folder}", connect4)
    assert timed.select_action(connect4, state) in connect4.actions(state)
    with pytest.raises(ValueError, match="this network plays connect4"):
        player.select_action(games.make("tictactoe"), games.make("tictactoe").initial_state())


def test_bench_hybrid_reports_nodes_and_network_calls(tmp_path, capsys, monkeypatch):
    module = load_script("bench_hybrid")
    folder = export_tiny_mlp("connect4", tmp_path / "model")
    # a fast machine: every search takes 20 microseconds, each row's time rounds to 0.0000 s
    timed = module._timed
    monkeypatch.setattr(module, "_timed", lambda repeat, run_fn: (2e-5, timed(1, run_fn)[1]))
    assert module.main(["--model", str(folder), "--depth", "1"]) == 0
    report = json.loads(capsys.readouterr().out)["alphabeta_connect4"]
    assert report["total"]["heuristic"]["seconds"] == 0.0001  # four rows of 2e-5 s, summed before rounding
    rows = report["positions"]
    assert [row["moves"] for row in rows] == list(module.CONNECT4_POSITIONS)
    for row in rows:
        # depth 1: the root and its children, all of them sent in the root's one call
        assert row["hybrid"]["network_calls"] == 1
        assert row["hybrid"]["nodes"] == row["heuristic"]["nodes"]
    total = report["total"]["hybrid"]
    assert total["network_calls"] == 4
    assert total["network_calls_per_node"] == round(4 / total["nodes"], 4)
