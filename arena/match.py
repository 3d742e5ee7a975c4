"""Arena matches between any two players, with a per-game log, and round-robin ladders.

A match plays ``num_games`` games with colours alternated: A moves first in games 0, 2, 4, ...
Games come in pairs (2k, 2k+1) that share one seeded random opening of ``opening_plies`` plies
(after the optional ``start`` moves), so each opening is played once with each colour and a
lucky opening favours nobody. The opening moves are drawn from the match generator; each player
draws only from its own seeded ``rng``. Games are kept as move strings (the game's notation,
1-based).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from arena.elo import LadderRatings, MatchStatistics, fit_bradley_terry, match_statistics
from arena.players import Player, Record
from games.base import NO_WINNER, Game

#: result of a game from the first player's view (PGN notation)
RESULT_TEXT = {0: "1-0", 1: "0-1", NO_WINNER: "1/2-1/2"}


@dataclass(frozen=True)
class GameRecord:
    """One arena game.

    Attributes:
        index: game number from 0.
        moves: the move string (1-based notation), opening included.
        a_first: True if player A moved first.
        winner: 0 (first player), 1 (second) or ``NO_WINNER`` (-1, draw).
        opening_plies: how many of ``moves`` were the start moves and the random opening.
    """

    index: int
    moves: str
    a_first: bool
    winner: int
    opening_plies: int

    @property
    def outcome_for_a(self) -> str:
        """``"win"``, ``"draw"`` or ``"loss"`` for player A."""
        if self.winner == NO_WINNER:
            return "draw"
        return "win" if (self.winner == 0) == self.a_first else "loss"

    def to_dict(self) -> dict:
        return {
            "index": self.index,
            "moves": self.moves,
            "a_first": self.a_first,
            "winner": self.winner,
            "result": RESULT_TEXT[self.winner],
            "outcome_for_a": self.outcome_for_a,
            "opening_plies": self.opening_plies,
        }


@dataclass
class ArenaResult:
    """A match from player A's side: named counts, per-colour records and the game log.

    Attributes:
        player_a, player_b: names (spec texts).
        game: game id.
        games: the ``GameRecord`` log, in play order.
    """

    player_a: str
    player_b: str
    game: str
    games: list[GameRecord] = field(default_factory=list)

    def _record(self, a_first: bool | None) -> Record:
        record = Record()
        for g in self.games:
            if a_first is not None and g.a_first != a_first:
                continue
            outcome = g.outcome_for_a
            if outcome == "win":
                record.wins += 1
            elif outcome == "draw":
                record.draws += 1
            else:
                record.losses += 1
        return record

    @property
    def as_first(self) -> Record:
        """A's record in the games A started."""
        return self._record(True)

    @property
    def as_second(self) -> Record:
        """A's record in the games B started."""
        return self._record(False)

    @property
    def wins(self) -> int:
        return self._record(None).wins

    @property
    def draws(self) -> int:
        return self._record(None).draws

    @property
    def losses(self) -> int:
        return self._record(None).losses

    @property
    def num_games(self) -> int:
        return len(self.games)

    @property
    def distinct_games(self) -> int:
        """Number of different move strings among the games."""
        return len({g.moves for g in self.games})

    def statistics(self, confidence: float = 0.95) -> MatchStatistics:
        """Score, Wilson interval and Elo difference for A (``arena.elo.match_statistics``)."""
        return match_statistics(self.wins, self.draws, self.losses, confidence)

    def to_dict(self, confidence: float = 0.95, include_games: bool = False) -> dict:
        """JSON-ready summary: ``wins``, ``draws``, ``losses`` (A's side), ``score``, ``score_ci``,
        ``elo``, ``elo_ci`` (None where infinite), ``distinct_games``, per-colour records."""
        stats = self.statistics(confidence).to_dict()
        out = {"player_a": self.player_a, "player_b": self.player_b, "game": self.game, **stats}
        out["distinct_games"] = self.distinct_games
        for label, record in (("as_first", self.as_first), ("as_second", self.as_second)):
            out[label] = {"wins": record.wins, "draws": record.draws, "losses": record.losses}
        if include_games:
            out["games"] = [g.to_dict() for g in self.games]
        return out


