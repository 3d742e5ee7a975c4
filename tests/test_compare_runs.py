"""scripts/compare_runs.py (configuration parsing, curves read back from TensorBoard, the rate at a
mark, the plot) and scripts/bench_network.py --onnx (ONNX Runtime at equal outputs)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers_scripts import load_script as _load


def test_parse_config_and_rate_at():
    compare = _load("compare_runs")
    assert compare.parse_config("gumbel=mcts.algorithm=gumbel mcts.num_simulations=16") == (
        "gumbel", ["mcts.algorithm=gumbel", "mcts.num_simulations=16"]
    )
    assert compare.parse_config("baseline=") == ("baseline", [])
    with pytest.raises(ValueError, match="NAME=OVERRIDES"):
        compare.parse_config("baseline")
    curve = [[10.0, 0.5], [20.0, 0.25], [40.0, 0.0]]
    assert compare.rate_at(curve, 5.0) is None
    assert compare.rate_at(curve, 20.0) == 0.25
    assert compare.rate_at(curve, 39.9) == 0.25
    assert compare.rate_at(curve, 100.0) == 0.0


def test_side_by_side_pins_each_run_to_one_cpu_with_the_whole_machines_actors(tmp_path):
    import os

    compare = _load("compare_runs")
    command = compare.train_command("connect4", ["mcts.algorithm=gumbel"], 1, 15, tmp_path / "r", nice=0, cpu=1)
    assert command[:3] == ["taskset", "-c", "1"]
    assert command[-2:] == [f"ray.num_cpus={os.cpu_count()}", "mcts.algorithm=gumbel"]
    assert "run.seed=1" in command and "run.max_minutes=15" in command
    # a configuration's own ray.num_cpus is kept, once; without a CPU the command is not pinned
    own = compare.train_command("connect4", ["ray.num_cpus=4"], 0, 15, tmp_path / "r", cpu=0)
    assert [c for c in own if c.startswith("ray.num_cpus=")] == ["ray.num_cpus=4"]
    plain = compare.train_command("connect4", [], 0, 15, tmp_path / "r", nice=10)
    assert plain[:3] == ["nice", "-n", "10"] and not any(c.startswith("ray.num_cpus=") for c in plain)


def test_curves_come_back_from_tensorboard_with_their_seconds(tmp_path):
    from torch.utils.tensorboard import SummaryWriter

    compare = _load("compare_runs")
    writer = SummaryWriter(str(tmp_path / "tensorboard"))
    writer.add_scalar("arena/mistake_rate/all", 0.5, 10, walltime=1000.0)
    writer.add_scalar("arena/mistake_rate/all", 0.125, 20, walltime=1030.5)
    writer.add_scalar("selfplay/games", 77, 20, walltime=1030.5)
    writer.close()
    curves = compare.read_curves(tmp_path, start_wall=990.0)
    assert curves["mistake_rates"] == {"all": [[10.0, 0.5], [40.5, 0.125]]}
    assert curves["games"] == 77 and curves["steps"] == 20
    results = {"a": [{"seed": 0, "mistake_rates": curves["mistake_rates"]}]}
    compare.plot(results, tmp_path / "compare.png")
    assert (tmp_path / "compare.png").stat().st_size > 1000


def test_bench_network_onnx_matches_torch():
    bench = _load("bench_network")
    from networks.config import TICTACTOE_DEFAULT

    runs = bench.bench(TICTACTOE_DEFAULT, "tictactoe", [4], 0.01, bench.device_from_config("cpu"), None, False,
                       onnx_threads=1)
    assert runs[0]["onnx_max_abs_prior_difference"] < 1e-5
    assert runs[0]["onnx_max_abs_value_difference"] < 1e-5
    assert runs[0]["onnx_evaluator_positions_per_s"] > 0


def _write_best(folder, version: int) -> None:
    import json

    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.pt").write_bytes(bytes([version % 256]) * 64)
    (folder / "model.json").write_text(json.dumps({"extra": {"best_version": version}}))


def test_snapshot_best_copies_the_whole_folder_and_retakes_a_copy_the_trainer_changed(tmp_path, monkeypatch):
    compare = _load("compare_runs")
    run = tmp_path / "run"
    assert compare.snapshot_best(run, tmp_path / "b15") is None  # no best/ yet: nothing copied
    assert not (tmp_path / "b15").exists()
    _write_best(run / "best", 500)
    assert compare.snapshot_best(run, tmp_path / "b15") == 500
    assert (tmp_path / "b15" / "model.pt").read_bytes() == bytes([500 % 256]) * 64
    assert not (tmp_path / "b15.tmp").exists()

    # a promotion in the middle of the first copy: that copy is thrown away, the second holds v1000 whole
    real_copytree = compare.shutil.copytree
    calls = []

    def copy_during_a_promotion(source, dest):
        real_copytree(source, dest)
        calls.append(dest)
        if len(calls) == 1:
            _write_best(run / "best", 1000)
            (run / "best" / "model.pt").write_bytes(b"\x01" * 80)

    monkeypatch.setattr(compare.shutil, "copytree", copy_during_a_promotion)
    monkeypatch.setattr(compare.time, "sleep", lambda seconds: None)
    assert compare.snapshot_best(run, tmp_path / "b15") == 1000
    assert len(calls) == 2
    assert (tmp_path / "b15" / "model.pt").read_bytes() == b"\x01" * 80

    # changed during every try: no copy, and the earlier snapshot is left as it was
    def always_changing(source, dest):
        real_copytree(source, dest)
        (run / "best" / "model.pt").write_bytes(b"\x02" * (100 + len(calls)))
        calls.append(dest)

    monkeypatch.setattr(compare.shutil, "copytree", always_changing)
    assert compare.snapshot_best(run, tmp_path / "b15", tries=3) is None
    assert (tmp_path / "b15" / "model.pt").read_bytes() == b"\x01" * 80
    assert not (tmp_path / "b15.tmp").exists()


def test_run_with_snapshots_copies_best_at_each_mark_it_reaches(tmp_path):
    import os
    import sys

    compare = _load("compare_runs")
    run, prefix = tmp_path / "run", tmp_path / "seed0_best"
    # a stand-in for train: best v1, then v2 once the first snapshot exists, then it ends after the second
    child = f"""
