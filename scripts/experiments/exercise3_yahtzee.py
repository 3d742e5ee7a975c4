"""Exercise 3: one round of Yahtzee, expectimax over the keep decisions of one turn.

A turn: roll five dice, keep any of them and reroll the rest, twice, then score the final dice in
one of the 13 categories (single round: no upper-section bonus, no Yahtzee bonus). The state of a
turn is the multiset of dice and the rolls left; a decision keeps a sub-multiset, a chance node
rolls the other dice (multinomial probabilities). All arithmetic is exact (``fractions``).

* expectimax: the keep that maximises the expected best category score, at every roll
  (Russell & Norvig, 3rd ed., section 5.5; the turn-level search of Glenn, "An Optimal Strategy
  for Yahtzee", CS-TR-0002, Connecticut College, 2006, section 3);
* greedy baseline: keep the most common face (the higher face on a tie), then score the best
  category.

Known values (asserted in tests/test_exercise3.py): with keep-the-most-common the chance of five of
a kind within three rolls is 2,783,176 / 60,466,176; a turn scored in Chance with optimal rerolls
is worth 70/3; five dice have 252 distinct outcomes and 462 kept sub-multisets (Glenn 2006).

Prints one JSON object; ``--markdown PATH`` writes the table of docs/results/exercise3.md and ``--plot
PATH`` the matplotlib figure of how the chance branching grows with the look-ahead.

    python scripts/experiments/exercise3_yahtzee.py [--markdown docs/results/exercise3.md] [--plot docs/results/exercise3.png]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
import sys
import time
from collections import Counter
from fractions import Fraction

NUM_DICE = 5
FACES = (1, 2, 3, 4, 5, 6)
ROLLS = 3
CATEGORIES = (
    "ones", "twos", "threes", "fours", "fives", "sixes",
    "three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
    "yahtzee", "chance",
)

Dice = tuple  # a sorted tuple of faces: a multiset


def score(dice: Dice, category: str) -> int:
    """Points of ``dice`` in ``category`` (standard Yahtzee card, Hasbro rules)."""
    counts = Counter(dice)
    total = sum(dice)
    if category in CATEGORIES[:6]:
        face = CATEGORIES.index(category) + 1
        return face * counts[face]
    if category == "three_of_a_kind":
        return total if max(counts.values()) >= 3 else 0
    if category == "four_of_a_kind":
        return total if max(counts.values()) >= 4 else 0
    if category == "full_house":
        return 25 if sorted(counts.values()) == [2, 3] else 0
    faces = set(dice)
    if category == "small_straight":
        return 30 if any(set(run) <= faces for run in ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))) else 0
    if category == "large_straight":
        return 40 if faces in ({1, 2, 3, 4, 5}, {2, 3, 4, 5, 6}) else 0
    if category == "yahtzee":
        return 50 if len(counts) == 1 else 0
    if category == "chance":
        return total
    raise ValueError(f"unknown category {category!r}; expected one of {list(CATEGORIES)}")


@functools.lru_cache(maxsize=None)
def roll_outcomes(num_dice: int) -> tuple[tuple[Dice, Fraction], ...]:
    """Distinct outcomes of rolling ``num_dice`` dice with their exact (multinomial) probabilities."""
    out = []
    for dice in itertools.combinations_with_replacement(FACES, num_dice):
        ways = math.factorial(num_dice)
        for count in Counter(dice).values():
            ways //= math.factorial(count)
        out.append((dice, Fraction(ways, 6**num_dice)))
    return tuple(out)


@functools.lru_cache(maxsize=None)
def keeps(dice: Dice) -> tuple[Dice, ...]:
    """The distinct sub-multisets of ``dice`` (the keep decisions), the empty keep included."""
    found = set()
    for size in range(len(dice) + 1):
        found.update(itertools.combinations(dice, size))
    return tuple(sorted(found))


def all_kept_submultisets() -> int:
    """Sub-multisets of at most five dice over six faces: every keep any roll can offer."""
    return sum(len(list(itertools.combinations_with_replacement(FACES, size))) for size in range(NUM_DICE + 1))


def merge(kept: Dice, rolled: Dice) -> Dice:
    return tuple(sorted(kept + rolled))


class TurnSearch:
    """Exact expectimax over the keeps of one turn, scoring with ``score_fn(dice) -> points``.

    ``nodes`` counts distinct states evaluated (decision and chance nodes, memoised).
    """

    def __init__(self, score_fn) -> None:
        self.score_fn = score_fn
        self.nodes = 0
        self._decision: dict = {}
        self._chance: dict = {}

    def decision(self, dice: Dice, rolls_left: int) -> Fraction:
        """Value of holding ``dice`` (five) with ``rolls_left`` rerolls."""
        key = (dice, rolls_left)
        if key not in self._decision:
            self.nodes += 1
            if rolls_left == 0:
                value = Fraction(self.score_fn(dice))
            else:
                value = max(self.chance(kept, rolls_left) for kept in keeps(dice))
            self._decision[key] = value
        return self._decision[key]

    def chance(self, kept: Dice, rolls_left: int) -> Fraction:
        """Expected value of keeping ``kept`` and rolling the other dice (``rolls_left`` >= 1)."""
        key = (kept, rolls_left)
        if key not in self._chance:
            self.nodes += 1
            self._chance[key] = sum(
                (p * self.decision(merge(kept, rolled), rolls_left - 1) for rolled, p in roll_outcomes(NUM_DICE - len(kept))),
                Fraction(0),
            )
        return self._chance[key]

    def turn_value(self) -> Fraction:
        """Expected value of a turn: the first roll of all five dice, then optimal keeps."""
        return self.chance((), ROLLS)

    def best_keep(self, dice: Dice, rolls_left: int) -> Dice:
        """The keep of the largest expected value (the first of equals in ``keeps`` order)."""
        return max(keeps(dice), key=lambda kept: self.chance(kept, rolls_left))


def best_category_score(dice: Dice) -> int:
    return max(score(dice, category) for category in CATEGORIES)


def most_common_keep(dice: Dice) -> Dice:
    """The greedy keep: every die of the most common face (the higher face on a tie)."""
    counts = Counter(dice)
    face = max(counts, key=lambda f: (counts[f], f))
    return (face,) * counts[face]


def policy_value(keep_fn, score_fn, kept: Dice = (), rolls_left: int = ROLLS) -> Fraction:
    """Exact expected final score of a fixed keep policy ``keep_fn(dice) -> kept``."""
    @functools.lru_cache(maxsize=None)
    def after_roll(kept: Dice, rolls_left: int) -> Fraction:
        total = Fraction(0)
        for rolled, p in roll_outcomes(NUM_DICE - len(kept)):
            dice = merge(kept, rolled)
            if rolls_left == 1:
                total += p * score_fn(dice)
            else:
                total += p * after_roll(keep_fn(dice), rolls_left - 1)
        return total

    return after_roll(kept, rolls_left)


def five_of_a_kind_probability() -> Fraction:
    """P(five of a kind within three rolls) when keeping the most common face."""
    return policy_value(most_common_keep, lambda dice: 1 if len(set(dice)) == 1 else 0)


def chance_only_value() -> Fraction:
    """Expected score of a turn scored in Chance with optimal rerolls: 70/3."""
    return TurnSearch(sum).turn_value()


def branching(max_rolls: int) -> list[dict]:
    """Growth of the search with the look-ahead: for each number of rolls ``r``, the chance
    outcomes of the tree (every keep expanded, no merging), the distinct states once merged, and
    the mean chance branching per chance node."""
    rows = []
    for rolls in range(1, max_rolls + 1):
        @functools.lru_cache(maxsize=None)
        def tree_outcomes(kept: Dice, left: int) -> tuple[int, int]:
            # (chance outcomes below this chance node, chance nodes below it, itself included)
            outcomes, nodes = 0, 1
            for rolled, _ in roll_outcomes(NUM_DICE - len(kept)):
                outcomes += 1
                if left > 1:
                    for kept_next in keeps(merge(kept, rolled)):
                        o, n = tree_outcomes(kept_next, left - 1)
                        outcomes, nodes = outcomes + o, nodes + n
            return outcomes, nodes

        outcomes, chance_nodes = tree_outcomes((), rolls)
        search = TurnSearch(best_category_score)
        search.chance((), rolls)
        rows.append({
            "look_ahead_rolls": rolls,
            "tree_chance_outcomes": outcomes,
            "tree_chance_nodes": chance_nodes,
            "mean_chance_branching": outcomes / chance_nodes,
            "distinct_states": search.nodes,
        })
    return rows


def report() -> dict:
    start = time.perf_counter()
    search = TurnSearch(best_category_score)
    optimal = search.turn_value()
    optimal_seconds = time.perf_counter() - start
    start = time.perf_counter()
    greedy = policy_value(most_common_keep, best_category_score)
    greedy_seconds = time.perf_counter() - start
    five = five_of_a_kind_probability()
    chance = chance_only_value()
    return {
        "distinct_outcomes_of_five_dice": len(roll_outcomes(NUM_DICE)),
        "kept_submultisets": all_kept_submultisets(),
        "five_of_a_kind_keep_most_common": f"{five.numerator}/{five.denominator}",
        "five_of_a_kind_keep_most_common_float": float(five),
        "chance_only_optimal": f"{chance.numerator}/{chance.denominator}",
        "players": {
            "expectimax": {"expected_score": float(optimal), "exact": str(optimal), "nodes": search.nodes,
                           "seconds": round(optimal_seconds, 2)},
            "greedy": {"expected_score": float(greedy), "exact": str(greedy), "nodes": None,
                       "seconds": round(greedy_seconds, 2)},
        },
        "branching": branching(ROLLS + 1),
    }


def markdown(data: dict) -> str:
    rows = [
        "| player | expected score | nodes searched | seconds (loaded shared CPU) |",
        "|---|---:|---:|---:|",
    ]
    for name, player in data["players"].items():
        nodes = "-" if player["nodes"] is None else f"{player['nodes']:,}"
        rows.append(f"| {name} | {player['expected_score']:.4f} | {nodes} | {player['seconds']} |")
    rows += ["", "| look-ahead (rolls) | tree chance outcomes | tree chance nodes | mean chance branching | distinct states |",
             "|---:|---:|---:|---:|---:|"]
    for row in data["branching"]:
        rows.append(
            f"| {row['look_ahead_rolls']} | {row['tree_chance_outcomes']:,} | {row['tree_chance_nodes']:,} | "
            f"{row['mean_chance_branching']:.1f} | {row['distinct_states']:,} |"
        )
    return "\n".join(rows) + "\n"


def plot(data: dict, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rolls = [row["look_ahead_rolls"] for row in data["branching"]]
    fig, ax = plt.subplots(figsize=(6.4, 4.0))
    ax.semilogy(rolls, [row["tree_chance_outcomes"] for row in data["branching"]], "o-", label="chance outcomes in the tree")
    ax.semilogy(rolls, [row["distinct_states"] for row in data["branching"]], "s--", label="distinct states (merged)")
    ax.set_xlabel("look-ahead (rolls)")
    ax.set_ylabel("count (log scale)")
    ax.set_xticks(rolls)
    ax.set_title("Yahtzee turn: chance branching against look-ahead")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", metavar="PATH", help="write the tables (markdown) here")
    parser.add_argument("--plot", metavar="PATH", help="write the branching figure here (matplotlib)")
    args = parser.parse_args(argv)
    data = report()
    print(json.dumps(data, indent=1))
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as handle:
            handle.write(markdown(data))
    if args.plot:
        plot(data, args.plot)
    return 0


if __name__ == "__main__":
    sys.exit(main())
