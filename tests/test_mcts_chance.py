"""PUCT and Gumbel search on a game with chance (two-player Pig): chance nodes, the two chance
modes, and self-play that records decisions only.

Ground truth is the exact value-iteration solver of ``games.pig.solver`` (Neller & Presser 2004):
an evaluator that returns its values lets the search's backed-up expectations be checked exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

import games
from arena.positions import position_sets
from games.pig.game import HOLD, ROLL, Pig
from mcts import PUCTConfig, state_evaluator, uniform_evaluator
from mcts.gumbel import GumbelConfig, run_gumbel
from mcts.search import run_puct
from mcts.tree import ROOT_INDEX
from mcts.uct import run_uct
from selfplay.runner import SelfPlayRunner, SelfPlaySettings

GOAL = 10


@pytest.fixture(scope="module")
def pig():
    return Pig(goal=GOAL)


def exact_evaluator(game):
    """Uniform priors and the solver's value ``2 P - 1`` of the player to move (exact, float32)."""
    solver = games.knowledge(game).exact_solver()

    @state_evaluator
    def evaluate(states, legal):
        values = [2.0 * solver.state_value(tuple(int(x) for x in row)) - 1.0 for row in states]
        priors = legal / legal.sum(axis=1, keepdims=True)
        return priors.astype(np.float32), np.asarray(values, dtype=np.float32)

    return evaluate


def hand_roll_expectation(game, evaluate, root: tuple) -> float:
    """``sum_k p_k Q(roll, k)``: the expectation over the die of the evaluator's values after
    rolling, from the roller's view (a 1 passes the turn: the opponent's value, negated)."""
    chance_state = game.result(root, ROLL)
    total = 0.0
    for outcome, probability in game.chance_outcomes(chance_state):
        after = game.chance_result(chance_state, outcome)
        row = np.asarray([after], dtype=np.int64)
        value = float(evaluate(row, game.legal_mask(row))[1][0])
        total += probability * (value if game.player(after) == game.player(root) else -value)
    return total


@pytest.mark.parametrize("ijk", [(3, 5, 2), (0, 0, 0), (7, 8, 1), (2, 9, 5)])
def test_expectation_root_q_of_roll_is_the_exact_expectation(pig, ijk):
    evaluate = exact_evaluator(pig)
    root = pig.states_at(*([v] for v in ijk))
    # fpu 1: an untried action looks won, so each action gets one of the two simulations
    config = PUCTConfig(num_simulations=2, fpu_value=1.0)
    output = run_puct(pig, root, evaluate, config, np.random.default_rng(0), False)
    # roll expands the chance node and its six outcomes in one simulation, hold one node
    assert output.visit_counts.tolist() == [[1, 1]]
    assert output.num_evaluations.tolist() == [1 + pig.die + 1]
    expected = hand_roll_expectation(pig, evaluate, tuple(int(v) for v in root[0]))
    assert abs(float(output.tree.node_value_sum[0, output.tree.children_index[0, ROOT_INDEX, ROLL]]) - expected) < 1e-9
    assert abs(float(output.q_values[0, ROLL]) - expected) < 1e-6  # float32 output
    # and it is the solver's P_roll (leaf values are float32)
    p_roll, p_hold = games.knowledge(pig).exact_solver().action_values(*ijk)
    assert abs(float(output.q_values[0, ROLL]) - (2 * p_roll - 1)) < 1e-6
    assert abs(float(output.q_values[0, HOLD]) - (2 * p_hold - 1)) < 1e-6


def test_expectation_every_chance_node_holds_its_weighted_mean(pig):
    """After a longer search, each chance node's mean is exactly sum_k p_k Q(c, k) of its
    outcomes' means (the player who rolled keeps the sign, a turn passed by a 1 flips it)."""
    evaluate = exact_evaluator(pig)
    root = pig.states_at([2, 4], [6, 1], [0, 3])
    output = run_puct(pig, root, evaluate, PUCTConfig(num_simulations=60), np.random.default_rng(1), False)
    tree = output.tree
    checked = 0
    for b in range(2):
        for node in np.flatnonzero(tree.node_chance[b, : tree.num_nodes[b]]):
            mean = tree.node_value_sum[b, node] / tree.node_visits[b, node]
            children = tree.children_index[b, node, : pig.die]
            assert (children >= 0).all()  # every outcome was expanded with the node
            child_means = tree.node_value_sum[b, children] / tree.node_visits[b, children]
            signs = np.where(tree.node_to_play[b, children] == tree.node_to_play[b, node], 1.0, -1.0)
            assert abs(mean - float(np.sum(tree.chance_probs[b, node] * signs * child_means))) < 1e-12
            # visits follow the probabilities: a fair die's outcomes differ by at most one visit
            visits = tree.node_visits[b, children]
            assert visits.max() - visits.min() <= 1
            checked += 1
    assert checked >= 4
    # the root is never a chance node, and a chance node is never sent to the evaluator
    assert not tree.node_chance[:, ROOT_INDEX].any()
    created = int(tree.num_nodes.sum())
    chance_nodes = int(tree.node_chance.sum())
    assert int(output.num_evaluations.sum()) + int(output.num_terminal_leaves.sum()) >= created - chance_nodes


