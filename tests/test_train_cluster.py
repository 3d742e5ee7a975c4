"""``train ray.address=...`` on a two-node Ray cluster started on this machine : the
self-play actors land on both nodes and a tiny run finishes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow


def test_tiny_run_places_selfplay_actors_on_both_nodes(tmp_path):
    from ray.cluster_utils import Cluster

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        run_dir = tmp_path / "cluster-run"
        command = [
            sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe",
            f"ray.address={cluster.address}", f"hydra.run.dir={run_dir}", "run.max_steps=10",
        ]
        result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        assert "run finished (max_steps): 10 steps" in result.stdout
        nodes = json.loads((run_dir / "actors.json").read_text())["selfplay_nodes"]
        assert len(nodes) == 2 and len(set(nodes)) == 2  # one self-play actor on each node
        assert (run_dir / "checkpoints" / "latest").is_file()
    finally:
        cluster.shutdown()
