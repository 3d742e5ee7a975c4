"""Games served by ``play --web``: one ``GameSession`` per browser tab, kept in a ``SessionStore``.

This module knows nothing of HTTP: every method either changes the game and returns, or raises
``RequestError`` with the HTTP status the API answers with, before touching the game, so a refused
request leaves the game exactly as it was. ``frontends.web.app`` turns these into routes.

Games: one ``ModelService`` per game the server offers, with its model when it has one, gathered
in a ``Catalogue``; a session plays one game at a time and may switch to another with a new game.

Seats: each of the two players (0 = X, who moves first; 1 = O) is ``"human"`` (moves come from
the page), ``"model"`` (the game's network with PUCT search, ``arena.model_player.make_model_player``;
only in a game with a model) or ``"opponent"`` (the session's opponent: one of the game's
``frontends.web.opponents.OpponentChoice`` specs, alpha-beta at a depth, UCT, perfect play, or the
server's ``--opponent`` spec). Values are in ``[-1, 1]``;
the page's evaluation is from the view of ``GameSession.view_side``: the human's seat when exactly
one seat is human, else X.

Dice: in a game with chance (Pig) nobody is asked to roll. Whenever a chance state is reached
(after a decision, or at the end of a start position) the session draws its outcome with its own
seeded generator (``GameSession.dice``) and records it among the moves, so a session's move list
holds events in play order, as ``Game.parse_moves`` reads them (``frontends.game_text.state_after``
replays them).

Searches run one at a time in the whole process (``ModelService.search_lock``): the model and some
opponents (the Connect Four solver's tables, alpha-beta's transposition table) are not safe to run
from two threads at once, and the machine's cores are better spent on one search than split.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from arena.model_player import make_model_player
from arena.players import Analysis
from arena.specs import build_player
from frontends.game_text import (
    PLAYER_SYMBOLS,
    event_players,
    parse_position,
    result_text,
    state_after,
    verdict,
)
from frontends.web.opponents import OpponentChoice, check_opponent, opponent_choices
from games.base import Game

HUMAN, MODEL, OPPONENT = "human", "model", "opponent"
SEAT_KINDS = (HUMAN, MODEL, OPPONENT)
#: longest move text a move request may carry (characters)
MAX_MOVE_TEXT = 16
#: most sessions one client address may hold at once (``SessionStore``)
MAX_SESSIONS_PER_CLIENT = 32


class RequestError(ValueError):
    """A request the game cannot take. ``status``: the HTTP status to answer with (4xx)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class ModelService:
    """What every session of one game shares: the game, its model, its opponents and the search limits.

    Attributes:
        game: the game.
        evaluate_fn: the model's batched evaluator ``(observations [B, C, H, W] float32,
            legal_mask [B, A] bool) -> (priors [B, A], values [B])``, values for the player to
            move; None for a game served without a model (its seats are human and opponent).
        model_name: how the page names the model (e.g. the model folder).
        default_simulations: PUCT simulations per model move unless a request says otherwise
            (0: the network's policy alone).
        max_simulations: the most simulations a request may ask for.
        opponent_factory: ``seed -> player`` building the ``--opponent`` player for one session,
            or None when the server has none.
        opponent_name: the ``--opponent`` spec text ("" without one); it comes first among
            ``opponents`` and is the default opponent.
        opponents: the opponents a session may pick (default: ``frontends.web.opponents.opponent_choices``).
        seed: base seed; session ``k`` draws from ``SeedSequence(seed)``'s ``k``-th child.
        default_seats: seats of a new game when the request names none (without a model, a
            ``"model"`` seat of the default becomes ``"opponent"``).
        default_moves: the move string a new game starts from when the request names none.
        show_analysis: whether the page shows the model's search by default.
        search, search_settings: the model's search (``arena.model_player.played_search``: the
            one its ``model.json`` records to play with, else PUCT with the library's defaults).

    Raises:
        ValueError: if the simulation limits are negative or the default exceeds the maximum.
    """

    game: Game
    evaluate_fn: Callable | None
    model_name: str = "model"
    default_simulations: int = 200
    max_simulations: int = 3200
    opponent_factory: Callable[[int], object] | None = None
    opponent_name: str = ""
    seed: int = 0
    default_seats: tuple[str, str] = (HUMAN, MODEL)
    default_moves: str = ""
    show_analysis: bool = True
    search: str = "puct"
    search_settings: dict = field(default_factory=dict)
    opponents: tuple[OpponentChoice, ...] | None = None
    search_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: set when the server stops: a running model search ends at its next network call
    stopping: threading.Event = field(default_factory=threading.Event, repr=False)
    _seed_lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _next_child: int = field(default=0, init=False, repr=False)

    def __post_init__(self) -> None:
        if not 0 <= self.default_simulations <= self.max_simulations:
            raise ValueError(
                f"expected 0 <= default simulations <= {self.max_simulations}, got {self.default_simulations}"
            )
        if self.opponents is None:
            self.opponents = opponent_choices(self.game, self.opponent_name if self.opponent_factory else "")
        if self.evaluate_fn is None:
            self.default_seats = tuple(OPPONENT if seat == MODEL else seat for seat in self.default_seats)

    @property
    def has_model(self) -> bool:
        return self.evaluate_fn is not None

    @property
    def default_opponent(self) -> str:
        """The opponent of a session that names none: the ``--opponent`` spec, else the first offered."""
        return self.opponents[0].spec()

    def check_opponent(self, text: object) -> str:
        """The spec text of the opponent ``text`` names (``frontends.web.opponents.check_opponent``).

        Raises:
            RequestError: 400 for an opponent this game does not offer (the message lists them).
        """
        try:
            return check_opponent(self.opponents, self.game.name, text)
        except ValueError as error:
            raise RequestError(400, str(error)) from None

    def build_opponent(self, spec: str, seed: int):
        """The player of the opponent ``spec`` (checked by ``check_opponent``) seeded with ``seed``."""
        if self.opponent_factory is not None and spec == self.opponent_name:
            return self.opponent_factory(seed)
        return build_player(spec, self.game, seed=seed)

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray):
        """``evaluate_fn``, refused once ``stopping`` is set (so Ctrl-C need not wait for a search).

        Raises:
            RequestError: 409 for a game without a model; 503 when the server is stopping.
        """
        if self.evaluate_fn is None:
            raise RequestError(409, f"no model plays {self.game.name} here: hints and the model seat need one")
        if self.stopping.is_set():
            raise RequestError(503, "the server is stopping")
        return self.evaluate_fn(observations, legal_mask)

    def session_seed(self) -> np.random.SeedSequence:
        """A fresh child of ``SeedSequence(seed)`` for the next session (thread-safe)."""
        with self._seed_lock:
            index = self._next_child
            self._next_child += 1
        return np.random.SeedSequence(self.seed, spawn_key=(index,))

    def open_session(
        self, session_id: str, seats: list[str] | None = None, moves: str | None = None, client: str = "",
        opponent: str | None = None,
    ) -> GameSession:
        """A new session of this game (``GameSession``; a poker game's service opens its own kind).

        Raises:
            RequestError: as ``new_game_request``.
        """
        return GameSession(session_id, self, seats, moves, client=client, opponent=opponent)

    def continues(self, session) -> bool:
        """True if ``session`` can play this game by a new game of its own (same kind of session)."""
        return type(session) is GameSession

    @property
    def seat_kinds(self) -> tuple[str, ...]:
        """The seat kinds a game may use here (``"model"`` only with a model)."""
        return SEAT_KINDS if self.has_model else (HUMAN, OPPONENT)

    def info(self) -> dict:
        """What the page needs to play this game (JSON-ready)."""
        game = self.game
        return {
            "game": game.name,
            "model": self.model_name if self.has_model else None,
            "opponent": self.opponent_name or None,
            "opponents": [choice.to_json() for choice in self.opponents],
            "default_opponent": self.default_opponent,
            "chance": bool(game.num_chance_outcomes),
            "seat_kinds": list(self.seat_kinds),
            "default_seats": list(self.default_seats),
            "default_moves": self.default_moves,
            "simulations": self.default_simulations,
            "max_simulations": self.max_simulations,
            "show_analysis": self.show_analysis,
            "symbols": list(PLAYER_SYMBOLS),
            "moves": [game.action_to_string(a) for a in range(game.num_actions)],
        }


