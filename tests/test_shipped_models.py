"""Shipped models (networks/shipped/) and what ``--model`` accepts (networks/loading.py): a shipped
model's name, nothing (the game's shipped default), a training run folder (its ``best/``)."""

from __future__ import annotations

import io
import json
import sys

import pytest
from helpers_models import export_tiny_mlp

import games
from arena.specs import build_player
from frontends.arena_cli import main as arena_main
from frontends.game_text import state_after
from frontends.play_cli import main as play_main
from games.connect4 import solver
from networks.loading import load_evaluator, resolve_model
from networks.shipped import SHIPPED_DIR, shipped_names, shipped_path


def test_the_tictactoe_model_is_shipped_with_its_provenance_and_rebuild_command():
    assert "tictactoe" in shipped_names()
    folder = shipped_path("tictactoe")
    assert folder == SHIPPED_DIR / "tictactoe"
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    assert set(sizes) == {"model.onnx", "model.safetensors", "model.json", "PROVENANCE.md"}
    assert sum(sizes.values()) < 300_000
    sidecar = json.loads((folder / "model.json").read_text())
    provenance = sidecar["provenance"]
    assert sidecar["game"]["name"] == "tictactoe"
    assert set(provenance) == {"code", "config", "training", "search", "mistake_rates"}
    assert provenance["code"]["dirty"] is False and len(provenance["code"]["commit"]) == 40
    assert provenance["config"]["values"]["game"]["name"] == "tictactoe"
    assert provenance["config"]["values"]["run"]["max_minutes"] == 3.0
    assert provenance["mistake_rates"]["rates"] == {"all": 0.0}
    text = (folder / "PROVENANCE.md").read_text()
    assert "bash scripts/build_shipped_model.sh tictactoe 3\n" in text
    assert provenance["code"]["commit"] in text


def test_resolve_model_takes_a_shipped_name_nothing_or_a_run_folder(tmp_path):
    assert resolve_model("tictactoe") == (SHIPPED_DIR / "tictactoe", None)
    assert resolve_model(None, "tictactoe") == (
        SHIPPED_DIR / "tictactoe", f"playing the shipped tictactoe model ({SHIPPED_DIR / 'tictactoe'})"
    )
    best = export_tiny_mlp("tictactoe", tmp_path / "run" / "best")
    assert resolve_model(tmp_path / "run") == (
        best, f"{tmp_path / 'run'} is a training run folder: using its promoted model {best}"
    )
    assert resolve_model(best) == (best, None)
    with pytest.raises(FileNotFoundError) as missing:
        resolve_model("conect4")
    assert str(missing.value) == (
        "model not found: conect4; expected a path (export folder, run folder or .pt file) or a shipped "
        f"model name: {shipped_names()}"
    )
    with pytest.raises(FileNotFoundError, match=r"no model given and no shipped model for othello; "):
        resolve_model(None, "othello")
    with pytest.raises(ValueError) as empty:
        resolve_model(tmp_path)
    assert str(empty.value) == (
        f"{tmp_path}: expected an export folder (with model.json), a training run folder (with best/) or a .pt file"
    )


def test_play_plays_the_shipped_model_by_name_and_a_run_folder_through_its_best(tmp_path, capsys):
    out = io.StringIO()
    lines = io.StringIO("position 1425\ngo\nquit\n")
    assert play_main(["--model", "tictactoe", "--engine"], stdin=lines, stdout=out) == 0
    assert out.getvalue() == "bestmove 3\n"  # X has 1 and 2: the win at 3
    assert capsys.readouterr().err.startswith("play: tictactoe model (mlp128x2), trained 3.0 min: ")
    best = export_tiny_mlp("tictactoe", tmp_path / "run" / "best")
    out = io.StringIO()
    assert play_main(["--model", str(tmp_path / "run"), "--engine"], stdin=io.StringIO("isready\n"), stdout=out) == 0
    assert out.getvalue() == "readyok\n"
    assert capsys.readouterr().err.splitlines()[0] == (
        f"play: {tmp_path / 'run'} is a training run folder: using its promoted model {best}"
    )


