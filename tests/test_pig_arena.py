"""Pig in the arena: chance drawn by the match, paired dice, expectimax/star2 player specs."""

from __future__ import annotations

import numpy as np
import pytest

import games
from arena.match import play_game, run_match
from arena.players import ExpectimaxPlayer, RandomPlayer
from arena.specs import build_player, parse_spec


def test_specs_parse_and_build_the_chance_searches():
    game = games.make("pig")
    for text, algorithm in (("expectimax:depth=3", "expectimax"), ("star2:depth=2", "star2"), ("star1:time=0.5", "star1")):
        player = build_player(text, game)
        assert isinstance(player, ExpectimaxPlayer) and player.algorithm == algorithm and player.name == text
    assert parse_spec("star2:depth=4,time=1.5").options == {"depth": 4, "time": 1.5}
    with pytest.raises(ValueError, match="star2 needs depth=DECISIONS or time=SECONDS"):
        parse_spec("star2")
    with pytest.raises(ValueError, match="unknown option 'sims' for expectimax"):
        parse_spec("expectimax:sims=3")


def test_mcts_specs_take_the_chance_mode_of_the_search():
    import mcts
    from arena.specs import CHANCE_MODE_NAMES

    assert CHANCE_MODE_NAMES == tuple(mcts.CHANCE_MODES)
    assert parse_spec("mcts:model=m.onnx,chance=sampling").options == {"model": "m.onnx", "chance": "sampling"}
    with pytest.raises(ValueError, match=r"option 'chance' expects one of \['expectation', 'sampling'\], got 'dice'"):
        parse_spec("mcts:model=m.onnx,chance=dice")
    with pytest.raises(ValueError, match="unknown option 'chance' for policy"):
        parse_spec("policy:model=m.onnx,chance=sampling")


def test_a_match_rolls_the_same_dice_for_both_games_of_a_pair():
    game = games.make("pig", goal=20)
    result = run_match(game, RandomPlayer(1), RandomPlayer(2), 4, np.random.default_rng(0))
    assert result.num_games == 4 and result.wins + result.draws + result.losses == 4
    for pair in (0, 2):
        rolls = []
        for record in result.games[pair : pair + 2]:
            faces = [c for c in record.moves if c.isdigit()]
            rolls.append(faces)
        shorter = min(len(r) for r in rolls)
        assert rolls[0][:shorter] == rolls[1][:shorter] and shorter > 0
    replay = run_match(game, RandomPlayer(1), RandomPlayer(2), 4, np.random.default_rng(0))
    assert [g.moves for g in replay.games] == [g.moves for g in result.games]


def test_chance_states_need_a_generator_and_never_reach_a_player():
    game = games.make("pig", goal=10)
    with pytest.raises(ValueError, match="needs a chance_rng"):
        play_game(game, RandomPlayer(0), RandomPlayer(1))
    winner, events = play_game(game, RandomPlayer(0), RandomPlayer(1), chance_rng=np.random.default_rng(4))
    state = game.states_from_moves([game.format_moves(events)])
    assert game.terminal(state)[0] and game.winner(state)[0] == winner


def test_star2_beats_random_and_the_solver_beats_star2():
    game = games.make("pig", goal=30)
    strong = run_match(game, build_player("star2:depth=2", game), RandomPlayer(3), 10, np.random.default_rng(1))
    assert strong.wins >= 8
    perfect = run_match(game, build_player("solver", game), build_player("star2:depth=2", game), 20, np.random.default_rng(2))
    assert perfect.wins + perfect.losses == 20 and perfect.wins > perfect.losses


def test_searches_of_deterministic_games_refuse_a_game_with_chance():
    game = games.make("pig")
    for text in ("alphabeta:depth=2", "uct:sims=10", "minimax"):
        with pytest.raises(ValueError, match="searches games without chance; pig rolls dice"):
            build_player(text, game)
    assert build_player("alphabeta:depth=2", games.make("connect4")).name == "alphabeta:depth=2"


def test_mcts_specs_take_the_backup_of_the_search():
    from arena.specs import search_settings

    settings = search_settings(parse_spec("mcts:model=m.onnx,backup=max_self"), 32)
    assert (settings.backup, settings.num_simulations) == ("max_self", 32)
    assert search_settings(parse_spec("mcts:model=m.onnx"), 32).backup == "mean"
    with pytest.raises(ValueError, match=r"search=gumbel has no setting \['backup'\]"):
        search_settings(parse_spec("mcts:model=m.onnx,search=gumbel,backup=max"), 32)
    with pytest.raises(ValueError, match="backup"):
        search_settings(parse_spec("mcts:model=m.onnx,backup=median"), 32)
