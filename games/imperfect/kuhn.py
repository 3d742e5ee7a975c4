"""Kuhn poker (Kuhn 1950, "A simplified two-person poker", Contributions to the Theory of Games I).

Three cards J, Q, K (ids 0, 1, 2); each player antes one chip and is dealt one card. Player 0
acts first; each may pass (action 0: check, or fold when facing a bet) or bet one chip (action 1:
bet, or call). The history ends after pass-pass (showdown for 1), bet-call or pass-bet-call
(showdown for 2), bet-pass or pass-bet-pass (the bettor wins 1). The game value for player 0 is
-1/18 (Kuhn 1950). Histories are ``(card0, card1, action, ...)``; information states are
OpenSpiel's ``kuhn_poker`` strings: the player's card id then ``p``/``b`` per action (``"0pb"``).
"""

from __future__ import annotations

from games.imperfect.base import CHANCE, TERMINAL, ImperfectInformationGame

PASS = 0
BET = 1
CARD_NAMES = ("J", "Q", "K")
_TERMINAL_BETTING = {(0, 0), (1, 0), (1, 1), (0, 1, 0), (0, 1, 1)}


class KuhnPoker(ImperfectInformationGame):
    """Kuhn poker with OpenSpiel's information-state strings and action ids (0 pass, 1 bet)."""

    name = "kuhn"
    title = "Kuhn poker"
    openspiel_name = "kuhn_poker"
    num_actions = 2
    action_names = ("pass", "bet")
    action_aliases = (("check", PASS), ("fold", PASS), ("k", PASS), ("f", PASS), ("call", BET), ("c", BET))
    max_utility = 2.0

    def player_to_move(self, state: tuple) -> int:
        if len(state) < 2:
            return CHANCE
        betting = state[2:]
        if betting in _TERMINAL_BETTING:
            return TERMINAL
        return len(betting) % 2

    def chance_outcomes(self, state: tuple) -> list[tuple[int, float]]:
        if len(state) >= 2:
            raise ValueError(f"kuhn: history {state} is not a deal")
        remaining = [card for card in range(3) if card not in state]
        return [(card, 1.0 / len(remaining)) for card in remaining]

    def legal_actions(self, state: tuple) -> list[int]:
        return [PASS, BET] if self.player_to_move(state) in (0, 1) else []

    def returns(self, state: tuple) -> tuple[float, float]:
        if not self.is_terminal(state):
            raise ValueError(f"kuhn: history {state} is not terminal")
        betting = state[2:]
        if betting == (1, 0):
            return (1.0, -1.0)
        if betting == (0, 1, 0):
            return (-1.0, 1.0)
        stake = 1.0 if betting == (0, 0) else 2.0
        return (stake, -stake) if state[0] > state[1] else (-stake, stake)

    def information_state(self, state: tuple, player: int) -> str:
        self._check_player(player)
        if len(state) <= player:
            return ""
        return str(state[player]) + "".join("pb"[action] for action in state[2:])

    def private_card(self, state: tuple, player: int) -> int | None:
        self._check_player(player)
        return state[player] if len(state) > player else None

    def public_card(self, state: tuple) -> int | None:
        return None

    def contributions(self, state: tuple) -> tuple[int, int]:
        betting = state[2:]
        return (1 + sum(betting[0::2]), 1 + sum(betting[1::2]))

    def action_word(self, state: tuple, action: int) -> str:
        facing = len(state) > 2 and state[-1] == BET
        if action == PASS:
            return "fold" if facing else "check"
        return "call" if facing else "bet"

    def card_name(self, card: int) -> str:
        return CARD_NAMES[card]

    def describe(self, state: tuple, player: int) -> str:
        self._check_player(player)
        lines = []
        if len(state) > player:
            lines.append(f"your card: {CARD_NAMES[state[player]]}")
        betting = state[2:]
        words = [f"P{index % 2} {self.action_word(state[:2 + index], action)}" for index, action in enumerate(betting)]
        lines.append("betting: " + (", ".join(words) if words else "none yet"))
        lines.append(f"pot: {sum(self.contributions(state))}")
        return "\n".join(lines)
