"""Player specs and the solver, network and human players behind them."""

from __future__ import annotations

import io

import numpy as np
import pytest
from helpers_models import export_tiny_mlp

import games
from arena.players import (
    AlphaBetaPlayer,
    HumanPlayer,
    HumanQuit,
    MCTSPlayer,
    MinimaxPlayer,
    PolicyPlayer,
    RandomPlayer,
    SolverPlayer,
    UCTPlayer,
)
from arena.specs import SPEC_OPTIONS, build_player, parse_spec


@pytest.fixture(scope="module")
def tictactoe_model(tmp_path_factory):
    """A tiny exported tic-tac-toe MLP (random weights)."""
    return export_tiny_mlp("tictactoe", tmp_path_factory.mktemp("ttt") / "best")


def test_parse_spec_kinds_and_typed_options():
    assert parse_spec("random").kind == "random"
    spec = parse_spec("alphabeta:depth=5")
    assert (spec.kind, spec.options, spec.name) == ("alphabeta", {"depth": 5}, "alphabeta:depth=5")
    assert parse_spec("alphabeta:time=1.0").options == {"time": 1.0}
    assert parse_spec(" uct:sims=1000,seed=3 ").options == {"sims": 1000, "seed": 3}
    spec = parse_spec("mcts:model=/runs/a,b/best,sims=200")
    assert spec.options == {"model": "/runs/a,b/best", "sims": 200}
    assert parse_spec("policy:model=runs/best/model.onnx").options == {"model": "runs/best/model.onnx"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "kinds"),
        ("alphazero", "expected one of"),
        ("alphabeta:depht=5", r"unknown option 'depht'.*accepted: \['depth', 'model', 'seed', 'threads', 'time'\]"),
        ("alphabeta", "depth=PLIES or time=SECONDS"),
        ("alphabeta:depth=0", ">= 1"),
        ("alphabeta:depth=x", "integer"),
        ("alphabeta:time=-1", ">= 0"),
        ("alphabeta:time=nan", "finite"),
        ("uct:sims=10,sims=20", "twice"),
        ("uct:1000", "KEY=VALUE"),
        ("uct:", "options after"),
        ("mcts:sims=100", "model=PATH"),
        ("random:seed=", "no value"),
        ("random:seed=-1", ">= 0"),
    ],
)
def test_parse_spec_errors_name_the_problem(text, message):
    with pytest.raises(ValueError, match=message):
        parse_spec(text)


def test_every_kind_lists_seed():
    assert all("seed" in options for options in SPEC_OPTIONS.values())


@pytest.mark.parametrize(
    ("text", "cls"),
    [
        ("random", RandomPlayer),
        ("minimax", MinimaxPlayer),
        ("alphabeta:depth=2", AlphaBetaPlayer),
        ("uct:sims=20", UCTPlayer),
        ("solver", SolverPlayer),
        ("human", HumanPlayer),
    ],
)
def test_build_player_kinds(tictactoe, text, cls):
    player = build_player(text, tictactoe, seed=4)
    assert isinstance(player, cls)
    assert player.name == text
    assert isinstance(player.rng, np.random.Generator)


def test_seed_option_wins_over_the_default_and_players_are_reproducible(tictactoe):
    state = tictactoe.initial_state()
    first = [
        build_player("random:seed=9", tictactoe, seed=1).select_action(tictactoe, state) for _ in range(3)
    ]
    assert len(set(first)) == 1
    a = build_player("random", tictactoe, seed=5)
    b = build_player("random", tictactoe, seed=5)
    assert [a.select_action(tictactoe, state) for _ in range(20)] == [
        b.select_action(tictactoe, state) for _ in range(20)
    ]
    c = build_player("random:seed=5", tictactoe, seed=99)
    d = build_player("random", tictactoe)  # default seed 0
    assert c.rng.integers(1 << 30) == np.random.default_rng(5).integers(1 << 30)
    assert d.rng.integers(1 << 30) == np.random.default_rng(0).integers(1 << 30)


def test_model_players_from_an_export_folder(tictactoe, tictactoe_model):
    mcts = build_player(f"mcts:model={tictactoe_model},sims=30", tictactoe)
    policy = build_player(f"policy:model={tictactoe_model / 'model.onnx'}", tictactoe)
    assert isinstance(mcts, MCTSPlayer) and mcts.config.num_simulations == 30
    assert isinstance(policy, PolicyPlayer)
    # P1: X X . / O O . / . . .  X to move; 30 simulations find the win at 2
    p1 = tictactoe.state_from_board("X X . / O O . / . . .")
    analysis = mcts.analyze(tictactoe, p1)
    assert analysis.best_action == 2
    assert analysis.value == 1.0
    assert int(analysis.visit_counts.sum()) == 30
    assert analysis.priors.sum() == pytest.approx(1.0)
    assert np.all(analysis.priors[[0, 1, 3, 4]] == 0.0)
    action = policy.select_action(tictactoe, p1)
    legal = tictactoe.actions(p1)
    assert action in legal
    assert action == legal[int(np.argmax(policy.analyze(tictactoe, p1).priors[legal]))]


