"""The checks of scripts/soak.py on small made-up data: counters that go back, repeated TensorBoard
steps (read as TensorBoard reads the folder), repeated game ids in the final buffer file, and the
memory bar."""

from __future__ import annotations

import json
import os

import numpy as np
from helpers_scripts import load_script
from test_checkpoint import started_run
from test_replay_buffer import random_record

import games
from trainer.metrics import MetricsWriter

soak = load_script("soak")
TICTACTOE = games.make("tictactoe")


def test_counter_regressions_name_the_counter_and_both_checkpoints():
    history = [
        {"checkpoint": "ckpt_00000500.pt", "step": 500, "games": 90, "positions": 800, "actor_incarnations": 2},
        {"checkpoint": "ckpt_00000900.pt", "step": 900, "games": 150, "positions": 1300, "actor_incarnations": 4},
        {"checkpoint": "ckpt_00001200.pt", "step": 1200, "games": 140, "positions": 1400, "actor_incarnations": 2},
    ]
    assert soak.counter_regressions(history[:2]) == []
    assert soak.counter_regressions(history) == [
        "games went back from 150 (ckpt_00000900.pt) to 140 (ckpt_00001200.pt)",
        "actor_incarnations went back from 4 (ckpt_00000900.pt) to 2 (ckpt_00001200.pt)",
    ]
    assert soak.counter_regressions([{"step": 5}, {"step": 6, "games": 0}]) == []  # games not in both: not compared


def test_duplicate_steps_only_for_train_tags():
    steps = {
        "train/policy_loss": [1, 2, 3, 3, 4, 2],
        "train/value_loss": [1, 2, 3],
        "selfplay/games": [0, 0, 0, 5],  # logged every 30 s at the learner's step: repeats allowed
    }
    assert soak.duplicate_steps(steps) == {"train/policy_loss": [2, 3]}


def test_tensorboard_steps_after_a_resume_with_purge_step_are_unique(tmp_path):
    first = MetricsWriter(tmp_path / "tensorboard")
    for step in range(1, 6):
        first.scalars({"train/policy_loss": 1.0 / step}, step)
    first.close()
    # killed after its step-3 checkpoint: the resumed run purges from step 4 and logs 4, 5, 6 again
    resumed = MetricsWriter(tmp_path / "tensorboard", purge_step=4)
    for step in range(4, 7):
        resumed.scalars({"train/policy_loss": 2.0 / step}, step)
    resumed.close()
    steps = soak.tensorboard_steps(tmp_path)
    assert steps["train/policy_loss"] == [1, 2, 3, 4, 5, 6]
    assert soak.duplicate_steps(steps) == {}
    # a resume that forgot purge_step shows steps 4 and 5 twice
    again = MetricsWriter(tmp_path / "tensorboard")
    for step in (4, 5):
        again.scalars({"train/policy_loss": 3.0}, step)
    again.close()
    assert soak.duplicate_steps(soak.tensorboard_steps(tmp_path)) == {"train/policy_loss": [4, 5]}


def test_the_final_buffer_check_finds_a_game_id_used_twice(tmp_path):
    run = started_run(steps=1)  # 10 games with ids 0..9 (and maybe a few more), one step
    run.save(tmp_path)
    report = soak.final_buffer_repeats(tmp_path)
    assert report["step"] == 1 and report["skipped"] == [] and report["repeated"] == {"train": [], "validation": []}
    run.buffer.add_game(random_record(TICTACTOE, np.random.default_rng(0), 3, max_plies=5))  # id 3 again
    run.learner.steps = 2
    run.save(tmp_path)
    report = soak.final_buffer_repeats(tmp_path)
    assert (report["step"], report["repeated"]["train"]) == (2, [3])


def sample(t_s: float, rss: float, store: float | None, shm: float = 0.5) -> dict:
    return {
        "t_s": t_s, "rss_mib": {"driver": rss}, "total_rss_mib": rss, "object_store_mib": store, "raylet_shm_mib": shm,
    }


def test_growth_and_the_memory_bar_use_the_level_at_the_warm_up():
    # a resume at minute 25 dips to 400 MiB; the level at 30 minutes is the highest of minutes 20-30
    samples = [
        sample(0, 500, 0.3), sample(1200, 1000, 0.3), sample(1500, 400, 0.2), sample(1800, 950, 0.3),
        sample(3600, 1120, 0.4), sample(5400, 1050, 0.35),
    ]
    result = soak.growth(samples, warmup_s=1800)
    assert (result["from_t_s"], result["to_t_s"]) == (1800, 5400)
    assert result["level_at_warmup_total_rss_mib"] == 1000 and result["max_total_rss_mib_after_warmup"] == 1120
    assert result["max_total_rss"] == 0.12  # the peak at one hour, against the level at 30 minutes
    assert result["total_rss"] == 0.1053  # first sample after the warm-up (950) to the last (1050)
    assert not soak.within_bar(result, 0.10)
    assert soak.within_bar(result, 0.15)  # and the object store grew 0.1 MiB: under the 1 MiB slack
    big_store = soak.growth([sample(1800, 1000, 100.0), sample(3600, 1000, 130.0)], warmup_s=1800)
    assert big_store["max_total_rss"] == 0.0 and not soak.within_bar(big_store, 0.10)  # store: 30% and 30 MiB
    assert soak.growth([sample(0, 1, 1)], warmup_s=0) == {"error": "not enough samples after the warm-up"}
    assert not soak.within_bar({"error": "not enough samples after the warm-up"}, 0.10)


