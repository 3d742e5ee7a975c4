"""Game knowledge (``games.knowledge``) and position sets (``arena.positions``): their defaults, the
values Connect Four and tic-tac-toe give, and that code outside ``games/`` asks them, never a
game's name."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import games
from arena.positions import PositionSets, position_sets
from arena.positions.connect4 import position_set_names
from games.connect4.heuristic import MAX_EVALUATION, evaluate
from games.knowledge import Knowledge
from search.alphabeta import default_evaluate_fn, default_key_fn, static_action_order
from search.minimax import Minimax, zero_evaluate

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the folders above games/ (the library and its front ends): only games/ may know a game by its name
LIBRARY_FOLDERS = ("arena", "search", "mcts", "networks", "selfplay", "trainer", "frontends")


def _name_switches(text: str, names: list[str]) -> list[str]:
    quoted = "|".join(re.escape(n) for n in names)
    patterns = [
        rf"(==|!=)\s*[\"']({quoted})[\"']",  # x == "connect4"
        rf"[\"']({quoted})[\"']\s*(==|!=)",  # "connect4" == x
        rf"\bin\s*[\(\[\{{]\s*[\"']({quoted})[\"']",  # x in ("connect4", ...)
    ]
    return [line.strip() for line in text.splitlines() if any(re.search(p, line) for p in patterns)]


def test_the_scan_finds_a_game_name_switch():
    names = ["connect4", "tictactoe"]
    assert _name_switches('    if game.name == "connect4":\n', names)
    assert _name_switches("if 'tictactoe' != name:", names)
    assert _name_switches('if game.name in ("connect4", "tictactoe"):', names)
    assert not _name_switches('game = games.make("connect4")', names)


def test_no_module_outside_games_switches_on_a_game_name():
    found = {}
    for folder in LIBRARY_FOLDERS:
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            hits = _name_switches(path.read_text(encoding="utf-8"), games.names())
            if hits:
                found[str(path.relative_to(REPO_ROOT))] = hits
    assert found == {}


def use_knowledge(monkeypatch, knowledge_class):
    """Every ``games.knowledge(game)`` call answers with ``knowledge_class(game)`` in this test."""
    monkeypatch.setattr(games, "knowledge", knowledge_class)


def test_generic_defaults(monkeypatch):
    game = games.make("connect4")
    knowledge = Knowledge(game)
    assert knowledge.action_order() == list(range(7))
    assert knowledge.heuristic_fn() is None and knowledge.heuristic_bound == 0.0
    assert knowledge.transposition_key((1, 2, 3, 0)) == (1, 2, 3, 0)
    assert knowledge.exact_solver() is None  # 42 plies: too long for exhaustive search
    assert knowledge.default_opening_plies == 2
    sets = PositionSets(game)
    assert sets.labelled_set_names() == [] and sets.labelled_set_groups() == {}
    assert sets.chosen_move_set_names() == []
    with pytest.raises(ValueError, match="unknown position set 'none'"):
        sets.labelled_set("none")
    with pytest.raises(ValueError, match="reads no labelled-position files"):
        sets.read_labelled_set("positions.txt")
    assert knowledge.default_network() == {
        "kind": "resnet", "num_blocks": 4, "channels": 32, "value_hidden": 64,
    }
    assert knowledge.default_network(gpu=True) == {
        "kind": "resnet", "num_blocks": 10, "channels": 128, "value_hidden": 128,
    }
    # without a heuristic, alpha-beta scores the horizon 0
    use_knowledge(monkeypatch, Knowledge)
    assert default_evaluate_fn(game) is zero_evaluate


def test_the_registry_builds_each_games_knowledge():
    kinds = {name: type(games.knowledge(games.make(name))).__name__ for name in games.names()}
    assert kinds == {
        "connect4": "ConnectFourKnowledge",
        "othello": "OthelloKnowledge",
        "othello6x6": "OthelloKnowledge",
        "pig": "PigKnowledge",
        "tictactoe": "TicTacToeKnowledge",
    }
    assert [games.knowledge(games.make(name)).default_opening_plies for name in ("tictactoe", "connect4", "pig")] == [1, 2, 0]
    with pytest.raises(ValueError, match="kuhn is an imperfect-information game"):
        games.knowledge(games.make("kuhn"))


def test_one_registry_holds_every_kind_of_game():
    assert games.names() == ["connect4", "othello", "othello6x6", "pig", "tictactoe"]
    assert games.names([games.IMPERFECT]) == ["kuhn", "leduc"]
    assert games.names([games.CHANCE]) == ["pig"]
    assert games.names(games.KINDS) == sorted(games.names() + ["kuhn", "leduc"])
    assert [games.kind(name) for name in ("connect4", "pig", "leduc")] == ["perfect", "chance", "imperfect"]
    assert games.is_known("kuhn", [games.IMPERFECT]) and not games.is_known("kuhn")
    assert type(games.make("leduc")).__name__ == "LeducPoker"
    with pytest.raises(ValueError, match=r"expected kinds among \['perfect', 'chance', 'imperfect'\], got \['poker'\]"):
        games.names(["poker"])


def test_move_orders_are_the_static_orders_of_alpha_beta(connect4, tictactoe):
    connect4_order = games.knowledge(connect4).action_order()
    assert connect4_order == static_action_order(connect4) == [3, 2, 4, 1, 5, 0, 6]
    tictactoe_order = games.knowledge(tictactoe).action_order()
    assert tictactoe_order == static_action_order(tictactoe) == [4, 0, 2, 6, 8, 1, 3, 5, 7]


def test_a_move_order_that_is_not_a_permutation_is_rejected(tictactoe, monkeypatch):
    class Broken(Knowledge):
        def action_order(self):
            return [4, 4, 0]

    use_knowledge(monkeypatch, Broken)
    with pytest.raises(ValueError, match="each of the 9 actions once"):
        static_action_order(tictactoe)


def test_connect4_heuristic_and_key_are_the_search_defaults(connect4):
    knowledge = games.knowledge(connect4)
    assert knowledge.heuristic_fn() is evaluate is default_evaluate_fn(connect4)
    assert knowledge.heuristic_bound == float(MAX_EVALUATION) == 3498.0
    state = connect4.initial_state()
    for action in connect4.parse_moves("4455"):
        state = connect4.result(state, action)
    key_fn = default_key_fn(connect4)
    assert key_fn(state) == knowledge.transposition_key(state) == state[0] + state[1]
    assert knowledge.heuristic_fn()(connect4.result(connect4.initial_state(), 3)) == -8  # one centre stone down


def test_tictactoe_has_no_heuristic_and_keys_by_the_state(tictactoe):
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    assert games.knowledge(tictactoe).heuristic_fn() is None and default_evaluate_fn(tictactoe) is zero_evaluate
    assert default_key_fn(tictactoe)(state) == state


def test_a_small_heuristic_bound_is_stretched_to_integer_points(tictactoe, monkeypatch):
    class Scored(Knowledge):
        heuristic_bound = 1.0

        def heuristic_fn(self):
            return lambda state: 0.25 if state[2] % 2 else -0.5

    use_knowledge(monkeypatch, Scored)
    scaled = default_evaluate_fn(tictactoe)
    assert scaled((0, 0, 1, 0)) == 250 and scaled((0, 0, 2, 0)) == -500

    class Unbounded(Scored):
        heuristic_bound = 0.0

    use_knowledge(monkeypatch, Unbounded)
    with pytest.raises(ValueError, match="heuristic_bound"):
        default_evaluate_fn(tictactoe)


def test_tictactoe_exact_solver_equals_exhaustive_minimax_everywhere(tictactoe):
    solver = games.knowledge(tictactoe).exact_solver()
    again = games.knowledge(games.make("tictactoe")).exact_solver()
    assert solver is games.knowledge(tictactoe).exact_solver() is again  # one table
    reference = Minimax(tictactoe)
    labelled = position_sets(tictactoe).labelled_set("all")
    for row in labelled.states:
        state = tuple(int(v) for v in row)
        expected = reference.action_values(state)
        assert solver.action_scores(state) == expected
        assert solver.optimal_actions(state) == reference.best_actions(state)
    with pytest.raises(ValueError, match="non-terminal"):
        solver.action_scores(tictactoe.state_from_board("X X X / O O . / . . ."))


def test_connect4_exact_solver_scores_the_fastest_win_highest(connect4):
    # ply 18, X to move: column 2 wins at once (score (42 + 1 - 18) // 2 = 12), column 6 wins later
    state = connect4.initial_state()
    for action in connect4.parse_moves("554772552346365236"):
        state = connect4.result(state, action)
    solver = games.knowledge(connect4).exact_solver()
    assert solver.action_scores(state) == {0: -12, 1: 12, 2: -12, 3: -12, 4: -12, 5: 6, 6: -12}
    assert solver.optimal_actions(state) == [1]


def test_labelled_sets_come_from_the_position_sets_of_the_game(connect4, tictactoe):
    assert position_sets(tictactoe).labelled_set_names() == ["all"]
    assert len(position_sets(tictactoe).labelled_set("all")) == 4520
    assert position_sets(connect4).labelled_set_names() == position_set_names()
    with pytest.raises(ValueError, match="unknown position set 'all' for connect4"):
        position_sets(connect4).labelled_set("all")
    assert type(position_sets(games.make("othello"))) is PositionSets


def test_connect4_reads_a_labelled_file(connect4, tmp_path):
    path = tmp_path / "two.txt"
    path.write_text("# two positions\n4 -1 0 1 2 1 0 -1\n44 0 0 0 0 0 5 0\n")
    labelled = position_sets(connect4).read_labelled_set(path)
    assert labelled.name == "two" and labelled.moves == ["4", "44"]
    assert labelled.outcomes.tolist() == [[-1, 0, 1, 1, 1, 0, -1], [0, 0, 0, 0, 0, 1, 0]]
    np.testing.assert_array_equal(labelled.states, connect4.states_from_moves(["4", "44"]))


def test_default_networks_are_the_measured_ones():
    from networks.config import (
        CONNECT4_CPU_DEFAULT,
        CONNECT4_GPU_DEFAULT,
        TICTACTOE_DEFAULT,
        NetworkConfig,
        default_config,
    )

    assert TICTACTOE_DEFAULT == NetworkConfig(kind="mlp", mlp_hidden=(128, 128), value_hidden=64)
    assert CONNECT4_CPU_DEFAULT == NetworkConfig(kind="resnet", num_blocks=4, channels=32, value_hidden=64)
    assert CONNECT4_GPU_DEFAULT == NetworkConfig(kind="resnet", num_blocks=10, channels=128, value_hidden=128)
    assert default_config("tictactoe", gpu=True) == TICTACTOE_DEFAULT
