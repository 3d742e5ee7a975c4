"""Two tabular policies compared by their exact expected value (what ``arena expected-value`` prints).

Poker is not symmetric between the seats, so A plays both: ``a_first`` is player 0's expected
chips with A as player 0 and B as player 1, ``a_second`` A's expected chips as player 1;
``a_per_hand`` is their mean, A's expected winnings per hand with seats alternated (0 for a policy
against itself). Each is summed exactly over every deal and action
(``search.best_response.expected_value``), no sampling; the NashConv of each policy is given too.
"""

from __future__ import annotations

from arena.tabular_policy import UNIFORM, load_policy
from search.best_response import expected_value, nash_conv


def compare(spec_a: str, spec_b: str, game: str | None = None) -> dict:
    """The exact comparison of two policies (file paths or ``"uniform"``) as a dict (chips).

    Raises:
        FileNotFoundError: for a missing file; ValueError: for a bad file, policies of different
            games, or two ``uniform`` policies without a game.
    """
    if game is None:
        for spec in (spec_a, spec_b):
            if spec != UNIFORM:
                game = load_policy(spec)[0].game.name
                break
    tree, policy_a = load_policy(spec_a, game)
    _, policy_b = load_policy(spec_b, game)
    first = expected_value(tree, policy_a, policy_b)
    second = -expected_value(tree, policy_b, policy_a)
    return {
        "game": tree.game.name,
        "a": spec_a,
        "b": spec_b,
        "a_first": first,
        "a_second": second,
        "a_per_hand": (first + second) / 2.0,
        "nash_conv_a": nash_conv(tree, policy_a),
        "nash_conv_b": nash_conv(tree, policy_b),
    }
