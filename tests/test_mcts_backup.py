"""Decision-node backups of PUCT (``mcts.backup``, ``PUCTConfig.backup``) on two-player Pig.

Ground truth is the exact value-iteration solver of ``games.pig.solver`` (Neller & Presser 2004):
with its values as the evaluator, the running-mean backup mixes the values of moves the search
tried and rejected below a node into that node, while the max backups do not (Khandelwal et al.
2016, "On the Analysis of Complex Backup Strategies in Monte Carlo Tree Search", sec. 3).
"""

from __future__ import annotations

import numpy as np
import pytest

import games
from games.pig.game import HOLD, ROLL, Pig
from mcts import PUCTConfig, run_search, state_evaluator, uniform_evaluator
from mcts.minibatch import run_puct_minibatch
from mcts.search import run_puct
from mcts.tree import ROOT_INDEX


def exact_evaluator(game):
    """Uniform priors and the solver's value ``2 P - 1`` for the player to move (float32)."""
    solver = games.knowledge(game).exact_solver()

    @state_evaluator
    def evaluate(states, legal):
        ijk = np.array([game.scores(tuple(int(x) for x in row)) for row in states], dtype=np.int64).reshape(-1, 3)
        values = 2.0 * solver.win_probabilities(ijk[:, 0], ijk[:, 1], ijk[:, 2]) - 1.0
        priors = legal / legal.sum(axis=1, keepdims=True)
        return priors.astype(np.float32), values.astype(np.float32)

    return evaluate


def state_after(game, moves: str) -> np.ndarray:
    """``[1, S]`` int64: the decision state a move string (``games.pig.game`` notation) reaches."""
    state = game.initial_state()
    for event in game.parse_moves(moves):
        state = game.chance_result(state, event) if game.is_chance_state(state) else game.result(state, event)
    return np.asarray([state], dtype=np.int64)


def node_value(tree, node: int) -> float:
    return float(tree.node_value_sum[0, node] / tree.node_visits[0, node])


def child_q(tree, node: int, child: int) -> float:
    q = node_value(tree, child)
    return q if tree.node_to_play[0, child] == tree.node_to_play[0, node] else -q


@pytest.mark.parametrize("backup", ["max_self", "robust"])
@pytest.mark.parametrize("ijk", [(3, 5, 2), (0, 0, 0), (7, 8, 1), (2, 9, 5), (6, 6, 3)])
def test_root_q_is_the_solver_value_of_each_action(ijk, backup):
    # with exact values the search visits each node's best move most, so the robust max is exact too
    game = Pig(goal=10)
    solver = games.knowledge(game).exact_solver()
    root = game.states_at(*([v] for v in ijk))
    output = run_puct(game, root, exact_evaluator(game), PUCTConfig(num_simulations=60, backup=backup),
                      np.random.default_rng(0), add_root_noise=False)
    roll, hold = solver.action_values(*ijk)
    expected = {ROLL: 2 * roll - 1, HOLD: 2 * hold - 1}
    for action, value in expected.items():
        if output.visit_counts[0, action] > 0:
            assert output.q_values[0, action] == pytest.approx(value, abs=1e-6)
    assert output.root_values[0] == pytest.approx(2 * solver.win_probability(*ijk) - 1, abs=1e-6)


def test_mean_backup_root_q_of_roll_is_not_the_solver_value():
    # The defect the max backups remove: the mean mixes the rejected moves below roll into Q(roll).
    game = Pig(goal=10)
    solver = games.knowledge(game).exact_solver()
    output = run_puct(game, game.states_at([3], [5], [2]), exact_evaluator(game), PUCTConfig(num_simulations=60),
                      np.random.default_rng(0), add_root_noise=False)
    roll, _ = solver.action_values(3, 5, 2)
    assert abs(float(output.q_values[0, ROLL]) - (2 * roll - 1)) > 1e-3


