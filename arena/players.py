"""Baseline players, one interface, and the smallest match runner.

A player is anything with a ``name``, a seeded ``rng`` (``numpy.random.Generator``) and
``select_action(game, state) -> int`` that returns a legal action for the player to move in the
single-state tuple ``state`` (the seed's six-function representation, ``games.base``). Every random
choice a player makes comes from its ``rng``, so a match is reproducible.

Baselines (issue 2, part 5): ``RandomPlayer``, ``MinimaxPlayer`` (perfect, for tic-tac-toe-sized
games), ``AlphaBetaPlayer`` (depth and/or time limit) and ``UCTPlayer`` (UCT with random rollouts,
``mcts.uct``; plays the most visited root child, seed section 8).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np

from games.base import NO_WINNER, Game
from search.alphabeta import ALL_ORDERING, AlphaBeta, ExpandFn, MoveOrdering, SearchResult
from search.minimax import EvaluateFn, Minimax, NoisyActionsFn


@runtime_checkable
class Player(Protocol):
    """The player interface: ``select_action(game, state) -> action`` with a seeded ``rng``."""

    name: str
    rng: np.random.Generator

    def select_action(self, game: Game, state: tuple) -> int:
        """A legal action for the player to move in the non-terminal ``state``."""
        ...


def make_rng(rng: np.random.Generator | int) -> np.random.Generator:
    """A generator from a seed (int) or a generator (returned as is).

    Raises:
        ValueError: for anything else (``None`` included: every player is seeded).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        return np.random.default_rng(int(rng))
    raise ValueError(f"expected a numpy.random.Generator or an int seed, got {rng!r}")


