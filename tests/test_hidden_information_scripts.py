"""Smoke tests of scripts/experiments/hidden_information_curves.py and scripts/bench_cfr.py with tiny settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers_scripts import load_script

REPO_ROOT = Path(__file__).resolve().parents[1]


def test_curves_script_writes_the_figure_and_table(tmp_path, capsys):
    script = load_script("hidden_information_curves")
    assert script.checkpoints(120) == [1, 2, 5, 10, 20, 50, 100, 120]
    assert script.main(["--max-iterations", "10", "--mccfr-max-iterations", "20", "--out-dir", str(tmp_path)]) == 0
    data = json.loads((tmp_path / "hidden_information.json").read_text())
    assert data == json.loads(capsys.readouterr().out)
    assert (tmp_path / "hidden_information.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    kuhn, leduc = data["games"]["kuhn"], data["games"]["leduc"]
    assert kuhn["pimc_nash_conv"] == pytest.approx(1.0 / 3.0)
    assert leduc["pimc_nash_conv"] == pytest.approx(0.8666666667)
    assert kuhn["uniform_nash_conv"] == pytest.approx(11.0 / 12.0)
    assert kuhn["curves"]["cfr"]["iterations"] == [1, 2, 5, 10]
    assert kuhn["curves"]["mccfr"]["iterations"] == [1, 2, 5, 10, 20]
    # one CFR iteration from the uniform policy averages the uniform policy itself
    assert kuhn["curves"]["cfr"]["nash_conv"][0] == pytest.approx(11.0 / 12.0)
    assert kuhn["curves"]["cfr+"]["nash_conv"][-1] < kuhn["curves"]["cfr+"]["nash_conv"][0]


def test_bench_script_runs_both_solvers_to_the_same_policy(capsys):
    pytest.importorskip("pyspiel")
    script = load_script("bench_cfr")
    assert script.main(["--game", "kuhn", "--iterations", "50", "--repeat", "1", "--cpu", "-1"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ours"]["nash_conv"] == pytest.approx(result["openspiel_cpp_cfr_plus"]["nash_conv"], abs=1e-12)
    assert result["ratio"] > 0 and len(result["ours"]["seconds"]) == 1
    with pytest.raises(SystemExit):
        script.parse_args(["--iterations", "0"])