def test_sampling_outcome_frequencies_follow_the_probabilities():
    """Sampling mode: the walks through the root's roll node pick faces 1..6 uniformly (chi-square,
    5 degrees of freedom, below the 0.1% critical value 20.52)."""
    game = Pig()  # goal 100: no finished game within reach of the search

    def roll_loving(observations, legal):
        priors = np.where(legal, np.array([0.98, 0.02], dtype=np.float32), 0.0)
        return (priors / priors.sum(axis=1, keepdims=True)).astype(np.float32), np.zeros(len(legal), dtype=np.float32)

    root = game.states_at([0], [0], [0])
    output = run_puct(game, root, roll_loving, PUCTConfig(num_simulations=1200, chance="sampling"), np.random.default_rng(5), False)
    tree = output.tree
    chance_node = tree.children_index[0, ROOT_INDEX, ROLL]
    assert tree.node_chance[0, chance_node]
    children = tree.children_index[0, chance_node, : game.die]
    visits = np.where(children >= 0, tree.node_visits[0, np.maximum(children, 0)], 0)
    total = int(visits.sum())
    assert total == int(tree.node_visits[0, chance_node]) and total > 1000
    expected = total / game.die
    chi_square = float(np.sum((visits - expected) ** 2 / expected))
    assert chi_square < 20.52, (visits.tolist(), chi_square)
    # the same seed draws the same dice; another seed other dice
    again = run_puct(game, root, roll_loving, PUCTConfig(num_simulations=1200, chance="sampling"), np.random.default_rng(5), False)
    assert np.array_equal(again.tree.node_visits, tree.node_visits)
    other = run_puct(game, root, roll_loving, PUCTConfig(num_simulations=1200, chance="sampling"), np.random.default_rng(6), False)
    assert not np.array_equal(other.tree.node_visits[0, : other.tree.num_nodes[0]], tree.node_visits[0, : tree.num_nodes[0]])


@pytest.mark.parametrize("mode", ["expectation", "sampling"])
def test_search_with_exact_values_plays_the_solver_action_where_it_is_clear(pig, mode):
    """On the labelled positions (random play reaches more of them than optimal play at goal 10)
    whose two actions differ by more than 0.1 in win probability, the most visited root action
    is the solver's."""
    labelled = position_sets(pig).labelled_set("random_play")
    gaps = np.abs(labelled.values[:, ROLL] - labelled.values[:, HOLD])
    clear = np.flatnonzero(np.nan_to_num(gaps) > 0.1)[:60]
    assert clear.size >= 20
    states = labelled.states[clear]
    output = run_puct(pig, states, exact_evaluator(pig), PUCTConfig(num_simulations=32, chance=mode), np.random.default_rng(2), False)
    chosen = output.visit_counts.argmax(axis=1)
    best = np.nanargmax(labelled.values[clear], axis=1)
    assert chosen.tolist() == best.tolist()


@pytest.mark.parametrize("ijk", [(3, 5, 2), (7, 8, 1), (2, 9, 5)])
def test_gumbel_root_q_of_roll_is_the_exact_expectation_and_its_target_prefers_the_solver_action(pig, ijk):
    """Gumbel's first two simulations visit both root actions once (Sequential Halving over m = 2):
    roll's completed Q is then the expectation over the die, both Q are the solver's action values,
    and the improved policy (uniform priors, no Gumbel draw) puts more mass on the solver's action."""
    evaluate = exact_evaluator(pig)
    root = pig.states_at(*([v] for v in ijk))
    config = GumbelConfig(num_simulations=2, max_num_considered_actions=2)
    output = run_gumbel(pig, root, evaluate, config, np.random.default_rng(0), add_gumbel_noise=False)
    assert output.visit_counts.tolist() == [[1, 1]]
    assert output.num_evaluations.tolist() == [1 + pig.die + 1]
    expected = hand_roll_expectation(pig, evaluate, tuple(int(v) for v in root[0]))
    assert abs(float(output.q_values[0, ROLL]) - expected) < 1e-6
    p_roll, p_hold = games.knowledge(pig).exact_solver().action_values(*ijk)
    assert abs(float(output.q_values[0, ROLL]) - (2 * p_roll - 1)) < 1e-6
    assert abs(float(output.q_values[0, HOLD]) - (2 * p_hold - 1)) < 1e-6
    best = ROLL if p_roll > p_hold else HOLD
    # rescaled completed Q is 1 for the better action and 0 for the other: sigma = (50 + 1) * 0.1
    weights = np.exp([5.1, 0.0])
    assert output.policy_targets[0, best] == pytest.approx(weights[0] / weights.sum(), rel=1e-5)
    assert output.actions.tolist() == [best]


