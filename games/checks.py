"""Input checks shared by every layer (``games`` is the lowest one, so all may import it): value
checks for library arguments and ``argparse`` types for command lines."""

from __future__ import annotations

import argparse

import numpy as np


def is_int(value) -> bool:
    """True for a Python or numpy integer and False for a bool: ``True`` as a count or a size is a
    typo, though ``bool`` is a subclass of ``int``."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_int(name: str, value, minimum: int | None = None) -> int:
    """``value`` as an ``int`` if :func:`is_int` and ``>= minimum`` (when given).

    Raises:
        ValueError: ``"NAME: expected an int >= MINIMUM, got VALUE"``.
    """
    bound = "" if minimum is None else f" >= {minimum}"
    if not is_int(value) or (minimum is not None and value < minimum):
        shown = int(value) if is_int(value) else repr(value)
        raise ValueError(f"{name}: expected an int{bound}, got {shown}")
    return int(value)


def int_argument(minimum: int):
    """An ``argparse`` ``type=``: the text as an ``int`` that is at least ``minimum``.

    ``parser.add_argument("--games", type=int_argument(1))``; the command line's error then reads
    ``"expected an integer >= 1, got 'x'"`` (text that is no integer) or ``"..., got 0"``.

    Raises (from the returned function):
        argparse.ArgumentTypeError: for text that is not an integer or an integer below ``minimum``.
    """

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer >= {minimum}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


def check_number(name: str, value, low: float, high: float | None = None, *, low_open: bool = False,
                 high_open: bool = False) -> float:
    """``value`` as a ``float`` if it is a finite number (not a bool) in the range: ``> low``
    (``low_open``) or ``>= low``, and ``< high`` / ``<= high`` when ``high`` is given.

    Raises:
        ValueError: ``"NAME: expected a number, got VALUE"`` for a non-number;
            ``"NAME: expected a finite number > LOW, got VALUE"`` without ``high``, else
            ``"NAME: expected in [LOW, HIGH), got VALUE"`` (brackets as the bounds are open or closed).
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name}: expected a number, got {value!r}")
    number = float(value)
    inside = np.isfinite(number) and (number > low if low_open else number >= low)
    if high is not None:
        inside = inside and (number < high if high_open else number <= high)
    if not inside:
        if high is None:
            raise ValueError(f"{name}: expected a finite number {'>' if low_open else '>='} {low}, got {value}")
        brackets = ("(" if low_open else "[", ")" if high_open else "]")
        raise ValueError(f"{name}: expected in {brackets[0]}{low}, {high}{brackets[1]}, got {value}")
    return number


def check_choice(name: str, value, choices) -> None:
    """Raises ``ValueError`` ``"NAME: expected one of [CHOICES], got VALUE"`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name}: expected one of {list(choices)}, got {value!r}")