import json, os, time
from pathlib import Path
def best(version):
    folder = Path({str(run)!r}) / "best"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "model.json.tmp").write_text(json.dumps({{"extra": {{"best_version": version}}}}))
    os.replace(folder / "model.json.tmp", folder / "model.json")
def wait_for(path):
    for _ in range(3000):
        if Path(path).exists():
            return
        time.sleep(0.01)
    raise SystemExit(3)
best(1)
print("v1 written")
wait_for({str(prefix) + "0.001"!r})
best(2)
wait_for({str(prefix) + "0.05"!r})
"""
    code, log, taken = compare.run_with_snapshots(
        [sys.executable, "-c", child], dict(os.environ), tmp_path / "seed0.log", run, prefix,
        [0.05, 0.001, 10.0], poll_seconds=0.02)
    assert code == 0 and "v1 written" in log
    assert taken == {"0.001": 1, "0.05": 2}  # the 10-minute mark is never reached
    assert not Path(f"{prefix}10").exists()


def test_pooled_mcnemar_sums_each_seeds_discordant_positions():
    compare = _load("compare_runs")
    row = {"positions": 100, "mistakes_a": 9, "mistakes_b": 4, "only_a": 6, "only_b": 1, "p_value": 0.125}
    other = {"positions": 100, "mistakes_a": 7, "mistakes_b": 5, "only_a": 4, "only_b": 2, "p_value": 0.6875}
    pooled = compare.pooled_mcnemar([{"0": {"all": row}}, {"0": {"all": other}}])
    total = pooled["0"]["all"]
    assert (total["positions"], total["mistakes_a"], total["mistakes_b"]) == (200, 16, 9)
    assert (total["only_a"], total["only_b"]) == (10, 3)
    # two-sided exact: 2 * (1 + 13 + 78 + 286) / 2^13
    assert total["p_value"] == pytest.approx(2 * 378 / 8192, abs=1e-15)
    assert compare.pooled_mcnemar([]) == {}


def test_paired_comparison_measures_the_final_best_models_of_each_seed(tmp_path):
    from helpers_models import export_tiny_mlp

    compare = _load("compare_runs")
    for name, seed in (("base", 0), ("other", 5)):
        export_tiny_mlp("tictactoe", tmp_path / name / "seed0" / "best", seed=seed)
    report = compare.paired_comparisons(tmp_path, ["base", "other"], [0, 1], [0], ["all"])
    entry = report["other_vs_base"]
    assert set(entry) == {"seed0", "pooled"}  # seed 1 left no best/ folder
    seed0 = entry["seed0"]["mcnemar"]["0"]["all"]
    assert seed0["positions"] == 4520 and entry["pooled"]["0"]["all"] == seed0
    assert entry["seed0"]["rates_a"]["0"]["all"] == pytest.approx(seed0["mistakes_a"] / 4520)
    assert entry["seed0"]["rates_b"]["0"]["all"] == pytest.approx(seed0["mistakes_b"] / 4520)
    assert seed0["mistakes_a"] - seed0["mistakes_b"] == seed0["only_a"] - seed0["only_b"]
