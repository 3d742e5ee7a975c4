"""The batched match driver: two search-backed players (network + PUCT), all games at once.

Used by gating (candidate against best) and by the evaluation of trained models. Openings,
colours and the result are the arena's own (``arena.openings``, ``arena.results``): games
``2p`` and ``2p + 1`` share pair ``p``'s seeded opening of ``opening_plies`` random plies, A moves
first in the even one, and game k's opening depends only on the match's opening seed and k, not
on the number of games. After the opening every position is searched with ``mcts.run_puct`` (no
root noise) and the most visited move is played (ties: lowest action index), so the openings are
what makes the games differ (arena and play searches use no Dirichlet noise; the robust child of
Browne et al. 2012, sec. 3.3.3).
"""

from __future__ import annotations

import numpy as np

from arena.openings import PairedOpenings, a_moves_first, opening_seed
from arena.results import GameRecord, MatchResult
from games.base import Game
from mcts import PUCTConfig, run_puct, select_actions, solver_visit_counts


def search_moves(
    game: Game,
    states: np.ndarray,
    evaluate_fn,
    puct_config: PUCTConfig,
    rng: np.random.Generator,
    break_ties: bool = False,
) -> np.ndarray:
    """Greedy PUCT moves of ``states`` (``[B, S]`` int64, all unfinished) in one batched search.

    One ``mcts.run_puct`` call without root noise; the most visited action of each row, among
    equally visited ones the lowest index, or with ``break_ties`` one drawn from ``rng``
    (``mcts.select_actions``). With ``puct_config.solver`` the proofs decide first
    (``mcts.solver_visit_counts``: a proven win is played, a proven loss avoided while another move
    is not proven lost). Returns ``[B]`` int64. The arena's batched driver and
    ``arena.accuracy.network_actions`` both choose moves this way.
    """
    output = run_puct(game, states, evaluate_fn, puct_config, rng, add_root_noise=False)
    counts = solver_visit_counts(output) if puct_config.solver else output.visit_counts
    return np.asarray(select_actions(counts, 0.0, rng, break_ties=break_ties), dtype=np.int64)


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
    puct_config: PUCTConfig,
    rng: np.random.Generator,
    opening_plies: int = 2,
    names: tuple[str, str] = ("A", "B"),
    break_ties: bool = False,
) -> MatchResult:
    """Play ``num_games`` games of A against B, colours alternated, all games searched together.

    In a game with chance the dice are rolled between moves, games 2p and 2p+1 with the same
    seeded stream (as ``arena.match.run_match``); no chance state is searched.

    Args:
        evaluate_a, evaluate_b: batched evaluators (see ``mcts.evaluators``) of the two players.
        num_games: >= 1.
        puct_config: the search of both players; no root noise is added.
        rng: one number drawn from it seeds the openings (``arena.openings.opening_seed``); it is
            then handed to the searches (which draw nothing without noise).
        opening_plies: random plies opening each pair of games, >= 0.
        names: the players' names in the result.
        break_ties: ties between equally visited moves are broken by ``rng`` (a seeded match: an
            untrained network ties often); without it they go to the lowest index, and two
            identical players replay one game from one opening.

    Returns:
        ``MatchResult`` (game records in game-index order).

    Raises:
        ValueError: if ``num_games`` < 1, ``opening_plies`` < 0 or ``rng`` is not a Generator.
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    seed = opening_seed(rng)
    openings = PairedOpenings(game, opening_plies, seed)
    num_games = int(num_games)
    # games with chance: games 2p and 2p+1 roll the same dice stream, as in arena.match.run_match
    dice = [np.random.default_rng([seed, index // 2, 1]) for index in range(num_games)] if game.num_chance_outcomes else None
    moves = [openings.opening(index) for index in range(num_games)]
    opening_lengths = [len(m) for m in moves]
    states = np.zeros((num_games, game.state_size), dtype=np.int64)
    for index, opening in enumerate(moves):
        state = game.initial_state()
        for action in opening:
            state = game.result(state, action)
        states[index] = state
    a_is_first = np.array([a_moves_first(index) for index in range(num_games)])
    while True:
        live = np.flatnonzero(~game.terminal(states))
        if len(live) == 0:
            break
        actions = np.zeros(len(live), dtype=np.int64)
        to_play = game.to_play(states[live])
        a_to_move = (to_play == 0) == a_is_first[live]
        for side, evaluate in ((a_to_move, evaluate_a), (~a_to_move, evaluate_b)):
            if side.any():
                actions[side] = search_moves(game, states[live[side]], evaluate, puct_config, rng, break_ties)
        states[live] = game.step(states[live], actions)
        for index, action in zip(live, actions):
            moves[index].append(int(action))
        if dice is not None:
            _play_chance(game, states, moves, dice)
    result = MatchResult(names[0], names[1], game.name)
    winners = game.winner(states)
    for index in range(num_games):
        result.games.append(
            GameRecord(
                index, game.format_moves(moves[index]), bool(a_is_first[index]), int(winners[index]),
                opening_lengths[index],
            )
        )
    return result
