"""Baseline players (random, minimax, alpha-beta, UCT) and the home of every player's name.

A player is anything with a ``name``, a seeded ``rng`` (``numpy.random.Generator``) and
``select_action(game, state) -> int`` (``arena.player_base.Player``). Baselines here:
``RandomPlayer``, ``MinimaxPlayer`` (perfect, for tic-tac-toe-sized games), ``AlphaBetaPlayer``
(depth and/or time limit) and ``UCTPlayer`` (UCT with random rollouts, ``mcts.uct``; plays the most
visited root child, the robust child of Browne et al. 2012, sec. 3.3.3). The other players live in
their own modules and are importable from here too: ``SolverPlayer`` (``arena.solver_player``),
``MCTSPlayer``/``PolicyPlayer``/``Analysis`` (``arena.network_players``), ``HumanPlayer``
(``arena.human``); so are ``play_game``, ``play_match``, ``MatchResult`` and ``Record`` of the match
driver (``arena.match``).
"""

from __future__ import annotations

import numpy as np

from arena.human import HumanPlayer, HumanQuit, parse_move_token
from arena.match import MatchResult, Record, play_game, play_match
from arena.network_players import Analysis, MCTSPlayer, PolicyPlayer
from arena.player_base import Player, legal_actions, make_rng
from arena.solver_player import SolverPlayer, exact_solver_of
from games.base import Game
from mcts import UCTConfig, run_search
from search.alphabeta import ALL_ORDERING, AlphaBeta, ExpandFn, MoveOrdering, SearchResult
from search.expectimax import ALGORITHMS, ChanceSearch
from search.minimax import EvaluateFn, Minimax, NoisyActionsFn

_legal_actions = legal_actions


class RandomPlayer:
    """Plays a uniformly random legal action.

    Raises (``select_action``):
        ValueError: if ``state`` is terminal.
    """

    def __init__(self, rng: np.random.Generator | int = 0, name: str = "random") -> None:
        self.rng = make_rng(rng)
        self.name = name

    def select_action(self, game: Game, state: tuple) -> int:
        actions = _legal_actions(game, state)
        return int(actions[self.rng.integers(len(actions))])


class MinimaxPlayer:
    """Perfect play by exhaustive minimax with a transposition table (``search.minimax``).

    Only practical for tic-tac-toe-sized games (the tic-tac-toe table holds 5,478 positions and is
    kept across moves and games). Among the actions with the best game-theoretic value, the choice
    is uniform with the player's ``rng`` (``tie_break="random"``, the default) or the lowest action
    index (``tie_break="lowest"``). It never moves from a won position to a drawn or lost one, nor
    from a drawn one to a lost one; it does not prefer faster wins.

    Raises:
        ValueError: for an unknown ``tie_break``; from ``select_action``, if ``state`` is terminal
            or the game is too long to solve (``game.max_game_length`` > ``MAX_GAME_LENGTH``
            plies: Connect Four's tree is far beyond exhaustive search; use ``AlphaBetaPlayer``).
    """

    TIE_BREAKS = ("random", "lowest")
    #: longest game (plies) this player agrees to solve exhaustively
    MAX_GAME_LENGTH = 16

    def __init__(
        self, rng: np.random.Generator | int = 0, tie_break: str = "random", name: str = "minimax"
    ) -> None:
        if tie_break not in self.TIE_BREAKS:
            raise ValueError(f"expected tie_break in {self.TIE_BREAKS}, got {tie_break!r}")
        self.rng = make_rng(rng)
        self.tie_break = tie_break
        self.name = name
        self._searches: dict[str, Minimax] = {}

    def select_action(self, game: Game, state: tuple) -> int:
        if game.max_game_length > self.MAX_GAME_LENGTH:
            raise ValueError(
                f"minimax solves games of at most {self.MAX_GAME_LENGTH} plies exhaustively; "
                f"{game.name} lasts up to {game.max_game_length}: use alphabeta"
            )
        _legal_actions(game, state)
        search = self._searches.get(game.name)
        if search is None:
            search = self._searches[game.name] = Minimax(game)
        best = search.best_actions(state)
        if self.tie_break == "lowest" or len(best) == 1:
            return best[0]
        return int(best[self.rng.integers(len(best))])


class AlphaBetaPlayer:
    """Alpha-beta search (``search.alphabeta``) to a fixed depth, under a time limit, or both.

    * ``depth`` only: one fixed-depth search of ``depth`` plies per move;
    * ``time_limit`` only: iterative deepening for ``time_limit`` seconds per move (depth 1 always
      completes, so the move is never missing);
    * both: iterative deepening stopped at ``depth`` plies or ``time_limit`` seconds.

    The evaluation defaults to ``search.alphabeta.default_evaluate_fn`` (the game's heuristic);
    ``evaluate_fn`` and ``expand_fn`` plug a network in (``arena.hybrid_player``).
    Ties between equally scored root actions go to the lowest action index, so the player is
    deterministic and ``rng`` is not used. ``last_result`` holds the last ``SearchResult``.

    Raises:
        ValueError: if neither limit is given, ``depth`` < 1 or ``time_limit`` < 0; from
            ``select_action``, if ``state`` is terminal.
    """

    def __init__(
        self,
        depth: int | None = None,
        time_limit: float | None = None,
        rng: np.random.Generator | int = 0,
        evaluate_fn: EvaluateFn | None = None,
        ordering: MoveOrdering = ALL_ORDERING,
        noisy_actions_fn: NoisyActionsFn | None = None,
        name: str | None = None,
        expand_fn: ExpandFn | None = None,
    ) -> None:
        if depth is None and time_limit is None:
            raise ValueError("expected a depth (plies) or a time_limit (seconds), got neither")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth must be an integer >= 1 ply, got {depth!r}")
        if time_limit is not None and not time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit}")
        self.depth = depth
        self.time_limit = time_limit
        self.rng = make_rng(rng)
        self._options = {
            "evaluate_fn": evaluate_fn,
            "ordering": ordering,
            "noisy_actions_fn": noisy_actions_fn,
            "expand_fn": expand_fn,
        }
        if name is None:
            limits = ([f"depth={depth}"] if depth is not None else []) + (
                [f"time={time_limit:g}s"] if time_limit is not None else []
            )
            name = f"alphabeta({','.join(limits)})"
        self.name = name
        self.last_result: SearchResult | None = None
        self._searches: dict[str, AlphaBeta] = {}

    def select_action(self, game: Game, state: tuple) -> int:
        _legal_actions(game, state)
        search = self._searches.get(game.name)
        if search is None:
            search = self._searches[game.name] = AlphaBeta(game, **self._options)
        if self.time_limit is None:
            self.last_result = search.search(state, self.depth)
        else:
            self.last_result = search.iterative_deepening(state, self.time_limit, self.depth)
        return self.last_result.action


