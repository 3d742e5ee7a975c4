"""A game defined in a module outside the repository, named ``module:Class`` (games/__init__.py):
it is made by name, trains (``train game=module:Class``), plays (``play --model RUN``) and is
measured against perfect play on every position by exhaustive search (``arena accuracy``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import games
from frontends.arena_cli import every_position_sets
from frontends.arena_cli import main as arena_main
from trainer.cli import class_game_overrides

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
MODULE = "outside_connect3"
SPEC = f"{MODULE}:ConnectThreeSmall"
#: non-terminal positions of Connect Three on 3 columns of 3 reachable from the start
POSITIONS = 505


def write_outside_game(folder: Path) -> Path:
    """Write ``outside_connect3.py`` into ``folder``: the worked example of docs/adding_a_game.md
    (tests/example_game.py) on a 3 x 3 board, under another class name, as a user's own module."""
    text = (TESTS / "example_game.py").read_text()
    for old, new in (
        ("WIDTH, HEIGHT = 4, 4", "WIDTH, HEIGHT = 3, 3"),
        ("[[0, 1, 2, 3], [3, 2, 1, 0]]", "[[0, 1, 2], [2, 1, 0]]"),
        ('"1234"', '"123"'),
        ("class ConnectThree(", "class ConnectThreeSmall("),
    ):
        assert old in text, old
        text = text.replace(old, new)
    path = folder / f"{MODULE}.py"
    path.write_text(text)
    return path


@pytest.fixture
def outside(tmp_path, monkeypatch):
    write_outside_game(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def test_a_module_class_spec_makes_the_game_named_by_its_spec(outside):
    game = games.make(SPEC)
    assert type(game).__name__ == "ConnectThreeSmall" and game.name == SPEC
    assert game.num_actions == 3 and game.max_game_length == 9
    assert games.is_known(SPEC) and games.game_name_argument(SPEC) == SPEC
    with pytest.raises(ValueError, match=r"game 'no_such_module:Game': cannot import 'no_such_module' "):
        games.make("no_such_module:Game")
    with pytest.raises(ValueError, match=rf"expected a subclass of games.Game named WIDTH in {MODULE}"):
        games.make(f"{MODULE}:WIDTH")


def test_arena_accuracy_measures_every_position_of_a_game_without_labelled_sets(outside, capsys):
    game = games.make(SPEC)
    sets = every_position_sets(game, None)
    assert list(sets) == ["all"] and len(sets["all"]) == POSITIONS
    assert every_position_sets(games.make("tictactoe"), None) is None  # it ships its own "all"
    assert every_position_sets(games.make("connect4"), None) is None  # too long for exhaustive search
    assert arena_main(["accuracy", "solver", "--game", SPEC, "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["sets"]["all"]
    assert (row["positions"], row["mistakes"]) == (POSITIONS, 0)  # perfect play makes none


def test_an_installed_package_names_its_game_in_the_entry_point_group(outside):
    dist = outside / "outside_games-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: outside-games\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{games.ENTRY_POINT_GROUP}]\nconnect3small = {SPEC}\n")
    assert "connect3small" in games.names() and games.is_known("connect3small")
    game = games.make("connect3small")
    assert type(game).__name__ == "ConnectThreeSmall" and game.name == "connect3small"
    assert class_game_overrides(["game=connect3small", "game=tictactoe"]) == [
        "game=module", "game.name=connect3small", "game=tictactoe",
    ]


@pytest.mark.slow
def test_the_outside_game_trains_plays_and_is_measured_by_name(tmp_path):
    (tmp_path / "mine").mkdir()
    write_outside_game(tmp_path / "mine")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "mine"), "COLUMNS": "1000"}
    run_dir = tmp_path / "run"

    def run(*command: str, stdin: str = "") -> subprocess.CompletedProcess:
        result = subprocess.run(
            [sys.executable, *command], cwd=REPO_ROOT, env=env, input=stdin, capture_output=True, text=True,
            timeout=300, check=False,
        )
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        return result

    trained = run("-m", "trainer.cli", f"game={SPEC}", "experiment=tiny", f"hydra.run.dir={run_dir}")
    assert "run finished (max_steps): 20 steps" in trained.stdout
    sidecar = json.loads((run_dir / "best" / "model.json").read_text())
    assert sidecar["game"]["name"] == SPEC and sidecar["num_actions"] == 3
    played = run("-m", "frontends.play_cli", "--model", str(run_dir), "--engine", stdin="position 1212\nisready\ngo\nquit\n")
    lines = played.stdout.splitlines()
    assert lines[0] == "readyok" and lines[1] in ("bestmove 1", "bestmove 2", "bestmove 3")
    measured = run("-m", "frontends.arena_cli", "accuracy", f"policy:model={run_dir}", "--json")
    result = json.loads(measured.stdout)
    assert result["game"] == SPEC and result["sets"]["all"]["positions"] == POSITIONS
    assert 0 <= result["sets"]["all"]["mistakes"] <= POSITIONS
