"""The ``cfr`` command, ``play --game kuhn|leduc`` and ``arena expected-value``."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from arena.tabular_policy import load_policy, policy_from_json
from frontends import arena_cli, cfr_cli, play_cli

REPO_ROOT = Path(__file__).resolve().parents[1]


def run_cfr(capsys, *args) -> dict:
    assert cfr_cli.main(list(args)) == 0
    return json.loads(capsys.readouterr().out.strip().splitlines()[-1])


def test_cfr_writes_the_average_policy_and_reports_it(tmp_path, capsys):
    out = tmp_path / "kuhn.json"
    report = run_cfr(capsys, "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "1000", "--out", str(out))
    assert report["nash_conv"] == pytest.approx(0.000174731, rel=1e-4)
    assert report["game_value"] == pytest.approx(-1.0 / 18.0, abs=1e-3)
    assert report["iterations"] == 1000 and report["seconds"] >= 0 and report["game"] == "kuhn"
    data = json.loads(out.read_text())
    assert data["game"] == "kuhn" and len(data["policy"]) == 12
    assert all(len(row) == 2 and sum(row) == pytest.approx(1.0) for row in data["policy"].values())
    assert data["policy"]["0p"][1] == pytest.approx(1.0 / 3.0, abs=0.01)  # the jack's bluff
    assert not list(tmp_path.glob(".*.tmp"))  # the atomic write left no temporary file


def test_cfr_leduc_policy_has_zeros_on_illegal_actions(tmp_path, capsys):
    out = tmp_path / "leduc.json"
    report = run_cfr(capsys, "--game", "leduc", "--algorithm", "cfr", "--iterations", "10", "--out", str(out))
    data = json.loads(out.read_text())
    assert len(data["policy"]) == 936
    opening = "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]"
    assert data["policy"][opening][0] == 0.0  # no fold when nothing is owed
    tree, policy = load_policy(str(out))
    from search.best_response import nash_conv

    assert nash_conv(tree, policy) == pytest.approx(report["nash_conv"], abs=1e-12)


def test_cfr_policy_file_is_read_by_openspiel(tmp_path, capsys):
    pyspiel = pytest.importorskip("pyspiel")
    from open_spiel.python import policy as policy_lib
    from open_spiel.python.algorithms import exploitability

    out = tmp_path / "kuhn.json"
    report = run_cfr(capsys, "--game", "kuhn", "--algorithm", "mccfr", "--iterations", "500", "--seed", "7",
                     "--out", str(out))
    game = pyspiel.load_game("kuhn_poker")
    table = policy_lib.TabularPolicy(game)
    for name, row in json.loads(out.read_text())["policy"].items():
        table.action_probability_array[table.state_lookup[name]] = row
    assert exploitability.nash_conv(game, table) == pytest.approx(report["nash_conv"], abs=1e-12)


def test_cfr_pimc_and_mccfr_seeds(tmp_path, capsys):
    pimc = run_cfr(capsys, "--game", "kuhn", "--algorithm", "pimc", "--iterations", "0", "--out", str(tmp_path / "p.json"))
    assert pimc["nash_conv"] == pytest.approx(1.0 / 3.0)
    assert json.loads((tmp_path / "p.json").read_text())["policy"]["0p"] == [1.0, 0.0]  # never bluffs
    first = run_cfr(capsys, "--game", "kuhn", "--algorithm", "mccfr", "--iterations", "300", "--seed", "1",
                    "--out", str(tmp_path / "a.json"))
    again = run_cfr(capsys, "--game", "kuhn", "--algorithm", "mccfr", "--iterations", "300", "--seed", "1",
                    "--out", str(tmp_path / "b.json"))
    assert first["nash_conv"] == again["nash_conv"]
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "0"], "expected an integer >= 1 for cfr, got 0"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "-5"], "--iterations: expected 0..100000000, got -5"),
        (["--game", "kuhn", "--algorithm", "cfr", "--iterations", "5", "--seed", "-1"], "--seed: expected an integer >= 0"),
    ],
)
def test_cfr_bad_values(tmp_path, capsys, args, message):
    assert cfr_cli.main([*args, "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.json").exists()


def test_cfr_bad_out_and_choices(tmp_path, capsys):
    assert cfr_cli.main(["--game", "kuhn", "--algorithm", "cfr", "--iterations", "5", "--out",
                         str(tmp_path / "missing" / "x.json")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert cfr_cli.main(["--game", "kuhn", "--algorithm", "cfr", "--iterations", "5", "--out", str(tmp_path)]) == 2
    assert "is a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        cfr_cli.main(["--game", "holdem", "--algorithm", "cfr", "--iterations", "5", "--out", "x.json"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'holdem'" in capsys.readouterr().err


def test_cfr_command_line_has_no_traceback(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "frontends.cfr_cli", "--game", "leduc", "--algorithm", "mccfr", "--iterations", "x",
         "--out", str(tmp_path / "x.json")],
        check=False, cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 2
    assert "invalid int value: 'x'" in result.stderr and "Traceback" not in result.stderr


def test_policy_file_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="policy file not found"):
        load_policy(str(tmp_path / "none.json"))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a JSON policy file"):
        load_policy(str(tmp_path / "bad.json"))
    with pytest.raises(ValueError, match=r"\"game\": expected one of \['kuhn', 'leduc'\], got 'chess'"):
        policy_from_json({"game": "chess", "policy": {}})
    with pytest.raises(ValueError, match="12 of 12 information states missing"):
        policy_from_json({"game": "kuhn", "policy": {}})
    full = {name: [0.5, 0.5] for name in ("0", "1", "2", "0p", "1p", "2p", "0b", "1b", "2b", "0pb", "1pb", "2pb")}
    with pytest.raises(ValueError, match="unknown information state"):
        policy_from_json({"game": "kuhn", "policy": {**full, "3": [1, 0]}})
    with pytest.raises(ValueError, match=r"'1p': expected a list of 2 numbers, got \[1\]"):
        policy_from_json({"game": "kuhn", "policy": {**full, "1p": [1]}})
    with pytest.raises(ValueError, match="sum to 1"):
        policy_from_json({"game": "kuhn", "policy": {**full, "1p": [0.5, 0.6]}})
    tree, policy = policy_from_json({"game": "kuhn", "policy": full})
    assert np.array_equal(policy, tree.uniform_policy())


def test_expected_value_of_two_policies(tmp_path, capsys):
    cfr_cli.main(["--game", "kuhn", "--algorithm", "cfr+", "--iterations", "1000", "--out", str(tmp_path / "cfr.json")])
    cfr_cli.main(["--game", "kuhn", "--algorithm", "pimc", "--iterations", "0", "--out", str(tmp_path / "pimc.json")])
    capsys.readouterr()
    assert arena_cli.main(["expected-value", str(tmp_path / "cfr.json"), str(tmp_path / "pimc.json"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["a_per_hand"] == pytest.approx(0.045998, abs=1e-5)  # the equilibrium wins against PIMC
    assert result["nash_conv_b"] == pytest.approx(1.0 / 3.0)
    assert arena_cli.main(["expected-value", str(tmp_path / "cfr.json"), str(tmp_path / "cfr.json"), "--json"]) == 0
    itself = json.loads(capsys.readouterr().out)
    assert itself["a_first"] == pytest.approx(-1.0 / 18.0, abs=1e-3)
    assert itself["a_per_hand"] == pytest.approx(0.0, abs=1e-12)
    assert arena_cli.main(["expected-value", "uniform", "uniform", "--game", "kuhn"]) == 0
    assert "A per hand, seats alternated +0.000000" in capsys.readouterr().out
    assert arena_cli.main(["expected-value", "uniform", "uniform"]) == 2
    assert "needs a game" in capsys.readouterr().err


def play(args, typed: str) -> tuple[int, str]:
    stdout = io.StringIO()
    status = play_cli.main(args, stdin=io.StringIO(typed), stdout=stdout)
    return status, stdout.getvalue()


def test_play_kuhn_against_a_policy(tmp_path, capsys):
    cfr_cli.main(["--game", "kuhn", "--algorithm", "pimc", "--iterations", "0", "--out", str(tmp_path / "pimc.json")])
    status, text = play(["--game", "kuhn", "--policy", str(tmp_path / "pimc.json"), "--hands", "4", "--seed", "3"],
                        "raise\nb\nb\nb\nb\nb\nb\nb\n")
    assert status == 0
    assert "error: expected one of ['pass', 'bet'], got 'raise'" in text
    assert text.count("--- hand") == 4
    assert "you are player 0" in text and "you are player 1" in text  # seats alternate
    results = [int(m.group(2)) * (1 if m.group(1) == "win" else -1)
               for m in re.finditer(r"you (win|lose) (\d) chip", text)]
    splits = text.count("split pot")
    assert len(results) + splits == 4
    assert f"your total {sum(results):+d} after 4 hand(s)" in text
    assert re.search(r"the policy's card: [JQK]", text)


def test_play_leduc_rejects_an_illegal_fold_and_quits(capsys):
    status, text = play(["--game", "leduc", "--policy", "uniform", "--hands", "3", "--seed", "0"], "fold\nquit\n")
    assert status == 0
    assert "fold is not legal now" in text
    assert "round 1:" in text and "your card:" in text


def test_play_poker_bad_arguments(tmp_path, capsys):
    assert play_cli.main(["--game", "kuhn", "--policy", str(tmp_path / "none.json")]) == 2
    assert "policy file not found" in capsys.readouterr().err
    assert play_cli.main(["--game", "kuhn", "--policy", "uniform", "--hands", "0"]) == 2
    assert "--hands: expected 1..1000000, got 0" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        play_cli.main(["--game=kuhn"])
    assert "--policy" in capsys.readouterr().err