def _random_opening(game: Game, state: tuple, num_plies: int, rng: np.random.Generator) -> list[int]:
    moves = []
    for _ in range(num_plies):
        legal = game.actions(state)
        if not legal:
            break
        action = int(legal[rng.integers(len(legal))])
        moves.append(action)
        state = game.result(state, action)
    return moves


def play_one(game: Game, first: Player, second: Player, opening: list[int]) -> tuple[int, list[int]]:
    """Play from the start position through ``opening``, then let the players move.

    Returns:
        ``(winner, actions)``: 0, 1 or ``NO_WINNER``, and every action played (opening included).

    Raises:
        ValueError: if a player returns an illegal action (naming the player and the action).
    """
    players = (first, second)
    state = game.initial_state()
    actions: list[int] = []
    for action in opening:
        state = game.result(state, action)
        actions.append(int(action))
    while not game.terminal_test(state):
        mover = game.player(state)
        action = players[mover].select_action(game, state)
        legal = game.actions(state)
        if action not in legal:
            raise ValueError(
                f"{players[mover].name} chose illegal action {action!r}; expected one of {legal}"
            )
        actions.append(int(action))
        state = game.result(state, action)
    utility = game.utility(state, 0)
    return (0 if utility > 0 else 1 if utility < 0 else NO_WINNER), actions


def run_match(
    game: Game,
    player_a: Player,
    player_b: Player,
    num_games: int,
    rng: np.random.Generator,
    opening_plies: int = 2,
    start: str = "",
    on_game=None,
) -> ArenaResult:
    """Play ``num_games`` games of A against B, colours alternated, paired seeded openings.

    Args:
        num_games: >= 1.
        rng: ``numpy.random.Generator`` for the random openings (and nothing else).
        opening_plies: uniformly random plies after ``start``, >= 0; drawn once per pair of games.
        start: a move string every game starts from (the game's notation), ``""`` for the start
            position.
        on_game: optional callback ``on_game(record)`` after each game (progress display).

    Returns:
        ``ArenaResult``.

    Raises:
        ValueError: if ``num_games`` < 1, ``opening_plies`` < 0, ``rng`` is not a Generator,
            ``start`` is not a legal move string of a game in progress, or a player moves illegally.
    """
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    if (
        isinstance(opening_plies, bool)
        or not isinstance(opening_plies, (int, np.integer))
        or opening_plies < 0
    ):
        raise ValueError(f"opening_plies must be an integer >= 0, got {opening_plies!r}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")  # noqa: TRY004 (project rule: ValueError)
    start_actions = game.parse_moves(start) if start else []
    state = game.initial_state()
    for action in start_actions:
        state = game.result(state, action)
    if game.terminal_test(state):
        raise ValueError(f"start position {start!r} is already finished")
    result = ArenaResult(player_a.name, player_b.name, game.name)
    opening: list[int] = []
    for index in range(int(num_games)):
        if index % 2 == 0:
            opening = start_actions + _random_opening(game, state, int(opening_plies), rng)
        a_first = index % 2 == 0
        first, second = (player_a, player_b) if a_first else (player_b, player_a)
        winner, actions = play_one(game, first, second, opening)
        record = GameRecord(index, game.format_moves(actions), a_first, winner, len(opening))
        result.games.append(record)
        if on_game is not None:
            on_game(record)
    return result


@dataclass
class LadderResult:
    """A round robin: every pair's match and the fitted ratings.

    Attributes:
        names: players (spec texts).
        matches: ``{(i, j): ArenaResult}`` for ``i < j`` (i is A).
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