def test_the_object_store_bar_reads_rays_count_not_the_raylets_touched_pages():
    # the raylet's touched shared memory climbs (a high-water mark) while Ray's count stays level
    samples = [sample(1800, 1000, 38.0, shm=0.1), sample(2400, 1000, None, shm=1.0), sample(3600, 1000, 38.0, shm=2.2)]
    result = soak.growth(samples, warmup_s=1800)
    assert (result["level_at_warmup_object_store_mib"], result["max_window_median_object_store_mib"]) == (38.0, 38.0)
    assert result["object_store_samples"] == 2 and result["max_raylet_shm_mib"] == 2.2
    assert soak.within_bar(result, 0.10)
    one_mib = soak.growth([sample(1800, 1000, 0.0), sample(3600, 1000, 1.0)], warmup_s=1800)
    assert soak.within_bar(one_mib, 0.10)  # 0 to 1 MiB: ray memory's resolution
    grown = soak.growth([sample(1800, 1000, 38.0), sample(3600, 1000, 42.0)], warmup_s=1800)
    assert not soak.within_bar(grown, 0.10)  # 4 MiB and 10.5% above the level
    unanswered = soak.growth([sample(1800, 1000, None), sample(3600, 1000, None)], warmup_s=1800)
    assert unanswered["max_object_store_mib"] is None and not soak.within_bar(unanswered, 0.10)


def test_objects_in_flight_are_no_level_but_a_rising_floor_is_growth():
    """A checkpoint's buffer in the store for one sample (76 MiB, as in the 2-hour soak) is not
    judged; a store that stays 5 MiB higher for ten minutes is."""
    level = [sample(1200 + 60 * i, 1000, 1.0) for i in range(11)]  # minutes 20-30 at 1 MiB
    spike = [sample(1860 + 60 * i, 1000, 76.0 if i == 5 else 1.0) for i in range(30)]
    result = soak.growth(level + spike, warmup_s=1800)
    assert result["level_at_warmup_object_store_mib"] == 1.0 and result["max_object_store_mib"] == 76.0
    assert result["max_window_median_object_store_mib"] == 1.0 and soak.within_bar(result, 0.10)
    floor = [sample(1860 + 60 * i, 1000, 1.0 if i < 15 else 6.0) for i in range(30)]
    risen = soak.growth(level + floor, warmup_s=1800)
    assert risen["max_window_median_object_store_mib"] == 6.0 and not soak.within_bar(risen, 0.10)


def test_a_saved_report_is_judged_again_from_its_samples(tmp_path, capsys):
    level = [sample(1200 + 60 * i, 1000, 1.0) for i in range(11)]
    after = [sample(1860 + 60 * i, 1010, 76.0 if i == 5 else 1.0) for i in range(30)]
    checks = {"no_repeated_game_id": True, "counters_monotone": True, "tensorboard_steps_unique": True}
    report = {"warmup_minutes": 30, "exited_early_with": None, "checks": checks, "samples": level + after}
    (tmp_path / "report.json").write_text(json.dumps(report))
    assert soak.main(["--judge", str(tmp_path / "report.json")]) == 0
    judged = json.loads(capsys.readouterr().out)
    assert judged["within_bar"] is True and judged["growth"]["max_total_rss"] == 0.01
    checks["counters_monotone"] = False
    (tmp_path / "report.json").write_text(json.dumps(report))
    assert soak.main(["--judge", str(tmp_path / "report.json")]) == 1


def test_the_plasma_line_of_ray_memory_is_parsed():
    assert soak.gcs_address_of("/x/raylet --node-ip-address=10.0.0.2 --gcs-address=10.0.0.2:6379 --y") == "10.0.0.2:6379"
    assert soak.gcs_address_of("/x/gcs_server --gcs_server_port=0") is None
    text = (
        "--- Aggregate object store stats across all nodes ---\n"
        "Plasma memory usage 38 MiB, 1 objects, 0.53% full, 0.53% needed\n"
    )
    assert soak.parse_plasma_usage(text) == {"object_store_mib": 38.0, "object_store_objects": 1}
    assert soak.parse_plasma_usage("no cluster") is None
    assert soak.plasma_usage(None) == {"object_store_mib": None, "object_store_objects": None}


def test_the_soak_reads_the_object_stores_use_from_a_running_ray():
    """Against a real local Ray: its raylet's command line names its GCS, and ``ray memory``
    counts the one 40,000,000-byte object put (38 MiB, rounded)."""
    import ray

    assert not ray.is_initialized()
    ray.init(num_cpus=1, include_dashboard=False)
    try:
        held = ray.put(np.zeros(5_000_000))  # float64: 40,000,000 bytes
        address = ray.get_runtime_context().gcs_address
        raylets = [command for _, command in soak.session_processes(os.getsid(0)) if "/raylet " in command]
        assert address in [soak.gcs_address_of(command) for command in raylets]  # others may run in this session
        assert soak.plasma_usage(address) == {"object_store_mib": 38.0, "object_store_objects": 1}
        del held
    finally:
        ray.shutdown()