def _legal_actions(game: Game, state: tuple) -> list[int]:
    actions = game.actions(state)
    if not actions:
        raise ValueError(f"{game.name}: expected a non-terminal state, got a finished one: {state}")
    return actions


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

    The evaluation defaults to ``search.alphabeta.default_evaluate_fn`` (Connect Four's heuristic);
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


class UCTPlayer:
    """UCT with random rollouts (``mcts.uct.uct_search``): plays the most visited root child.

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
        self.rng = make_rng(rng)
        self.name = name if name is not None else f"uct({num_simulations})"

    def select_action(self, game: Game, state: tuple) -> int:
        from mcts.uct import uct_search  # imported here: mcts is only needed by this player

        _legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64)
        action, _ = uct_search(game, row, self.num_simulations, self.rng, self.c)
        return int(action)


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


# ------------------------------------------------------------------------------------ matches
def play_game(game: Game, player_0: Player, player_1: Player) -> tuple[int, list[int]]:
    """Play one game from the start position; ``player_0`` moves first.

    Returns:
        ``(winner, actions)``: ``winner`` is 0 or 1 (the winning player's index) or
        ``NO_WINNER`` (-1) for a draw; ``actions`` lists the moves played, in order.

    Raises:
        ValueError: if a player returns an illegal action (naming the player and the action).
    """
    players = (player_0, player_1)
    state = game.initial_state()
    actions: list[int] = []
    while not game.terminal_test(state):
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
    winner = 0 if utility > 0 else 1 if utility < 0 else NO_WINNER
    return winner, actions


@dataclass
class Record:
    """Wins, draws and losses of one player over some games."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses


@dataclass
class MatchResult:
    """Outcome of ``play_match`` from player A's side.

    Attributes:
        player_a, player_b: the players' names.
        as_first: A's record in the games where A moved first.
        as_second: A's record in the games where A moved second.
    """

    player_a: str
    player_b: str
    as_first: Record
    as_second: Record

    @property
    def wins(self) -> int:
        return self.as_first.wins + self.as_second.wins

    @property
    def draws(self) -> int:
        return self.as_first.draws + self.as_second.draws

    @property
    def losses(self) -> int:
        return self.as_first.losses + self.as_second.losses

    @property
    def num_games(self) -> int:
        return self.as_first.games + self.as_second.games

    @property
    def score(self) -> float:
        """A's score per game in ``[0, 1]``: (wins + draws / 2) / games."""
        return (self.wins + 0.5 * self.draws) / self.num_games


def play_match(
    game: Game, player_a: Player, player_b: Player, num_games: int, seed: int | None = None
) -> MatchResult:
    """Play ``num_games`` games between A and B, colours alternated: A moves first in games 0, 2, ...

    Args:
        num_games: >= 1.
        seed: if given, both players' ``rng`` are replaced first by independent generators
            spawned from ``numpy.random.SeedSequence(seed)`` (A gets the first), so the match is
            reproducible whatever the players' earlier use; if None their generators are used as
            they are.

    Raises:
        ValueError: if ``num_games`` < 1, and as ``play_game``.
    """
    if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    if seed is not None:
        seed_a, seed_b = np.random.SeedSequence(seed).spawn(2)
        player_a.rng = np.random.default_rng(seed_a)
        player_b.rng = np.random.default_rng(seed_b)
    result = MatchResult(player_a.name, player_b.name, Record(), Record())
    for index in range(num_games):
        a_first = index % 2 == 0
        first, second = (player_a, player_b) if a_first else (player_b, player_a)
        winner, _ = play_game(game, first, second)
        record = result.as_first if a_first else result.as_second
        a_index = 0 if a_first else 1
        if winner == NO_WINNER:
            record.draws += 1
        elif winner == a_index:
            record.wins += 1
        else:
            record.losses += 1
    return result


# ----------------------------------------------------------------- perfect, network and human players
class SolverPlayer:
    """Perfect play: a move with the best exact game-theoretic score, ties broken by the ``rng``.

    * Connect Four: Pascal Pons' solver (``games.connect4.solver``; "Solving Connect 4", 2017).
      Scores follow Pons' convention (positive: the side to move wins, larger = sooner), so among
      winning moves it prefers the fastest win and among losing ones the slowest loss. Early
      positions cost seconds to minutes each unless the opening book covers them.
    * Tic-tac-toe (and any game of at most ``MinimaxPlayer.MAX_GAME_LENGTH`` plies): exhaustive
      minimax (``search.minimax``), values -1 / 0 / +1.

    Among the moves with the best score the choice is uniform with ``rng``.

    Raises (``select_action``):
        ValueError: if ``state`` is terminal or the game has no exact solver.
    """

    def __init__(self, rng: np.random.Generator | int = 0, name: str = "solver") -> None:
        self.rng = make_rng(rng)
        self.name = name

    #: exhaustive-search tables shared by all solver players, by game name (they never go stale)
    _minimax: ClassVar[dict[str, Minimax]] = {}

    def action_scores(self, game: Game, state: tuple) -> dict[int, int | float]:
        """Exact score of each legal action for the player to move: ``{action: score}``.

        Connect Four: Pons' scores (int, -18..18); short games: minimax values (-1.0, 0.0, 1.0).

        Raises:
            ValueError: if ``state`` is terminal or the game has no exact solver.
        """
        legal = _legal_actions(game, state)
        if game.name == "connect4":
            return connect4_action_scores(state, legal)
        if game.max_game_length <= MinimaxPlayer.MAX_GAME_LENGTH:
            search = self._minimax.get(game.name)
            if search is None:
                search = self._minimax[game.name] = Minimax(game)
            return search.action_values(state)
        raise ValueError(f"no exact solver for {game.name}; expected connect4 or a game of at most "
                         f"{MinimaxPlayer.MAX_GAME_LENGTH} plies")

    def select_action(self, game: Game, state: tuple) -> int:
        if game.name == "connect4":
            best = connect4_optimal_actions(state)
        else:
            scores = self.action_scores(game, state)
            best_score = max(scores.values())
            best = [a for a, s in scores.items() if s == best_score]
        if len(best) == 1:
            return int(best[0])
        return int(best[self.rng.integers(len(best))])


def connect4_action_scores(state: tuple, legal: list[int]) -> dict[int, int]:
    """Exact Pons scores of the ``legal`` columns (0-based) of a Connect Four state tuple.

    The game's state layout (``games.connect4.game``: ``(current, mask, ply, status)``, bit
    ``col * 7 + row``, ``current`` = the stones of the side to move) is the solver's, so each child
    position is built directly and all non-winning children are solved in one compiled call. An
    immediate win scores ``(42 + 1 - ply) // 2`` (Pons' solver, ``Position::nbMoves``).
    """
    from games.connect4 import solver as c4

    current, mask, ply = int(state[0]), int(state[1]), int(state[2])
    scores: dict[int, int] = {}
    children: list[tuple[int, object]] = []
    for column in legal:
        move = (mask + (1 << (column * c4.COLUMN_BITS))) & (((1 << c4.HEIGHT) - 1) << (column * c4.COLUMN_BITS))
        if c4.has_four(current | move):
            scores[column] = (c4.NUM_CELLS + 1 - ply) // 2
            continue
        # the child: the opponent to move, holding the stones that were not ours
        children.append((column, c4.Position(current ^ mask, mask | move, ply + 1)))
    if children:
        if ply + 1 == c4.NUM_CELLS:
            child_scores = [0] * len(children)  # the last cell, no four: a draw
        else:
            child_scores, _ = c4.default_solver().solve_parsed([p for _, p in children])
        for (column, _), child_score in zip(children, child_scores):
            scores[column] = -int(child_score)
    return dict(sorted(scores.items()))


def connect4_optimal_actions(state: tuple) -> list[int]:
    """The 0-based columns with the best exact score in a Connect Four state tuple.

    Same answer as the maximum of :func:`connect4_action_scores`, for less search: the position is
    solved once and each column checked with a null-window search
    (``games.connect4.solver.Solver.optimal_moves_parsed``).

    Raises:
        ValueError: if the board is full.
    """
    from games.connect4 import solver as c4

    position = c4.Position(int(state[0]), int(state[1]), int(state[2]))
    _, optimal = c4.default_solver().optimal_moves_parsed(position)
    return [int(c) for c in np.flatnonzero(optimal)]


class MCTSPlayer:
    """A network guiding PUCT search (``mcts.run_puct``): plays the most visited root child.

    No root noise and greedy move choice (CASES D2; seed section 8): ties between equally visited
    children go to the lowest action index, so ``rng`` is only passed to the search.

    Args:
        evaluate_fn: batched evaluator, ``(observations [B, C, H, W] float32, legal_mask [B, A]
            bool) -> (priors [B, A], values [B])``, values for the player to move.
        num_simulations: simulations per move, >= 1.
        c_puct: PUCT exploration constant, >= 0.

    Raises:
        ValueError: if ``num_simulations`` < 1 or ``c_puct`` < 0 (from ``mcts.PUCTConfig``).
    """

    def __init__(
        self,
        evaluate_fn,
        num_simulations: int = 200,
        c_puct: float = 1.25,
        rng: np.random.Generator | int = 0,
        name: str | None = None,
    ) -> None:
        from mcts import PUCTConfig

        self.config = PUCTConfig(num_simulations=num_simulations, c_puct=c_puct)
        self.evaluate_fn = evaluate_fn
        self.rng = make_rng(rng)
        self.name = name if name is not None else f"mcts({num_simulations})"

    def analyze(self, game: Game, state: tuple) -> Analysis:
        """Network priors and value plus the search's visit counts and Q values for ``state``."""
        from mcts import run_puct

        _legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64).reshape(1, -1)
        priors, value = _evaluate_one(game, self.evaluate_fn, row)
        output = run_puct(game, row, self.evaluate_fn, self.config, self.rng, add_root_noise=False)
        visits = output.visit_counts[0].astype(np.int64)
        best = int(np.argmax(visits))
        return Analysis(
            to_move=game.player(state),
            priors=priors,
            network_value=value,
            visit_counts=visits,
            q_values=output.q_values[0].astype(np.float64),
            value=float(output.q_values[0, best]),
            best_action=best,
        )

    def select_action(self, game: Game, state: tuple) -> int:
        return self.analyze(game, state).best_action


class PolicyPlayer:
    """The network alone: the legal action with the largest masked prior (lowest index on ties).

    ``rng`` is unused (the choice is deterministic) but kept for the player interface.
    """

    def __init__(self, evaluate_fn, rng: np.random.Generator | int = 0, name: str = "policy") -> None:
        self.evaluate_fn = evaluate_fn
        self.rng = make_rng(rng)
        self.name = name

    def analyze(self, game: Game, state: tuple) -> Analysis:
        """Network priors and value; no search (visit counts are zero)."""
        _legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64).reshape(1, -1)
        priors, value = _evaluate_one(game, self.evaluate_fn, row)
        legal = game.legal_mask(row)[0]
        best = int(np.argmax(np.where(legal, priors, -1.0)))
        return Analysis(
            to_move=game.player(state),
            priors=priors,
            network_value=value,
            visit_counts=np.zeros(game.num_actions, dtype=np.int64),
            q_values=np.full(game.num_actions, np.nan),
            value=value,
            best_action=best,
        )

    def select_action(self, game: Game, state: tuple) -> int:
        return self.analyze(game, state).best_action