def test_a_player_spec_and_arena_accuracy_take_a_shipped_name(capsys):
    game = games.make("tictactoe")
    player = build_player("mcts:model=tictactoe,sims=16", game, seed=0)
    assert player.select_action(game, state_after(game, game.parse_moves("1425"))) == 2  # the win at 3
    assert load_evaluator("tictactoe").game_name == "tictactoe"
    assert arena_main(["accuracy", "policy:model=tictactoe", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["game"] == "tictactoe"  # from the shipped model's model.json
    assert result["sets"]["all"]["positions"] == 4520 and result["sets"]["all"]["mistakes"] == 3


def test_play_help_lists_the_shipped_models_and_the_poker_mode(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["play", "--help"])
    with pytest.raises(SystemExit):
        play_main(["--help"])
    text = capsys.readouterr().out
    assert "a shipped model's name (connect4, othello6x6, pig, tictactoe)" in " ".join(text.split())
    assert "play --game kuhn --policy FILE [--hands 10] [--seed 0] [--human-first | --human-second]" in text


@pytest.mark.slow
def test_play_web_serves_the_shipped_model_by_name():
    import urllib.request

    from frontends.web.browser import start_server, stop_server

    server, url = start_server("tictactoe", "--sims", "8")
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/api/info", timeout=60) as response:
            info = json.loads(response.read())
    finally:
        stop_server(server)
    assert info["game"] == "tictactoe" and info["simulations"] == 8
    assert info["model"] == "shipped tictactoe"


def test_the_shipped_connect4_model_answers_the_engine_protocol_with_the_solvers_moves(capsys):
    """``play --model connect4 --engine`` answers hold-out-style lines: a win in one is taken (one of
    the solver's best columns, 3 or 7) and the only move that does not lose at once is found."""
    lines = io.StringIO("isready\nposition 445566\ngo\nposition 11223\ngo\nquit\n")
    out = io.StringIO()
    assert play_main(["--model", "connect4", "--engine"], stdin=lines, stdout=out) == 0
    ready, win, block = out.getvalue().splitlines()
    assert ready == "readyok"
    scores = solver.analyze("445566")
    best = max(score for score in scores if score is not None)
    assert {column + 1 for column, score in enumerate(scores) if score == best} == {3, 7}
    assert win in ("bestmove 3", "bestmove 7")
    assert solver.analyze("11223") == [-18, -18, -18, 2, -18, -18, -18]
    assert block == "bestmove 4"
    assert capsys.readouterr().err.startswith("play: connect4 model (b4c32), trained ")


def test_the_connect4_model_is_shipped_with_its_provenance_and_rebuild_command():
    folder = shipped_path("connect4")
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    assert set(sizes) == {"model.onnx", "model.safetensors", "model.json", "PROVENANCE.md"}
    assert sum(sizes.values()) < 1_000_000
    provenance = json.loads((folder / "model.json").read_text())["provenance"]
    assert provenance["code"]["dirty"] is False and len(provenance["code"]["commit"]) == 40
    assert provenance["config"]["values"]["game"]["name"] == "connect4"
    assert provenance["config"]["values"]["run"]["max_minutes"] == 60.0
    assert set(provenance["mistake_rates"]["rates"]) == {
        "end_easy", "middle_easy", "middle_medium", "begin_easy", "begin_medium", "begin_hard"
    }
    assert "bash scripts/build_shipped_model.sh connect4 60\n" in (folder / "PROVENANCE.md").read_text()


def test_the_othello6x6_model_is_shipped_with_its_provenance_and_plays_by_name(capsys):
    folder = shipped_path("othello6x6")
    sizes = {path.name: path.stat().st_size for path in folder.iterdir()}
    assert set(sizes) == {"model.onnx", "model.safetensors", "model.json", "PROVENANCE.md"}
    assert sum(sizes.values()) < 700_000
    provenance = json.loads((folder / "model.json").read_text())["provenance"]
    assert provenance["config"]["values"]["game"]["name"] == "othello6x6"
    assert provenance["config"]["values"]["run"]["max_minutes"] == 60.0
    assert provenance["training"]["steps"] == 19736 and provenance["code"]["dirty"] is False
    assert "mistake_rates" not in provenance  # Othello has no labelled sets
    assert "bash scripts/build_shipped_model.sh othello6x6 60\n" in (folder / "PROVENANCE.md").read_text()
    # a seeded 4-game match against alpha-beta depth 2 (2 random opening plies, colours alternated)
    assert arena_main(["mcts:model=othello6x6,sims=16", "alphabeta:depth=2", "--game", "othello6x6", "--games", "4", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["wins"], result["draws"], result["losses"]) == (3, 0, 1)
