"""The training run: Ray actors for self-play, the replay buffer and gating; the learner here.

Read top to bottom, one loop iteration does:

1. collect the self-play tasks that finished (non-blocking) and give each worker its next task,
   with the best weights when its version is stale (AlphaGo Zero: self-play uses the best model);
2. if the replay-ratio limit allows, fetch a few batches from the buffer actor (the loop's one
   blocking ``ray.get``) and take an optimiser step on each; on step boundaries publish weights,
   start a gating match, write a checkpoint;
3. collect a finished gating match (non-blocking) and promote the candidate if it passed;
4. log to TensorBoard and refresh the terminal status.

A dead self-play actor is replaced and the run goes on; the buffer keeps only whole games, since
workers send finished games only, so a killed actor leaves no half game in the buffer. A dead buffer actor stops the run with a message that
names the last checkpoint to resume from. Ctrl-C or SIGTERM writes a checkpoint, then exits.
"""

from __future__ import annotations

import json
import logging
import os
import re
import signal
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import games
from trainer import checkpoint as ckpt
from trainer.config import (
    TrainSchema,
    arena_puct,
    game_id,
    network_config,
    selfplay_gumbel,
    selfplay_puct,
    to_dict,
    validate,
)

log = logging.getLogger(__name__)

#: self-play rates are averaged over windows of at least this many seconds
SELFPLAY_LOG_SECONDS = 30.0

#: keys of the config that a resumed run may not change: the checkpoint would not fit
IMMUTABLE_ON_RESUME = ("game", "network")

#: Task events the GCS of a local Ray keeps (Ray's default: 100,000). A run sends tens of small
#: tasks a second (self-play calls, games to the buffer, batches), so with the default the GCS grew
#: by about 4 MiB a minute for the first half hour (scripts/soak.py, docs/reliability.md).
RAY_TASK_EVENTS_KEPT = 10_000