def test_threads_option_sets_the_onnx_sessions_intra_op_threads(tictactoe, tictactoe_model):
    from arena.specs import load_model_evaluator

    one = load_model_evaluator(str(tictactoe_model), tictactoe, 1)
    assert one.__self__.session.get_session_options().intra_op_num_threads == 1
    two = load_model_evaluator(str(tictactoe_model), tictactoe, 2)
    assert two.__self__.session.get_session_options().intra_op_num_threads == 2
    player = build_player(f"mcts:model={tictactoe_model},sims=30,threads=1", tictactoe)
    p1 = tictactoe.state_from_board("X X . / O O . / . . .")
    assert player.select_action(tictactoe, p1) == 2
    with pytest.raises(ValueError, match="threads.*integer >= 1"):
        build_player(f"policy:model={tictactoe_model},threads=0", tictactoe)


def test_symmetries_option_averages_the_network_over_the_eight_symmetries(tictactoe, tictactoe_model):
    plain = build_player(f"policy:model={tictactoe_model}", tictactoe)
    averaged = build_player(f"policy:model={tictactoe_model},symmetries=true", tictactoe)
    empty = tictactoe.initial_state()
    plain_priors = plain.analyze(tictactoe, empty).priors
    priors = averaged.analyze(tictactoe, empty).priors
    # the empty board is its own image under every symmetry: the four corners get one prior, as do
    # the four edges; each is the mean of the plain network's priors over its class
    np.testing.assert_allclose(priors[[0, 2, 6, 8]], plain_priors[[0, 2, 6, 8]].mean(), rtol=1e-5)
    np.testing.assert_allclose(priors[[1, 3, 5, 7]], plain_priors[[1, 3, 5, 7]].mean(), rtol=1e-5)
    np.testing.assert_allclose(priors[4], plain_priors[4], rtol=1e-5)
    assert not np.allclose(plain_priors[[0, 2, 6, 8]], plain_priors[0])  # the random network is not symmetric
    mcts = build_player(f"mcts:model={tictactoe_model},sims=30,symmetries=yes", tictactoe)
    p1 = tictactoe.state_from_board("X X . / O O . / . . .")
    assert mcts.select_action(tictactoe, p1) == 2
    with pytest.raises(ValueError, match="symmetries"):
        build_player(f"mcts:model={tictactoe_model},symmetries=maybe", tictactoe)


def test_model_spec_errors(tictactoe, connect4, tictactoe_model, tmp_path):
    with pytest.raises(FileNotFoundError):
        build_player(f"mcts:model={tmp_path / 'missing'}", tictactoe)
    with pytest.raises(ValueError, match="tictactoe"):
        build_player(f"policy:model={tictactoe_model}", connect4)


def test_solver_player_picks_the_fastest_win_and_only_best_moves(connect4):
    # ply 18, X to move: column 2 wins at once (score (42 + 1 - 18) // 2 = 12), column 6 wins later
    moves = "554772552346365236"
    state = connect4.initial_state()
    for action in connect4.parse_moves(moves):
        state = connect4.result(state, action)
    scores = games.knowledge(connect4).exact_solver().action_scores(state)
    assert scores == {0: -12, 1: 12, 2: -12, 3: -12, 4: -12, 5: 6, 6: -12}
    assert all(SolverPlayer(rng=seed).select_action(connect4, state) == 1 for seed in range(5))


def test_connect4_solver_player_spreads_over_every_optimal_move(connect4):
    from arena.positions.connect4 import load_position_set

    labelled = load_position_set("middle_easy")
    rows = [i for i in range(len(labelled)) if labelled.optimal_mask[i].sum() >= 3][:3]
    assert rows, "middle_easy has positions with three or more optimal columns"
    for i in rows:
        state = connect4.initial_state()
        for action in connect4.parse_moves(labelled.moves[i]):
            state = connect4.result(state, action)
        picks = {SolverPlayer(rng=seed).select_action(connect4, state) for seed in range(30)}
        assert picks == set(np.flatnonzero(labelled.optimal_mask[i]).tolist()), labelled.moves[i]


def test_connect4_action_scores_match_the_solver_analysis(connect4):
    from games.connect4.solver import analyze

    for moves in ("71465614126151373316", "66754264613656455542", "3511526211316135556543277664"):
        state = connect4.initial_state()
        for action in connect4.parse_moves(moves):
            state = connect4.result(state, action)
        expected = {c: s for c, s in enumerate(analyze(moves)) if s is not None}
        assert games.knowledge(connect4).exact_solver().action_scores(state) == expected


