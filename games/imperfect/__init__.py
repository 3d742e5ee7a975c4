"""Two-player zero-sum games of imperfect information with chance: Kuhn and Leduc poker.

``games.make("kuhn")`` and ``games.make("leduc")`` return the game objects (kind
``games.IMPERFECT``); the interface is ``games.imperfect.base.ImperfectInformationGame``. Imports
nothing beyond the standard library.
"""