#: Test hook for fault injection (tests/test_fault_*.py), not a user setting: with
#: ``TABULA_RASA_FAULT=kill_<role>_actor_at_step:N`` in the environment (several joined by commas),
#: the run kills one of its own actors with ``ray.kill`` once the learner reaches step N:
#: ``selfplay`` (self-play actor 0), ``buffer`` (the replay-buffer actor) or ``gating`` (the
#: arena actor, at the first step >= N with a gating match in flight). Each fires once per process.
FAULT_ENV = "TABULA_RASA_FAULT"
FAULT_ROLES = ("selfplay", "buffer", "gating")


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a batch scheduler, systemd), handled like Ctrl-C: a checkpoint, then exit."""


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the checkpoint short
    raise Terminated()


def install_stop_handlers() -> dict:
    """Make SIGTERM and SIGINT stop the run through its checkpointing path; returns the old handlers.

    SIGINT gets Python's ``default_int_handler`` back even when the process started with it
    ignored (a job started with ``&`` from a script), and SIGTERM raises :class:`Terminated`
    instead of Ray's handler, which only prints a stack trace and dies. Outside the main thread
    nothing is changed (``{}``).
    """
    if threading.current_thread() is not threading.main_thread():
        return {}
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_terminated)
    return old


def restore_handlers(old: dict) -> None:
    """Put back what :func:`install_stop_handlers` replaced."""
    for sig, handler in old.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


def parse_faults(text: str | None) -> list[tuple[str, int]]:
    """``"kill_selfplay_actor_at_step:5,kill_gating_actor_at_step:10"`` -> ``[("selfplay", 5),
    ("gating", 10)]``; empty or None -> ``[]``.

    Raises:
        ValueError: for any other text, naming the accepted form.
    """
    faults = []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        match = re.fullmatch(r"kill_(\w+?)_actor_at_step:(\d+)", part.strip())
        if not match or match.group(1) not in FAULT_ROLES:
            raise ValueError(
                f"{FAULT_ENV}={text!r}: expected kill_<role>_actor_at_step:<step> (comma-separated) with role "
                f"one of {list(FAULT_ROLES)}"
            )
        faults.append((match.group(1), int(match.group(2))))
    return faults


class RunStopped(RuntimeError):
    """The run cannot go on (a lost replay buffer, say); the message says how to resume."""


@dataclass
class RunSummary:
    run_dir: str
    steps: int
    games: int
    positions: int
    best_version: int
    promotions: int
    gates: int
    seconds: float
    stopped_by: str


def make_learner(config: TrainSchema, model):
    """The ``trainer.learner.Learner`` that ``config.trainer`` describes, for ``model``."""
    from trainer.learner import Learner

    tr = config.trainer
    return Learner(
        model,
        optimizer=tr.optimizer,
        learning_rate=tr.learning_rate,
        momentum=tr.momentum,
        weight_decay=tr.weight_decay,
        lr_schedule=tr.lr_schedule,
        lr_schedule_samples=tr.lr_schedule_samples,
        grad_clip=tr.grad_clip,
        device=tr.device,
    )


def check_resume_compatible(saved: dict, current: dict) -> None:
    """Raise ValueError naming every immutable key whose value differs from the saved run."""
    problems = []
    for section in IMMUTABLE_ON_RESUME:
        old, new = saved.get(section, {}), current.get(section, {})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                problems.append(f"{section}.{key}: the run has {old.get(key)!r}, the override asks {new.get(key)!r}")
    if problems:
        raise ValueError("cannot change these keys when resuming a run:\n  " + "\n  ".join(problems))


class TrainingRun:
    """One ``train`` invocation. ``run()`` returns a ``RunSummary``.

    Args:
        config: the validated, plain configuration.
        run_dir: where everything is written (``checkpoints/``, ``best/``, ``tensorboard/``,
            ``games/``, ``config.json``).
    """

    def __init__(self, config: TrainSchema, run_dir: Path) -> None:
        validate(config)
        self.config = config
        self.run_dir = Path(run_dir)
        self.game = games.make(game_id(config))
        self.network_config = network_config(config)
        self.config_dict = to_dict(config)
        self.started_ray = False
        self.inflight: dict = {}
        self.workers: list = []
        self.worker_versions: list[int] = []
        self.gate_inflight = None
        self._regate = False  # set by _restore when the checkpoint had a gating match in flight
        self.counters = {
            "games": 0, "positions": 0, "moves": 0, "leaf_evaluations": 0, "simulations": 0,
            "best_version": 0, "promotions": 0, "gates": 0, "actor_incarnations": 0, "actor_restarts": 0,
            "gating_restarts": 0,
            "wins_first_player": 0, "wins_second_player": 0, "draws": 0,
        }
        self.last_gate = "-"
        self.last_metrics: dict = {}
        self.accuracy_inflight = None
        self.accuracy_version = -1
        self.last_mistake_rates: dict = {}
        self.buffer_stats = {"games_added": 0, "positions_added": 0, "size": 0, "rejected_games": 0}
        self._window = self._new_window(time.monotonic())
        self._faults = parse_faults(os.environ.get(FAULT_ENV))

    # ------------------------------------------------------------------ set-up
    def _setup_learner(self):
        import torch

        from networks import build_network

        tr = self.config.trainer
        torch.set_num_threads(tr.torch_threads)
        torch.manual_seed(self.config.run.seed)
        model = build_network(self.network_config, self.game.observation_shape, self.game.num_actions)
        self.learner = make_learner(self.config, model)

    def _start_ray(self) -> None:
        import ray

        rc = self.config.ray
        if ray.is_initialized():
            return
        kwargs = dict(include_dashboard=rc.include_dashboard, logging_level=logging.WARNING, log_to_driver=True)
        if rc.address:
            ray.init(address=rc.address, **kwargs)
        else:
            system_config = {}
            if "RAY_task_events_max_num_task_in_gcs" not in os.environ:  # the user's setting wins
                system_config["task_events_max_num_task_in_gcs"] = RAY_TASK_EVENTS_KEPT
            # address="local": always a new Ray of this run's own, even while another one (a `ray start`,
            # another process's test cluster) is running on the machine, which a plain ray.init() would join
            ray.init(
                address="local", num_cpus=rc.num_cpus, num_gpus=rc.num_gpus,
                object_store_memory=rc.object_store_memory, _system_config=system_config, **kwargs
            )
        self.started_ray = True

    def _worker_kwargs(self, incarnation: int) -> dict:
        sp = self.config.selfplay
        return dict(
            game_name=self.game.name,
            network_config=self.network_config.to_dict(),
            puct_config=selfplay_puct(self.config),
            num_games=sp.games_per_actor,
            moves_per_call=sp.moves_per_call,
            temperature=sp.temperature,
            temperature_plies=sp.temperature_plies,
            seed=self.config.run.seed,
            incarnation=incarnation,
            device=sp.device,
            torch_threads=sp.torch_threads,
            random_opening_plies=sp.random_opening_plies,
            gumbel_config=selfplay_gumbel(self.config),
            full_search_probability=sp.full_search_probability,
            cheap_simulations=sp.cheap_simulations,
            value_target=sp.value_target,
            eval_cache_size=sp.eval_cache_size,
            inference=sp.inference,
        )

    def _new_worker(self):
        import torch

        from trainer.actors import SelfPlayActor

        sp = self.config.selfplay
        self.counters["actor_incarnations"] += 1
        options = {"num_cpus": sp.num_cpus_per_actor, "scheduling_strategy": "SPREAD"}
        if sp.num_gpus_per_actor > 0 and torch.cuda.is_available():
            options["num_gpus"] = sp.num_gpus_per_actor
        return SelfPlayActor.options(**options).remote(
            self.buffer, **self._worker_kwargs(self.counters["actor_incarnations"])
        )

    def _create_actors(self) -> None:
        from trainer.actors import ReplayBufferActor

        tr = self.config.trainer
        self.buffer = ReplayBufferActor.options(num_cpus=0).remote(
            self.game.name, tr.replay_capacity, tr.min_replay_positions, self.config.run.seed,
            tr.replay_window_growth_start,
        )
        self.workers = [self._new_worker() for _ in range(self.config.selfplay.num_actors)]
        self.worker_versions = [-1] * len(self.workers)
        self.gater = self._new_arena_actor(seed=self.config.run.seed)

    # ------------------------------------------------------------------ weights
    def _set_best(self, weights: dict, version: int) -> None:
        import ray

        self.best_weights = {name: np.array(value) for name, value in weights.items()}
        self.counters["best_version"] = int(version)
        self.best_ref = ray.put(self.best_weights)

    def _snapshot_numpy(self) -> dict:
        return {name: tensor.numpy() for name, tensor in self.learner.snapshot().items()}

    def _write_best(self) -> None:
        """``best/``: model weights file plus ONNX + safetensors + JSON sidecar (the promoted model)."""
        from networks.checkpoint import save_model
        from networks.export import export_model

        best_dir = self.run_dir / "best"
        best_dir.mkdir(parents=True, exist_ok=True)
        model = self._model_from(self.best_weights)
        extra = {
            # the learner step these weights were taken at (the best version is that step)
            "training_step": int(self.counters["best_version"]),
            "best_version": int(self.counters["best_version"]),
            "run_step": int(self.learner.steps),  # how far the run was when it wrote this file
            "last_gate": self.last_gate,
        }
        save_model(best_dir / "model.pt", model, self.network_config, self.game.name, self.game.version, extra=extra)
        try:
            export_model(model, self.network_config, self.game.name, self.game.version, best_dir, extra=extra)
        except (ValueError, RuntimeError, OSError) as exc:  # the export must never stop training
            self.status.message(f"ONNX export of the best model failed (training goes on): {exc}")

    def _model_from(self, weights: dict):
        import torch

        from networks import build_network

        model = build_network(self.network_config, self.game.observation_shape, self.game.num_actions)
        model.load_state_dict({name: torch.as_tensor(value) for name, value in weights.items()})
        return model.eval()

    # ------------------------------------------------------------------ self-play
    def _submit(self, index: int) -> None:
        best_version = self.counters["best_version"]
        weights = self.best_ref if self.worker_versions[index] != best_version else None
        ref = self.workers[index].play.remote(best_version, weights)
        self.worker_versions[index] = best_version
        self.inflight[ref] = index

    def _collect_selfplay(self, timeout: float = 0.0) -> None:
        import ray
        from ray.exceptions import RayActorError

        if not self.inflight:
            return
        ready, _ = ray.wait(list(self.inflight), num_returns=len(self.inflight), timeout=timeout)
        for ref in ready:
            index = self.inflight.pop(ref)
            try:
                stats = ray.get(ref)
            except RayActorError as exc:
                self.counters["actor_restarts"] += 1
                self.status.message(f"self-play actor {index} died ({type(exc).__name__}); starting a replacement")
                self.workers[index] = self._new_worker()
                self.worker_versions[index] = -1
                self._submit(index)
                continue
            self._add_selfplay_stats(stats)
            self._submit(index)

    def _add_selfplay_stats(self, stats) -> None:
        c = self.counters
        c["games"] += stats.games
        c["positions"] += stats.positions
        c["moves"] += stats.moves
        c["leaf_evaluations"] += stats.leaf_evaluations
        c["simulations"] += stats.simulations
        c["wins_first_player"] += stats.wins_first_player
        c["wins_second_player"] += stats.wins_second_player
        c["draws"] += stats.draws
        self._window["positions"] += stats.moves
        self._window["evaluations"] += stats.leaf_evaluations
        self._window["full_searches"] += stats.full_searches
        self._window["cache_hits"] += stats.eval_cache_hits
        self._window["cache_lookups"] += stats.eval_cache_lookups
        if stats.game_lengths:
            self._pending_lengths.extend(stats.game_lengths)
        self._games_since_sample += stats.games
        if stats.sample_games and self._games_since_sample >= self.config.run.sample_games_every:
            self._games_since_sample = 0
            self._sample_game("selfplay", stats.sample_games[0])

    def _sample_game(self, kind: str, text: str) -> None:
        """Append ``STEP MOVES`` to ``games/KIND.txt`` (self-play: one game in every
        ``run.sample_games_every``; arena: the first game of every gating match)."""
        self._sample_counts[kind] = self._sample_counts.get(kind, 0) + 1
        folder = self.run_dir / "games"
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"{kind}.txt", "a") as handle:
            handle.write(f"{self.learner.steps} {text}\n")

    # ------------------------------------------------------------------ training
    def _train_some(self) -> bool:
        """Train on up to ``batches_per_fetch`` batches if the replay ratio allows; True if it did."""
        import ray
        from ray.exceptions import RayActorError

        tr = self.config.trainer
        allowed = tr.replay_ratio * self.buffer_stats["positions_added"] - self.learner.samples_trained
        want = int(min(tr.batches_per_fetch, allowed // tr.batch_size))
        enough = self.buffer_stats["size"] >= max(tr.min_replay_positions, tr.batch_size)
        try:
            if want >= 1 and enough:
                batches, self.buffer_stats = ray.get(self.buffer.fetch.remote(want, tr.batch_size))
            else:
                self._collect_selfplay(timeout=0.05)
                self.buffer_stats = ray.get(self.buffer.stats.remote())
                return False
        except RayActorError as exc:
            raise self._buffer_lost(exc) from exc
        for batch in batches:
            metrics = self.learner.train_step(batch)
            self.last_metrics = metrics
            self._after_step(metrics)
            if self._budget_reached():
                break
        return bool(batches)

    def _buffer_lost(self, exc: Exception) -> RunStopped:
        if self.last_checkpoint_step is None:
            where = "no checkpoint was written yet; start again or resume (it starts from step 0)"
        else:
            where = f"resume from the last checkpoint (step {self.last_checkpoint_step})"
        return RunStopped(
            f"the replay-buffer actor died ({exc.__class__.__name__}); the run stopped. To continue, "
            f"{where} with: train resume={self.run_dir}"
        )

    def _after_step(self, metrics: dict) -> None:
        step = self.learner.steps
        tr, ar = self.config.trainer, self.config.arena
        self.writer.scalars({f"train/{k}": v for k, v in metrics.items() if isinstance(v, (int, float))}, step)
        if not ar.gating and step % tr.publish_every_steps == 0 and self.learner.weights_finite():
            self._set_best(self._snapshot_numpy(), step)
        if ar.gating and step % ar.gate_every_steps == 0 and self.gate_inflight is None:
            self._start_gate()
        if step % tr.checkpoint_every_steps == 0:
            self._checkpoint()
        if self._faults:
            self._inject_faults(step)

    def _inject_faults(self, step: int) -> None:
        """The ``TABULA_RASA_FAULT`` test hook (see ``FAULT_ENV``)."""
        import ray

        for fault in list(self._faults):
            role, at_step = fault
            if step < at_step or (role == "gating" and self.gate_inflight is None):
                continue
            self._faults.remove(fault)
            target = {"selfplay": self.workers[0], "buffer": self.buffer, "gating": self.gater}[role]
            self.status.message(f"fault injection: killing the {role} actor at step {step}")
            ray.kill(target, no_restart=True)

    # ------------------------------------------------------------------ gating
    def _start_gate(self) -> None:
        import ray

        if not self.learner.weights_finite():
            self.status.message("candidate weights are not finite: not sent to gating")
            return
        candidate = self._snapshot_numpy()
        self.gate_inflight = self.gater.gate.remote(
            int(self.learner.steps), ray.put(candidate), int(self.counters["best_version"]), self.best_ref
        )
        self._gate_candidate = candidate

    def _poll_gate(self, timeout: float = 0.0) -> None:
        import ray
        from ray.exceptions import RayActorError

        if self.gate_inflight is None:
            return
        ready, _ = ray.wait([self.gate_inflight], timeout=timeout)
        if not ready:
            return
        try:
            result = ray.get(self.gate_inflight)
        except RayActorError:
            self.gate_inflight = None
            self.counters["gating_restarts"] += 1
            self.status.message(
                f"the arena actor died at step {self.learner.steps}; its gating match is dropped and a new "
                "arena actor starts (the run goes on)"
            )
            self.gater = self._new_arena_actor(seed=self.config.run.seed + self.counters["gates"] + 1)
            return
        self.gate_inflight = None
        self.counters["gates"] += 1
        step = self.learner.steps
        if result.refused_reason:
            self.last_gate = f"refused: {result.refused_reason}"
        else:
            verdict = "promoted" if result.accepted else "rejected"
            self.last_gate = (
                f"v{result.candidate_version} vs v{result.best_version}: {result.wins}W {result.draws}D "
                f"{result.losses}L, score {result.score:.3f} ({result.distinct_games} distinct), {verdict}"
            )
            self.writer.scalars(
                {"arena/score_vs_best": result.score, "arena/distinct_games": result.distinct_games}, step
            )
            if result.sample_game:
                self._sample_game("arena", result.sample_game)
        if result.accepted:
            self.counters["promotions"] += 1
            self._set_best(self._gate_candidate, result.candidate_version)
            self._write_best()
        self.writer.scalars({"arena/promotions": self.counters["promotions"], "arena/gates": self.counters["gates"]}, step)
        self.writer.text("arena/last_gate", self.last_gate, step)

    def _new_arena_actor(self, seed: int):
        """The arena actor: gating matches and mistake rates against perfect play."""
        from trainer.actors import GatingActor

        ar = self.config.arena
        return GatingActor.options(num_cpus=ar.num_cpus).remote(
            game_name=self.game.name,
            network_config=self.network_config.to_dict(),
            puct_config=arena_puct(self.config),
            num_games=ar.num_games, threshold=ar.threshold, opening_random_plies=ar.opening_random_plies,
            seed=seed,
        )

    def _start_accuracy(self) -> None:
        """Measure the best model's mistake rates in the arena actor, one measurement at a time."""
        if self.accuracy_inflight is None and self.counters["best_version"] != self.accuracy_version:
            self.accuracy_version = self.counters["best_version"]
            self.accuracy_inflight = self.gater.mistake_rates.remote(self.accuracy_version, self.best_ref)

    def _poll_accuracy(self, timeout: float = 0.0) -> None:
        import ray
        from ray.exceptions import RayActorError

        if self.accuracy_inflight is None:
            return
        ready, _ = ray.wait([self.accuracy_inflight], timeout=timeout)
        if not ready:
            return
        try:
            result = ray.get(self.accuracy_inflight)
        except RayActorError:
            self.accuracy_inflight = None
            return  # _poll_gate replaces the actor
        self.accuracy_inflight = None
        self.last_mistake_rates = result["rates"]
        self.writer.scalars({f"arena/mistake_rate/{name}": rate for name, rate in result["rates"].items()},
                            self.learner.steps)

    # ------------------------------------------------------------------ logging
    @staticmethod
    def _new_window(start: float) -> dict:
        """Self-play counts since ``start`` (``time.monotonic`` seconds), for the rates of one log line."""
        return {"positions": 0, "evaluations": 0, "full_searches": 0, "cache_hits": 0, "cache_lookups": 0, "start": start}

    def _log_selfplay(self, force: bool = False) -> None:
        """Self-play metrics over the last window of at least ``SELFPLAY_LOG_SECONDS``."""
        now = time.monotonic()
        seconds = max(1e-9, now - self._window["start"])
        if seconds < SELFPLAY_LOG_SECONDS and not force:
            return
        step = self.learner.steps
        c = self.counters
        finished = c["wins_first_player"] + c["wins_second_player"] + c["draws"]
        values = {
            "selfplay/games": c["games"],
            "selfplay/positions": c["positions"],
            "selfplay/positions_per_s": self._window["positions"] / seconds,
            "selfplay/leaf_evaluations_per_s": self._window["evaluations"] / seconds,
            "selfplay/batch_fill": c["leaf_evaluations"] / c["simulations"] if c["simulations"] else None,
            "selfplay/buffer_size": self.buffer_stats["size"],
            "selfplay/rejected_games": self.buffer_stats["rejected_games"],
            "selfplay/actor_restarts": c["actor_restarts"],
            "selfplay/win_rate_first_player": c["wins_first_player"] / finished if finished else None,
            "selfplay/win_rate_second_player": c["wins_second_player"] / finished if finished else None,
            "selfplay/draw_rate": c["draws"] / finished if finished else None,
            "selfplay/full_search_fraction": (
                self._window["full_searches"] / self._window["positions"] if self._window["positions"] else None
            ),
            "selfplay/eval_cache_hit_rate": (
                self._window["cache_hits"] / self._window["cache_lookups"] if self._window["cache_lookups"] else None
            ),
        }
        if self._pending_lengths:
            values["selfplay/game_length"] = float(np.mean(self._pending_lengths))
            self._pending_lengths = []
        self.writer.scalars(values, step)
        self._window = self._new_window(now)

    def _status(self) -> None:
        elapsed = max(1e-9, time.monotonic() - self._started)
        seconds_left = None
        if self.deadline is not None:
            seconds_left = self.deadline - time.monotonic()
        self.status.update(
            {
                "game": self.game.name,
                "network": self.network_config.name,
                "step": self.learner.steps,
                "games": self.counters["games"],
                # averages since the run (or resume) started: self-play results arrive in lumps
                "positions_per_s": (self.counters["moves"] - self._start_moves) / elapsed,
                "evaluations_per_s": (self.counters["leaf_evaluations"] - self._start_evaluations) / elapsed,
                "buffer_size": self.buffer_stats["size"],
                "best_version": self.counters["best_version"],
                "last_gate": self.last_gate,
                "mistake_rates": ", ".join(f"{k} {v:.1%}" for k, v in self.last_mistake_rates.items()) or "-",
                "policy_loss": self.last_metrics.get("policy_loss", float("nan")),
                "value_loss": self.last_metrics.get("value_loss", float("nan")),
                "seconds_left": seconds_left,
            }
        )

    # ------------------------------------------------------------------ checkpoints
    def _checkpoint(self) -> None:
        import ray
        from ray.exceptions import RayActorError

        if not self.learner.weights_finite():
            self.status.message("weights are not finite: checkpoint skipped")
            return
        try:
            buffer_state = ray.get(self.buffer.state_dict.remote())
        except RayActorError as exc:
            raise self._buffer_lost(exc) from exc
        if hasattr(self, "writer"):  # TensorBoard events up to this step reach the disk before the commit
            self.writer.flush()
        ckpt.save_checkpoint(
            self.run_dir,
            self.learner.steps,
            self.learner,
            buffer_state,
            ckpt.capture_rng_states(),
            dict(self.counters),
            self.config_dict,
            _code_version(),
            extra={
                "best_weights": {name: _tensor(value) for name, value in self.best_weights.items()},
                "last_gate": self.last_gate,
                "sample_counts": dict(self._sample_counts),
                # a gating match still playing is lost with the process: a resume plays it again
                "gate_in_flight": self.gate_inflight is not None,
            },
            game=self.game,
            network_config=self.network_config,
            keep_last=self.config.trainer.keep_checkpoints,
        )
        self.last_checkpoint_step = self.learner.steps
        if not self.config.arena.gating or not (self.run_dir / "best" / "model.onnx").exists():
            self._write_best()

    def _load_checkpoint(self):
        """The newest readable checkpoint of the run directory, read before Ray starts; None if it has
        none. Unreadable newer ones are skipped with a message naming them.

        Raises:
            ValueError: if there are checkpoints but none is readable (the run does not silently
                start again from step 0), or the checkpoint's game or network differs.
        """
        if not ckpt.list_checkpoints(self.run_dir):
            return None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                loaded = ckpt.load_latest_checkpoint(self.run_dir)
            except FileNotFoundError as exc:
                raise ValueError(f"cannot resume {self.run_dir}: {exc}") from None
        for warning in caught:
            if "checkpoint" in str(warning.message):
                self.status.message(f"warning: {warning.message}")
        check_resume_compatible(loaded.config, self.config_dict)
        return loaded

    def _restore(self, loaded) -> int:
        import ray

        if loaded is None:
            return 0
        ckpt.restore_checkpoint(loaded, self.learner, game=self.game, network_config=self.network_config)
        self.counters.update(loaded.counters)
        extra = loaded.extra
        self._set_best({k: v.numpy() for k, v in extra["best_weights"].items()}, self.counters["best_version"])
        self.last_gate = extra.get("last_gate", "-")
        self._sample_counts = dict(extra.get("sample_counts", {}))
        self._regate = bool(extra.get("gate_in_flight", False)) and self.config.arena.gating
        ray.get(self.buffer.load_state_dict.remote(loaded.buffer_state()))
        self.buffer_stats = ray.get(self.buffer.stats.remote())
        self.last_checkpoint_step = self.learner.steps
        return self.learner.steps

    # ------------------------------------------------------------------ the run
    def _budget_reached(self) -> bool:
        run = self.config.run
        if run.max_steps is not None and self.learner.steps >= run.max_steps:
            self.stopped_by = "max_steps"
            return True
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.stopped_by = "max_minutes"
            return True
        return False

    def run(self) -> RunSummary:
        import ray

        from networks.atomic import atomic_write_json
        from trainer.metrics import MetricsWriter, flat_hparams
        from trainer.status import StatusDisplay

        start = time.monotonic()
        run = self.config.run
        self.deadline = start + run.max_minutes * 60 if run.max_minutes is not None else None
        self.stopped_by = "running"
        self.last_checkpoint_step = None  # the step of the newest checkpoint on disk, once there is one
        self._sample_counts: dict = {}
        self._pending_lengths: list = []
        self._games_since_sample = self.config.run.sample_games_every  # the first game is kept
        self._started = time.monotonic()
        saved_config = self.run_dir / "config.json"
        if self.config.resume and saved_config.is_file():  # before Ray starts
            check_resume_compatible(json.loads(saved_config.read_text()), self.config_dict)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.status = StatusDisplay(live=run.live_status, every_seconds=run.status_every_seconds)
        loaded = self._load_checkpoint()  # before Ray starts: an unreadable run fails fast
        self._setup_learner()
        self._start_ray()
        old_handlers = install_stop_handlers()  # after Ray, whose driver installs its own
        try:
            self._create_actors()
            self._set_best(self._snapshot_numpy(), 0)
            resumed_from = self._restore(loaded)
            del loaded
            atomic_write_json(self.run_dir / "config.json", self.config_dict)
            nodes = ray.get([worker.node_id.remote() for worker in self.workers])
            atomic_write_json(self.run_dir / "actors.json", {"selfplay_nodes": nodes})
            # events after the checkpoint's step, written by the interrupted run, are purged
            # (a resume before the first checkpoint starts at step 0: everything logged is purged)
            purge_step = resumed_from + 1 if resumed_from else (0 if self.config.resume else None)
            self.writer = MetricsWriter(self.run_dir / "tensorboard", purge_step=purge_step)
            if resumed_from:
                self.status.message(f"resumed {self.run_dir} at step {resumed_from}")
                if self._regate:
                    self.status.message("the interrupted run had a gating match in flight: playing it again")
                    self._start_gate()
            else:
                self.writer.config(self.config_dict, flat_hparams(self.config_dict))
            self._start_moves = self.counters["moves"]
            self._start_evaluations = self.counters["leaf_evaluations"]
            for index in range(len(self.workers)):
                self._submit(index)
            try:
                while not self._budget_reached():
                    self._collect_selfplay()
                    self._train_some()
                    self._poll_gate()
                    self._start_accuracy()
                    self._poll_accuracy()
                    self._log_selfplay()
                    self._status()
                if self.gate_inflight is not None:  # let the last gating match finish
                    self._poll_gate(timeout=max(60.0, 10.0 * self.config.arena.num_games))
                self._start_accuracy()  # the final best model's mistake rates
                self._poll_accuracy(timeout=120.0)
            except KeyboardInterrupt as stop:
                self.stopped_by = "terminated" if isinstance(stop, Terminated) else "interrupted"
                self.status.message(f"{self.stopped_by}: writing a checkpoint, then stopping")
            self._log_selfplay(force=True)
            self._checkpoint()
            self.writer.flush()
        finally:
            self.status.close()
            if hasattr(self, "writer"):
                self.writer.close()
            for worker in self.workers:
                ray.kill(worker)
            if self.started_ray:
                ray.shutdown()
            restore_handlers(old_handlers)
        summary = RunSummary(
            run_dir=str(self.run_dir),
            steps=self.learner.steps,
            games=self.counters["games"],
            positions=self.counters["positions"],
            best_version=self.counters["best_version"],
            promotions=self.counters["promotions"],
            gates=self.counters["gates"],
            seconds=time.monotonic() - start,
            stopped_by=self.stopped_by,
        )
        return summary


def _code_version() -> str:
    """The git commit of the code, or "unknown" outside a checkout."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True, timeout=5
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _tensor(value):
    import torch

    return torch.as_tensor(np.asarray(value))
