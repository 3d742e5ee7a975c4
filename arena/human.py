"""A human at a terminal: moves typed in the game's notation."""

from __future__ import annotations

import sys

import numpy as np

from arena.player_base import legal_actions, make_rng
from games.base import Game


class HumanQuit(Exception):
    """Raised by ``HumanPlayer`` when the human types ``quit`` or the input ends."""


#: the players' symbols in messages, by player index (0 moves first)
PLAYER_SYMBOLS = ("X", "O")


class HumanPlayer:
    """Reads moves from a text stream in the game's move notation (1-based), re-prompting on bad input.

    Every prompt names the human's side (``X``: the first player, ``O``: the second) above the
    board; :meth:`game_over` shows the final board and the result from the human's side.

    Args:
        input_stream, output_stream: text streams (default ``sys.stdin`` / ``sys.stdout``).

    Raises (``select_action``):
        HumanQuit: on ``quit`` or end of input.
    """

    def __init__(self, rng: np.random.Generator | int = 0, name: str = "human", input_stream=None, output_stream=None):
        self.rng = make_rng(rng)
        self.name = name
        self.input_stream = input_stream if input_stream is not None else sys.stdin
        self.output_stream = output_stream if output_stream is not None else sys.stdout
        self.side: int | None = None  # the side of the game in progress, once asked for a move

    def select_action(self, game: Game, state: tuple) -> int:
        legal = legal_actions(game, state)
        legal_text = " ".join(game.action_to_string(a) for a in legal)
        out = self.output_stream
        side = game.player(state)
        self.side = side
        out.write(f"you play {PLAYER_SYMBOLS[side]} ({'first' if side == 0 else 'second'} player)\n")
        out.write(game.render(state) + "\n")
        while True:
            out.write(f"your move as {PLAYER_SYMBOLS[side]} ({legal_text}, quit): ")
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


    def game_over(self, game: Game, state: tuple, human_side: int) -> None:
        """Show the final board of a finished game and its result for the human (``human_side``:
        0 if the human moved first)."""
        utility = game.utility(state, human_side)
        outcome = "you win" if utility > 0 else ("you lose" if utility < 0 else "draw")
        self.output_stream.write(
            f"{game.render(state)}\ngame over: {outcome} (you played {PLAYER_SYMBOLS[human_side]})\n"
        )
        self.output_stream.flush()


def parse_move_token(game: Game, state: tuple, text: str) -> int | None:
    """The 0-based action one move token stands for, or None if it is not legal: the
    ``game.action_to_string`` of a legal action (``"d3"``, ``"pass"`` in Othello; any case), else
    the 1-based action number (``"4"``)."""
    text = text.strip()
    legal = game.actions(state)
    by_name = {game.action_to_string(a).lower(): a for a in legal}
    if text.lower() in by_name:
        return by_name[text.lower()]
    if not text or len(text) > 3 or not text.isdigit() or not text.isascii():
        return None
    action = int(text) - 1
    return action if action in legal else None
