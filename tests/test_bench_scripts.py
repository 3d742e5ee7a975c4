"""Smoke tests of scripts/bench_selfplay.py and scripts/experiments/exercise2_mcts_budget.py with tiny settings.

They check that the scripts run, validate their options and print JSON with the documented keys;
nothing here compares timings.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from helpers_scripts import load_script, run_script


@pytest.fixture(scope="module")
def exercise2():
    return load_script("exercise2_mcts_budget")


# ------------------------------------------------------------------------------ bench_selfplay
def test_bench_selfplay_prints_one_json_object_with_the_documented_keys(tmp_path):
    out = tmp_path / "bench.json"
    result = run_script(
        "bench_selfplay", "--batch-sizes", "3", "--simulations", "2", "--seconds", "0.01", "--json", str(out)
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert json.loads(out.read_text()) == report
    runs = report["runs"]
    assert [(run["game"], run["batch_size"]) for run in runs] == [("connect4", 3), ("tictactoe", 3)]
    keys = {
        "game",
        "batch_size",
        "network",
        "forward_evals_per_s",
        "selfplay_evals_per_s",
        "ratio",
        "positions_per_s",
        "simulations_per_move",
        "tree_sims_per_s",
    }
    for run in runs:
        assert keys <= set(run)
        assert run["network"] == {"connect4": "b4c32", "tictactoe": "mlp128x2"}[run["game"]]
        assert run["simulations_per_move"] == 2
        for key in ("forward_evals_per_s", "selfplay_evals_per_s", "positions_per_s", "tree_sims_per_s"):
            assert run[key] > 0, key
        assert run["ratio"] == pytest.approx(
            run["selfplay_evals_per_s"] / run["forward_evals_per_s"], rel=0.01, abs=0.002
        )  # both rates are rounded to integers, the ratio to 3 decimals
    assert report["settings"]["torch_threads"] == 1


@pytest.fixture(scope="module")
def bench():
    saved = os.environ.get("NUMBA_NUM_THREADS")  # the script sets it on import
    try:
        yield load_script("bench_selfplay")
    finally:
        if saved is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = saved


@pytest.mark.parametrize(
    "args, message",
    [
        (["--batch-sizes", "0"], "expected a positive integer"),
        (["--seconds", "-1"], "expected a number of seconds > 0"),
        (["--seconds", "nan"], "expected a number of seconds > 0"),
        (["--games", "chess"], "invalid choice"),
    ],
)
def test_bench_selfplay_rejects_bad_options(bench, args, message, capsys):
    with pytest.raises(SystemExit):
        bench.parse_args(args)
    assert message in capsys.readouterr().err


def test_bench_selfplay_rejects_an_unknown_network_in_its_own_words(bench, capsys):
    # Checked before the script pins its CPU or sets torch's threads, so safe in-process.
    with pytest.raises(SystemExit, match="network name 'b4x32'"):
        bench.main(["--connect4-network", "b4x32", "--json", "-"])
    assert capsys.readouterr().out == ""


def test_sampled_positions_are_legal_and_unfinished(bench):
    import games

    for name in ("tictactoe", "connect4"):
        game = games.make(name)
        states, observations, legal = bench.sample_positions(game, 50, np.random.default_rng(1))
        assert not game.terminal(states).any()
        assert legal.any(axis=1).all()
        assert observations.shape == (50, *game.observation_shape)
        assert game.ply(states).max() > 0


# ---------------------------------------------------------------------------------- exercise 2
def test_exercise2_writes_json_markdown_and_svg(exercise2, tmp_path, capsys):
    paths = {name: tmp_path / f"ex2.{name}" for name in ("json", "md", "svg")}
    report = exercise2.main(
        [
            "--games",
            "2",
            "--max-budget",
            "4",
            "--extra-points",
            "0",
            "--json",
            str(paths["json"]),
            "--markdown",
            str(paths["md"]),
            "--svg",
            str(paths["svg"]),
        ]
    )
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(paths["json"].read_text()) == json.loads(json.dumps(report))
    assert report["settings"]["max_budget"] == 4
    for name in ("uct", "puct"):
        rows = report["results"][name]
        assert [row["budget"] for row in rows] == [1, 2, 4]
        for row in rows:
            assert row["games"] == 4
            assert row["wins"] == 0  # perfect play never loses
            assert row["losses"] + row["draws"] == 4
            assert row["losses_as_x"] + row["losses_as_o"] == row["losses"]
            assert row["loss_rate"] == row["losses"] / 4
        assert set(report["smallest_zero_loss_budget"][name]) == {"first", "stable"}
    table = [line for line in paths["md"].read_text().splitlines() if line.startswith("|")]
    assert len(table) == 2 + 3  # header, separator, one row per budget
    svg = ET.parse(paths["svg"]).getroot()
    assert len(svg.findall("{http://www.w3.org/2000/svg}polyline")) == 2


def test_exercise2_is_reproducible(exercise2):
    first = exercise2.play_budget("puct", 3, 3, seed=5)
    second = exercise2.play_budget("puct", 3, 3, seed=5)
    first.pop("seconds"), second.pop("seconds")
    assert first == second


def test_smallest_zero_loss_budget(exercise2):
    rows = [{"budget": b, "losses": n} for b, n in ((1, 9), (2, 0), (4, 1), (8, 0), (16, 0))]
    assert exercise2.smallest_zero_budgets(rows) == {"first": 2, "stable": 8}
    assert exercise2.smallest_zero_budgets(rows[:3]) == {"first": 2, "stable": None}
    assert exercise2.smallest_zero_budgets(rows[:1]) == {"first": None, "stable": None}


@pytest.mark.parametrize("args", [["--games", "0"], ["--max-budget", "x"], ["--extra-points", "-1"]])
def test_exercise2_rejects_bad_options(exercise2, args, capsys):
    with pytest.raises(SystemExit):
        exercise2.main(args)
    assert "expected an integer" in capsys.readouterr().err


def test_exercise2_can_extend_a_sweep_for_one_search(exercise2, tmp_path, capsys):
    report = exercise2.main(
        ["--games", "1", "--algorithms", "uct", "--min-budget", "2", "--max-budget", "4"]
        + ["--markdown", str(tmp_path / "ex2.md"), "--svg", str(tmp_path / "ex2.svg")]
    )
    capsys.readouterr()
    assert list(report["results"]) == ["uct"]
    assert [row["budget"] for row in report["results"]["uct"]] == [2, 4]
    # a budget's games do not depend on which other budgets the sweep played
    alone = exercise2.play_budget("uct", 4, 1, seed=0)
    assert {k: v for k, v in alone.items() if k != "seconds"} == {
        k: v for k, v in report["results"]["uct"][1].items() if k != "seconds"
    }
    assert "UCT loss rate" in (tmp_path / "ex2.md").read_text()


def test_exercise2_rejects_a_min_budget_above_the_max(exercise2):
    with pytest.raises(SystemExit, match="--min-budget 8 is above --max-budget 4"):
        exercise2.main(["--min-budget", "8", "--max-budget", "4", "--markdown", "-", "--svg", "-"])


# ------------------------------------------------------------------------------ bench_puct_single
@pytest.mark.slow
def test_bench_puct_single_reports_each_variant_against_its_network_floor():
    result = run_script(
        "bench_puct_single", "--simulations", "8", "--rounds", "1", "--positions", "1", "--thread-settings", "1", "0"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)["connect4"]
    variants = [
        "search", "search_mirror", "via_evaluate", "via_evaluate_mirror", "batched_loop", "batched_loop_mirror",
        "free_network", "free_network_mirror", "threads_1", "threads_0",
    ]
    assert [name for name in report if isinstance(report[name], dict)] == variants
    # the first position is the start (no terminal leaf in 8 simulations): the root, 8 leaves and
    # the player's own look at the position, whatever the path, runtime or network
    assert {report[name]["network_calls_per_search"] for name in variants} == {10.0}
    assert {"bound_runs_over_floor"} <= set(report["search"]) and {"bound_runs_over_floor"} <= set(report["search_mirror"])
    assert min(report["threads_1"]["over_best"], report["threads_0"]["over_best"]) == 1.0


def test_bench_puct_single_reads_thread_settings_and_refuses_others():
    bench = load_script("bench_puct_single")
    assert bench.parse_setting("1") == (1, False)
    assert bench.parse_setting("2:spin") == (2, True)
    assert bench.parse_setting("0") == (0, True)  # ONNX Runtime's own default spins
    with pytest.raises(ValueError, match=r"expected a thread setting N or N:spin \(N >= 0\), got '1:fast'"):
        bench.parse_setting("1:fast")
