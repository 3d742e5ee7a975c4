"""Poker hands in the web page: Kuhn poker and Leduc hold'em against a CFR+ policy (docs/web.md).

* ``solved_policy``: the opponent's policy, CFR+ (Tammelin 2014, "Solving Large Imperfect
  Information Games Using CFR+", sec. 3; ``search/cfr.py``) run for a fixed number of iterations
  once per process, with its NashConv (``search/best_response.py``) and exploitability;
* ``PokerService``: what every session of one poker game shares (the ``ModelService`` of a game
  of imperfect information);
* ``PokerSession``: one hand at a time in one browser tab, with the same requests and answer
  shape as ``frontends.web.sessions.GameSession``;
* ``hand_view``: what the human's seat may see of a hand. It is the one place a hand's history
  (both private cards included) becomes JSON: the opponent's card appears only once the hand is
  over.

The server deals: every chance node (the private cards, Leduc's public card) is drawn from the
session's own seeded generator (``PokerSession.dice``) as soon as it is reached; the policy's
actions are drawn from another (``PokerSession.rng``), so a session's hands depend only on the
server's ``--seed`` and the order sessions were opened.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from frontends.cfr_cli import solve
from frontends.web.opponents import OpponentChoice
from frontends.web.sessions import HUMAN, MAX_MOVE_TEXT, OPPONENT, ModelService, RequestError
from games.imperfect.base import ImperfectInformationGame
from search.best_response import expected_value, nash_conv
from search.game_tree import GameTree

#: the algorithm of the served policy (``search.cfr.CFRSolver``)
POLICY_ALGORITHM = "cfr+"
#: CFR+ iterations per game: NashConv 0.00017 chips in Kuhn and 0.00049 in Leduc (tests/test_web_poker.py)
POLICY_ITERATIONS = {"kuhn": 1000, "leduc": 1000}
#: seed of the solver (CFR+ draws nothing; recorded so the policy is named in full)
POLICY_SEED = 0
#: the opponent spec a poker game offers: its CFR+ policy
OPPONENT_SPEC = "cfr+"
#: the seats' names in a poker game: player 0 acts first in every betting round
POKER_SYMBOLS = ("P0", "P1")


@dataclass(frozen=True)
class SolvedPolicy:
    """A policy computed for a poker game, with how it was made and how good it is.

    Attributes:
        tree: the game's flat tree (``search.game_tree``).
        policy: `[I, A]` float64, the average policy, rows over the game's actions (0 on illegal).
        algorithm: ``"cfr+"``.
        iterations: iterations run (one traversal per player each).
        seed: the solver's seed.
        nash_conv: ``BR_0 + BR_1`` in chips (``search.best_response.nash_conv``); 0 at a Nash
            equilibrium.
        game_value: player 0's expected chips when both play the policy.
    """

    tree: GameTree
    policy: np.ndarray
    algorithm: str
    iterations: int
    seed: int
    nash_conv: float
    game_value: float

    @property
    def exploitability(self) -> float:
        """``nash_conv / 2`` in chips a hand: what a best response wins on average against the
        policy, over both seats (Lanctot 2013, PhD thesis, sec. 2.2.1)."""
        return self.nash_conv / 2

    def to_json(self) -> dict:
        return {
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seed": self.seed,
            "nash_conv": self.nash_conv,
            "exploitability": self.exploitability,
            "game_value": self.game_value,
        }


@functools.cache
def solved_policy(game_name: str, iterations: int | None = None) -> SolvedPolicy:
    """The CFR+ policy of ``game_name`` after ``iterations`` (None: ``POLICY_ITERATIONS``), computed
    once per process (``frontends.cfr_cli.solve``: seconds for Kuhn and Leduc).

    Raises:
        ValueError: for a game that is not a registered imperfect-information game, or fewer than
            one iteration.
    """
    count = POLICY_ITERATIONS.get(game_name, 1000) if iterations is None else iterations
    tree, policy, _ = solve(game_name, POLICY_ALGORITHM, count, POLICY_SEED)
    return SolvedPolicy(tree, policy, POLICY_ALGORITHM, count, POLICY_SEED, nash_conv(tree, policy),
                        expected_value(tree, policy, policy))


@dataclass
class PokerService(ModelService):
    """What every session of one poker game shares: the game, the opponent's policy and its seed.

    Seats are one ``"human"`` and one ``"opponent"`` (the policy); there is no model, no search
    budget (``max_simulations`` 0) and no start position (each hand is a fresh deal).

    Attributes:
        solved: the opponent's policy (``solved_policy``).

    Raises:
        ValueError: for a game that is not an imperfect-information game, or a policy of another
            game.
    """

    game: ImperfectInformationGame | None = None
    evaluate_fn: None = None
    solved: SolvedPolicy | None = None
    default_simulations: int = 0
    max_simulations: int = 0
    default_seats: tuple[str, str] = (HUMAN, OPPONENT)

    def __post_init__(self) -> None:
        if not isinstance(self.game, ImperfectInformationGame):
            raise ValueError(f"expected an imperfect-information game, got {type(self.game).__name__}")  # noqa: TRY004
        policy_game = None if self.solved is None else self.solved.tree.game.name
        if policy_game != self.game.name:
            raise ValueError(f"expected a policy of {self.game.name}, got one of {policy_game}")
        label = f"CFR+ policy ({self.solved.iterations} iterations)"
        self.opponents = (OpponentChoice(OPPONENT_SPEC, label, fixed=OPPONENT_SPEC),)
        super().__post_init__()

    def check_opponent(self, text: object) -> str:
        """``OPPONENT_SPEC`` if ``text`` is it.

        Raises:
            RequestError: 400 for anything else, e.g. ``opponent: expected one of cfr+ for kuhn,
                got 'solver'``.
        """
        if text != OPPONENT_SPEC:
            raise RequestError(400, f"opponent: expected one of {OPPONENT_SPEC} for {self.game.name}, got {text!r}"[:400])
        return OPPONENT_SPEC

    def open_session(
        self, session_id: str, seats: list[str] | None = None, moves: str | None = None, client: str = "",
        opponent: str | None = None,
    ) -> PokerSession:
        """A new ``PokerSession`` dealt its first hand.

        Raises:
            RequestError: as ``PokerSession.new_game``.
        """
        return PokerSession(session_id, self, seats, moves, client=client, opponent=opponent)

    def continues(self, session) -> bool:
        return type(session) is PokerSession

    def info(self) -> dict:
        """What the page needs to play this game (JSON-ready; keys as ``ModelService.info``, with
        ``poker`` true and ``policy``: how the opponent's policy was made and its NashConv and
        exploitability in chips)."""
        return {
            "game": self.game.name,
            "title": self.game.title,
            "model": None,
            "opponent": None,
            "opponents": [choice.to_json() for choice in self.opponents],
            "default_opponent": self.default_opponent,
            "chance": True,
            "poker": True,
            "public_cards": self.game.num_public_cards,
            "policy": self.solved.to_json(),
            "seat_kinds": list(self.seat_kinds),
            "default_seats": list(self.default_seats),
            "default_moves": "",
            "simulations": 0,
            "max_simulations": 0,
            "show_analysis": False,
            "symbols": list(POKER_SYMBOLS),
            "moves": list(self.game.action_names),
        }


def _words(game: ImperfectInformationGame) -> set[str]:
    """Every word the game's actions may be called (``action_word``) and its action names."""
    return {"check", "bet", "fold", "call", "raise"} | set(game.action_names)


