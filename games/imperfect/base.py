"""The interface of a two-player zero-sum game of imperfect information, with chance.

A state is the tuple of every action taken so far, chance deals included (``()`` is the start),
so states are hashable, immutable and cheap to copy. The interface is the one the counterfactual
regret minimisation literature uses (Zinkevich et al. 2007, "Regret Minimization in Games with
Incomplete Information", sec. 2; Lanctot 2013, PhD thesis, sec. 2.1): histories, a player
function (a player or chance), chance probabilities, information states (what the player to move
knows) and utilities at terminal histories.

Utilities are in chips, from each player's own view, and sum to zero (poker's natural unit, the
one the literature reports game values and exploitability in; the board games' [-1, 1] convention
does not apply here). Information states are named, and actions numbered, exactly as OpenSpiel's
``information_state_string`` and action ids of the same game, so policies can be checked by other
tools.
"""

from __future__ import annotations

#: ``player_to_move`` of a chance history (OpenSpiel's ``kChancePlayerId`` is also -1).
CHANCE = -1
#: ``player_to_move`` of a terminal history (OpenSpiel's ``kTerminalPlayerId``).
TERMINAL = -4


class ImperfectInformationGame:
    """Rules of a two-player zero-sum imperfect-information game; subclasses fill them in.

    Attributes:
        name: registry id (``games.make(name)``, kind ``games.IMPERFECT``).
        num_actions: number of distinct player actions; actions are ``0 .. num_actions - 1``.
        action_names: one short lowercase word per action (``"pass"``, ``"bet"``, ...).
        max_utility: the largest chips a player can win in one game.
        action_aliases: more words for actions, ``(word, action)`` pairs (``("check", 0)``).
        title: the game's name for people (``"Kuhn poker"``).
        openspiel_name: the same game's name in OpenSpiel (``pyspiel.load_game``), for cross-checks.
        num_public_cards: cards dealt face up to both players in a game (``public_card``).
    """

    name: str = ""
    num_players: int = 2
    num_actions: int = 0
    action_names: tuple[str, ...] = ()
    max_utility: float = 0.0
    action_aliases: tuple[tuple[str, int], ...] = ()
    title: str = ""
    openspiel_name: str = ""
    num_public_cards: int = 0

    # ----------------------------------------------------------------------- rules
    def initial_state(self) -> tuple:
        """The empty history ``()``: nothing dealt yet."""
        return ()

    def player_to_move(self, state: tuple) -> int:
        """0 or 1 for a decision, ``CHANCE`` for a deal, ``TERMINAL`` when the game is over."""
        raise NotImplementedError

    def is_terminal(self, state: tuple) -> bool:
        return self.player_to_move(state) == TERMINAL

    def is_chance(self, state: tuple) -> bool:
        return self.player_to_move(state) == CHANCE

    def chance_outcomes(self, state: tuple) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` at a chance history, outcomes ascending."""
        raise NotImplementedError

    def legal_actions(self, state: tuple) -> list[int]:
        """Legal player actions, ascending (OpenSpiel's order); empty unless a player moves."""
        raise NotImplementedError

    def result(self, state: tuple, action: int) -> tuple:
        """The history after ``action`` (a player action or a chance outcome).

        Raises:
            ValueError: if the game is over or ``action`` is not legal (or not a possible outcome).
        """
        if self.is_terminal(state):
            raise ValueError(f"{self.name}: the game is over at history {state}; no action can follow")
        if self.is_chance(state):
            allowed = [outcome for outcome, _ in self.chance_outcomes(state)]
        else:
            allowed = self.legal_actions(state)
        if action not in allowed:
            raise ValueError(f"{self.name}: expected an action in {allowed} at history {state}, got {action}")
        return state + (int(action),)

    def returns(self, state: tuple) -> tuple[float, float]:
        """Chips won by each player at a terminal history; they sum to 0.

        Raises:
            ValueError: if the history is not terminal.
        """
        raise NotImplementedError

    def information_state(self, state: tuple, player: int) -> str:
        """What ``player`` knows at ``state``: OpenSpiel's ``information_state_string(player)``."""
        raise NotImplementedError

    # ----------------------------------------------------------------------- what a player sees
    def private_card(self, state: tuple, player: int) -> int | None:
        """The card dealt to ``player`` (0 or 1), or None before it is dealt.

        Raises:
            ValueError: for a player other than 0 or 1.
        """
        raise NotImplementedError

    def public_card(self, state: tuple) -> int | None:
        """The card dealt face up to both players, or None (none yet, or a game without one)."""
        raise NotImplementedError

    def contributions(self, state: tuple) -> tuple[int, int]:
        """Chips each player has put into the pot so far, antes included; the pot is their sum."""
        raise NotImplementedError

    def action_word(self, state: tuple, action: int) -> str:
        """The poker word for ``action`` at ``state``: ``check`` or ``bet`` when nothing is owed,
        ``fold``, ``call`` or ``raise`` facing a bet (Kuhn's pass is a check or a fold, its bet a
        bet or a call)."""
        raise NotImplementedError

    # ----------------------------------------------------------------------- terminal display
    def card_name(self, card: int) -> str:
        """A card's name for people (``"J"``, ``"Q"``, ``"K"``; Leduc adds the suit)."""
        raise NotImplementedError

    def describe(self, state: tuple, player: int) -> str:
        """A few lines for ``player``: their card(s), the public card, the betting, the pot."""
        raise NotImplementedError

    def parse_action(self, text: str) -> int:
        """An action from a word or its first letter (``"bet"``, ``"b"``), or its id.

        Raises:
            ValueError: if ``text`` names no action; the message lists the names.
        """
        word = text.strip().lower()
        for action, name in enumerate(self.action_names):
            if word in (name, name[0], str(action)):
                return action
        aliases = dict(self.action_aliases)
        if word in aliases:
            return aliases[word]
        raise ValueError(f"expected one of {list(self.action_names)}, got {text.strip()!r}")

    def _check_player(self, player: int) -> None:
        if player not in (0, 1):
            raise ValueError(f"expected player 0 or 1, got {player}")
