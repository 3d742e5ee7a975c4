"""scripts/model_accuracy.py: the engine's one-position search against the batched one, and its errors."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from helpers_models import export_tiny_mlp
from helpers_positions import own_set_mistakes, pons_file_of_own_set
from helpers_scripts import load_script

from arena.accuracy import labelled_sets, player_actions
from arena.model_player import load_model, make_model_player
from arena.positions.labelled import mistake_mask

model_accuracy = load_script("model_accuracy")


@pytest.fixture(scope="module")
def tictactoe_model(tmp_path_factory):
    folder = export_tiny_mlp("tictactoe", tmp_path_factory.mktemp("model") / "best")
    game, evaluate_fn = load_model(str(folder))
    return folder, game, evaluate_fn


def parsed(leaves_per_call: int | None = None):
    """The options ``search_actions`` reads, as ``main`` parses them."""
    return model_accuracy.argparse.Namespace(batch=256, solver=False, leaves_per_call=leaves_per_call)


def test_one_leaf_per_call_one_position_at_a_time_picks_the_batched_searchs_moves(tictactoe_model):
    _, game, evaluate_fn = tictactoe_model
    positions = model_accuracy.truncated(labelled_sets(game, ["all"])["all"], 300)
    batched = model_accuracy.search_actions(parsed(), game, evaluate_fn, 16, positions)
    alone = model_accuracy.search_actions(parsed(leaves_per_call=1), game, evaluate_fn, 16, positions)
    assert batched.shape == (300,) and batched.dtype == np.int64
    np.testing.assert_array_equal(alone, batched)
    assert game.legal_mask(positions.states)[np.arange(300), alone].all()


def test_eight_leaves_per_call_counts_the_mistakes_of_the_engines_player(tictactoe_model, capsys):
    folder, game, evaluate_fn = tictactoe_model
    positions = model_accuracy.truncated(labelled_sets(game, ["all"])["all"], 40)
    player = make_model_player(evaluate_fn, 16, seed=0, leaves_per_call=8)
    expected = int(mistake_mask(positions.outcomes)[np.arange(40), player_actions(game, player, positions)].sum())
    code = model_accuracy.main(
        ["--model", str(folder), "--sims", "16", "--set", "all", "--limit", "40", "--leaves-per-call", "8"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["leaves_per_call"] == 8 and out["sets"] == {"all": 40}
    assert out["mistakes"]["16"]["all"] == expected
    assert out["rates"]["16"]["all"] == pytest.approx(expected / 40)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--leaves-per-call", "0"], "--leaves-per-call: expected >= 1, got 0"),
        (["--leaves-per-call", "8", "--solver"], "without the MCTS-solver"),
    ],
)
def test_bad_leaves_per_call_is_refused_with_what_was_expected(tictactoe_model, capsys, extra, message):
    folder, _, _ = tictactoe_model
    with pytest.raises(SystemExit) as exit_info:
        model_accuracy.main(["--model", str(folder), "--sims", "16", *extra])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_two_models_get_mcnemars_exact_test_on_their_discordant_positions(tictactoe_model, tmp_path, capsys):
    folder, game, evaluate_fn = tictactoe_model
    other = export_tiny_mlp("tictactoe", tmp_path / "other", seed=3)
    _, evaluate_other = load_model(str(other))
    positions = model_accuracy.truncated(labelled_sets(game, ["all"])["all"], 200)
    wrong = mistake_mask(positions.outcomes)
    rows = np.arange(200)
    mistakes_a = wrong[rows, model_accuracy.search_actions(parsed(), game, evaluate_fn, 0, positions)]
    mistakes_b = wrong[rows, model_accuracy.search_actions(parsed(), game, evaluate_other, 0, positions)]
    only_a, only_b = int((mistakes_a & ~mistakes_b).sum()), int((mistakes_b & ~mistakes_a).sum())
    assert only_a + only_b > 0  # two random networks disagree somewhere
    code = model_accuracy.main(
        ["--model", str(folder), "--model", str(other), "--sims", "0", "--set", "all", "--limit", "200"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    row = out["mcnemar"]["0"]["all"]
    assert (row["only_a"], row["only_b"], row["positions"]) == (only_a, only_b, 200)
    assert out["mistakes"]["0"]["all"] == int(mistakes_a.sum()) == row["mistakes_a"]
    assert out["second_mistakes"]["0"]["all"] == int(mistakes_b.sum()) == row["mistakes_b"]
    tail = sum(math.comb(only_a + only_b, i) for i in range(min(only_a, only_b) + 1))
    assert row["p_value"] == pytest.approx(min(1.0, 2 * tail / 2 ** (only_a + only_b)), rel=1e-9)


def test_one_model_twice_has_no_discordant_position(tictactoe_model, capsys):
    folder, _, _ = tictactoe_model
    code = model_accuracy.main(["--model", str(folder), "--model", str(folder), "--sims", "0", "--set", "all", "--limit", "50"])
    assert code == 0
    row = json.loads(capsys.readouterr().out)["mcnemar"]["0"]["all"]
    assert (row["only_a"], row["only_b"], row["p_value"]) == (0, 0, 1.0)


def test_two_models_on_chosen_moves_get_mcnemars_test_from_the_exact_scores(tmp_path, monkeypatch, capsys):
    """Pons' begin-hard file holding the project's middle_medium positions (each column's exact
    score is shipped), so each model's chosen-move mistakes are known without the solver."""
    from arena.positions.connect4 import load_position_set

    own_set = load_position_set("middle_medium")
    pons_file_of_own_set(tmp_path, monkeypatch, own_set)
    first = export_tiny_mlp("connect4", tmp_path / "a", seed=0)
    second = export_tiny_mlp("connect4", tmp_path / "b", seed=3)
    exact = own_set_mistakes(own_set)[:40]
    wrong = []
    for path in (first, second):
        game, evaluate_fn = load_model(str(path))
        positions = own_set.to_labelled_set(game).head(40)
        wrong.append(exact[np.arange(40), model_accuracy.search_actions(parsed(), game, evaluate_fn, 0, positions)])
    only_a, only_b = int((wrong[0] & ~wrong[1]).sum()), int((wrong[1] & ~wrong[0]).sum())
    assert only_a + only_b > 0  # two random networks disagree somewhere
    code = model_accuracy.main(
        ["--model", str(first), "--model", str(second), "--sims", "0", "--set", "pons-begin-hard",
         "--chosen-moves", "--limit", "40"]
    )
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    row = out["mcnemar"]["0"]["pons-begin-hard"]
    assert (row["only_a"], row["only_b"], row["positions"]) == (only_a, only_b, 40)
    assert out["mistakes"]["0"]["pons-begin-hard"] == int(wrong[0].sum()) == row["mistakes_a"]
    assert out["second_mistakes"]["0"]["pons-begin-hard"] == int(wrong[1].sum()) == row["mistakes_b"]
    assert out["second_model"] == str(second) and out["sets"] == {"pons-begin-hard": 40}


def test_chosen_moves_without_a_set_measure_every_pons_file_present(tmp_path, monkeypatch, capsys):
    """``--chosen-moves`` with no ``--set``: the sets measured by chosen moves (the Pons files
    present; here begin-hard alone, holding the project's middle_medium positions), not the
    project's own sets, which are labelled whole and are refused by the chosen-move path."""
    from arena.positions.connect4 import load_position_set

    own_set = load_position_set("middle_medium")
    pons_file_of_own_set(tmp_path, monkeypatch, own_set)
    model = export_tiny_mlp("connect4", tmp_path / "a", seed=0)
    game, evaluate_fn = load_model(str(model))
    positions = own_set.to_labelled_set(game).head(30)
    exact = own_set_mistakes(own_set)[:30]
    wrong = exact[np.arange(30), model_accuracy.search_actions(parsed(), game, evaluate_fn, 0, positions)]
    code = model_accuracy.main(["--model", str(model), "--sims", "0", "--chosen-moves", "--limit", "30"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sets"] == {"pons-begin-hard": 30}
    assert out["mistakes"]["0"]["pons-begin-hard"] == int(wrong.sum())
