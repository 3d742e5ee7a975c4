"""The search registry (mcts/registry.py): a search registered from this file alone is chosen by
name in ``train`` (``mcts.algorithm=NAME``, through the settings the run hands its self-play
actors) and in ``arena`` (``mcts:search=NAME``), and every registered search is called the same
way and returns one ``SearchOutput``."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from helpers_models import export_tiny_mlp

import games
import mcts
from mcts import GumbelConfig, PUCTConfig, SearchOutput, UCTConfig, run_search, uniform_evaluator
from mcts.search import run_puct

TICTACTOE = games.make("tictactoe")


@dataclass(frozen=True)
class LastLegalConfig:
    """A fourth search, for these tests only: a PUCT search whose move is the highest legal action."""

    algorithm: ClassVar[str] = "last_legal"
    num_simulations: int = 2


def _last_legal(game, root_states, evaluate_fn, settings, rng, options):
    output = run_puct(game, root_states, evaluate_fn, PUCTConfig(num_simulations=settings.num_simulations), rng,
                      add_root_noise=False)
    legal = game.legal_mask(root_states)
    output.actions = (game.num_actions - 1 - np.argmax(legal[:, ::-1], axis=1)).astype(np.int64)
    output.policy_targets = np.eye(game.num_actions, dtype=np.float32)[output.actions]
    return output


#: tic-tac-toe when both sides play the highest free cell: X 9, O 8, X 7, O 6, X 5, O 4, X 3 wins
#: on the 3-5-7 diagonal (1-based cells)
LAST_LEGAL_GAME = "9876543"


@pytest.fixture
def last_legal():
    mcts.register(LastLegalConfig, _last_legal, chooses_by_visits=False)
    yield "last_legal"
    mcts.unregister("last_legal")


@pytest.fixture(scope="module")
def compose():
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from trainer.cli import CONFIG_DIR
    from trainer.config import to_train_config

    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        yield lambda overrides: to_train_config(hydra_compose("train", overrides=overrides))


def test_train_picks_a_registered_search_by_name_for_its_self_play_actors(last_legal, compose, tmp_path):
    from selfplay.worker import SelfPlayWorker
    from trainer.loop import TrainingRun

    config = compose(["game=tictactoe", "experiment=tiny", f"mcts.algorithm={last_legal}", "mcts.num_simulations=3",
                      "selfplay.random_opening_plies=0"])
    run = TrainingRun(config, tmp_path)  # validates the config, builds the actors' frozen settings
    assert run.selfplay_search == LastLegalConfig(num_simulations=3)
    kwargs = run._worker_kwargs(incarnation=1)
    kwargs["settings"] = dataclasses.replace(kwargs["settings"], moves_per_call=9, num_games=2, inference="torch")
    worker = SelfPlayWorker(**kwargs)  # the self-play actor's class, without Ray
    weights = {name: value.numpy() for name, value in worker.evaluator.model.state_dict().items()}
    records, _ = worker.play(0, weights)
    assert [TICTACTOE.format_moves(record.actions) for record in records] == [LAST_LEGAL_GAME] * 2
    assert all(np.array_equal(record.policies.argmax(axis=1), record.actions) for record in records)


def test_arena_picks_a_registered_search_by_name(last_legal, tmp_path):
    from arena.specs import build_player, parse_spec
    from frontends.arena_cli import main

    model = export_tiny_mlp("tictactoe", tmp_path / "best")
    spec = f"mcts:model={model},search={last_legal},sims=2"
    assert parse_spec(spec).options["search"] == last_legal
    assert build_player(spec, TICTACTOE).config == LastLegalConfig(num_simulations=2)
    out = tmp_path / "match.json"
    assert main([spec, spec, "--game", "tictactoe", "--games", "2", "--opening-plies", "0", "--out", str(out)]) == 0
    text = out.read_text()
    assert text.count(f'"{LAST_LEGAL_GAME}"') == 2  # both games, one with each colour first


def test_unknown_search_names_list_the_registered_ones():
    from arena.specs import parse_spec

    with pytest.raises(ValueError, match=r"option 'search' expects one of \['puct', 'gumbel', 'uct'"):
        parse_spec("mcts:model=m,search=alphago")
    with pytest.raises(ValueError, match=r"unknown search 'alphago'; expected one of \['puct', 'gumbel', 'uct'"):
        mcts.algorithm("alphago")
    with pytest.raises(ValueError, match="expected the settings of a registered search"):
        run_search(TICTACTOE, TICTACTOE.initial_states(1), uniform_evaluator, {"num_simulations": 4},
                   np.random.default_rng(0))


def test_a_setting_the_named_search_lacks_is_refused(tmp_path):
    from arena.specs import build_player

    model = export_tiny_mlp("tictactoe", tmp_path / "best")
    with pytest.raises(ValueError, match=r"search=gumbel has no setting \['c_puct'\]"):
        build_player(f"mcts:model={model},search=gumbel,c_puct=2.0", TICTACTOE)
    player = build_player(f"mcts:model={model},search=gumbel,sims=8,solver=true", TICTACTOE)
    assert player.config == GumbelConfig(num_simulations=8, solver=True)


@pytest.mark.parametrize("settings", [PUCTConfig(num_simulations=12), GumbelConfig(num_simulations=12), UCTConfig(num_simulations=12)])
def test_every_search_is_called_the_same_way_and_returns_one_output(settings):
    roots = TICTACTOE.states_from_moves(["", "5"])
    output = run_search(TICTACTOE, roots, uniform_evaluator, settings, np.random.default_rng(0))
    assert isinstance(output, SearchOutput)
    assert output.visit_counts.sum(axis=1).tolist() == [12, 12]
    assert output.actions.shape == (2,) and TICTACTOE.legal_mask(roots)[[0, 1], output.actions].all()
    np.testing.assert_allclose(output.policy_targets.sum(axis=1), 1.0, rtol=1e-6)
    assert not (output.policy_targets * ~TICTACTOE.legal_mask(roots)).any()


def test_searches_that_reuse_no_tree_or_roll_no_dice_say_so():
    rng = np.random.default_rng(0)
    roots = TICTACTOE.initial_states(1)
    tree = run_search(TICTACTOE, roots, uniform_evaluator, PUCTConfig(num_simulations=4), rng).tree
    with pytest.raises(ValueError, match="the gumbel search does not reuse trees"):
        run_search(TICTACTOE, roots, uniform_evaluator, GumbelConfig(num_simulations=4), rng, tree=tree)
    pig = games.make("pig")
    with pytest.raises(ValueError, match=r"pig has chance states; the uct search .* \['puct', 'gumbel'\]"):
        run_search(pig, pig.initial_states(1), uniform_evaluator, UCTConfig(num_simulations=4), rng)
    assert [mcts.algorithm(name).reuses_tree for name in mcts.names()] == [True, False, True]
    assert [mcts.algorithm(name).searches_chance for name in mcts.names()] == [True, True, False]


def test_settings_come_from_a_flat_section_by_each_class_s_keys():
    flat = {"num_simulations": 40, "c_puct": 2.0, "gumbel_max_considered_actions": 5, "gumbel_c_visit": 9.0,
            "uct_c": 0.5, "solver": True}
    assert mcts.settings_from("puct", flat) == PUCTConfig(num_simulations=40, c_puct=2.0, solver=True)
    assert mcts.settings_from("gumbel", flat) == GumbelConfig(
        num_simulations=40, max_num_considered_actions=5, c_visit=9.0, solver=True
    )
    assert mcts.settings_from("uct", flat, num_simulations=7) == UCTConfig(num_simulations=7, c=0.5)
    with pytest.raises(ValueError, match="expected num_simulations >= 1, got 0"):
        mcts.settings_from("puct", {"num_simulations": 0})


def test_the_trainer_schema_holds_every_registered_setting_once():
    from trainer.config import MCTSSchema

    keys = [f.name for f in dataclasses.fields(MCTSSchema)]
    for name in mcts.names():
        settings_type = mcts.algorithm(name).settings_type
        for f in dataclasses.fields(settings_type):
            assert mcts.config_key(settings_type, f.name) in keys
    assert len(keys) == len(set(keys))
    assert json.dumps(keys[:3]) == '["algorithm", "num_simulations", "c_puct"]'


def test_play_and_the_python_api_name_their_search():
    from arena.model_player import make_model_player

    player = make_model_player(uniform_evaluator, 8, seed=0, search="gumbel")
    assert player.config == GumbelConfig(num_simulations=8)
    assert make_model_player(uniform_evaluator, 8, seed=0).config == PUCTConfig(num_simulations=8)
    with pytest.raises(ValueError, match="unknown search 'alphago'"):
        make_model_player(uniform_evaluator, 8, seed=0, search="alphago")


def test_gating_matches_play_the_gumbel_search():
    from arena.network_match import run_network_match

    result = run_network_match(
        TICTACTOE, uniform_evaluator, uniform_evaluator, 4, GumbelConfig(num_simulations=8), np.random.default_rng(0),
        opening_plies=1, break_ties=True,
    )
    assert result.wins + result.draws + result.losses == 4
    for record in result.games:
        state = TICTACTOE.states_from_moves([record.moves])
        assert TICTACTOE.terminal(state)[0]
    # Gumbel without noise is deterministic: one opening, one game, whichever seat moves first
    assert result.games[0].moves == result.games[1].moves


def test_the_arena_command_plays_a_gumbel_model(tmp_path):
    from frontends.arena_cli import main

    model = export_tiny_mlp("tictactoe", tmp_path / "best")
    out = tmp_path / "match.json"
    gumbel, puct = f"mcts:model={model},search=gumbel,sims=8", f"mcts:model={model},sims=8"
    assert main([gumbel, puct, "--game", "tictactoe", "--games", "2", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["player_a"] == gumbel
    assert data["wins"] + data["draws"] + data["losses"] == 2


def test_uct_with_random_rollouts_takes_no_evaluator():
    # X to move wins at cell 2 (0-based); O threatens cell 5
    state = np.array([TICTACTOE.state_from_board("X X . / O O . / . . .")], dtype=np.int64)
    output = run_search(TICTACTOE, state, None, UCTConfig(num_simulations=300), np.random.default_rng(0))
    assert output.actions.tolist() == [2]
    assert output.visit_counts[0].argmax() == 2 and output.visit_counts.sum() == 300
    assert output.q_values[0, 2] == 1.0  # the win is terminal: every visit backs up +1


def test_run_search_is_the_recorded_search_of_each_algorithm():
    from test_mcts_regression import CONFIGS, hashed_evaluator

    game = games.make("connect4")
    roots = game.states_from_moves(["", "4453"])
    puct = run_search(game, roots, hashed_evaluator(game), CONFIGS["puct"], np.random.default_rng(5), explore=True)
    assert puct.visit_counts.tolist() == [[9, 1, 1, 1, 2, 8, 2], [4, 0, 3, 2, 3, 4, 8]]  # tests/test_mcts_regression.py
    assert puct.actions.tolist() == [0, 6]  # greedy: the most visited, lowest index on ties
    gumbel = run_search(game, roots, hashed_evaluator(game), CONFIGS["gumbel"], np.random.default_rng(5), explore=True)
    assert gumbel.visit_counts.tolist() == [[0, 0, 0, 2, 6, 6, 2], [6, 2, 0, 0, 2, 6, 0]]
    assert gumbel.actions.tolist() == [4, 0]


@pytest.mark.parametrize(
    "settings, options",
    [
        (PUCTConfig(num_simulations=60, solver=True), {}),  # proofs change the counts it chooses from
        (PUCTConfig(num_simulations=40), {"leaves_per_call": 4}),  # virtual loss, one root
        (UCTConfig(num_simulations=80), {}),  # one root: the compiled search
        (UCTConfig(num_simulations=30), {"evaluate": True}),  # the batched loop
    ],
)
def test_a_visit_count_search_fills_the_greedy_lowest_index_move_run_search_plays(settings, options):
    """``run_search`` at temperature 0 with ``ties="lowest"`` plays ``run_fn``'s own actions
    (mcts/registry.py, ``Algorithm.chooses_by_visits``): they must be ``choose_moves``' choice."""
    from mcts.registry import choose_moves

    # X to move with a win at cell 3 (0-based 2) and O threatening 4-5-6
    state = TICTACTOE.initial_states(1)
    for cell in (0, 3, 1, 4):
        state = TICTACTOE.step(state, np.array([cell]))
    options = dict(options)
    evaluate = uniform_evaluator if options.pop("evaluate", False) or settings.algorithm == "puct" else None
    output = run_search(TICTACTOE, state, evaluate, settings, np.random.default_rng(3), **options)
    assert output.actions.tolist() == [2]
    assert output.actions.tolist() == choose_moves(output, 0.0, "lowest", np.random.default_rng(0)).tolist()
