"""Ties between equally visited moves: broken by a seeded generator in self-play
(``select_actions(..., break_ties=True)``), by the lowest index where determinism is promised."""

from __future__ import annotations

import numpy as np

import games
from mcts import PUCTConfig, argmax_random_ties, select_actions, uniform_evaluator
from selfplay.runner import SelfPlayRunner, SelfPlaySettings


def test_greedy_ties_go_to_the_lowest_index_unless_asked_to_break_them():
    counts = np.array([[3, 3, 1, 0], [0, 5, 5, 5], [2, 0, 0, 9]])
    assert select_actions(counts, 0.0, np.random.default_rng(0)).tolist() == [0, 1, 3]
    draws = np.stack([select_actions(counts, 0.0, np.random.default_rng(seed), break_ties=True) for seed in range(400)])
    assert set(draws[:, 0]) == {0, 1} and set(draws[:, 1]) == {1, 2, 3} and set(draws[:, 2]) == {3}
    assert abs(np.mean(draws[:, 0] == 0) - 0.5) < 0.1  # uniform among the tied moves
    again = np.stack([select_actions(counts, 0.0, np.random.default_rng(seed), break_ties=True) for seed in range(400)])
    assert np.array_equal(draws, again)  # the same seeds reproduce every choice
    # sampled rows are untouched by the tie rule: only the most visited move has weight at T -> 0
    assert argmax_random_ties(np.array([[1.0, 2.0, 2.0]]), np.random.default_rng(1))[0] in (1, 2)


def test_selfplay_breaks_ties_of_a_uniform_network_with_its_generator():
    # the zero net, no noise, 9 simulations from the empty board: every move gets one visit
    game = games.make("tictactoe")
    config = PUCTConfig(num_simulations=9, dirichlet_epsilon=0.0)
    runner = SelfPlayRunner(game, uniform_evaluator, config, num_games=32, rng=np.random.default_rng(0),
                            settings=SelfPlaySettings(temperature_plies=0))
    runner.play_moves(1)
    first_moves = runner._actions[:, 0]
    assert runner.game.ply(runner.states).tolist() == [1] * 32
    assert len(set(first_moves.tolist())) >= 5  # the lowest-index rule would give 0 in all 32 games


def test_selfplay_with_subtree_reuse_starts_each_search_from_the_played_child():
    """``selfplay.reuse_tree`` (``mcts.tree.reroot``) is reachable from self-play."""
    from mcts import ROOT_INDEX

    game = games.make("tictactoe")
    config = PUCTConfig(num_simulations=32)
    runner = SelfPlayRunner(game, uniform_evaluator, config, num_games=4, rng=np.random.default_rng(0),
                            settings=SelfPlaySettings(reuse_tree=True))
    runner.play_moves(1)
    rows = np.arange(4)
    played = runner._actions[:, 0]
    child_visits = np.rint(runner._policies[rows, 0, played] * config.num_simulations)
    assert np.array_equal(runner._tree.node_visits[:, ROOT_INDEX], child_visits)
    records, _ = runner.play_moves(8)  # through the ends of games: finished rows restart empty
    assert records and all(r.num_positions >= 5 for r in records)
    runner.reset_trees()
    assert runner._tree is None
    plain = SelfPlayRunner(game, uniform_evaluator, config, num_games=4, rng=np.random.default_rng(0))
    plain.play_moves(1)
    assert plain._tree is None


def test_players_break_ties_when_asked_and_the_engine_keeps_the_lowest_index():
    from arena.model_player import make_model_player
    from arena.network_players import MCTSPlayer

    game = games.make("tictactoe")
    state = game.initial_state()
    # the zero net and 9 simulations: every first move gets one visit
    seeded = {MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=9), rng=seed, break_ties=True).select_action(game, state)
              for seed in range(40)}
    assert len(seeded) >= 5
    def player(seed, **options):
        return MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=9), rng=seed, **options)

    assert player(3, break_ties=True).select_action(game, state) == player(3, break_ties=True).select_action(
        game, state
    )  # one seed, one choice
    assert {player(seed).select_action(game, state) for seed in range(10)} == {0}  # the default: lowest index
    engine = {make_model_player(uniform_evaluator, 9, seed, break_ties=False).select_action(game, state)
              for seed in range(10)}
    assert engine == {0}