@pytest.mark.parametrize("backup", ["max", "max_self", "robust"])
def test_every_node_holds_its_backup_rule(backup):
    game = Pig(goal=10)
    roots = game.states_at([3, 0, 7], [5, 4, 8], [2, 0, 1])
    output = run_puct(game, roots, exact_evaluator(game), PUCTConfig(num_simulations=40, backup=backup),
                      np.random.default_rng(0), add_root_noise=False)
    checked = 0
    for row in range(3):
        tree = output.tree.take(np.array([row]))
        for node in range(int(tree.num_nodes[0])):
            children = [c for c in tree.children_index[0, node] if c >= 0 and tree.node_visits[0, c] > 0]
            if not children:
                continue
            if tree.node_chance[0, node]:
                probs = tree.chance_probs[0, node]
                outcomes = [(probs[k], c) for k, c in enumerate(tree.children_index[0, node]) if c >= 0]
                expected = sum(p * child_q(tree, node, c) for p, c in outcomes) / sum(p for p, _ in outcomes)
            elif backup == "robust":
                # the most visited child's Q, ties of visits to the higher Q
                expected = max((int(tree.node_visits[0, c]), child_q(tree, node, c)) for c in children)[1]
            else:
                expected = max(child_q(tree, node, c) for c in children)
                if backup == "max_self":
                    expected = max(expected, float(tree.node_raw_value[0, node]))
            assert node_value(tree, node) == pytest.approx(expected, abs=1e-9)
            checked += 1
    assert checked > 30


def test_robust_backup_takes_the_most_visited_child_not_the_best_noisy_one():
    # Pig to 100 with the solver's value plus a seeded error of sd 0.1 (fixed per state, as a
    # network's is) and uniform priors: where a close decision's children have been visited unequally
    # the robust max keeps the most visited child's Q, below the higher noisy Q that "max" takes.
    game = games.make("pig")
    solver = games.knowledge(game).exact_solver()
    noise = np.random.default_rng(0).normal(0.0, 0.1, size=(100, 100, 100))

    @state_evaluator
    def evaluate(states, legal):
        ijk = np.array([game.scores(tuple(int(x) for x in row)) for row in states], dtype=np.int64).reshape(-1, 3)
        values = 2.0 * solver.win_probabilities(ijk[:, 0], ijk[:, 1], ijk[:, 2]) - 1.0
        values = np.clip(values + noise[ijk[:, 0], ijk[:, 1], ijk[:, 2]], -1.0, 1.0)
        return (legal / legal.sum(axis=1, keepdims=True)).astype(np.float32), values.astype(np.float32)

    roots = game.states_at([0, 20, 40, 60], [0, 20, 40, 60], [15, 18, 12, 16])
    below_the_max = 0
    for backup in ("max", "robust"):
        output = run_puct(game, roots, evaluate, PUCTConfig(num_simulations=32, backup=backup),
                          np.random.default_rng(0), add_root_noise=False)
        for row in range(len(roots)):
            tree = output.tree.take(np.array([row]))
            for node in range(int(tree.num_nodes[0])):
                children = [c for c in tree.children_index[0, node] if c >= 0 and tree.node_visits[0, c] > 0]
                if not children or tree.node_chance[0, node]:
                    continue
                best = max(child_q(tree, node, c) for c in children)
                if backup == "max":
                    assert node_value(tree, node) == pytest.approx(best, abs=1e-9)
                else:
                    robust = max((int(tree.node_visits[0, c]), child_q(tree, node, c)) for c in children)[1]
                    assert node_value(tree, node) == pytest.approx(robust, abs=1e-9)
                    below_the_max += node_value(tree, node) < best - 1e-9
        if backup == "robust":
            # (0, 0, 15): roll and hold visited 16 and 16 times (the max backup's search: 17 and 15)
            assert output.visit_counts[0].tolist() == [16, 16]
    assert below_the_max == 4


def test_max_backup_on_one_tictactoe_root_holds_the_best_child_everywhere():
    # X on cells 0 and 4, O on 1 and 8 (cells 0-8 row by row): X to move wins by the fork at 6
    # (threats at 3 and 2). Every decision node holds its best visited child's Q, also for a single
    # root (which the compiled one-root loop of mcts.search would otherwise search with means).
    game = games.make("tictactoe")
    state = game.initial_states(1)
    for cell in (0, 1, 4, 8):
        state = game.step(state, np.array([cell]))
    output = run_puct(game, state, uniform_evaluator, PUCTConfig(num_simulations=60, backup="max"),
                      np.random.default_rng(0), add_root_noise=False)
    tree = output.tree
    checked = 0
    for node in range(int(tree.num_nodes[0])):
        children = [c for c in tree.children_index[0, node] if c >= 0 and tree.node_visits[0, c] > 0]
        if children:
            assert node_value(tree, node) == pytest.approx(max(child_q(tree, node, c) for c in children), abs=1e-9)
            checked += 1
    assert checked > 10
    assert output.root_values[0] == pytest.approx(1.0)


