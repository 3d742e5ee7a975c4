"""Smoke test of the exercise-1 script: it runs, and its JSON and markdown agree."""

from __future__ import annotations

import json

import pytest
from helpers_scripts import load_script


@pytest.fixture(scope="module")
def exercise1():
    return load_script("exercise1_alphabeta")


def test_pons_scores_become_plies_to_the_result(exercise1):
    # Pons' convention ("Solving Connect 4", part 2): score s > 0 is a win with the (22 - s)th stone
    assert exercise1.pons_plies(11, 8) == "win in 13"
    assert exercise1.pons_plies(8, 23) == "win in 5"
    assert exercise1.pons_plies(-3, 14) == "loss in 24"
    assert exercise1.pons_plies(0, 15) == "draw"


def test_exercise1_writes_json_and_markdown(exercise1, tmp_path, capsys):
    json_path, markdown_path = tmp_path / "ex1.json", tmp_path / "ex1.md"
    exercise1.main(["--time-limit", "0.02", "--json", str(json_path), "--markdown", str(markdown_path)])
    report = json.loads(json_path.read_text())
    assert json.loads(capsys.readouterr().out) == report
    assert len(report["positions"]) == len(exercise1.POSITIONS) == 8
    table_rows = [line for line in markdown_path.read_text().splitlines() if line.startswith("| ")]
    assert len(table_rows) == 2 + 8  # header, separator, one row per position
    for row in report["positions"]:
        for run in ("ordered", "unordered"):
            assert row[run]["depth_completed"] >= 1
            assert len(row[run]["nodes_per_depth"]) == row[run]["depth_completed"]
        assert row["common_depth"] == min(
            row["ordered"]["depth_completed"], row["unordered"]["depth_completed"]
        )
