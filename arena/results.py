"""The one result type of every arena match: W/D/L by colour, distinct games, the game records.

Every driver (``arena.match`` for players one position at a time, ``arena.network_match`` for
network against network in one batch) returns a ``MatchResult``; the ``arena`` command, the
ladder and gating read it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from arena.elo import MatchStatistics, match_statistics
from games.base import NO_WINNER

#: result of a game from the first player's view (PGN notation)
RESULT_TEXT = {0: "1-0", 1: "0-1", NO_WINNER: "1/2-1/2"}


@dataclass
class Record:
    """Wins, draws and losses of one player over some games."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass(frozen=True)
class GameRecord:
    """One arena game.

    Attributes:
        index: game number from 0.
        moves: the move string (the game's notation), opening included.
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
class MatchResult:
    """A match from player A's side: named counts, per-colour records and the game log.

    Attributes:
        player_a, player_b: names (spec texts).
        game: game id.
        games: the ``GameRecord`` log, in game-index order.
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
    def score(self) -> float:
        """A's score per game in ``[0, 1]``: (wins + draws / 2) / games; 0.0 for no game."""
        return (self.wins + 0.5 * self.draws) / self.num_games if self.games else 0.0

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