@dataclass
class Search:
    """The last search shown on the board: the model's before its move, or a hint.

    ``ply`` is the number of moves played before the searched position.
    """

    source: str
    ply: int
    simulations: int
    analysis: Analysis


class GameSession:
    """One game of one browser tab. Not thread-safe: ``SessionStore.locked`` serialises requests.

    Raises:
        RequestError: from every public method, before any change, for a request it cannot take.
    """

    def __init__(
        self, session_id: str, service: ModelService, seats: list[str] | None = None, moves: str | None = None,
        client: str = "", opponent: str | None = None,
    ) -> None:
        start = new_game_request(service, seats, moves, opponent)  # refused before a seed or an opponent is spent
        self.id = session_id
        self.client = client
        self.service = service
        self.game = service.game
        seed_sequence = service.session_seed()
        model_seed, opponent_seed, dice_seed = seed_sequence.spawn(3)
        self.rng = np.random.default_rng(model_seed)
        #: the session's dice: every chance outcome of its games is drawn from this generator
        self.dice = np.random.default_rng(dice_seed)
        self.opponent_seed = int(opponent_seed.generate_state(1)[0])
        #: the opponent seat's player and its spec text (rebuilt when the game or the spec changes)
        self.opponent = None
        self.opponent_name = ""
        self._opponent_game: Game | None = None
        self.seats: tuple[str, str] = service.default_seats
        #: events from the start: decisions, and in a game with chance the outcomes rolled
        self.moves: list[int] = []
        self.start_length = 0
        self.search: Search | None = None
        self._start(*start)

    # ------------------------------------------------------------------------------ queries
    def state(self) -> tuple:
        """The position after every event (chance outcomes replayed as outcomes)."""
        return state_after(self.game, self.moves)

    @property
    def view_side(self) -> int:
        """The side the evaluation is given for: the only human seat, else X (0)."""
        humans = [side for side, seat in enumerate(self.seats) if seat == HUMAN]
        return humans[0] if len(humans) == 1 else 0

    def seat_name(self, side: int) -> str:
        seat = self.seats[side]
        if seat == HUMAN:
            return "you" if self.seats.count(HUMAN) == 1 else "human"
        if seat == MODEL:
            return "model"
        return self.opponent_name

    # ----------------------------------------------------------------------------- requests
    def new_game(
        self, seats: list[str] | None, moves: str | None, opponent: str | None = None,
        service: ModelService | None = None,
    ) -> None:
        """Start again from ``moves`` (a move string; default: the service's) with ``seats``, the
        opponent ``opponent`` (default: the current one, or the new game's default after a change
        of game) and the game of ``service`` (default: the current game).

        A start position that ends with a roll (Pig: ``r``) is rolled at once with the session's
        dice.

        Raises:
            RequestError: as ``new_game_request``.
        """
        service = self.service if service is None else service
        if opponent is None and service is self.service and self.opponent_name:
            opponent = self.opponent_name
        start = new_game_request(service, seats, moves, opponent)
        self.service = service
        self.game = service.game
        self._start(*start)

    def _start(self, seats: tuple[str, str], events: list[int], opponent: str) -> None:
        if opponent != self.opponent_name or self.opponent is None or self._opponent_game is not self.game:
            self.opponent = self.service.build_opponent(opponent, self.opponent_seed)
            self.opponent_name = opponent
            self._opponent_game = self.game
        self.seats = seats
        self.moves = events
        self.start_length = len(events)
        self.search = None
        self._roll()

    def _roll(self) -> None:
        """Play every chance state now reached with the session's dice (``Game.sample_chance``):
        a player is never asked to move in one, and the page shows the outcome (``last_roll``)."""
        game = self.game
        state = self.state()
        while game.is_chance_state(state):
            outcome = int(game.sample_chance(np.asarray([state], dtype=np.int64), self.dice)[0])
            self.moves.append(outcome)
            state = game.chance_result(state, outcome)

    def move(self, text: str) -> None:
        """Play the human's move ``text`` (the game's notation, e.g. ``"4"``).

        Raises:
            RequestError: 409 if the game is over or the side to move is not a human seat; 400 for
                a malformed move or one that is not legal here (the message lists the legal ones).
        """
        state = self._live_state()
        to_move = self.game.player(state)
        if self.seats[to_move] != HUMAN:
            raise RequestError(409, f"it is the {self.seat_name(to_move)}'s turn ({PLAYER_SYMBOLS[to_move]})")
        legal = {self.game.action_to_string(a): a for a in self.game.actions(state)}
        text = text.strip()
        if text not in legal:
            every = {self.game.action_to_string(a) for a in range(self.game.num_actions)}
            kind = "illegal" if text in every else "malformed"
            raise RequestError(400, f"{kind} move {text[:MAX_MOVE_TEXT]!r}; legal moves: {' '.join(legal)}")
        self.moves.append(legal[text])
        self._roll()

    def advance(self, simulations: int | None) -> None:
        """Let the model or the opponent, whichever is to move, play one move.

        Raises:
            RequestError: 409 if the game is over or a human is to move; 400 for a simulation count
                outside ``0..max_simulations``.
        """
        simulations = self._simulations(simulations)
        state = self._live_state()
        to_move = self.game.player(state)
        seat = self.seats[to_move]
        if seat == HUMAN:
            raise RequestError(409, f"it is your turn ({PLAYER_SYMBOLS[to_move]}): send a move")
        with self.service.search_lock:
            if seat == MODEL:
                analysis = self._analyze(state, simulations)
                action = analysis.best_action
                self.search = Search(MODEL, len(self.moves), simulations, analysis)
            else:
                action = int(self.opponent.select_action(self.game, state))
        if action not in self.game.actions(state):
            raise RuntimeError(f"{self.seat_name(to_move)} chose the illegal action {action}")
        self.moves.append(action)
        self._roll()

    def hint(self, simulations: int | None) -> None:
        """Search the current position with the model; the page shows it and its move.

        Raises:
            RequestError: 409 if the game is over or has no model; 400 for a bad simulation count.
        """
        simulations = self._simulations(simulations)
        state = self._live_state()
        if not self.service.has_model:
            raise RequestError(409, f"no model plays {self.game.name} here: a hint needs one")
        with self.service.search_lock:
            analysis = self._analyze(state, simulations)
        self.search = Search("hint", len(self.moves), simulations, analysis)

    def undo(self) -> None:
        """Take back the last human move and the replies after it (with no human seat: one move).

        Moves of the starting position are never taken back. A roll is taken back with the
        decision before it (undo stops only before a decision, so it never re-rolls the dice).

        Raises:
            RequestError: 409 when there is nothing to take back.
        """
        cut = self._undo_cut()
        del self.moves[cut:]
        if self.search is not None and self.search.ply > cut:  # its position is gone
            self.search = None

    def _undo_cut(self) -> int:
        """How many moves stay after ``undo``; raises ``RequestError`` (409) as ``undo``."""
        players = event_players(self.game, self.moves)
        decisions = [ply for ply in range(self.start_length, len(self.moves)) if players[ply] != -1]
        if HUMAN not in self.seats:
            if not decisions:
                raise RequestError(409, "nothing to undo: no move since the start")
            return decisions[-1]
        human = [ply for ply in decisions if self.seats[players[ply]] == HUMAN]
        if not human:
            raise RequestError(409, "nothing to undo: no move of yours since the start")
        return human[-1]

    # ------------------------------------------------------------------------------ helpers
    def _live_state(self) -> tuple:
        state = self.state()
        if self.game.terminal_test(state):
            raise RequestError(409, f"the game is over ({result_text(self.game, state)}); start a new game")
        return state

    def _simulations(self, simulations: int | None) -> int:
        if simulations is None:
            return self.service.default_simulations
        limit = self.service.max_simulations
        if isinstance(simulations, bool) or not isinstance(simulations, int) or not 0 <= simulations <= limit:
            raise RequestError(400, f"sims: expected an integer in 0..{limit}, got {simulations!r}"[:200])
        return simulations

    def _analyze(self, state: tuple, simulations: int) -> Analysis:
        player = make_model_player(self.service.evaluate, simulations, 0, search=self.service.search,
                                   search_settings=self.service.search_settings)
        player.rng = self.rng
        return player.analyze(self.game, state)

    # ------------------------------------------------------------------------------ output
    def to_json(self) -> dict:
        """The game as the page draws it (JSON-ready; the format is in docs/web.md)."""
        game = self.game
        state = self.state()
        to_move = game.player(state)
        over = game.terminal_test(state)
        legal = set(game.actions(state))
        view = game.board_view(state)
        players = event_players(game, self.moves)
        move_strings = [
            game.chance_outcome_to_string(event) if player == -1 else game.action_to_string(event)
            for event, player in zip(self.moves, players)
        ]
        last_roll = None
        decisions = [ply for ply, player in enumerate(players) if player != -1]
        rolls = [ply for ply, player in enumerate(players) if player == -1]
        if rolls:
            ply = rolls[-1]
            rolled_by = game.player(state_after(game, self.moves[:ply]))  # a chance state's player rolled
            last_roll = {"ply": ply, "outcome": move_strings[ply], "player": rolled_by}
        board = None
        if view is not None:
            board = {
                "rows": view.rows,
                "columns": view.columns,
                "cells": list(view.cells),
                "move_kind": view.move_kind,
                "winning_cells": list(view.winning_cells),
                "stone_shape": view.stone_shape,
            }
        controls = [
            {
                "move": game.action_to_string(a),
                "legal": a in legal,
                "target": None if view is None else view.action_targets[a],
            }
            for a in range(game.num_actions)
        ]
        return {
            "session": self.id,
            "game": game.name,
            "moves": game.format_moves(self.moves),
            "move_list": move_strings,
            "last_move": move_strings[-1] if move_strings else None,
            "last_target": None if view is None or not decisions else view.action_targets[self.moves[decisions[-1]]],
            "last_roll": last_roll,
            "ply": len(self.moves),
            "start_ply": self.start_length,
            "to_move": None if over else to_move,
            "seats": list(self.seats),
            "opponent": self.opponent_name,
            "seat_names": [self.seat_name(0), self.seat_name(1)],
            "turn": None if over else self.seats[to_move],
            "view_side": self.view_side,
            "board": board,
            "text": game.render(state),
            "controls": controls,
            "can_undo": self._can_undo(),
            "result": self._result_json(state) if over else None,
            "search": self._search_json(),
        }

    def _can_undo(self) -> bool:
        try:
            self._undo_cut()
        except RequestError:
            return False
        return True

    def _result_json(self, state: tuple) -> dict:
        utility = self.game.utility(state, 0)
        winner = 0 if utility > 0 else 1 if utility < 0 else None
        if winner is None:
            message = "Draw."
        else:
            name = self.seat_name(winner)
            symbol = PLAYER_SYMBOLS[winner]
            if name == "you":
                message = f"You win ({symbol})."
            else:
                message = f"{name[:1].upper()}{name[1:]} ({symbol}) wins."
        return {"winner": winner, "text": result_text(self.game, state), "message": message}

    def _search_json(self) -> dict | None:
        search = self.search
        if search is None:
            return None
        game = self.game
        analysis = search.analysis
        side = self.view_side
        mover = analysis.to_move
        state = state_after(game, self.moves[: search.ply])
        searched = int(analysis.visit_counts.sum()) > 0
        network_value = analysis.network_value if side == mover else -analysis.network_value
        moves = []
        for action in game.actions(state):
            q = float(analysis.q_values[action])
            moves.append(
                {
                    "move": game.action_to_string(action),
                    "prior": round(float(analysis.priors[action]), 4),
                    "visits": int(analysis.visit_counts[action]),
                    "q": None if not np.isfinite(q) else round(q, 4),
                }
            )
        label = PLAYER_SYMBOLS[side]
        if self.seat_name(side) == "you":
            label = f"you ({label})"
        return {
            "source": search.source,
            "ply": search.ply,
            "to_move": mover,
            "simulations": search.simulations,
            "searched": searched,
            "best_move": game.action_to_string(analysis.best_action),
            "moves": moves,
            "view_side": side,
            "view_label": label,
            "value": round(analysis.value_for(side), 4) + 0.0,
            "network_value": round(network_value, 4) + 0.0,
            "verdict": verdict(analysis.value_for(0)),
        }


