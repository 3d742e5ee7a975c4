"""Pons' Connect Four test sets: weak-solve labels, the label cache, and accuracy on the sets."""

from __future__ import annotations

import json

import numpy as np
import pytest

import games
from arena.accuracy import labelled_sets, player_mistake_rates
from arena.players import SolverPlayer
from arena.positions import ConnectFourSets, pons, position_sets
from arena.positions.connect4 import load_position_set
from frontends.arena_cli import main
from games.connect4.solver import Solver

#: the sets cheap enough to label in a test (first lines; seconds per position at most)
CHEAP_SETS = {"pons-end-easy": 20, "pons-middle-easy": 20, "pons-middle-medium": 20, "pons-begin-medium": 5}


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(tt_size=(1 << 20) + 7)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty label cache of the test's own."""
    monkeypatch.setenv("TABULA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache" / "pons-labels"


def write_set_file(folder, file_name, moves, scores):
    folder.mkdir(parents=True, exist_ok=True)
    text = "".join(f"{m} {s}\n" for m, s in zip(moves, scores))
    (folder / file_name).write_text(text)


@pytest.fixture
def small_sets(tmp_path, monkeypatch, cache):
    """Pons-format files built from the project's own labelled sets (first 12 lines each; the
    position's score is the best column's), so these tests need no data from outside."""
    folder = tmp_path / "pons"
    for name, own in (("pons-end-easy", "end_easy"), ("pons-middle-easy", "middle_easy")):
        own_set = load_position_set(own)
        write_set_file(folder, pons.SETS[name], own_set.moves[:12], own_set.values[:12].tolist())
    monkeypatch.setenv("TABULA_PONS_DIR", str(folder))
    return folder


# --------------------------------------------------------------------------- the weak solve
def test_outcomes_of_known_positions(solver):
    # "4455" scores 18 (Pons): columns 3 and 6 make an open three on the bottom row and win; the
    # other columns' outcomes are the signs of their exact scores
    exact = solver.analyze("4455")
    assert solver.outcomes("4455").tolist() == [int(np.sign(s)) for s in exact]
    assert solver.outcomes("4455")[[2, 5]].tolist() == [1, 1]
    # "44455554221" scores -15: the opponent wins next move whatever the side to move plays
    assert solver.outcomes("44455554221").tolist() == [-1] * 7
    # a full column is -2; the last cell of a drawn game draws
    drawn = "666165577462463234152541333211132724554777"
    assert solver.outcomes(drawn[:-1]).tolist() == [-2] * 6 + [0]
    assert solver.outcomes(drawn).tolist() == [-2] * 7


@pytest.mark.parametrize("own", ["end_easy", "middle_easy", "middle_medium"])
def test_outcomes_are_the_signs_of_exact_scores(solver, own):
    """On the project's own sets, which store every column's exact score: 30 positions each."""
    own_set = load_position_set(own)
    for moves, scores in zip(own_set.moves[:30], own_set.scores[:30]):
        expected = np.where(scores == -128, -2, np.sign(scores.astype(np.int64)))
        assert solver.outcomes(moves).tolist() == expected.tolist(), moves


# --------------------------------------------------------------------------- reading set files
@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("4455", "expected 'MOVES SCORE', got 1 fields"),
        ("4455 18 3", "got 3 fields"),
        ("4485 18", "must be column digits 1-7"),
        ("4455 x", "score 'x' is not an integer"),
        ("4455 19", "score 19 outside -18..18"),
    ],
)
def test_a_bad_line_names_file_and_line(tmp_path, monkeypatch, line, message):
    folder = tmp_path / "pons"
    folder.mkdir()
    (folder / "Test_L3_R1").write_text(f"6146 18\n{line}\n")
    monkeypatch.setenv("TABULA_PONS_DIR", str(folder))
    with pytest.raises(ValueError, match=f"Test_L3_R1 line 2: .*{message}"):
        pons.read_set("pons-end-easy")