def test_a_seeded_player_takes_the_higher_q_among_equally_visited_moves():
    """``X . . / O X . / O . .``, X to move, wins at cell 8: a network with prior 0.6 on cell 1 and
    0.4 on cell 8, value 0, and 2 simulations (one leaf a call) give each one visit, cell 1 first;
    the win's Q is +1 and cell 1's 0, so every seed plays 8 (the lowest index would play 1), and
    the reported value is +1."""
    from arena.network_players import MCTSPlayer

    game = games.make("tictactoe")
    state = game.state_from_board("X . . / O X . / O . .")

    def two_moves(observations, legal_mask):
        priors = np.zeros(legal_mask.shape, dtype=np.float32)
        priors[:, 1], priors[:, 8] = 0.6, 0.4
        priors = np.where(legal_mask, priors, 0.0).astype(np.float32)
        priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1e-9)
        return priors, np.zeros(legal_mask.shape[0], dtype=np.float32)

    for seed in range(20):
        analysis = MCTSPlayer(two_moves, PUCTConfig(num_simulations=2), rng=seed, break_ties=True).analyze(game, state)
        assert analysis.visit_counts.tolist() == [0, 1, 0, 0, 0, 0, 0, 0, 1]
        assert analysis.best_action == 8 and analysis.value == 1.0
    lowest = MCTSPlayer(two_moves, PUCTConfig(num_simulations=2), rng=0).analyze(game, state)
    assert lowest.best_action == 1  # the engine protocol's rule, for contrast


def test_arena_model_players_break_ties_with_their_seed(tmp_path):
    """``mcts:model=...`` in a seeded arena game: the untrained network's equal first-move visits
    go to the player's generator (several first moves over seeds), one seed one choice."""
    torch = __import__("pytest").importorskip("torch")
    from arena.specs import build_player
    from networks import NetworkConfig, build_network
    from networks.checkpoint import save_model

    game = games.make("tictactoe")
    torch.manual_seed(0)
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)
    model = build_network(config, game.observation_shape, game.num_actions)
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.zero_()  # uniform priors and value 0: every first move gets one visit
    path = save_model(tmp_path / "model.pt", model, config, game.name, game.version)
    state = game.initial_state()
    firsts = [build_player(f"mcts:model={path},sims=9,batch=1,seed={seed}", game).select_action(game, state)
              for seed in range(12)]
    assert len(set(firsts)) >= 4
    again = [build_player(f"mcts:model={path},sims=9,batch=1,seed={seed}", game).select_action(game, state)
             for seed in range(12)]
    assert firsts == again


def _tied_players(seed_a: int = 0, seed_b: int = 1):
    """Two players that tie often: PUCT on the uniform network (9 simulations from an empty
    tic-tac-toe board give every move one visit) and minimax with random ties."""
    from arena.network_players import MCTSPlayer
    from arena.players import MinimaxPlayer

    return MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=9), rng=seed_a, break_ties=True), MinimaxPlayer(rng=seed_b)


def test_game_k_of_a_match_is_the_same_alone_or_in_the_whole_match():
    """Ties come from game k's own streams (``arena.openings.match_stream``): no opening plies, so
    only ties make the games differ, and each replayed alone is move for move the match's."""
    from arena.match import run_match

    game = games.make("tictactoe")
    whole = run_match(game, *_tied_players(), 8, np.random.default_rng(3), opening_plies=0)
    assert len({record.moves for record in whole.games if record.a_first}) > 1  # ties were broken
    for k in (7, 2, 5):
        alone = run_match(game, *_tied_players(), 8, np.random.default_rng(3), opening_plies=0, game_indices=[k])
        assert [(r.index, r.moves, r.winner) for r in alone.games] == [
            (k, whole.games[k].moves, whole.games[k].winner)
        ]
    # the players' own seeds still count: other seeds, other games from the same match seed
    reseeded = run_match(game, *_tied_players(5, 6), 8, np.random.default_rng(3), opening_plies=0)
    assert [r.moves for r in reseeded.games] != [r.moves for r in whole.games]
    # the players' own generators are theirs again after the match
    a, b = _tied_players()
    own = a.rng
    run_match(game, a, b, 2, np.random.default_rng(3), opening_plies=0)
    assert a.rng is own


def test_game_k_of_a_batched_match_is_the_same_alone_or_in_the_whole_batch():
    """The batched driver (network against network, gating's matches): each game's ties come
    from its own stream, whichever other games share the batch."""
    from arena.network_match import run_network_match

    game = games.make("tictactoe")
    config = PUCTConfig(num_simulations=9, dirichlet_epsilon=0.0)

    def play(**options):
        return run_network_match(
            game, uniform_evaluator, uniform_evaluator, 8, config, np.random.default_rng(4), opening_plies=0,
            break_ties=True, **options,
        )

    whole = play()
    assert len({record.moves for record in whole.games}) > 2  # ties were broken
    for indices in ([6], [1, 4]):
        alone = play(game_indices=indices)
        assert [(r.index, r.moves) for r in alone.games] == [(k, whole.games[k].moves) for k in indices]
    with __import__("pytest").raises(ValueError, match=r"game_indices: expected distinct game numbers in 0\.\.7, got \[8\]"):
        play(game_indices=[8])