def poker_request(service: PokerService, seats: list[str] | None, moves: str | None,
                  opponent: str | None) -> tuple[str, str]:
    """Check a new hand's ``seats``, ``moves`` and ``opponent``, changing nothing.

    Returns:
        The two seats.

    Raises:
        RequestError: 400 for an opponent other than ``OPPONENT_SPEC``, seats other than one
            ``"human"`` and one ``"opponent"``, or a non-empty ``moves`` (a hand starts from a
            fresh deal).
    """
    if opponent is not None:
        service.check_opponent(opponent)
    seats = list(service.default_seats) if seats is None else seats
    if sorted(seats) != sorted([HUMAN, OPPONENT]):
        raise RequestError(400, f"seats: expected one 'human' and one 'opponent' in {service.game.name}, got {seats!r}"[:300])
    if moves:
        raise RequestError(400, f"moves: a {service.game.name} hand starts from a fresh deal; expected no moves, got {moves!r}"[:300])
    return seats[0], seats[1]


class PokerSession:
    """One browser tab's poker: a hand at a time, and the chips won over its hands. Not
    thread-safe: ``SessionStore.locked`` serialises requests. Public methods are those of
    ``GameSession``.

    Raises:
        RequestError: from every public method, before any change, for a request it cannot take.
    """

    def __init__(
        self, session_id: str, service: PokerService, seats: list[str] | None = None, moves: str | None = None,
        client: str = "", opponent: str | None = None,
    ) -> None:
        start = poker_request(service, seats, moves, opponent)  # refused before a seed is spent
        self.id = session_id
        self.client = client
        self.service = service
        self.game = service.game
        policy_seed, dice_seed = service.session_seed().spawn(2)
        #: the policy's action draws
        self.rng = np.random.default_rng(policy_seed)
        #: the deals: every card of the session's hands is drawn from this generator
        self.dice = np.random.default_rng(dice_seed)
        self.opponent_name = OPPONENT_SPEC
        self.seats: tuple[str, str] = start
        #: the hand's history: the deals and the actions (``ImperfectInformationGame`` states)
        self.history: tuple = ()
        self.hands = 0
        self.total = 0.0
        self._start(start)

    # ------------------------------------------------------------------------------ queries
    @property
    def view_side(self) -> int:
        """The human's seat: 0 acts first, 1 second."""
        return self.seats.index(HUMAN)

    def seat_name(self, side: int) -> str:
        return "you" if self.seats[side] == HUMAN else "policy"

    def _legal_words(self) -> dict[str, int]:
        state = self.history
        return {self.game.action_word(state, a): a for a in self.game.legal_actions(state)}

    # ----------------------------------------------------------------------------- requests
    def new_game(self, seats: list[str] | None, moves: str | None, opponent: str | None = None,
                 service: PokerService | None = None) -> None:
        """Deal a new hand with ``seats`` (default: the current ones) of ``service``'s game
        (default: the current one).

        Raises:
            RequestError: as ``poker_request``.
        """
        service = self.service if service is None else service
        start = poker_request(service, list(self.seats) if seats is None else seats, moves, opponent)
        if service is not self.service:
            self.hands, self.total = 0, 0.0
        self.service = service
        self.game = service.game
        self._start(start)

    def _start(self, seats: tuple[str, str]) -> None:
        self.seats = seats
        self.history = ()
        self._deal()

    def _deal(self) -> None:
        """Deal every chance node now reached from the session's dice; count a finished hand."""
        game = self.game
        while game.is_chance(self.history):
            outcomes = game.chance_outcomes(self.history)
            pick = int(self.dice.choice(len(outcomes), p=[p for _, p in outcomes]))
            self.history = game.result(self.history, outcomes[pick][0])
        if game.is_terminal(self.history):
            self.hands += 1
            self.total += game.returns(self.history)[self.view_side]

    def move(self, text: str) -> None:
        """Play the human's action ``text``: a word the answer's ``controls`` offer (``check``,
        ``bet``, ``fold``, ``call``, ``raise``).

        Raises:
            RequestError: 409 if the hand is over or the policy is to act; 400 for a word that is
                not legal here (the message lists the legal ones).
        """
        to_move = self._live_player()
        if self.seats[to_move] != HUMAN:
            raise RequestError(409, f"it is the policy's turn ({POKER_SYMBOLS[to_move]})")
        legal = self._legal_words()
        text = text.strip().lower()
        if text not in legal:
            kind = "illegal" if text in _words(self.game) else "malformed"
            raise RequestError(400, f"{kind} move {text[:MAX_MOVE_TEXT]!r}; legal moves: {' '.join(legal)}")
        self.history = self.game.result(self.history, legal[text])
        self._deal()

    def advance(self, simulations: int | None) -> None:
        """Let the policy act: an action drawn from its row of the information state it sees.

        Raises:
            RequestError: 400 for a simulation count other than None or 0 (a policy does not
                search); 409 if the hand is over or the human is to act.
        """
        if simulations is not None and (isinstance(simulations, bool) or simulations != 0):
            raise RequestError(400, f"sims: expected an integer in 0..0, got {simulations!r}"[:200])
        to_move = self._live_player()
        if self.seats[to_move] == HUMAN:
            raise RequestError(409, f"it is your turn ({POKER_SYMBOLS[to_move]}): send a move")
        solved = self.service.solved
        row = solved.policy[solved.tree.infostate_index[self.game.information_state(self.history, to_move)]]
        action = int(self.rng.choice(len(row), p=row))
        self.history = self.game.result(self.history, action)
        self._deal()

    def hint(self, simulations: int | None) -> None:
        """Refused: no model plays poker here.

        Raises:
            RequestError: 409 always.
        """
        raise RequestError(409, f"no model plays {self.game.name} here: a hint needs one")

    def undo(self) -> None:
        """Refused: an action is final once the other player has seen it.

        Raises:
            RequestError: 409 always.
        """
        raise RequestError(409, "nothing to undo: poker actions are final")

    def _live_player(self) -> int:
        if self.game.is_terminal(self.history):
            raise RequestError(409, "the hand is over; deal a new hand")
        return self.game.player_to_move(self.history)

    # ------------------------------------------------------------------------------ output
    def to_json(self) -> dict:
        """The hand as the human may see it (JSON-ready; keys as ``GameSession.to_json``, with
        ``hand`` from ``hand_view``; the format is in docs/web.md)."""
        game = self.game
        state = self.history
        side = self.view_side
        view = hand_view(game, state, side)
        over = game.is_terminal(state)
        to_move = None if over else game.player_to_move(state)
        controls = [{"move": word, "legal": True, "target": None} for word in ([] if over else self._legal_words())]
        text = game.describe(state, side)
        if over:
            text += f"\nthe policy's card: {view['opponent_card']}"
        return {
            "session": self.id,
            "game": game.name,
            "moves": " ".join(view["events"]),
            "move_list": view["events"],
            "last_move": view["events"][-1] if view["events"] else None,
            "last_target": None,
            "last_roll": None,
            "ply": len(view["events"]),
            "start_ply": 0,
            "to_move": to_move,
            "seats": list(self.seats),
            "opponent": self.opponent_name,
            "seat_names": [self.seat_name(0), self.seat_name(1)],
            "turn": None if over else self.seats[to_move],
            "view_side": side,
            "board": None,
            "text": text,
            "controls": controls,
            "can_undo": False,
            "result": self._result_json(view) if over else None,
            "search": None,
            "hand": view,
            "match": {"hands": self.hands, "chips": self.total},
        }

    def _result_json(self, view: dict) -> dict:
        chips = view["chips"]
        side = self.view_side
        winner = side if chips > 0 else 1 - side if chips < 0 else None
        amount = _chips(abs(chips))
        message = f"You win {amount}." if chips > 0 else f"You lose {amount}." if chips < 0 else "Split pot."
        folded = view["folded"]
        how = "showdown" if folded is None else ("you folded" if folded == side else "the policy folded")
        board = f", board {view['board_card']}" if view["board_card"] else ""
        text = f"Your {view['your_card']} against the policy's {view['opponent_card']}{board} ({how})."
        return {"winner": winner, "text": text, "message": message, "chips": chips}


