"""Provenance of exported models (networks/provenance.py, networks/export.py): what model.json
records, the one line ``play`` prints of it, and older files without it."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
import torch

from mcts import GumbelConfig, PUCTConfig
from networks import build_network
from networks.config import NetworkConfig
from networks.export import export_model
from networks.export_cli import main as export_cli_main
from networks.onnx_evaluator import load_exported
from networks.provenance import code_version, config_digest, provenance_summary
from trainer.counters import RunCounters
from trainer.reporting import run_provenance, search_record

TICTACTOE = ((2, 3, 3), 9)
CONFIG = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)

#: a provenance record as train writes it, with round numbers
PROVENANCE = {
    "code": {"commit": "0123456789abcdef0123456789abcdef01234567", "dirty": True, "package_version": "0.1.0"},
    "config": {"sha256": "ab" * 32, "path": "outputs/tictactoe/x/config.json", "values": {"game": {"name": "tictactoe"}}},
    "training": {"minutes": 3.0, "steps": 8612, "games": 48958, "promotions": 0, "gates": 0, "best_version": 8600},
    "search": {
        "trained_with": {"algorithm": "gumbel", "num_simulations": 32},
        "play_with": {"algorithm": "puct", "num_simulations": 64},
    },
    "mistake_rates": {"rates": {"all": 0.0125}, "measured_version": 8600},
}


def _model():
    torch.manual_seed(0)
    return build_network(CONFIG, *TICTACTOE).eval()


def test_model_json_records_the_provenance_given_and_play_summarises_it_in_one_line(tmp_path):
    out = export_model(_model(), CONFIG, "tictactoe", 1, tmp_path / "m", provenance=PROVENANCE, verify=False)
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["provenance"] == PROVENANCE
    assert provenance_summary(sidecar) == (
        "tictactoe model (mlp8x1), trained 3.0 min: 8612 steps, 48958 games, 0 promotions; "
        "self-play gumbel 32 sims, play puct 64 sims; mistakes all 1.25%; code 0123456789ab (dirty)"
    )
    assert load_exported(out).metadata["provenance"]["training"]["games"] == 48958


def test_an_export_without_provenance_records_the_code_version_and_old_files_still_load(tmp_path):
    out = export_model(_model(), CONFIG, "tictactoe", 1, tmp_path / "m", verify=False)
    sidecar = json.loads((out / "model.json").read_text())
    assert sidecar["provenance"] == {"code": code_version()}
    # a model.json written before provenance existed: it loads, and the summary says what is missing
    del sidecar["provenance"]
    (out / "model.json").write_text(json.dumps(sidecar))
    assert load_exported(out).num_actions == 9
    assert provenance_summary(sidecar) == (
        "tictactoe model (mlp8x1): no provenance recorded (exported before model.json carried it)"
    )


def test_a_provenance_key_outside_the_record_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"provenance: unknown keys \['author'\]; expected some of \['code', "):
        export_model(_model(), CONFIG, "tictactoe", 1, tmp_path, provenance={"author": "me"}, verify=False)


def test_code_version_reads_the_commit_and_whether_the_tree_is_dirty(tmp_path):
    def git(*args):
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    (tmp_path / "a.txt").write_text("one\n")
    git("add", "a.txt")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    head = git("rev-parse", "HEAD").strip()
    assert code_version(tmp_path)["commit"] == head and code_version(tmp_path)["dirty"] is False
    (tmp_path / "a.txt").write_text("two\n")
    assert code_version(tmp_path)["dirty"] is True
    outside = tmp_path.parent / f"{tmp_path.name}-plain"
    outside.mkdir()
    assert code_version(outside)["commit"] is None and code_version(outside)["dirty"] is None


def test_config_digest_is_the_sha256_of_canonical_json():
    assert config_digest({"b": 1, "a": [1, 2]}) == hashlib.sha256(b'{"a":[1,2],"b":1}').hexdigest()
    assert config_digest({"a": [1, 2], "b": 1}) == config_digest({"b": 1, "a": [1, 2]})
    with pytest.raises(ValueError, match="config: expected JSON-serialisable"):
        config_digest({"a": float("nan")})


def test_the_run_provenance_names_counts_searches_and_the_measured_version():
    counters = RunCounters(games=120, promotions=2, gates=5, best_version=300)
    gumbel = GumbelConfig(num_simulations=16)
    puct = PUCTConfig(num_simulations=64)
    record = run_provenance(
        {"game": {"name": "tictactoe"}}, Path("run/config.json"), 90.0, counters, 310,
        search_record(gumbel, "gumbel"), search_record(puct, "puct"), {"all": 0.5}, 300,
    )
    assert record["config"] == {
        "sha256": config_digest({"game": {"name": "tictactoe"}}), "path": "run/config.json",
        "values": {"game": {"name": "tictactoe"}},
    }
    assert record["training"] == {
        "minutes": 1.5, "steps": 310, "games": 120, "promotions": 2, "gates": 5, "best_version": 300,
    }
    assert record["search"]["trained_with"]["algorithm"] == "gumbel"
    assert record["search"]["trained_with"]["num_simulations"] == 16
    assert record["search"]["play_with"]["num_simulations"] == 64
    assert record["mistake_rates"] == {"rates": {"all": 0.5}, "measured_version": 300}
    assert "mistake_rates" not in run_provenance(
        {}, Path("c.json"), 1.0, counters, 1, {}, {}, {}, None
    )


def test_export_model_carries_a_weights_files_provenance_into_model_json(tmp_path):
    from networks.checkpoint import save_model

    save_model(tmp_path / "model.pt", _model(), CONFIG, "tictactoe", 1, extra={"training_step": 5, "provenance": PROVENANCE})
    assert export_cli_main([str(tmp_path / "model.pt"), str(tmp_path / "out"), "--no-verify"]) == 0
    sidecar = json.loads((tmp_path / "out" / "model.json").read_text())
    assert sidecar["provenance"] == PROVENANCE
    assert sidecar["extra"] == {"training_step": 5, "source_checkpoint": str(tmp_path / "model.pt")}


def test_play_search_is_the_recorded_play_search_without_simulations_or_root_noise():
    from networks.provenance import play_search

    sidecar = {"provenance": {"search": {"play_with": {
        "algorithm": "puct", "num_simulations": 32, "backup": "max_self", "c_puct": 1.25,
        "dirichlet_alpha": 1.0, "dirichlet_epsilon": 0.25,
    }}}}
    assert play_search(sidecar) == ("puct", {"backup": "max_self", "c_puct": 1.25})
    assert play_search({"provenance": {"search": {}}}) is None
    assert play_search({}) is None