def test_missing_file_and_unknown_name(tmp_path, monkeypatch):
    monkeypatch.setenv("TABULA_PONS_DIR", str(tmp_path))
    assert pons.available() == []
    assert position_sets(games.make("connect4")).labelled_set_groups() == {}
    with pytest.raises(FileNotFoundError, match="Test_L1_R3"):
        pons.read_set("pons-begin-hard")
    with pytest.raises(ValueError, match="expected one of"):
        pons.read_set("pons-end-hard")


# --------------------------------------------------------------------------- the cache
def test_cache_round_trip_and_keys(small_sets, cache):
    pons_file = pons.read_set("pons-end-easy")
    assert pons.load_labels(pons_file).shape == (0, 7)
    first = pons.label_set("pons-end-easy", limit=5)
    assert (first["positions"], first["new"]) == (5, 5)
    assert (cache / "Test_L3_R1.npz").is_file()
    assert [p.name for p in cache.iterdir()] == ["Test_L3_R1.npz"]  # no temporary file left
    again = pons.label_set("pons-end-easy", limit=5)
    assert (again["positions"], again["new"], again["seconds"]) == (5, 0, 0.0)
    rest = pons.label_set("pons-end-easy")
    assert (rest["positions"], rest["new"]) == (12, 7)
    labels = pons.load_labels(pons_file)
    own = load_position_set("end_easy")
    expected = np.where(own.scores[:12] == -128, -2, np.sign(own.scores[:12].astype(np.int64)))
    assert labels.tolist() == expected.tolist()
    # a line that changes drops its label and every later one; scores do not key the labels
    changed = list(pons_file.moves)
    changed[3] = own.moves[50]
    write_set_file(small_sets, "Test_L3_R1", changed, pons_file.scores.tolist())
    assert pons.load_labels(pons.read_set("pons-end-easy")).tolist() == labels[:3].tolist()
    write_set_file(small_sets, "Test_L3_R1", pons_file.moves, (-pons_file.scores).tolist())
    assert len(pons.load_labels(pons.read_set("pons-end-easy"))) == 12
    (cache / "Test_L3_R1.npz").write_bytes(b"not an npz file")
    assert len(pons.load_labels(pons_file)) == 0