@dataclass
class Analysis:
    """A model's view of one position.

    Attributes:
        to_move: the player to move (0 = first player, X).
        priors: ``[A]`` float, masked network policy (0 on illegal actions, sums to 1).
        network_value: the network's value in ``[-1, 1]`` for the player to move.
        visit_counts: ``[A]`` int64 root visit counts (all 0 without search).
        q_values: ``[A]`` float, Q(root, a) for the player to move; NaN where unvisited.
        value: the search's value for the player to move: Q of ``best_action`` (the network value
            without search).
        best_action: the move the model plays (0-based).
    """

    to_move: int
    priors: np.ndarray
    network_value: float
    visit_counts: np.ndarray
    q_values: np.ndarray
    value: float
    best_action: int

    def value_for(self, player: int) -> float:
        """``value`` from the view of ``player`` (0 or 1): negated when ``player`` is not to move."""
        return self.value if player == self.to_move else -self.value


def _evaluate_one(game: Game, evaluate_fn, row: np.ndarray) -> tuple[np.ndarray, float]:
    legal = game.legal_mask(row)
    priors, values = evaluate_fn(game.observation(row), legal)
    priors = np.where(legal[0], np.asarray(priors, dtype=np.float64)[0], 0.0)
    total = priors.sum()
    priors = priors / total if total > 0 else legal[0] / legal[0].sum()
    return priors, float(np.clip(np.asarray(values, dtype=np.float64)[0], -1.0, 1.0))


