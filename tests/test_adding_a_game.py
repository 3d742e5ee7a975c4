"""The worked example of docs/adding_a_game.md: Connect Three (tests/example_game.py) registered as
a new game passes the game contract, plays by its rules, and works with ``arena`` and ``play``.

The game is registered only while each test runs (``registered`` fixture); the shipped registry is
unchanged afterwards.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import test_game_contract as contract  # a module, not its functions: pytest must not collect them twice
from example_game import ConnectThree
from helpers_models import export_tiny_mlp

import games

NAME = "connect3"
TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent
GUIDE = REPO_ROOT / "docs" / "adding_a_game.md"

#: contract checks that hard-code the shipped games' move notation; this file has its own version
GAME_SPECIFIC_CHECKS = {"test_move_string_errors_of_the_shipped_games"}  # takes no game name
CONTRACT_CHECKS = sorted(
    name for name in vars(contract) if name.startswith("test_") and name not in GAME_SPECIFIC_CHECKS
)

# A full board without three in a row (found by a seeded random playout).
DRAWN_GAME = "3233143142244211"


@pytest.fixture
def registered(monkeypatch):
    """``connect3`` in the registry for one test, as the guide's registry line would put it."""
    from arena import specs

    monkeypatch.setitem(games._REGISTRY, NAME, games.GameEntry("example_game.ConnectThree"))
    yield NAME
    from games import exhaustive

    for key in [key for key in exhaustive._SHARED if key[2] == NAME]:
        del exhaustive._SHARED[key]
    for key in [key for key in specs._EVALUATORS if key[1] == NAME]:
        del specs._EVALUATORS[key]


@pytest.fixture
def game(registered):
    return games.make(registered)


def test_the_registry_is_unchanged_outside_the_fixture():
    assert NAME not in games.names()


@pytest.mark.parametrize("check", CONTRACT_CHECKS)
def test_contract(check, registered):
    """Every game-independent check of tests/test_game_contract.py, run on connect3."""
    getattr(contract, check)(registered)


def test_move_strings_round_trip_and_errors(game):
    assert game.format_moves(game.parse_moves("4432")) == "4432"
    for moves, message in (
        ("15", "move 2: expected a column 1-4"),
        ("11111", "move 5: column 1 is full"),
        ("112233", "move 6: the game is already over"),
    ):
        with pytest.raises(ValueError, match=message):
            game.parse_moves(moves)


def test_registered_game_has_the_declared_sizes(game):
    assert isinstance(game, ConnectThree) and NAME in games.names()
    assert (game.num_actions, game.observation_shape, game.state_size) == (4, (2, 4, 4), 4)
    assert game.num_symmetries == 2 and game.max_game_length == 16
    states = game.initial_states(3)
    assert states.shape == (3, 4) and states.dtype == np.int64
    assert game.legal_mask(states).all()


@pytest.mark.parametrize(
    "moves, plies",
    [
        ("11223", 5),  # across the bottom row
        ("12121", 5),  # up column 1
        ("1223433", 7),  # diagonal up to the right
        ("4332122", 7),  # its mirror: diagonal up to the left
    ],
)
def test_three_in_a_row_wins_for_the_player_who_made_it(game, moves, plies):
    state = game.states_from_moves([moves])
    assert game.terminal(state)[0] and game.winner(state)[0] == 0 and game.ply(state)[0] == plies
    assert game.terminal_value(state)[0] == -1.0  # O is to move and has lost
    assert not game.legal_mask(state).any()
    before = game.states_from_moves([moves[:-1]])
    assert not game.terminal(before)[0] and game.winner(before)[0] == -1


def test_second_player_wins_too(game):
    state = game.states_from_moves(["411223"])  # O completes the bottom row 1-2-3
    assert game.winner(state)[0] == 1 and game.to_play(state)[0] == 0


def test_full_board_without_three_is_a_draw(game):
    state = game.states_from_moves([DRAWN_GAME])
    assert game.terminal(state)[0] and game.winner(state)[0] == -1
    assert game.terminal_value(state)[0] == 0.0 and game.ply(state)[0] == 16
    assert not game.terminal(game.states_from_moves([DRAWN_GAME[:-1]]))[0]
    assert game.render(state[0]).splitlines() == ["O O X X", "X X O O", "O O X X", "X O X O", "1 2 3 4"]


def test_legal_moves_and_observation_of_a_known_position(game):
    state = game.states_from_moves(["1111"])  # column 1 full, X O X O, no three
    assert game.legal_mask(state).tolist() == [[False, True, True, True]]
    assert game.actions(tuple(int(v) for v in state[0])) == [1, 2, 3]
    obs = game.observation(game.states_from_moves(["12"]))  # X to move: plane 0 holds X's stones
    assert obs[0, 0].tolist() == [[0, 0, 0, 0]] * 3 + [[1, 0, 0, 0]]
    assert obs[0, 1].tolist() == [[0, 0, 0, 0]] * 3 + [[0, 1, 0, 0]]
    mirrored = game.observation(game.states_from_moves(["43"]))
    np.testing.assert_array_equal(game.transform_observation(obs, 1), mirrored)


def test_exact_solver_is_minimax_for_a_16_ply_game(game):
    from arena.players import SolverPlayer

    solver = SolverPlayer(rng=0)
    assert solver.action_scores(game, game.initial_state()) == {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0}
    state = tuple(int(v) for v in game.states_from_moves(["1122"])[0])
    scores = solver.action_scores(game, state)
    assert scores[2] == 1.0  # X completes 1-2-3 across the bottom
    assert scores[solver.select_action(game, state)] == 1.0