def test_cache_write_is_atomic(small_sets, cache, monkeypatch):
    pons.label_set("pons-end-easy", limit=4)
    before = (cache / "Test_L3_R1.npz").read_bytes()
    pons_file = pons.read_set("pons-end-easy")

    def broken_savez(handle, **arrays):
        handle.write(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(pons.np, "savez", broken_savez)
    with pytest.raises(OSError, match="disk full"):
        pons.save_labels(pons_file, np.zeros((6, 7), dtype=np.int8))
    assert (cache / "Test_L3_R1.npz").read_bytes() == before
    assert [p.name for p in cache.iterdir()] == ["Test_L3_R1.npz"]
    with pytest.raises(ValueError, match="expected outcomes in"):
        pons.save_labels(pons_file, np.full((2, 7), 3, dtype=np.int8))


def test_a_wrong_score_is_caught_while_labelling(tmp_path, monkeypatch, cache):
    folder = tmp_path / "pons"
    write_set_file(folder, "Test_L3_R1", ["4455"], [-18])  # it is a win (18)
    monkeypatch.setenv("TABULA_PONS_DIR", str(folder))
    with pytest.raises(ValueError, match=r"line 1 \(4455\): the best move's outcome is 1, but the score -18"):
        pons.label_set("pons-end-easy")


# --------------------------------------------------------------------------- accuracy on the sets
def test_unlabelled_set_says_how_to_label(small_sets):
    with pytest.raises(ValueError, match="scripts/label_pons_sets.py --set pons-middle-easy"):
        position_sets(games.make("connect4")).labelled_set("pons-middle-easy")


def test_group_and_default_sets(small_sets):
    game = games.make("connect4")
    assert position_sets(game).labelled_set_groups() == {"pons": ["pons-end-easy", "pons-middle-easy"]}
    pons.label_set("pons-end-easy")
    pons.label_set("pons-middle-easy", limit=7)
    sets = labelled_sets(game, ["pons"])
    assert {name: len(s) for name, s in sets.items()} == {"pons-end-easy": 12, "pons-middle-easy": 7}
    assert not any(name.startswith("pons") for name in labelled_sets(game))  # only when named
    with pytest.raises(ValueError, match="pons-begin-hard"):
        labelled_sets(game, ["pons-begin-hard"])  # its file is absent here
    rates = player_mistake_rates(game, SolverPlayer(rng=0), ["pons-end-easy"])
    assert rates == {"pons-end-easy": 0.0}


def test_arena_accuracy_command(small_sets, capsys):
    pons.label_set("pons-end-easy")
    assert main(["accuracy", "solver", "--game", "connect4", "--set", "pons-end-easy", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["sets"]["pons-end-easy"]
    assert (row["positions"], row["mistakes"], row["mistake_rate"]) == (12, 0, 0.0)
    # the first 12 lines of arena/positions/connect4/end_easy.txt: mistakes per legal move
    # 1/3, 0, 0, 0, 0, 3/5, 0, 1/2, 5/6, 3/4, 1/3, 3/4
    assert row["random_expected_rate"] == pytest.approx(41 / 120)


def test_extra_sets_config_is_checked():
    from trainer.config import TrainSchema, validate

    config = TrainSchema()
    config.arena.extra_labelled_sets = ["pons-end-hard"]
    with pytest.raises(ValueError, match="arena.extra_labelled_sets: expected names from"):
        validate(config)


# --------------------------------------------------------------------------- Pons' own files
@pytest.mark.parametrize("name", list(CHEAP_SETS))
def test_best_move_outcome_is_the_sign_of_the_score(connect4_test_sets, solver, name):
    """Pons' files: the first lines of each set cheap to label; every labelled position's best
    move has the outcome of the position's published score."""
    pons_file = pons.read_set(name)
    assert len(pons_file.moves) == 1000
    count = CHEAP_SETS[name]
    for moves, score in zip(pons_file.moves[:count], pons_file.scores[:count]):
        outcomes = solver.outcomes(moves)
        assert outcomes[outcomes != -2].max() == np.sign(score), moves


def test_first_lines_of_pons_sets(connect4_test_sets, solver):
    """Known labels from the files: end-easy's first lines."""
    pons_file = pons.read_set("pons-end-easy")
    assert (pons_file.moves[0], int(pons_file.scores[0])) == ("2252576253462244111563365343671351441", -1)
    # columns 1-5 are full, 6 and 7 are open; a lost position loses whatever is played
    assert solver.outcomes(pons_file.moves[0]).tolist() == [-2, -2, -2, -2, -2, -1, -1]
    assert (pons_file.moves[1], int(pons_file.scores[1])) == ("7422341735647741166133573473242566", 1)
    second = solver.outcomes(pons_file.moves[1])
    assert second.max() == 1 and set(second.tolist()) <= {-2, -1, 0, 1}


def test_training_arena_measures_the_extra_sets(small_sets, monkeypatch):
    """``arena.extra_labelled_sets``: the run's arena actor adds the named sets to its measurement."""
    from arena.accuracy import network_mistake_rates
    from arena.gating import GatingWorker
    from mcts import PUCTConfig
    from networks import build_network
    from networks.config import NetworkConfig

    pons.label_set("pons-end-easy")
    pons.label_set("pons-middle-easy", limit=6)
    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    worker = GatingWorker(
        "connect4", config, PUCTConfig(num_simulations=2), 2, 0.55, 0, seed=0, extra_labelled_sets=("pons",)
    )
    # only the extra sets, to keep the test short
    monkeypatch.setattr(ConnectFourSets, "labelled_set_names", lambda self: [])
    game = worker.game
    weights = build_network(config, game.observation_shape, game.num_actions).state_dict()
    result = worker.mistake_rates(5, weights)
    assert result["version"] == 5 and list(result["rates"]) == ["pons-end-easy", "pons-middle-easy"]
    labelled = [position_sets(game).labelled_set("pons-end-easy"), position_sets(game).labelled_set("pons-middle-easy")]
    assert [len(s) for s in labelled] == [12, 6]
    expected = network_mistake_rates(game, worker.candidate.evaluate, worker.search_config, labelled)
    assert result["rates"] == expected
