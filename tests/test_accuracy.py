"""Accuracy against perfect play : mistake rates of players and networks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from arena.accuracy import (
    ILLEGAL,
    LabelledSet,
    connect4_labelled_set,
    expected_random_mistake_rate,
    labelled_sets,
    mistake_mask,
    mistake_rate,
    network_mistake_rates,
    player_mistake_rates,
)
from arena.players import MCTSPlayer, RandomPlayer, SolverPlayer
from arena.positions.connect4 import PositionSet, parse_position_lines
from frontends.arena_cli import main
from mcts import PUCTConfig, uniform_evaluator

# A fixed labelled set: random games to plies 20-33, every column scored by the solver
# (Pons' convention, side to move; '-' = full column). Format of arena/positions/connect4.
FIXED_LINES = """\
# fixed test set
71465614126151373316 - -3 -7 -2 9 -2 9
4116143156727115776246 - -10 -8 -10 10 -10 -10
66754264613656455542 -1 6 -2 10 -2 - 0
632111334534555126533 -10 -10 - 10 -10 -10 -10
6255644374147637165143326615413 -5 6 -5 - 6 - 6
6524574737766474535341167 -8 9 -8 -8 8 -8 -
11642644136542517564371 0 9 1 1 1 1 0
23551333363516545667764652211 -6 6 - 7 - - -6
776272667611172637513 -10 -10 -10 -6 -10 11 -
42651251132362553133612615352 - - - 7 - 6 6
44377145472727722161426 10 -9 -9 -3 -9 -9 -
41274526271277227566 -2 - 8 8 8 6 -2
56571657755472476313723263 -8 8 -8 8 -8 -8 -
15146227664712414412273 -9 -9 10 -9 -9 -9 10
72715566521554313321 -4 -4 -4 -2 -5 -2 2
56563663137225264627 -2 11 -2 -11 -2 - -2
16217212344353364535534 10 -9 - -9 -9 -9 -9
3511526211316135556543277664 - 3 0 7 - 0 6
7631566445214732741417657732 -7 7 7 -7 7 -7 -
411571225464714762251245 -9 -9 -9 -9 -9 8 -9
3753146733721331446161272 9 -8 - -8 -8 -8 -8
375276255533362742523141577143247 5 - - -4 - -4 -
36717544175277512274 -10 -10 -11 10 9 10 -
74312611436276374347227 -9 -9 -9 3 -9 -9 -9
"""


@pytest.fixture(scope="module")
def fixed_set() -> PositionSet:
    moves, scores = parse_position_lines(FIXED_LINES.splitlines(), "fixed")
    return PositionSet("fixed", moves, scores)


def _expected_random_rate_by_hand(lines: str) -> float:
    """Mean over positions of (legal moves with a worse outcome than the best) / (legal moves)."""
    shares = []
    for line in lines.splitlines():
        if line.startswith("#"):
            continue
        signs = [int(np.sign(int(t))) for t in line.split()[1:] if t != "-"]
        best = max(signs)
        shares.append(sum(s < best for s in signs) / len(signs))
    return sum(shares) / len(shares)


def test_labels_follow_the_sign_of_the_solver_score(connect4, fixed_set):
    labelled = connect4_labelled_set(fixed_set, connect4)
    assert len(labelled) == 24
    # 66754264613656455542: scores -1 6 -2 10 -2 - 0
    row = labelled.moves.index("66754264613656455542")
    assert labelled.outcomes[row].tolist() == [-1, 1, -1, 1, -1, ILLEGAL, 0]
    assert labelled.mistake_mask[row].tolist() == [True, False, True, False, True, False, True]
    # 11642644136542517564371: a draw at best (0 9 1 1 1 1 0 are all >= 0): only draws are mistakes
    row = labelled.moves.index("11642644136542517564371")
    assert labelled.mistake_mask[row].tolist() == [True, False, False, False, False, False, True]
    assert np.array_equal(labelled.states, connect4.states_from_moves(fixed_set.moves))


def test_expected_random_rate_is_exact(connect4, fixed_set):
    labelled = connect4_labelled_set(fixed_set, connect4)
    expected = _expected_random_rate_by_hand(FIXED_LINES)
    assert expected_random_mistake_rate(labelled) == pytest.approx(expected, abs=1e-12)
    assert 0.4 < expected < 0.8


def test_solver_makes_no_mistakes_on_the_fixed_set(connect4, fixed_set):
    assert player_mistake_rates(connect4, SolverPlayer(rng=0), [fixed_set]) == {"fixed": 0.0}


def test_random_player_scores_its_expected_rate(connect4, fixed_set):
    labelled = connect4_labelled_set(fixed_set, connect4)
    expected = expected_random_mistake_rate(labelled)
    player = RandomPlayer(rng=12)
    repeats = 150
    rates = [player_mistake_rates(connect4, player, [labelled])["fixed"] for _ in range(repeats)]
    # each position's chance of a mistake is its share of mistaken moves; 3600 draws in all
    per_position = labelled.mistake_mask.sum(1) / labelled.legal_mask.sum(1)
    standard_error = np.sqrt(np.sum(per_position * (1 - per_position)) / repeats) / len(labelled)
    assert abs(np.mean(rates) - expected) < 4 * standard_error
    assert standard_error < 0.01


def test_tictactoe_every_reachable_position(tictactoe):
    labelled = labelled_sets(tictactoe)["all"]
    assert len(labelled) == 4520  # reachable non-terminal positions
    assert len(set(map(tuple, labelled.states.tolist()))) == 4520
    assert not tictactoe.terminal(labelled.states).any()
    # P1: X X . / O O . / . . .  X to move: 2 wins, 5 blocks and draws, the rest lose
    p1 = np.array(tictactoe.state_from_board("X X . / O O . / . . ."))
    row = int(np.flatnonzero((labelled.states == p1).all(axis=1))[0])
    assert labelled.outcomes[row].tolist() == [ILLEGAL, ILLEGAL, 1, ILLEGAL, ILLEGAL, 0, -1, -1, -1]
    assert np.flatnonzero(labelled.mistake_mask[row]).tolist() == [5, 6, 7, 8]
    assert player_mistake_rates(tictactoe, SolverPlayer(rng=0)) == {"all": 0.0}
    assert expected_random_mistake_rate(labelled) == pytest.approx(0.42035, abs=1e-5)


def _head(labelled: LabelledSet, count: int, stride: int = 1) -> LabelledSet:
    rows = slice(0, count * stride, stride)
    return LabelledSet(labelled.name, labelled.moves[rows], labelled.states[rows], labelled.outcomes[rows])


def test_network_rates_equal_the_per_position_search(tictactoe, connect4, fixed_set):
    config = PUCTConfig(num_simulations=24)
    subset = _head(labelled_sets(tictactoe)["all"], 150, stride=29)
    batched = network_mistake_rates(tictactoe, uniform_evaluator, config, [subset])
    chunked = network_mistake_rates(tictactoe, uniform_evaluator, config, [subset], batch_size=7)
    one_by_one = player_mistake_rates(tictactoe, MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=24)), [subset])
    assert batched == chunked == one_by_one
    assert 0.0 < batched["all"] < expected_random_mistake_rate(subset)
    c4 = network_mistake_rates(connect4, uniform_evaluator, config, [fixed_set])
    c4_one = player_mistake_rates(connect4, MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=24)), [fixed_set])
    assert set(c4) == {"fixed"} and c4 == c4_one


def test_mistake_inputs_are_validated(connect4, fixed_set):
    labelled = connect4_labelled_set(fixed_set, connect4)
    with pytest.raises(ValueError, match="shape"):
        mistake_rate(labelled, np.zeros(3, dtype=np.int64))
    actions = np.zeros(len(labelled), dtype=np.int64)  # column 1 is full in the first position
    with pytest.raises(ValueError, match="illegal action 0 at position 0"):
        mistake_rate(labelled, actions)
    with pytest.raises(ValueError, match="no legal action"):
        mistake_mask(np.full((1, 3), ILLEGAL))
    with pytest.raises(ValueError, match="unknown position set"):
        labelled_sets(connect4, ["no_such_set"])
    with pytest.raises(ValueError, match="batch_size"):
        network_mistake_rates(
            connect4, uniform_evaluator, PUCTConfig(num_simulations=2), [fixed_set], batch_size=0
        )


def test_arena_accuracy_command(capsys):
    assert main(["accuracy", "solver", "--game", "tictactoe", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    row = data["sets"]["all"]
    assert row["positions"] == 4520 and row["mistakes"] == 0 and row["mistake_rate"] == 0.0
    assert row["random_expected_rate"] == pytest.approx(0.42035, abs=1e-5)
    assert main(["accuracy", "alphabeta:depth=1", "--game", "tictactoe", "--limit", "100"]) == 0
    text = capsys.readouterr().out
    assert "mistakes against perfect play" in text and "100" in text
    assert main(["accuracy", "random", "--game", "tictactoe", "--set", "begin_easy"]) == 2
    assert "expected one of ['all']" in capsys.readouterr().err


def test_arena_accuracy_on_a_set_file(tmp_path, capsys):
    path = tmp_path / "fixed.txt"
    path.write_text(FIXED_LINES)
    assert main(["accuracy", "solver", "--game", "connect4", "--set-file", str(path), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["sets"]["fixed"]
    assert row["positions"] == 24 and row["mistake_rate"] == 0.0
    assert row["random_expected_rate"] == pytest.approx(_expected_random_rate_by_hand(FIXED_LINES))
    assert main(["accuracy", "random", "--game", "tictactoe", "--set-file", str(path)]) == 2
    assert "Connect Four" in capsys.readouterr().err


def test_shipped_connect4_sets_load_and_the_solver_is_perfect_on_end_positions(connect4):
    from arena.accuracy import available_sets

    names = available_sets(connect4)
    if not names:
        pytest.skip("no labelled Connect Four sets shipped in arena/positions/connect4 yet")
    sets = labelled_sets(connect4)
    assert list(sets) == names
    for labelled in sets.values():
        assert len(labelled) > 0
        assert labelled.states.shape == (len(labelled), connect4.state_size)
        assert not connect4.terminal(labelled.states).any()
        assert np.array_equal(labelled.legal_mask, connect4.legal_mask(labelled.states))
        assert 0.0 <= expected_random_mistake_rate(labelled) < 1.0
    if "end_easy" in sets:
        head = _head(sets["end_easy"], 10)
        assert player_mistake_rates(connect4, SolverPlayer(rng=0), [head]) == {"end_easy": 0.0}
