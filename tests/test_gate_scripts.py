"""scripts/gate_false_promotion.py (both gates at equal strength) and scripts/sprt_operating_curve.py
(the sequential gate on simulated pairs)."""

from __future__ import annotations

import pytest
from helpers_scripts import load_script


def test_false_promotion_script_plays_each_rule_with_its_own_budget(capsys):
    script = load_script("gate_false_promotion")
    report = script.main(["--game", "tictactoe", "--decisions", "3", "--games", "6", "--max-games", "12",
                          "--pairs-per-look", "2", "--simulations", "2", "--elo1", "10"])
    capsys.readouterr()
    fixed, sprt = report["results"]["fixed"], report["results"]["sprt"]
    assert fixed["decisions"] == sprt["decisions"] == 3 and fixed["mean_games"] == 6.0
    # 12 games cannot reach log 19 against [0, 10] Elo: every decision ends at the cap, rejected
    assert sprt["endings"] == {"cap": 3} and sprt["promotions"] == 0 and sprt["mean_games"] == 12.0
    assert sprt["wilson_95"][0] == 0.0 and sprt["wilson_95"][1] == pytest.approx(0.5614970317550455)
    assert 0 <= fixed["promotions"] <= 3 and fixed["false_promotion_rate"] == fixed["promotions"] / 3


def test_operating_curve_of_certain_wins_and_losses(capsys):
    script = load_script("sprt_operating_curve")
    report = script.main(["--elo", "3000", "-3000", "0", "--decisions", "20", "--elo1", "10", "--max-games", "400"])
    capsys.readouterr()
    win, loss, equal = report["curve"]
    # every pair 2-0: the LLR first passes log 19 at 110 pairs (3.12; 100 pairs give 2.84)
    assert (win["promotion_rate"], win["mean_games"]) == (1.0, 220.0)
    assert (loss["promotion_rate"], loss["mean_games"]) == (0.0, 220.0)  # the mirror: 110 pairs lost 0-2
    assert equal["promotion_rate"] == 0.0 and equal["mean_games"] == 400.0
