"""Leduc hold'em (Southey et al. 2005, "Bayes' Bluff: Opponent Modelling in Poker", UAI, sec. 5).

Six cards, J J Q Q K K (card ``c`` has rank ``c // 2``: ids 0-1 jacks, 2-3 queens, 4-5 kings, as in
OpenSpiel). Each player antes one chip and gets one private card; a betting round follows, then
one public card is dealt and a second round follows. Bets are 2 chips in round 1 and 4 in round
2, at most two raises a round. Actions (OpenSpiel's ids): 0 fold (legal only facing a bet),
1 call (check when nothing is owed), 2 raise (bet). Player 0 starts both rounds. A round ends
after check-check or a call of a raise. At showdown a pair with the public card wins, else the
higher rank; equal ranks split the pot. The game value for player 0 is about -0.0856 chips.

Histories are ``(card0, card1, betting round 1 ..., public card, betting round 2 ...)``;
information states are OpenSpiel's ``leduc_poker`` strings, e.g.
``[Observer: 1][Private: 3][Round 2][Player: 1][Pot: 14][Money: 91 95][Public: 5][Round1: 2 2 1][Round2: 2]``.
"""

from __future__ import annotations

from typing import NamedTuple

from games.imperfect.base import CHANCE, TERMINAL, ImperfectInformationGame

FOLD = 0
CALL = 1
RAISE = 2
ANTE = 1
STARTING_MONEY = 100
RAISE_AMOUNTS = (2, 4)
MAX_RAISES = 2
NUM_CARDS = 6
RANK_NAMES = ("J", "Q", "K")
SUIT_NAMES = ("s", "h")


class _Parsed(NamedTuple):
    private: tuple[int, ...]  # dealt private cards so far (0, 1 or 2)
    public: int  # -1 before the deal
    rounds: tuple[tuple[int, ...], ...]  # betting actions per round started
    contributed: tuple[int, int]  # chips each player has put in, antes included
    player: int  # 0, 1, CHANCE or TERMINAL
    folded: int  # the player who folded, or -1
    num_raises: int  # raises in the current round
    owed: int  # chips the player to move must add to call


def _parse(state: tuple) -> _Parsed:
    """Replay a history; the rules live here once."""
    private = tuple(state[:2])
    if len(state) < 2:
        return _Parsed(private, -1, (), (ANTE, ANTE), CHANCE, -1, 0, 0)
    contributed = [ANTE, ANTE]
    rounds: list[list[int]] = [[]]
    public = -1
    player = 0
    num_raises = 0
    folded = -1
    round_over = False
    for action in state[2:]:
        if round_over:  # the public card
            public = action
            rounds.append([])
            player, num_raises, round_over = 0, 0, False
            continue
        current = rounds[-1]
        current.append(action)
        other = 1 - player
        if action == FOLD:
            folded = player
            break
        if action == CALL:
            contributed[player] = contributed[other]
            if len(current) >= 2:
                round_over = True
        else:
            contributed[player] = contributed[other] + RAISE_AMOUNTS[len(rounds) - 1]
            num_raises += 1
        player = other
    owed = abs(contributed[0] - contributed[1])
    if folded >= 0 or (round_over and len(rounds) == 2):
        player = TERMINAL
    elif round_over:
        player = CHANCE
    frozen = tuple(tuple(r) for r in rounds)
    return _Parsed(private, public, frozen, (contributed[0], contributed[1]), player, folded, num_raises, owed)


