"""The batched match driver: two search-backed players (network + a registered search), all games at once.

Used by gating (candidate against best) and by the evaluation of trained models. Openings,
colours and the result are the arena's own (``arena.openings``, ``arena.results``): games
``2p`` and ``2p + 1`` share pair ``p``'s seeded opening of ``opening_plies`` random plies, A moves
first in the even one, and game k's opening depends only on the match's opening seed and k, not
on the number of games. After the opening every position is searched with ``mcts.run_search`` (no
root noise) and its greedy move is played (``mcts.registry``'s rule; ties: lowest action index, or
with ``break_ties`` a draw from game k's own stream ``arena.openings.match_stream(seed, k,
TIES_STREAM)``), so the openings are what makes the games differ (arena and play searches use no
root noise; the robust child of Browne et al. 2012, sec. 3.3.3). Each game's dice and ties come
from its own streams, so game k is the same game whether played alone (``game_indices=[k]``) or
within the whole batch.
"""

from __future__ import annotations

import numpy as np

from arena.openings import (
    DICE_STREAM,
    TIES_STREAM,
    PairedOpenings,
    a_moves_first,
    check_game_indices,
    match_stream,
    opening_seed,
)
from arena.results import GameRecord, MatchResult
from games.base import Game
from mcts import run_search


def search_moves(
    game: Game,
    states: np.ndarray,
    evaluate_fn,
    search_config,
    rng: np.random.Generator,
    break_ties: bool = False,
    row_rngs=None,
) -> np.ndarray:
    """Greedy moves of ``states`` (``[B, S]`` int64, all unfinished) in one batched search.

    One ``mcts.run_search`` call with ``search_config`` (the frozen settings of a registered
    search: PUCT, Gumbel, ...) without root noise; the move is ``mcts.registry``'s greedy choice
    (visit-count searches: the most visited action, among equally visited ones the lowest index,
    or with ``break_ties`` one drawn from ``rng``; the MCTS-solver's proofs decide first).
    ``row_rngs``: one generator per row (``B`` of them); when given, row ``b``'s tie is broken with
    ``row_rngs[b]`` alone, so a row's choice does not depend on the other rows. Returns ``[B]``
    int64. The arena's batched driver and ``arena.accuracy.network_actions`` both choose moves
    this way.
    """
    output = run_search(
        game, states, evaluate_fn, search_config, rng, explore=False, ties="random" if break_ties else "lowest",
        row_rngs=row_rngs,
    )
    return np.asarray(output.actions, dtype=np.int64)


def _play_chance(game: Game, states: np.ndarray, moves: list, dice: list) -> None:
    """Play every chance state of ``states`` (in place) with its game's dice generator; the
    outcomes join the games' move lists. Searches only ever see decision states."""
    while True:
        chance = np.flatnonzero(game.is_chance(states))
        if not chance.size:
            return
        for index in chance:
            row = states[index : index + 1]
            outcome = game.sample_chance(row, dice[index])
            states[index] = game.apply_chance(row, outcome)[0]
            moves[index].append(int(outcome[0]))


def run_network_match(
    game: Game,
    evaluate_a,
    evaluate_b,
    num_games: int,
    search_config,
    rng: np.random.Generator,
    opening_plies: int = 2,
    names: tuple[str, str] = ("A", "B"),
    break_ties: bool = False,
    game_indices=None,
) -> MatchResult:
    """Play ``num_games`` games of A against B, colours alternated, all games searched together.

    In a game with chance the dice are rolled between moves, games 2p and 2p+1 with the same
    seeded stream (as ``arena.match.run_match``); no chance state is searched.

    Args:
        evaluate_a, evaluate_b: batched evaluators (see ``mcts.evaluators``) of the two players.
        num_games: >= 1.
        search_config: the frozen settings of both players' search (any registered search,
            ``mcts.registry``); no root noise is added.
        rng: one number drawn from it seeds the match (``arena.openings.opening_seed``): the
            openings, the dice and each game's tie-breaking stream; it is then handed to the
            searches (which draw nothing without noise).
        opening_plies: random plies opening each pair of games, >= 0.
        names: the players' names in the result.
        break_ties: ties between equally visited moves are broken by each game's own stream (a
            seeded match: an untrained network ties often); without it they go to the lowest
            index, and two identical players replay one game from one opening.
        game_indices: play only these games of the match (None: all), e.g. ``[k]`` to replay
            game k alone.

    Returns:
        ``MatchResult`` (game records in the order of ``game_indices``, by default game-index order).

    Raises:
        ValueError: if ``num_games`` < 1, ``opening_plies`` < 0, ``rng`` is not a Generator, or
            ``game_indices`` is not a list of distinct games of the match.
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    indices = check_game_indices(game_indices, int(num_games))
    seed = opening_seed(rng)
    openings = PairedOpenings(game, opening_plies, seed)
    num_games = len(indices)
    # games with chance: games 2p and 2p+1 roll the same dice stream, as in arena.match.run_match
    dice = [match_stream(seed, index // 2, DICE_STREAM) for index in indices] if game.num_chance_outcomes else None
    ties = [match_stream(seed, index, TIES_STREAM) for index in indices]
    moves = [openings.opening(index) for index in indices]
    opening_lengths = [len(m) for m in moves]
    states = np.zeros((num_games, game.state_size), dtype=np.int64)
    for index, opening in enumerate(moves):
        state = game.initial_state()
        for action in opening:
            state = game.result(state, action)
        states[index] = state
    a_is_first = np.array([a_moves_first(index) for index in indices])
    while True:
        live = np.flatnonzero(~game.terminal(states))
        if len(live) == 0:
            break
        actions = np.zeros(len(live), dtype=np.int64)
        to_play = game.to_play(states[live])
        a_to_move = (to_play == 0) == a_is_first[live]
        for side, evaluate in ((a_to_move, evaluate_a), (~a_to_move, evaluate_b)):
            if side.any():
                rows = live[side]
                actions[side] = search_moves(
                    game, states[rows], evaluate, search_config, rng, break_ties, row_rngs=[ties[row] for row in rows]
                )
        states[live] = game.step(states[live], actions)
        for index, action in zip(live, actions):
            moves[index].append(int(action))
        if dice is not None:
            _play_chance(game, states, moves, dice)
    result = MatchResult(names[0], names[1], game.name)
    winners = game.winner(states)
    for row, index in enumerate(indices):
        result.games.append(
            GameRecord(
                index, game.format_moves(moves[row]), bool(a_is_first[row]), int(winners[row]), opening_lengths[row],
            )
        )
    return result