@pytest.mark.parametrize("mode", ["expectation", "sampling"])
def test_gumbel_with_exact_values_plays_the_solver_action_where_it_is_clear(pig, mode):
    """As the PUCT test above, for the Gumbel search's Sequential Halving winner and the argmax of its
    improved policy target, with the Gumbel draw of self-play."""
    labelled = position_sets(pig).labelled_set("random_play")
    gaps = np.abs(labelled.values[:, ROLL] - labelled.values[:, HOLD])
    clear = np.flatnonzero(np.nan_to_num(gaps) > 0.1)[:60]
    assert clear.size >= 20
    config = GumbelConfig(num_simulations=32, chance=mode)
    output = run_gumbel(pig, labelled.states[clear], exact_evaluator(pig), config, np.random.default_rng(2))
    best = np.nanargmax(labelled.values[clear], axis=1)
    assert output.policy_targets.argmax(axis=1).tolist() == best.tolist()
    assert output.actions.tolist() == best.tolist()


def test_chance_roots_solver_and_uct_are_refused(pig):
    chance_root = np.asarray([pig.result(pig.initial_state(), ROLL)], dtype=np.int64)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="chance state"):
        run_puct(pig, chance_root, uniform_evaluator, PUCTConfig(num_simulations=4), rng, False)
    root = pig.initial_states(1)
    with pytest.raises(ValueError, match="MCTS-solver"):
        run_puct(pig, root, uniform_evaluator, PUCTConfig(num_simulations=4, solver=True), rng, False)
    with pytest.raises(ValueError, match="chance state"):
        run_gumbel(pig, chance_root, uniform_evaluator, GumbelConfig(num_simulations=4), rng)
    with pytest.raises(ValueError, match="MCTS-solver"):
        run_gumbel(pig, root, uniform_evaluator, GumbelConfig(num_simulations=4, solver=True), rng)
    with pytest.raises(ValueError, match="chance states"):
        run_uct(pig, root, 4, rng)
    with pytest.raises(ValueError, match="expected chance in"):
        PUCTConfig(chance="average")
    with pytest.raises(ValueError, match="expected chance in"):
        GumbelConfig(chance="average")


def test_reroot_keeps_the_chance_node_and_its_outcomes(pig):
    from mcts import reroot

    output = run_puct(pig, pig.initial_states(1), exact_evaluator(pig), PUCTConfig(num_simulations=20), np.random.default_rng(0), False)
    below_roll = reroot(output.tree, np.array([ROLL]))
    assert below_roll.node_chance[0, ROOT_INDEX]
    assert below_roll.chance_probs[0, ROOT_INDEX].tolist() == pytest.approx([1 / 6] * 6)
    # the chance node's subtree: itself, its six outcomes and what grew below them
    assert int(below_roll.num_nodes[0]) >= 1 + pig.die
    after_face_3 = reroot(below_roll, np.array([2]))
    assert not after_face_3.node_chance[0, ROOT_INDEX]
    assert pig.scores(tuple(int(v) for v in after_face_3.node_states[0, ROOT_INDEX])) == (0, 0, 3)


@pytest.mark.parametrize(
    "search", [PUCTConfig(num_simulations=8), PUCTConfig(num_simulations=8, chance="sampling"), GumbelConfig(num_simulations=8)],
    ids=["puct-expectation", "puct-sampling", "gumbel-expectation"],
)
def test_selfplay_records_decisions_only_with_targets_of_the_player_to_move(pig, search):
    runner = SelfPlayRunner(
        pig, uniform_evaluator, search, num_games=4,
        rng=np.random.default_rng(3), settings=SelfPlaySettings(temperature_plies=1000),
    )
    turn_changes = 0
    for _ in range(200):
        finished, stats = runner.play_moves(8)
        if not finished:
            continue
        # the call's sample game is its first finished game: replay it against the record
        movers = check_record_against_its_moves(pig, finished[0], stats.sample_games[0])
        turn_changes += int(np.count_nonzero(np.diff(movers)))
        if turn_changes >= 3:
            break
    # turns changed inside the checked games (holds and rolled 1s), and the targets followed the mover
    assert turn_changes >= 3


def check_record_against_its_moves(pig, record, moves: str) -> list[int]:
    """Assert that ``record`` holds exactly the decision positions of the game ``moves``, their
    movers, the actions played and the outcome targets of the mover; returns the movers."""
    events = pig.parse_moves(moves)
    state = pig.initial_state()
    decisions, movers, observations = [], [], []
    for event in events:
        if pig.is_chance_state(state):
            state = pig.chance_result(state, event)
            continue
        decisions.append(event)
        movers.append(pig.player(state))
        observations.append(pig.observation(np.asarray([state], dtype=np.int64))[0])
        state = pig.result(state, event)
    assert pig.terminal_test(state)
    winner = int(pig.winner(np.asarray([state], dtype=np.int64))[0])
    assert record.winner == winner
    assert record.actions.tolist() == decisions
    assert record.to_play.tolist() == movers
    assert np.array_equal(record.observations, np.stack(observations))
    assert record.legal_masks.any(axis=1).all()  # no chance state (all-False mask) was recorded
    assert record.values.tolist() == [1.0 if mover == winner else -1.0 for mover in movers]
    assert len(events) > len(decisions)  # the dice were rolled and are not positions
    return movers