@pytest.fixture
def model_dir(registered, tmp_path) -> Path:
    """A tiny exported connect3 MLP (random weights), as a run's ``best/`` folder holds."""
    return export_tiny_mlp(registered, tmp_path / "best")


def test_arena_plays_the_new_game(model_dir, capsys, tmp_path):
    from frontends.arena_cli import main

    out = tmp_path / "games.json"
    assert main(["solver", "random", "--game", NAME, "--games", "4", "--json", "--out", str(out)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wins"] + data["draws"] + data["losses"] == 4
    # perfect play never loses a game it can draw or win, and wins every game it can win: the
    # first player wins Connect Three, so a random opening may hand the solver a lost position
    game = games.make(NAME)
    solver = games.knowledge(game).exact_solver()
    for record in json.loads(out.read_text())["games"]:
        state = game.initial_state()
        for action in game.parse_moves(record["moves"])[: record["opening_plies"]]:
            state = game.result(state, action)
        solver_to_move = (game.player(state) == 0) == record["a_first"]
        value = max(solver.action_scores(state).values()) * (1 if solver_to_move else -1)
        if value > 0:
            assert record["outcome_for_a"] == "win", record
        elif value == 0:
            assert record["outcome_for_a"] != "loss", record
    # the game is taken from the model's model.json
    assert main([f"mcts:model={model_dir},sims=8", "random", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wins"] + data["draws"] + data["losses"] == 2


def test_play_plays_the_new_game(model_dir):
    from frontends.play_cli import main

    out = io.StringIO()
    lines = "1\n2\n3\n4\n" * 4  # try every column in turn: full ones re-prompt, so the game ends
    assert main(["--model", str(model_dir), "--sims", "8"], stdin=io.StringIO(lines), stdout=out) == 0
    text = out.getvalue()
    assert text.startswith(f"{NAME}: you (X) against model (8 sims) (O)")
    assert re.search(r"result: (X wins \(1-0\)|O wins \(0-1\)|draw)", text)
    moves = [line for line in text.splitlines() if line.startswith("moves: ")][-1].split()[-1]
    assert games.make(NAME).terminal(games.make(NAME).states_from_moves([moves]))[0]


# ----------------------------------------------------------------------------- the guide
def example_blocks(text: str) -> list[str]:
    """Code blocks of the guide marked as the example (a ```python block right after a line
    ``<!-- example: tests/example_game.py -->``)."""
    pattern = r"<!-- example: tests/example_game\.py -->\n```python\n(.*?)```"
    return re.findall(pattern, text, flags=re.DOTALL)


def test_the_guide_shows_the_example_as_it_is():
    guide = GUIDE.read_text(encoding="utf-8")
    source = (TESTS_DIR / "example_game.py").read_text(encoding="utf-8")
    blocks = example_blocks(guide)
    assert len(blocks) >= 2, "the guide lost its example blocks"
    for block in blocks:
        assert block.strip() and block in source, f"guide block not in tests/example_game.py:\n{block}"


def guide_config() -> str:
    """The guide's ``configs/game/connect3.yaml``."""
    pattern = r"<!-- config: configs/game/connect3\.yaml -->\n```yaml\n(.*?)```"
    blocks = re.findall(pattern, GUIDE.read_text(encoding="utf-8"), flags=re.DOTALL)
    assert len(blocks) == 1, "the guide lost its config block"
    return blocks[0]


def test_a_new_game_has_no_labelled_sets_and_no_mistake_rates(game):
    """Training measures mistake rates on labelled sets; a new game has none, so none are logged."""
    from arena.accuracy import available_sets, network_mistake_rates

    assert available_sets(game) == []
    assert network_mistake_rates(game, None, None) == {}


SITECUSTOMIZE = """
import sys
sys.path.insert(0, {tests_dir!r})
import games
games._REGISTRY[{name!r}] = games.GameEntry("example_game.ConnectThree")  # step 2, in every process (Ray actors too)

"""


@pytest.mark.slow
def test_train_runs_the_new_game(tmp_path, registered, capsys):
    """``train game=connect3`` with the guide's config file, then ``arena`` with the trained model.

    The registry entry goes in through a ``sitecustomize`` module (the shipped source stays as it
    is); the config file comes from the guide, through Hydra's search path."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(tests_dir=str(TESTS_DIR), name=NAME))
    config_dir = tmp_path / "configs"
    (config_dir / "game").mkdir(parents=True)
    (config_dir / "game" / f"{NAME}.yaml").write_text(guide_config())
    run_dir = tmp_path / "run"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), str(REPO_ROOT), env.get("PYTHONPATH")]))
    command = [
        sys.executable, "-m", "trainer.cli", "experiment=tiny", f"game={NAME}",
        f"hydra.searchpath=[file://{config_dir}]", f"hydra.run.dir={run_dir}",
    ]
    result = subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env=env
    )
    assert result.returncode == 0, f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "run finished (max_steps): 20 steps" in result.stdout
    sidecar = json.loads((run_dir / "best" / "model.json").read_text())
    assert sidecar["game"]["name"] == NAME and sidecar["observation_shape"] == [2, 4, 4]

    from frontends.arena_cli import main

    assert main([f"mcts:model={run_dir / 'best'},sims=8", "solver", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wins"] + data["draws"] + data["losses"] == 2