def new_game_request(
    service: ModelService, seats: list[str] | None, moves: str | None, opponent: str | None = None
) -> tuple[tuple[str, str], list[int], str]:
    """Check a new game's ``seats``, ``moves`` and ``opponent`` (None: the service's defaults; with
    an opponent named and no seats, the seats are human and opponent), changing nothing.

    Returns:
        ``(seats, events, opponent)``: the two seats, the start position's events
        (``Game.parse_moves``) and the opponent's spec text.

    Raises:
        RequestError: 400 for an opponent the game does not offer (``ModelService.check_opponent``),
            seats other than two of ``ModelService.seat_kinds``, or a move string longer than any
            game's (``frontends.game_text.move_text_limit``) or that does not parse (the game's message
            names the move).
    """
    opponent_text = service.default_opponent if opponent is None else service.check_opponent(opponent)
    if seats is None:
        seats = list(service.default_seats) if opponent is None else [HUMAN, OPPONENT]
    kinds = service.seat_kinds
    if len(seats) != 2 or any(seat not in kinds for seat in seats):
        raise RequestError(400, f"seats: expected two of {list(kinds)}, got {seats!r}"[:300])
    text = service.default_moves if moves is None else moves
    try:
        events = parse_position(service.game, text)
    except ValueError as error:
        message = str(error)
        raise RequestError(400, message if message.startswith("moves: ") else f"moves: {message}") from None
    return (seats[0], seats[1]), events, opponent_text