class HumanQuit(Exception):
    """Raised by ``HumanPlayer`` when the human types ``quit`` or the input ends."""


class HumanPlayer:
    """Reads moves from a text stream in the game's move notation (1-based), re-prompting on bad input.

    Args:
        input_stream, output_stream: text streams (default ``sys.stdin`` / ``sys.stdout``).

    Raises (``select_action``):
        HumanQuit: on ``quit`` or end of input.
    """

    def __init__(self, rng: np.random.Generator | int = 0, name: str = "human", input_stream=None, output_stream=None):
        import sys

        self.rng = make_rng(rng)
        self.name = name
        self.input_stream = input_stream if input_stream is not None else sys.stdin
        self.output_stream = output_stream if output_stream is not None else sys.stdout

    def select_action(self, game: Game, state: tuple) -> int:
        legal = _legal_actions(game, state)
        legal_text = " ".join(game.action_to_string(a) for a in legal)
        out = self.output_stream
        out.write(game.render(state) + "\n")
        while True:
            out.write(f"your move ({legal_text}, quit): ")
            out.flush()
            line = self.input_stream.readline()
            if not line:
                raise HumanQuit("input ended")
            text = line.strip()
            if text == "quit":
                raise HumanQuit("quit")
            action = parse_move_token(game, state, text)
            if action is not None:
                return action
            out.write(f"illegal or malformed move {text!r}; legal moves: {legal_text}\n")


def parse_move_token(game: Game, state: tuple, text: str) -> int | None:
    """The 0-based action one move token (``"4"``, 1-based) stands for, or None if it is not legal."""
    text = text.strip()
    if not text or len(text) > 3 or not text.isdigit() or not text.isascii():
        return None
    action = int(text) - 1
    return action if action in game.actions(state) else None