class ExpectimaxPlayer:
    """Expectiminimax, star1 or star2 (``search.expectimax``) to a depth, under a time limit, or both.

    The evaluation at the horizon is the game's ``Knowledge.heuristic_fn`` (bounded by ``heuristic_bound``;
    0 without one). ``depth`` counts decisions; chance nodes are expanded fully. Ties go to the
    lowest action index, so the player is deterministic and ``rng`` is unused. ``last_result``
    holds the last ``search.expectimax.ChanceSearchResult``.

    Raises:
        ValueError: if neither limit is given, ``depth`` < 1, ``time_limit`` < 0 or the algorithm
            is unknown; from ``select_action``, if ``state`` is finished or a chance state.
    """

    def __init__(
        self,
        algorithm: str = "star2",
        depth: int | None = None,
        time_limit: float | None = None,
        rng: np.random.Generator | int = 0,
        name: str | None = None,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {list(ALGORITHMS)}")
        if depth is None and time_limit is None:
            raise ValueError("expected a depth (decisions) or a time_limit (seconds), got neither")
        if depth is not None and (isinstance(depth, bool) or not isinstance(depth, int) or depth < 1):
            raise ValueError(f"depth must be an integer >= 1 decision, got {depth!r}")
        if time_limit is not None and not time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit}")
        self.algorithm = algorithm
        self.depth = depth
        self.time_limit = time_limit
        self.rng = make_rng(rng)
        self.name = name if name is not None else f"{algorithm}(depth={depth})"
        self.last_result = None
        self._searches: dict[str, object] = {}

    def select_action(self, game: Game, state: tuple) -> int:
        _legal_actions(game, state)
        search = self._searches.get(game.name)
        if search is None or search.game is not game:
            search = self._searches[game.name] = ChanceSearch(game, self.algorithm)
        if self.time_limit is None:
            self.last_result = search.search(state, self.depth)
        else:
            self.last_result = search.iterative_deepening(state, self.time_limit, self.depth)
        return self.last_result.action


class UCTPlayer:
    """UCT with random rollouts (the ``uct`` search of ``mcts.run_search``, one compiled call per
    move in a game with compiled rules): plays the most visited root child, lowest index on ties.

    Args:
        num_simulations: simulations per move, >= 1.
        c: UCB1 exploration constant on results scaled to ``[0, 1]``, >= 0 (about sqrt(2)).

    Raises:
        ValueError: if ``num_simulations`` < 1 or ``c`` < 0; from ``select_action``, if ``state``
            is terminal.
    """

    def __init__(
        self,
        num_simulations: int = 1000,
        c: float = 1.4,
        rng: np.random.Generator | int = 0,
        name: str | None = None,
    ) -> None:
        if isinstance(num_simulations, bool) or not isinstance(num_simulations, int) or num_simulations < 1:
            raise ValueError(f"num_simulations must be an integer >= 1, got {num_simulations!r}")
        if not c >= 0:
            raise ValueError(f"c must be >= 0, got {c}")
        self.num_simulations = num_simulations
        self.c = c
        self.settings = UCTConfig(num_simulations=num_simulations, c=float(c))
        self.rng = make_rng(rng)
        self.name = name if name is not None else f"uct({num_simulations})"

    def select_action(self, game: Game, state: tuple) -> int:
        _legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64)[None, :]
        return int(run_search(game, row, None, self.settings, self.rng).actions[0])


#: player kinds by their arena name
PLAYER_KINDS = {
    "random": RandomPlayer,
    "minimax": MinimaxPlayer,
    "alphabeta": AlphaBetaPlayer,
    "uct": UCTPlayer,
}


def make_player(kind: str, **options) -> Player:
    """A baseline player by kind (``"random"``, ``"minimax"``, ``"alphabeta"``, ``"uct"``).

    Raises:
        ValueError: for an unknown kind (the message lists the known ones), and as the player.
    """
    if kind not in PLAYER_KINDS:
        raise ValueError(f"unknown player {kind!r}; expected one of {sorted(PLAYER_KINDS)}")
    return PLAYER_KINDS[kind](**options)


__all__ = [
    "PLAYER_KINDS",
    "AlphaBetaPlayer",
    "Analysis",
    "HumanPlayer",
    "HumanQuit",
    "MCTSPlayer",
    "MatchResult",
    "MinimaxPlayer",
    "Player",
    "PolicyPlayer",
    "RandomPlayer",
    "Record",
    "SolverPlayer",
    "UCTPlayer",
    "exact_solver_of",
    "legal_actions",
    "make_player",
    "make_rng",
    "parse_move_token",
    "play_game",
    "play_match",
]