# Positions of the ``optimal_play`` labelled set of Pig to 100 (``arena.positions.pig``) where PUCT
# with the mean backup, 32 simulations, the solver's values and uniform priors holds although rolling
# is better; (own score, opponent's score, turn total), the solver's (P_roll, P_hold), and the
# root visits (roll, hold) of the mean and of the max backup.
CASES = [
    (
        ("r5r4r3r2r5r6hr6r4r5r4r1r1r1r4r5r4r1r2r1r3r1r4r5r5r3r3r5hr2r4r4r2r5r1r2r5r6r6r6hr3r4r3r5r4r2r1r1r5r4r5r3"
        "r3r3r3hr6r1r2r3r3r2r5r4r4hr5r6r5"),
        (50, 74, 16), (0.35559119, 0.33223194), (15, 17), (18, 14),
    ),
    (
        ("r5r4r3r2r5r6hr6r4r5r4r1r1r1r4r5r4r1r2r1r3r1r4r5r5r3r3r5hr2r4r4r2r5r1r2r5r6r6r6hr3r4r3r5r4r2r1r1r5r4r5r3"
        "r3r3r3hr6r1r2r3r3r2r5r4r4hr5r6r5r4r6r1r5r4r4r6r5r1r5r2r3r6r6r5r6"),
        (50, 74, 33), (0.54074481, 0.51698991), (13, 19), (18, 14),
    ),
    (
        "r5r4r3r2r5r6hr6r4r5r4r1r1r1r4r5r4r1r2r1r3r1r4r5r5r3r3r5hr2r4r4r2r5r1r2r5r6r6r6hr3r4r3r5r4",
        (25, 50, 19), (0.40592111, 0.39752117), (15, 17), (17, 15),
    ),
]


@pytest.mark.parametrize(("moves", "ijk", "solver_values", "mean_visits", "max_visits"), CASES)
def test_max_backup_rolls_where_the_mean_backup_holds(moves, ijk, solver_values, mean_visits, max_visits):
    game = games.make("pig")
    solver = games.knowledge(game).exact_solver()
    root = state_after(game, moves)
    assert game.scores(tuple(int(v) for v in root[0])) == ijk
    assert solver.action_values(*ijk) == pytest.approx(solver_values, abs=1e-8)
    evaluate = exact_evaluator(game)
    chosen = {}
    for backup, visits in (("mean", mean_visits), ("max", max_visits), ("max_self", max_visits)):
        output = run_search(game, root, evaluate, PUCTConfig(num_simulations=32, backup=backup), np.random.default_rng(0))
        assert tuple(output.visit_counts[0]) == visits
        chosen[backup] = int(output.actions[0])
    assert chosen == {"mean": HOLD, "max": ROLL, "max_self": ROLL}


def test_default_backup_is_the_mean_and_root_visits_are_unchanged_by_the_rule():
    game = Pig(goal=10)
    root = game.states_at([3], [5], [2])
    assert PUCTConfig().backup == "mean"
    output = run_puct(game, root, exact_evaluator(game), PUCTConfig(num_simulations=25, backup="max"),
                      np.random.default_rng(0), add_root_noise=False)
    assert output.tree.node_visits[0, ROOT_INDEX] == 26
    assert int(output.visit_counts.sum()) == 25


def test_unknown_backup_and_minibatch_backup_are_refused():
    with pytest.raises(ValueError, match=r"expected backup in \['mean', 'max', 'max_self', 'robust'\], got 'maximum'"):
        PUCTConfig(backup="maximum")
    game = games.make("tictactoe")
    with pytest.raises(ValueError, match="run_puct_minibatch backs up means only"):
        run_puct_minibatch(game, game.initial_states(1), exact_evaluator(Pig(goal=10)),
                           PUCTConfig(num_simulations=4, backup="max"), np.random.default_rng(0), leaves_per_call=2)
