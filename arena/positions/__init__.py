"""Positions labelled by perfect play, per game: the evaluation data accuracy is measured on.

``position_sets(game)`` returns the ``PositionSets`` of a game: the names of its labelled sets
(``arena.positions.labelled.LabelledSet``, measured by default), further groups measured only
when named, sets measured on the moves a player chose (too dear to label whole), and the reader
of labelled files in the game's own format. The shipped games register theirs here; any other
game has none.

* tic-tac-toe: ``all``, every reachable non-terminal position (``arena.positions.exhaustive``);
* Connect Four: the project's six solver-labelled sets (``arena/positions/connect4``), Pascal
  Pons' six test sets when their files are present beside the checkout, as the group ``pons``
  and as chosen-move sets (``arena.positions.pons``, ``arena.positions.pons_chosen``);
* Pig: ``optimal_play`` and ``random_play`` labelled by win probability (``arena.positions.pig``).
"""

from __future__ import annotations

import functools

from arena.positions import pig as pig_sets
from arena.positions import pons, pons_chosen
from arena.positions.connect4 import load_position_set, position_set_names, read_position_file
from arena.positions.exhaustive import every_position_labelled_set
from arena.positions.labelled import LabelledSet
from games.base import Game
from games.tictactoe import TicTacToe


class PositionSets:
    """The labelled positions of ``game``; this base class has none. A game's subclass overrides
    what it ships.

    Args:
        game: the game whose states the sets hold.
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def labelled_set_names(self) -> list[str]:
        """Names of the labelled sets measured by default (``arena accuracy``, the training run's
        mistake-rate curves). Default: none."""
        return []

    def labelled_set_groups(self) -> dict[str, list[str]]:
        """Further labelled sets, measured only when named (never by default, so not in
        ``labelled_set_names``): ``{group name: [set names]}``; ``labelled_set`` accepts each set
        name. Default: none."""
        return {}

    def labelled_set(self, name: str) -> LabelledSet:
        """The labelled set ``name``.

        Raises:
            ValueError: for a name not in ``labelled_set_names()`` (the message lists them).
        """
        known = self.labelled_set_names()
        raise ValueError(f"unknown position set {name!r} for {self.game.name}; expected one of {known}")

    def chosen_move_set_names(self) -> list[str]:
        """Sets measured on every line by solving only the moves a player chose, for sets too dear
        to label whole (``arena.accuracy.chosen_move_rate``). Default: none."""
        return []

    def chosen_move_positions(self, name: str) -> list[str]:
        """The move strings of every line of the chosen-move set ``name``, in file order.

        Raises:
            ValueError: for a name not in ``chosen_move_set_names()`` (the message lists them).
        """
        raise ValueError(
            f"{self.game.name} has no set measured by chosen moves named {name!r}; "
            f"expected one of {self.chosen_move_set_names()}"
        )

    def chosen_move_mistakes(self, name: str, actions, workers: int = 1, progress=None) -> dict:
        """Which of ``actions`` (``[K]`` int, the first ``K`` lines of set ``name``) are mistakes:
        ``{"mistakes": [K] bool, "solved": moves searched now, "seconds": their CPU seconds}``.

        Raises:
            ValueError: for a name not in ``chosen_move_set_names()``, or bad actions.
        """
        self.chosen_move_positions(name)  # the error for an unknown name
        raise ValueError(f"{self.game.name} has no chosen-move sets")

    def read_labelled_set(self, path) -> LabelledSet:
        """A labelled set read from a file in the game's own format.

        Raises:
            ValueError: by default: the game has no such format (Connect Four has one,
                ``arena/positions/connect4``).
        """
        raise ValueError(
            f"{self.game.name} reads no labelled-position files; the shipped format is Connect Four's "
            "(arena/positions/connect4)"
        )


class TicTacToeSets(PositionSets):
    """One set, ``all``: every reachable non-terminal position (4,520), each action labelled by
    exhaustive negamax (``arena.positions.exhaustive``), computed once per process."""

    #: name of the single labelled set
    ALL = "all"

    def labelled_set_names(self) -> list[str]:
        return [self.ALL]

    def labelled_set(self, name: str) -> LabelledSet:
        if name != self.ALL:
            return super().labelled_set(name)
        return _every_tictactoe_position()


@functools.lru_cache(maxsize=1)
def _every_tictactoe_position() -> LabelledSet:
    return every_position_labelled_set(TicTacToe(), TicTacToeSets.ALL)


class ConnectFourSets(PositionSets):
    """The project's solver-labelled sets, and Pons' test sets when their files are present."""

    def labelled_set_names(self) -> list[str]:
        """The solver-labelled sets shipped in ``arena/positions/connect4`` (present files only)."""
        return position_set_names()

    def labelled_set_groups(self) -> dict[str, list[str]]:
        """``{"pons": [...]}``: Pascal Pons' test sets whose files are present beside the checkout
        (``arena.positions.pons``: ``pons-end-easy`` ... ``pons-begin-hard``); ``{}`` without them."""
        present = pons.available()
        return {pons.GROUP: present} if present else {}

    def chosen_move_set_names(self) -> list[str]:
        """Pons' sets whose files are present: each is measured on every line by chosen moves."""
        return pons.available()

    def chosen_move_positions(self, name: str) -> list[str]:
        """The move strings of every line of Pons' set ``name``.

        Raises:
            ValueError: for a name that is not a present Pons set, or a malformed file.
        """
        if name not in self.chosen_move_set_names():
            return super().chosen_move_positions(name)
        return pons.read_set(name).moves

    def chosen_move_mistakes(self, name: str, actions, workers: int = 1, progress=None) -> dict:
        """``arena.positions.pons_chosen.chosen_move_mistakes`` for Pons' set ``name``."""
        self.chosen_move_positions(name)
        return pons_chosen.chosen_move_mistakes(name, actions, workers=workers, progress=progress)

    def labelled_set(self, name: str) -> LabelledSet:
        """The shipped set ``name`` (outcome = sign of score), or a Pons set (``pons-...``: its
        cached labelled lines, ``arena.positions.pons.labelled_set``).

        Raises:
            ValueError: for an unknown name (the message lists the known ones), or a Pons set
                with no cached labels (the message gives the command that labels it).
            FileNotFoundError: for a Pons set whose file is absent.
        """
        if name in pons.SETS:
            return pons.labelled_set(name, self.game)
        if name not in self.labelled_set_names():
            return super().labelled_set(name)
        return load_position_set(name).to_labelled_set(self.game)

    def read_labelled_set(self, path) -> LabelledSet:
        """A labelled set from a file in the format of ``arena/positions/connect4``.

        Raises:
            FileNotFoundError: if ``path`` does not exist.
            ValueError: for a malformed line.
        """
        return read_position_file(path).to_labelled_set(self.game)


class PigSets(PositionSets):
    """``optimal_play`` and ``random_play``: decision positions with each action's exact win
    probability (``arena.positions.pig``), for the game's goal and die."""

    def labelled_set_names(self) -> list[str]:
        return list(pig_sets.SET_NAMES)

    def labelled_set(self, name: str) -> LabelledSet:
        return pig_sets.labelled_set(self.game, name)


#: the position sets of each game id that ships some
_SETS: dict[str, type[PositionSets]] = {
    "tictactoe": TicTacToeSets,
    "connect4": ConnectFourSets,
    "pig": PigSets,
}


def position_sets(game: Game) -> PositionSets:
    """The labelled positions of ``game``: its registered ``PositionSets`` subclass, else the
    empty ``PositionSets`` (a game that ships none)."""
    return _SETS.get(game.name, PositionSets)(game)


__all__ = ["ConnectFourSets", "PigSets", "PositionSets", "TicTacToeSets", "position_sets"]
