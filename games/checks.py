"""Input checks shared by every layer (``games`` is the lowest one, so all may import it)."""

from __future__ import annotations

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
