"""The OpenSpiel adapter (games/openspiel_adapter.py): the same rules as the native games where
both exist, refusals, the install hint, and a tiny training run whose model ``play`` and ``arena``
load. The generic game contract runs on adapter games in tests/test_game_contract.py."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers_scripts import run_script

import games
from games.openspiel_adapter import INSTALL_HINT

pyspiel = pytest.importorskip("pyspiel")

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "native_name, spec",
    [("tictactoe", "tic_tac_toe"), ("connect4", "connect_four"), ("othello", "othello")],
)
def test_adapter_and_native_rules_agree_over_random_games(native_name, spec):
    """Same action ids, legal moves, players to move and outcomes over seeded random games."""
    try:
        adapted = games.make(f"openspiel:{spec}")
    except ValueError as exc:  # an OpenSpiel build without that parameter
        pytest.skip(str(exc))
    native = games.make(native_name)
    assert adapted.num_actions == native.num_actions
    rng = np.random.default_rng(0)
    outcomes = {0: 0, 1: 0, -1: 0}
    num_games = 40 if native_name != "othello" else 12
    for _ in range(num_games):
        a_state, n_state = adapted.initial_states(1), native.initial_states(1)
        while True:
            legal = np.flatnonzero(native.legal_mask(n_state)[0])
            np.testing.assert_array_equal(np.flatnonzero(adapted.legal_mask(a_state)[0]), legal)
            assert adapted.to_play(a_state)[0] == native.to_play(n_state)[0]
            assert adapted.terminal(a_state)[0] == native.terminal(n_state)[0]
            if native.terminal(n_state)[0]:
                break
            action = np.array([rng.choice(legal)])
            a_state, n_state = adapted.step(a_state, action), native.step(n_state, action)
        assert adapted.winner(a_state)[0] == native.winner(n_state)[0]
        assert adapted.terminal_value(a_state)[0] == native.terminal_value(n_state)[0]
        outcomes[int(native.winner(n_state)[0])] += 1
    assert outcomes[0] > 0 and outcomes[1] > 0  # both sides won some: the outcomes were exercised


def test_move_strings_are_openspiel_action_strings_or_ids():
    game = games.make("openspiel:tic_tac_toe")
    assert game.parse_moves("x(1,1) o(0,0) 8") == [4, 0, 8]
    assert game.format_moves([4, 0, 8]) == "x(1,1) o(0,0) x(2,2)"
    with pytest.raises(ValueError, match="move 2: expected a legal move"):
        game.parse_moves("x(1,1) x(0,0)")  # O's move named with X's mark
    with pytest.raises(ValueError, match=r"move 2: action 4 is illegal"):
        game.parse_moves("4 4")
    with pytest.raises(ValueError, match="move 6: the game is already over"):
        game.parse_moves("0 3 1 4 2 5")
    state = game.states_from_moves(["x(0,0) o(1,0) x(0,1) o(1,1) x(0,2)"])
    assert game.terminal(state)[0] and game.winner(state)[0] == 0 and game.terminal_value(state)[0] == -1.0
    assert game.render(state[0]).splitlines() == ["xxx", "oo.", "..."]
    obs = game.observation(game.states_from_moves(["4"]))
    assert obs.shape == (1, 4, 3, 3) and obs[0, -1].tolist() == [[1.0] * 3] * 3  # O to move


def test_a_row_missing_from_the_cache_is_replayed():
    game = games.make("openspiel:connect_four")
    state = game.states_from_moves(["3 3 4"])
    game._cache.clear()
    fresh = games.make("openspiel:connect_four")
    np.testing.assert_array_equal(game.legal_mask(state), fresh.legal_mask(fresh.states_from_moves(["3 3 4"])))
    np.testing.assert_array_equal(game.observation(state), fresh.observation(fresh.states_from_moves(["3 3 4"])))


@pytest.mark.parametrize(
    "spec, reason",
    [
        ("kuhn_poker", "information IMPERFECT_INFORMATION"),
        ("backgammon", "chance mode EXPLICIT_STOCHASTIC"),
        ("goofspiel(players=2)", "dynamics SIMULTANEOUS"),
        ("kuhn_poker(players=3)", "3 players"),
        ("no_such_game", "OpenSpiel cannot load 'no_such_game'"),
    ],
)
def test_games_the_project_cannot_play_are_refused(spec, reason):
    with pytest.raises(ValueError, match=re.escape(reason)):
        games.make(f"openspiel:{spec}")


def test_without_open_spiel_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now raises ImportError
    with pytest.raises(ValueError, match=re.escape("pip install -e .[openspiel]")):
        games.make("openspiel:tic_tac_toe")
    assert "pip install -e .[openspiel]" in INSTALL_HINT


def test_train_config_resolves_the_openspiel_key():
    from hydra import compose, initialize_config_dir

    from trainer.config import game_id, register_configs, to_train_config, validate

    register_configs()
    with initialize_config_dir(config_dir=str(REPO_ROOT / "configs"), version_base="1.3"):
        config = to_train_config(
            compose("train", overrides=["game=openspiel", 'game.openspiel="breakthrough(rows=5,columns=5)"'])
        )
        assert game_id(config) == "openspiel:breakthrough(rows=5,columns=5)"
        validate(config)
        refused = to_train_config(compose("train", overrides=["game=openspiel", "game.openspiel=kuhn_poker"]))
        with pytest.raises(ValueError, match="game.openspiel: OpenSpiel game 'kuhn_poker' cannot be played here"):
            validate(refused)
        stray = to_train_config(compose("train", overrides=["game=tictactoe", "+game.openspiel=hex"]))
        with pytest.raises(ValueError, match="read only with game.name=openspiel"):
            validate(stray)


@pytest.mark.slow
def test_a_tiny_openspiel_run_exports_a_model_that_play_and_arena_load(tmp_path):
    run_dir = tmp_path / "run"
    command = [
        sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=openspiel",
        'game.openspiel="breakthrough(rows=5,columns=5)"', "run.max_steps=10", f"hydra.run.dir={run_dir}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=REPO_ROOT, check=False)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "run finished (max_steps): 10 steps" in result.stdout
    best = run_dir / "best"
    assert json.loads((best / "model.json").read_text())["game"]["name"] == "openspiel:breakthrough(rows=5,columns=5)"

    from frontends.arena_cli import main as arena_main
    from frontends.play_cli import main as play_main

    out = io.StringIO()
    assert play_main(["--model", str(best), "--sims", "4", "--opponent", "random"], stdin=io.StringIO(""), stdout=out) == 0
    text = out.getvalue()
    assert re.search(r"result: (X wins \(1-0\)|O wins \(0-1\))", text)  # breakthrough has no draw
    moves = [line for line in text.splitlines() if line.startswith("moves: ")][-1][len("moves: "):]
    game = games.make("openspiel:breakthrough(rows=5,columns=5)")
    assert game.terminal(game.states_from_moves([moves]))[0]

    arena_out = subprocess.run(
        [sys.executable, "-m", "frontends.arena_cli", f"mcts:model={best},sims=4", "random", "--games", "2", "--json"],
        capture_output=True, text=True, timeout=600, cwd=REPO_ROOT, check=False,
    )
    assert arena_out.returncode == 0, arena_out.stderr[-2000:]
    data = json.loads(arena_out.stdout)
    assert data["game"] == "openspiel:breakthrough(rows=5,columns=5)"
    assert data["wins"] + data["draws"] + data["losses"] == 2
    assert arena_main(["random", "random", "--game", "openspiel:hex(board_size=3)", "--games", "2"]) == 0


def test_bench_script_prints_native_and_adapter_rates():
    result = run_script("bench_openspiel", "--pairs", "tictactoe=tic_tac_toe", "--batch-sizes", "2", "--rounds", "1",
                        "--seconds", "0.01", timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    (run,) = json.loads(result.stdout)["runs"]
    assert (run["native"], run["openspiel"], run["batch_size"]) == ("tictactoe", "tic_tac_toe", 2)
    assert run["native_positions_per_s"] > 0 and run["adapter_positions_per_s"] > 0
    assert run["pyspiel_positions_per_s"] > 0 and run["single_positions_per_s"] > 0
    ratio = run["native_positions_per_s"] / run["pyspiel_positions_per_s"]
    assert run["native_over_pyspiel"] == pytest.approx(ratio, rel=0.01, abs=0.01)
