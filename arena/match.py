"""The sequential match driver: any two players, one position at a time, and round-robin ladders.

A match plays ``num_games`` games with colours alternated: A moves first in games 0, 2, 4, ...
Games come in pairs (2k, 2k+1) that share one seeded opening (``arena.openings``: the optional
``start`` moves, then ``opening_plies`` random plies), so each opening is played once with each
colour and a lucky opening favours nobody; game k's opening depends only on the match's opening
seed and k. In a game with chance both games of a pair also roll the same dice: the outcomes come,
in the order they are needed, from a generator seeded by the opening seed and the pair's number,
so luck is shared out as fairly as the opening. During game k each player draws (ties, random
moves) from a generator seeded by the match's seed, k, its seat and one number it drew from its
own ``rng`` when the match began (``arena.openings.match_stream``), put in its ``rng`` for that
game and taken out after it; so game k is the same game whether played alone
(``game_indices=[k]``, players seeded as for the whole match) or within the whole match, and
players with other seeds still play other games.
The result is the arena's one result type, ``arena.results.MatchResult``; games are kept as move
strings (the game's notation).
``arena.network_match`` is the batched driver for network against network.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.elo import LadderRatings, fit_bradley_terry
from arena.openings import (
    DICE_STREAM,
    TIES_A_STREAM,
    TIES_B_STREAM,
    PairedOpenings,
    a_moves_first,
    check_game_indices,
    match_stream,
    opening_seed,
)
from arena.player_base import Player
from arena.results import RESULT_TEXT, GameRecord, MatchResult, Record
from games.base import NO_WINNER, Game

__all__ = [
    "RESULT_TEXT",
    "GameRecord",
    "LadderResult",
    "MatchResult",
    "Record",
    "ladder_tables",
    "play_game",
    "play_match",
    "run_ladder",
    "run_match",
]


def play_game(
    game: Game, first: Player, second: Player, opening=(), chance_rng: np.random.Generator | None = None
) -> tuple[int, list[int]]:
    """Play one game from the start position through ``opening``; then ``first`` and ``second``
    move in turn (``first`` is player 0, who moves first from the start position). Chance states
    are never handed to a player: their outcome is drawn by its probability with ``chance_rng``.

    Returns:
        ``(winner, actions)``: ``winner`` is 0 or 1 (the winning player's index) or
        ``NO_WINNER`` (-1) for a draw; ``actions`` lists every move played, opening included,
        and in a game with chance every outcome, in play order (``game.format_moves`` writes them).

    Raises:
        ValueError: if a player returns an illegal action (naming the player and the action), or
            a chance state is met without ``chance_rng``.
    """
    players = (first, second)
    state = game.initial_state()
    actions: list[int] = []
    for action in opening:
        state = game.result(state, action)
        actions.append(int(action))
    while not game.terminal_test(state):
        if game.is_chance_state(state):
            if chance_rng is None:
                raise ValueError(f"{game.name} has chance states: play_game needs a chance_rng")
            outcome = int(game.sample_chance(np.asarray([state], dtype=np.int64), chance_rng)[0])
            actions.append(outcome)
            state = game.chance_result(state, outcome)
            continue
        mover = game.player(state)
        action = players[mover].select_action(game, state)
        legal = game.actions(state)
        if action not in legal:
            raise ValueError(
                f"{players[mover].name} (player {mover}) chose illegal action {action!r}; "
                f"expected one of {legal}"
            )
        actions.append(int(action))
        state = game.result(state, action)
    utility = game.utility(state, 0)
    return (0 if utility > 0 else 1 if utility < 0 else NO_WINNER), actions


def _check_num_games(num_games) -> int:
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    return int(num_games)


def run_match(
    game: Game,
    player_a: Player,
    player_b: Player,
    num_games: int,
    rng: np.random.Generator,
    opening_plies: int = 2,
    start: str = "",
    on_game=None,
    game_indices=None,
) -> MatchResult:
    """Play ``num_games`` games of A against B, colours alternated, paired seeded openings.

    Args:
        num_games: >= 1.
        rng: ``numpy.random.Generator``; one number drawn from it seeds the match
            (``arena.openings.opening_seed``): the openings, the dice and, with one number drawn
            from each player's own ``rng``, each game's tie-breaking streams (the players' own
            ``rng`` are set aside during each game and put back after it).
        opening_plies: uniformly random plies after ``start``, >= 0; one opening per pair of games.
        start: a move string every game starts from (the game's notation), ``""`` for the start
            position.
        on_game: optional callback ``on_game(record)`` after each game (progress display).
        game_indices: play only these games of the match (None: all), e.g. ``[k]`` to replay game
            k alone: it is the game the whole match plays as game k.

    Returns:
        ``MatchResult`` (records in the order played).

    Raises:
        ValueError: if ``num_games`` < 1, ``opening_plies`` < 0, ``rng`` is not a Generator,
            ``start`` is not a legal move string of a game in progress, ``game_indices`` is not a
            list of distinct games of the match, or a player moves illegally.
    """
    num_games = _check_num_games(num_games)
    indices = check_game_indices(game_indices, num_games)
    seed = opening_seed(rng)
    openings = PairedOpenings(game, opening_plies, seed, start)
    seed_a, seed_b = opening_seed(player_a.rng), opening_seed(player_b.rng)
    result = MatchResult(player_a.name, player_b.name, game.name)
    for index in indices:
        a_first = a_moves_first(index)
        opening = openings.opening(index)
        first, second = (player_a, player_b) if a_first else (player_b, player_a)
        dice = match_stream(seed, index // 2, DICE_STREAM) if game.num_chance_outcomes else None
        own = player_a.rng, player_b.rng
        player_a.rng = match_stream(seed, index, TIES_A_STREAM, seed_a)
        player_b.rng = match_stream(seed, index, TIES_B_STREAM, seed_b)
        try:
            winner, actions = play_game(game, first, second, opening, chance_rng=dice)
        finally:
            player_a.rng, player_b.rng = own
        record = GameRecord(index, game.format_moves(actions), a_first, winner, len(opening))
        result.games.append(record)
        if on_game is not None:
            on_game(record)
    return result


def play_match(
    game: Game, player_a: Player, player_b: Player, num_games: int, seed: int | None = None
) -> MatchResult:
    """``run_match`` from the start position without random openings, colours alternated.

    Args:
        num_games: >= 1.
        seed: if given, both players' ``rng`` are replaced first by independent generators
            spawned from ``numpy.random.SeedSequence(seed)`` (A gets the first), so the match is
            reproducible whatever the players' earlier use; if None their generators are used as
            they are (``run_match`` draws one number from each).

    Raises:
        ValueError: if ``num_games`` < 1, and as ``play_game``.
    """
    num_games = _check_num_games(num_games)
    if seed is not None:
        seed_a, seed_b = np.random.SeedSequence(seed).spawn(2)
        player_a.rng = np.random.default_rng(seed_a)
        player_b.rng = np.random.default_rng(seed_b)
    return run_match(game, player_a, player_b, num_games, np.random.default_rng(0), opening_plies=0)


@dataclass
class LadderResult:
    """A round robin: every pair's match and the fitted ratings.

    Attributes:
        names: players (spec texts).
        matches: ``{(i, j): MatchResult}`` for ``i < j`` (i is A).
        ratings: the Bradley-Terry fit, anchored on ``names[ratings.anchor]``.
    """

    names: list[str]
    matches: dict
    ratings: LadderRatings

    def points_and_games(self) -> tuple[np.ndarray, np.ndarray]:
        """``[P, P]`` points (i's points against j) and ``[P, P]`` games."""
        return ladder_tables(len(self.names), self.matches)

    def to_dict(self) -> dict:
        points, games = self.points_and_games()
        out = self.ratings.to_dict()
        for i, name in enumerate(self.names):
            out["ratings"][name]["games"] = int(games[i].sum())
            out["ratings"][name]["score"] = float(points[i].sum() / games[i].sum())
        out["matches"] = [
            {k: v for k, v in m.to_dict().items() if k != "game"} for m in self.matches.values()
        ]
        return out


def ladder_tables(num_players: int, matches: dict) -> tuple[np.ndarray, np.ndarray]:
    points = np.zeros((num_players, num_players))
    games = np.zeros((num_players, num_players))
    for (i, j), match in matches.items():
        points[i, j] += match.wins + 0.5 * match.draws
        points[j, i] += match.losses + 0.5 * match.draws
        games[i, j] += match.num_games
        games[j, i] += match.num_games
    return points, games


def run_ladder(
    game: Game,
    players: list[Player],
    num_games: int,
    rng: np.random.Generator,
    anchor: int = 0,
    opening_plies: int = 2,
    start: str = "",
    prior_draws: float = 1.0,
    confidence: float = 0.95,
    on_match=None,
) -> LadderResult:
    """Round robin: every pair plays ``run_match`` (``num_games`` games), then a Bradley-Terry fit.

    Args:
        players: at least 2, distinct names.
        anchor: index of the player rated 0 (the CLI picks ``random``).
        prior_draws, confidence: see ``arena.elo.fit_bradley_terry``.
        on_match: optional callback ``on_match(i, j, result)``.

    Raises:
        ValueError: for fewer than 2 players, duplicate names, and as ``run_match`` and
            ``fit_bradley_terry``.
    """
    names = [p.name for p in players]
    if len(players) < 2:
        raise ValueError(f"a ladder needs at least 2 players, got {len(players)}")
    if len(set(names)) != len(names):
        raise ValueError(f"player names must be distinct, got {names}")
    matches = {}
    for i in range(len(players)):
        for j in range(i + 1, len(players)):
            match = run_match(game, players[i], players[j], num_games, rng, opening_plies, start)
            matches[(i, j)] = match
            if on_match is not None:
                on_match(i, j, match)
    points, games = ladder_tables(len(players), matches)
    ratings = fit_bradley_terry(names, points, games, anchor, prior_draws, confidence)
    return LadderResult(names, matches, ratings)