class Catalogue:
    """The games one server offers: a ``ModelService`` per game, by name, and the default game.

    Every service shares the catalogue's ``search_lock`` (one search at a time in the process) and
    ``stopping`` event.

    Raises:
        ValueError: for no services, a service whose game's name differs from its key, or a
            default game that is not among them.
    """

    def __init__(self, services: dict[str, ModelService], default_game: str) -> None:
        if not services:
            raise ValueError("expected at least one game to serve, got none")
        for name, service in services.items():
            if service.game.name != name:
                raise ValueError(f"service {name!r}: expected the game {name!r}, got {service.game.name!r}")
        if default_game not in services:
            raise ValueError(f"default game: expected one of {list(services)}, got {default_game!r}")
        self.services = dict(services)
        self.default_game = default_game
        self.search_lock = threading.Lock()
        self.stopping = threading.Event()
        for service in self.services.values():
            service.search_lock = self.search_lock
            service.stopping = self.stopping

    @classmethod
    def of(cls, service: ModelService | Catalogue) -> Catalogue:
        """``service`` itself if a catalogue, else a catalogue of its one game."""
        if isinstance(service, Catalogue):
            return service
        catalogue = cls({service.game.name: service}, service.game.name)
        return catalogue

    @property
    def default(self) -> ModelService:
        return self.services[self.default_game]

    def service(self, name: str | None) -> ModelService:
        """The service of the game ``name`` (None: the default game).

        Raises:
            RequestError: 400 for a game not served here (the message lists those that are).
        """
        if name is None:
            return self.default
        found = self.services.get(name)
        if found is None:
            raise RequestError(400, f"game: expected one of {list(self.services)}, got {name!r}"[:300])
        return found

    def games(self) -> dict:
        """Every game with its model and opponents (JSON-ready; ``ModelService.info`` per game)."""
        return {"default": self.default_game, "games": [service.info() for service in self.services.values()]}