class LeducPoker(ImperfectInformationGame):
    """Leduc hold'em with OpenSpiel's information-state strings and action ids (fold, call, raise)."""

    name = "leduc"
    title = "Leduc hold'em"
    openspiel_name = "leduc_poker"
    num_public_cards = 1
    num_actions = 3
    action_names = ("fold", "call", "raise")
    action_aliases = (("check", CALL), ("k", CALL), ("bet", RAISE), ("b", RAISE))
    max_utility = float(ANTE + RAISE_AMOUNTS[0] * MAX_RAISES + RAISE_AMOUNTS[1] * MAX_RAISES)

    def player_to_move(self, state: tuple) -> int:
        return _parse(state).player

    def chance_outcomes(self, state: tuple) -> list[tuple[int, float]]:
        parsed = _parse(state)
        if parsed.player != CHANCE:
            raise ValueError(f"leduc: history {state} is not a deal")
        dealt = set(parsed.private)
        remaining = [card for card in range(NUM_CARDS) if card not in dealt]
        return [(card, 1.0 / len(remaining)) for card in remaining]

    def legal_actions(self, state: tuple) -> list[int]:
        parsed = _parse(state)
        if parsed.player not in (0, 1):
            return []
        actions = [FOLD] if parsed.owed > 0 else []
        actions.append(CALL)
        if parsed.num_raises < MAX_RAISES:
            actions.append(RAISE)
        return actions

    def returns(self, state: tuple) -> tuple[float, float]:
        parsed = _parse(state)
        if parsed.player != TERMINAL:
            raise ValueError(f"leduc: history {state} is not terminal")
        if parsed.folded >= 0:
            loser = parsed.folded
        else:
            strength = [self._hand_strength(card, parsed.public) for card in parsed.private]
            if strength[0] == strength[1]:
                return (0.0, 0.0)
            loser = 0 if strength[0] < strength[1] else 1
        stake = float(parsed.contributed[loser])
        return (-stake, stake) if loser == 0 else (stake, -stake)

    @staticmethod
    def _hand_strength(card: int, public: int) -> int:
        """Higher is better: a pair with the public card beats every high card."""
        rank = card // 2
        return 10 + rank if rank == public // 2 else rank

    def information_state(self, state: tuple, player: int) -> str:
        self._check_player(player)
        parsed = _parse(state)
        private = parsed.private[player] if len(parsed.private) > player else -10000
        money = f"{STARTING_MONEY - parsed.contributed[0]} {STARTING_MONEY - parsed.contributed[1]}"
        text = (
            f"[Observer: {player}][Private: {private}][Round {len(parsed.rounds) or 1}]"
            f"[Player: {parsed.player}][Pot: {sum(parsed.contributed)}][Money: {money}]"
        )
        if parsed.public >= 0:
            text += f"[Public: {parsed.public}]"
        for index in range(2):
            actions = parsed.rounds[index] if index < len(parsed.rounds) else ()
            text += f"[Round{index + 1}: {' '.join(str(a) for a in actions)}]"
        return text

    def private_card(self, state: tuple, player: int) -> int | None:
        self._check_player(player)
        return state[player] if len(state) > player else None

    def public_card(self, state: tuple) -> int | None:
        public = _parse(state).public
        return None if public < 0 else public

    def contributions(self, state: tuple) -> tuple[int, int]:
        return _parse(state).contributed

    def action_word(self, state: tuple, action: int) -> str:
        owed = _parse(state).owed > 0
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if owed else "check"
        return "raise" if owed else "bet"

    def card_name(self, card: int) -> str:
        return RANK_NAMES[card // 2] + SUIT_NAMES[card % 2]

    def describe(self, state: tuple, player: int) -> str:
        self._check_player(player)
        parsed = _parse(state)
        lines = []
        if len(parsed.private) > player:
            lines.append(f"your card: {self.card_name(parsed.private[player])}")
        if parsed.public >= 0:
            lines.append(f"public card: {self.card_name(parsed.public)}")
        for index, actions in enumerate(parsed.rounds):
            words, owed, mover = [], False, 0
            for action in actions:
                if action == FOLD:
                    word = "fold"
                elif action == CALL:
                    word = "call" if owed else "check"
                else:
                    word = "raise" if owed else "bet"
                owed = action == RAISE
                words.append(f"P{mover} {word}")
                mover = 1 - mover
            lines.append(f"round {index + 1}: " + (", ".join(words) if words else "no bets yet"))
        lines.append(f"pot: {sum(parsed.contributed)} (P0 put in {parsed.contributed[0]}, P1 {parsed.contributed[1]})")
        return "\n".join(lines)