def test_solver_tie_break_is_seeded_and_uniform_over_best(tictactoe):
    start = tictactoe.initial_state()  # every first move draws
    picks = {SolverPlayer(rng=seed).select_action(tictactoe, start) for seed in range(40)}
    assert len(picks) > 3
    assert SolverPlayer(rng=3).select_action(tictactoe, start) == SolverPlayer(rng=3).select_action(
        tictactoe, start
    )


def test_human_player_reprompts_then_moves_and_quits(tictactoe):
    out = io.StringIO()
    human = HumanPlayer(input_stream=io.StringIO("x\n10\n5\n"), output_stream=out)
    assert human.select_action(tictactoe, tictactoe.initial_state()) == 4
    assert out.getvalue().count("legal moves: 1 2 3 4 5 6 7 8 9") == 2
    with pytest.raises(HumanQuit):
        HumanPlayer(input_stream=io.StringIO("quit\n"), output_stream=io.StringIO()).select_action(
            tictactoe, tictactoe.initial_state()
        )
    with pytest.raises(HumanQuit):
        HumanPlayer(input_stream=io.StringIO(""), output_stream=io.StringIO()).select_action(
            tictactoe, tictactoe.initial_state()
        )


def test_model_players_from_a_weights_file(tictactoe, tmp_path):
    torch = pytest.importorskip("torch")
    from networks import NetworkConfig, build_network
    from networks.checkpoint import save_model

    torch.manual_seed(2)
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)
    model = build_network(config, tictactoe.observation_shape, tictactoe.num_actions)
    path = save_model(tmp_path / "model.pt", model, config, tictactoe.name, tictactoe.version)
    player = build_player(f"mcts:model={path},sims=12", tictactoe)
    p1 = tictactoe.state_from_board("X X . / O O . / . . .")
    assert player.select_action(tictactoe, p1) == 2


def test_arena_command_with_model_players(tictactoe_model, capsys):
    import json

    from frontends.arena_cli import main

    spec = f"mcts:model={tictactoe_model},sims=8"
    assert (
        main([spec, f"policy:model={tictactoe_model}", "--game", "tictactoe", "--games", "4", "--json"]) == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert data["player_a"] == spec
    assert data["wins"] + data["draws"] + data["losses"] == 4


def test_arena_accuracy_of_a_model_uses_the_batched_search(tictactoe, tictactoe_model, capsys):
    import json

    from arena.accuracy import labelled_sets, network_mistake_rates
    from arena.specs import load_model_evaluator
    from frontends.arena_cli import main
    from mcts import PUCTConfig

    spec = f"mcts:model={tictactoe_model},sims=6"
    assert main(["accuracy", spec, "--game", "tictactoe", "--json"]) == 0
    rate = json.loads(capsys.readouterr().out)["sets"]["all"]["mistake_rate"]
    evaluate_fn = load_model_evaluator(str(tictactoe_model), tictactoe)
    expected = network_mistake_rates(tictactoe, evaluate_fn, PUCTConfig(num_simulations=6))["all"]
    assert rate == expected
    subset = labelled_sets(tictactoe)["all"]
    assert 0.0 < rate < 1.0 and len(subset) == 4520


def test_a_model_is_played_with_the_search_its_model_json_records():
    from arena.model_player import played_search
    from arena.specs import search_settings
    from mcts import GumbelConfig, PUCTConfig

    # the shipped Pig model was trained and gated with PUCT backing up max_self (configs/mcts/pig.yaml)
    assert played_search("pig") == ("puct", {
        "backup": "max_self", "c_base": None, "c_init": 1.25, "c_puct": 1.25, "chance": "expectation",
        "fpu_value": 0.0, "solver": False,
    })
    assert search_settings(parse_spec("mcts:model=pig,sims=200"), 200) == PUCTConfig(num_simulations=200, backup="max_self")
    assert search_settings(parse_spec("mcts:model=pig,backup=mean"), 50) == PUCTConfig(num_simulations=50)
    assert search_settings(parse_spec("mcts:model=pig,search=gumbel"), 16) == GumbelConfig(num_simulations=16)
    # tic-tac-toe's records only the library's defaults (its root noise is self-play's, not play's)
    assert search_settings(parse_spec("mcts:model=tictactoe"), 200) == PUCTConfig(num_simulations=200)


def test_a_model_without_a_recorded_search_is_played_with_puct(tictactoe_model):
    from arena.model_player import played_search

    assert played_search(tictactoe_model) == ("puct", {})
    assert played_search(tictactoe_model, "gumbel") == ("gumbel", {})