class SessionStore:
    """Sessions by id: at most ``max_sessions`` in all (the least recently used one is dropped
    first) and at most ``max_per_client`` from one client address (the next create is refused).

    The per-client cap keeps one client from creating sessions until other clients' games are
    dropped from the store. Ids are unguessable (``secrets.token_urlsafe``), so one tab cannot
    reach another's game by counting. Thread-safe.

    Raises:
        ValueError: if ``max_sessions`` or ``max_per_client`` is below 1.
    """

    def __init__(
        self, service: ModelService | Catalogue, max_sessions: int = 256,
        max_per_client: int = MAX_SESSIONS_PER_CLIENT,
    ) -> None:
        if max_sessions < 1:
            raise ValueError(f"max_sessions must be >= 1, got {max_sessions}")
        if max_per_client < 1:
            raise ValueError(f"max_per_client must be >= 1, got {max_per_client}")
        self.catalogue = Catalogue.of(service)
        self.service = self.catalogue.default
        self.max_sessions = max_sessions
        self.max_per_client = max_per_client
        self._sessions: OrderedDict[str, GameSession] = OrderedDict()
        self._locks: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def count(self, client: str) -> int:
        """Sessions held now by ``client`` (its address)."""
        with self._lock:
            return sum(session.client == client for session in self._sessions.values())

    def create(
        self, client: str = "", seats: list[str] | None = None, moves: str | None = None,
        game: str | None = None, opponent: str | None = None,
    ) -> GameSession:
        """A new session of ``client`` (its address) with a new game of ``game`` (None: the default
        game) against ``opponent`` (as ``GameSession.new_game``), stored only once the request is
        known to be good.

        Raises:
            RequestError: 400 for a game not served (``Catalogue.service``) or as
                ``new_game_request`` (nothing stored); 429 when ``client`` already holds
                ``max_per_client`` sessions.
        """
        self._check_cap(client)
        service = self.catalogue.service(game)
        session = service.open_session(secrets.token_urlsafe(12), seats, moves, client=client, opponent=opponent)
        with self._lock:
            self._check_cap_locked(client)  # another request of the client may have stored one meanwhile
            self._sessions[session.id] = session
            self._locks[session.id] = threading.Lock()
            while len(self._sessions) > self.max_sessions:
                old, _ = self._sessions.popitem(last=False)
                self._locks.pop(old, None)
        return session

    def restart(self, session, seats: list[str] | None, moves: str | None, opponent: str | None,
                service: ModelService | None) -> GameSession:
        """``session`` after a new game (as ``GameSession.new_game``) of ``service``'s game (None:
        the current one); held by ``locked``. A game of another kind (a poker hand after a board
        game, or back) replaces the session by a new one under the same id, once the request is
        known to be good.

        Raises:
            RequestError: as ``GameSession.new_game``; the session is unchanged.
        """
        service = session.service if service is None else service
        if service.continues(session):
            session.new_game(seats, moves, opponent, service)
            return session
        fresh = service.open_session(session.id, seats, moves, client=session.client, opponent=opponent)
        with self._lock:
            if self._sessions.get(session.id) is session:
                self._sessions[session.id] = fresh
        return fresh

    def _check_cap(self, client: str) -> None:
        with self._lock:
            self._check_cap_locked(client)

    def _check_cap_locked(self, client: str) -> None:
        held = sum(session.client == client for session in self._sessions.values())
        if held >= self.max_per_client:
            raise RequestError(
                429,
                f"too many games from your address: {held} are open and {self.max_per_client} is the most; "
                "play on in a tab you have open, or ask whoever runs the server to restart it",
            )

    @contextmanager
    def locked(self, session_id: str) -> Iterator[GameSession]:
        """The session ``session_id``, held for this request alone.

        Raises:
            RequestError: 404 for an unknown (or dropped) session; 409 while another request of
                the same session is running (a search takes a while: the page waits for it).
        """
        with self._lock:
            session = self._sessions.get(session_id)
            lock = self._locks.get(session_id)
            if session is not None:
                self._sessions.move_to_end(session_id)
        if session is None or lock is None:
            raise RequestError(404, f"no game session {session_id[:40]!r}; start a new one")
        if not lock.acquire(blocking=False):
            raise RequestError(409, "this game is busy with another request (a search); try again")
        try:
            yield session
        finally:
            lock.release()
