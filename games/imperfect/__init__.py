"""Two-player zero-sum games of imperfect information with chance: Kuhn and Leduc poker.

``games.imperfect.make("kuhn")`` and ``make("leduc")`` return the game objects; the interface is
``games.imperfect.base.ImperfectInformationGame``. Imports nothing beyond the standard library.
"""

from __future__ import annotations

from games.imperfect.base import CHANCE, TERMINAL, ImperfectInformationGame

_REGISTRY = {
    "kuhn": ("games.imperfect.kuhn", "KuhnPoker"),
    "leduc": ("games.imperfect.leduc", "LeducPoker"),
}


def names() -> list[str]:
    """Registered imperfect-information game ids."""
    return sorted(_REGISTRY)


def make(name: str) -> ImperfectInformationGame:
    """Return the imperfect-information game registered as ``name``.

    Raises:
        ValueError: for an unknown name; the message lists the registered ones.
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown imperfect-information game {name!r}; expected one of {names()}")
    import importlib

    module_name, class_name = _REGISTRY[name]
    return getattr(importlib.import_module(module_name), class_name)()


__all__ = ["CHANCE", "TERMINAL", "ImperfectInformationGame", "make", "names"]
