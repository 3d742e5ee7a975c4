"""The solver's scripts: benchmark JSON, the set sampler's bucketing rules and a tiny sampling run."""

from __future__ import annotations

import json

import pytest
from helpers_scripts import load_script, run_script

from arena.positions.connect4 import parse_position_lines
from games.connect4.solver import Solver


def run_bench(*args: str):
    return run_script("bench_solver", *args, timeout=300)


def test_bench_prints_one_json_object(connect4_test_sets):
    proc = run_bench("--positions", "20", "--sets", "Test_L3_R1", "Test_L2_R1")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["book"] is False
    for name, pons_nodes in (("Test_L3_R1", 51), ("Test_L2_R1", 450)):
        row = result["sets"][name]
        assert row["positions"] == 20 and row["correct"] == 20
        assert row["mean_us"] > 0 and row["mean_nodes"] > 0
        assert row["pons_nodes"] == pons_nodes


def test_optimal_moves_bench_agrees_with_the_labels():
    proc = run_bench("--optimal-moves", "--positions", "5", "--sets", "end_easy", "middle_easy")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["benchmark"] == "connect4_optimal_moves"
    for name in ("end_easy", "middle_easy"):
        row = result["sets"][name]
        assert row["positions"] == 5 and row["correct"] == 5
        assert row["analyze_mean_ms"] > 0 and row["optimal_moves_mean_ms"] >= 0


def test_optimal_moves_bench_rejects_an_unknown_set():
    proc = run_bench("--optimal-moves", "--sets", "Test_L3_R1")
    assert proc.returncode == 2
    assert "unknown labelled set 'Test_L3_R1'" in proc.stderr


def test_plies_left_and_buckets():
    sets = load_script("make_connect4_sets")
    # Pons' examples: "4455" (ply 4) scores 18: the side to move wins with its 4th stone, 3 plies on
    assert sets.plies_left(4, 18) == 3
    # "44455554221" (ply 11) scores -15: the opponent wins with its 7th stone after one reply
    assert sets.plies_left(11, -15) == 2
    assert sets.plies_left(20, 0) == 22
    # a win with the last (21st) stone of the first player ends at ply 41
    assert sets.plies_left(0, 1) == 41
    assert sets.bucket(30, 0) == "end_easy"
    assert sets.bucket(20, 0) == "middle_medium"  # a draw from ply 20: 22 plies left
    assert sets.bucket(10, 0) == "begin_hard"
    assert sets.bucket(30, -1) == "end_easy"
    assert sets.bucket(16, 1) == "middle_medium"  # 25 plies left
    assert sets.bucket(0, 1) is None  # the empty board is in no set


@pytest.mark.slow
def test_sampler_tiny_run(tmp_path):
    sets = load_script("make_connect4_sets")
    status = sets.main(
        [
            "--size",
            "3",
            "--size-begin-hard",
            "1",
            "--seed",
            "5",
            "--output-dir",
            str(tmp_path),
            "--time-budget",
            "300",
        ]
    )
    assert status == 0
    solver = Solver(tt_size=(1 << 20) + 7, use_book=False)
    for name in ("end_easy", "middle_easy", "middle_medium", "begin_easy", "begin_medium", "begin_hard"):
        path = tmp_path / f"{name}.txt"
        moves, scores = parse_position_lines(path.read_text().splitlines(), str(path))
        assert len(moves) == (1 if name == "begin_hard" else 3)
        if name != "begin_hard":
            m = moves[0]
            assert solver.analyze(m) == [None if s == -128 else int(s) for s in scores[0]]
