"""Expectiminimax, star1 and star2 (Ballard 1983) on Pig: exact agreement, fewer nodes, anchors."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_scripts import load_script

import games
from search.expectimax import ALGORITHMS, ChanceSearch

DEPTHS = (1, 2, 3, 4)
#: decision states met in seeded random games, chance drawn by its probabilities (the benchmark's own)
random_positions = load_script("bench_chance_search").positions


def test_openspiel_anchor_three_sided_die_depth_two():
    """OpenSpiel's expectiminimax test on Pig: die of 3 faces, depth 2, evaluation
    score(0) - score(1): value 5/3 with roll (action 0) best."""
    game = games.make("pig", die=3)
    for algorithm in ALGORITHMS:
        search = ChanceSearch(game, algorithm, evaluate_fn=game.banked_score_difference, bound=game.goal)
        result = search.search(game.initial_state(), 2)
        assert result.value == pytest.approx(5 / 3, abs=1e-12) and result.action == 0


def test_expectimax_agrees_with_openspiel_on_random_positions():
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python.algorithms.minimax import expectiminimax

    game = games.make("pig", goal=20, die=3)
    reference = pyspiel.load_game("pig", {"diceoutcomes": 3, "winscore": 20})

    def banked(player):  # OpenSpiel's evaluation is for the maximising player: score(p) - score(1 - p)
        def evaluate(state):
            scores = [int(x) for x in str(state).split(",")[0].removeprefix("Scores: ").split()]
            return float(scores[player] - scores[1 - player])

        return evaluate

    rng = np.random.default_rng(9)
    for _ in range(12):
        ours, theirs = game.initial_state(), reference.new_initial_state()
        for _ in range(int(rng.integers(0, 30))):
            if game.terminal_test(ours):
                break
            event = int(rng.integers(3)) if game.is_chance_state(ours) else int(rng.choice(game.actions(ours)))
            ours = game.chance_result(ours, event) if game.is_chance_state(ours) else game.result(ours, event)
            theirs.apply_action(event)
        if game.terminal_test(ours) or game.is_chance_state(ours):
            continue
        player = game.player(ours)
        for depth in (1, 2, 3):
            expected, _ = expectiminimax(theirs, depth, banked(player), player)
            search = ChanceSearch(game, "expectimax", evaluate_fn=game.banked_score_difference, bound=game.goal)
            value = search.search(ours, depth).value
            assert value == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("depth", DEPTHS)
def test_star1_and_star2_equal_expectimax_exactly_with_fewer_nodes(depth):
    game = games.make("pig", goal=30)
    nodes = {algorithm: 0 for algorithm in ALGORITHMS}
    for state in random_positions(game, 25, np.random.default_rng(depth)):
        results = {algorithm: ChanceSearch(game, algorithm).search(state, depth) for algorithm in ALGORITHMS}
        reference = results["expectimax"]
        for algorithm, result in results.items():
            assert result.value == reference.value, (algorithm, state, depth)
            assert result.action == reference.action
            nodes[algorithm] += result.nodes
        assert results["star1"].nodes <= reference.nodes  # star1 visits a subset of the tree
    if depth >= 2:
        assert nodes["star1"] < nodes["expectimax"] and nodes["star2"] < nodes["expectimax"]


def test_endgame_values_are_exact_win_probabilities_at_full_depth():
    """At 99-99 with a turn total of 0 a deep search sees every way the game can go one roll on:
    rolling wins with 5/6 now; the evaluation at the horizon only matters after a 1."""
    game = games.make("pig")
    state = tuple(int(v) for v in game.states_at([99], [99], [0])[0])
    for algorithm in ALGORITHMS:
        result = ChanceSearch(game, algorithm, evaluate_fn=lambda s: 0.0, bound=0.0).search(state, 2)
        assert result.action == 0 and result.value == pytest.approx(5 / 6 * 1.0 + 1 / 6 * 0.0)


def test_iterative_deepening_and_the_time_check():
    game = games.make("pig")
    state = game.initial_state()
    search = ChanceSearch(game, "star2")
    assert search.iterative_deepening(state, 10.0, max_depth=3).depth == 3
    quick = search.iterative_deepening(state, 0.0)
    assert quick.depth == 1 and quick.action in (0, 1)
    timed = search.iterative_deepening(state, 0.05)  # the clock stops an unfinished iteration
    assert 1 <= timed.depth < 30


def test_bad_input_is_refused():
    game = games.make("pig")
    with pytest.raises(ValueError, match="unknown algorithm"):
        ChanceSearch(game, "star3")
    with pytest.raises(ValueError, match="needs its bound"):
        ChanceSearch(game, "star1", evaluate_fn=lambda s: 0.0)
    search = ChanceSearch(game, "star1")
    rolling = game.result(game.initial_state(), 0)
    with pytest.raises(ValueError, match="got a chance state"):
        search.search(rolling, 2)
    with pytest.raises(ValueError, match="depth must be an integer >= 1"):
        search.search(game.initial_state(), 0)
    wild = ChanceSearch(game, "expectimax", evaluate_fn=lambda s: 5.0, bound=1.0)
    with pytest.raises(ValueError, match="outside"):
        wild.search(game.initial_state(), 1)