def _chips(amount: float) -> str:
    value = int(amount) if float(amount).is_integer() else amount
    return f"{value} chip" + ("" if value == 1 else "s")


def hand_view(game: ImperfectInformationGame, state: tuple, seat: int) -> dict:
    """What ``seat`` may see of the hand ``state`` (a full history, both private cards included).

    Returns:
        A JSON-ready dict: ``seat``; ``your_card`` (its name, ``game.card_name``); ``board_card``
        (Leduc's public card once dealt, else None); ``opponent_card`` (None until the hand is
        over); ``pot`` and ``put_in`` (chips, ``[seat 0, seat 1]``, antes included); ``rounds``
        (per betting round, ``[player, word]`` per action, ``game.action_word``); ``events`` (the
        public events in order: action words and the board card); ``folded`` (the seat that
        folded, else None); ``chips`` (what ``seat`` won, negative for a loss, once the hand is
        over, else None).

    Raises:
        ValueError: for a seat other than 0 or 1.
    """
    if seat not in (0, 1):
        raise ValueError(f"expected seat 0 or 1, got {seat!r}")
    over = game.is_terminal(state)
    rounds: list[list[list]] = [[]]
    events: list[str] = []
    folded = None
    played: tuple = ()
    for event in state:
        mover = game.player_to_move(played)
        if mover in (0, 1):
            word = game.action_word(played, event)
            rounds[-1].append([mover, word])
            events.append(word)
            folded = mover if word == "fold" else folded
        elif game.public_card(played + (event,)) is not None and game.public_card(played) is None:
            rounds.append([])
            events.append(game.card_name(event))
        played += (event,)
    mine = game.private_card(state, seat)
    theirs = game.private_card(state, 1 - seat)
    public = game.public_card(state)
    put_in = game.contributions(state)
    return {
        "seat": seat,
        "your_card": None if mine is None else game.card_name(mine),
        "board_card": None if public is None else game.card_name(public),
        "opponent_card": game.card_name(theirs) if over and theirs is not None else None,
        "pot": int(sum(put_in)),
        "put_in": [int(put_in[0]), int(put_in[1])],
        "rounds": rounds,
        "events": events,
        "folded": folded,
        "chips": game.returns(state)[seat] if over else None,
    }
