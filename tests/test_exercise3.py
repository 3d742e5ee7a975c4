"""Exercise 3 (scripts/experiments/exercise3_yahtzee.py): the known values of a Yahtzee turn, exactly."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from helpers_scripts import load_script


@pytest.fixture(scope="module")
def yahtzee():
    return load_script("exercise3_yahtzee")


def test_counts_of_outcomes_and_keeps(yahtzee):
    assert len(yahtzee.roll_outcomes(5)) == 252
    assert sum(p for _, p in yahtzee.roll_outcomes(5)) == 1
    assert yahtzee.all_kept_submultisets() == 462
    assert len(yahtzee.keeps((1, 2, 3, 4, 5))) == 32 and len(yahtzee.keeps((6, 6, 6, 6, 6))) == 6


def test_five_of_a_kind_keeping_the_most_common_face(yahtzee):
    assert yahtzee.five_of_a_kind_probability() == Fraction(2_783_176, 60_466_176)


def test_chance_with_optimal_rerolls_is_worth_70_over_3(yahtzee):
    assert yahtzee.chance_only_value() == Fraction(70, 3)
    search = yahtzee.TurnSearch(sum)
    search.turn_value()
    assert search.best_keep((1, 2, 4, 5, 6), 2) == (5, 6) and search.best_keep((1, 2, 4, 5, 6), 1) == (4, 5, 6)


def test_scores_of_the_categories(yahtzee):
    score = yahtzee.score
    assert score((2, 2, 3, 3, 3), "full_house") == 25 and score((3, 3, 3, 3, 3), "full_house") == 0
    assert score((1, 2, 3, 4, 6), "small_straight") == 30 and score((1, 2, 3, 4, 6), "large_straight") == 0
    assert score((4, 4, 4, 4, 2), "four_of_a_kind") == 18 and score((5, 5, 5, 5, 5), "yahtzee") == 50
    assert score((6, 6, 1, 2, 6), "sixes") == 18
    with pytest.raises(ValueError, match="unknown category"):
        score((1, 1, 1, 1, 1), "bonus")


def test_expectimax_beats_greedy_and_the_report_is_json(yahtzee, tmp_path, capsys):
    markdown, figure = tmp_path / "ex3.md", tmp_path / "ex3.png"
    yahtzee.main(["--markdown", str(markdown), "--plot", str(figure)])
    data = json.loads(capsys.readouterr().out)
    optimal = Fraction(data["players"]["expectimax"]["exact"])
    greedy = Fraction(data["players"]["greedy"]["exact"])
    assert optimal == Fraction(61958794435, 2176782336) and greedy == Fraction(478939205, 22674816)
    assert optimal > greedy
    assert [row["tree_chance_outcomes"] for row in data["branching"][:3]] == [252, 254_352, 272_466_600]
    assert figure.stat().st_size > 1000 and "| expectimax |" in markdown.read_text()
