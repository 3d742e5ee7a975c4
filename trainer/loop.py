"""The training run: Ray actors for self-play, the replay buffer and gating; the learner here.

Read top to bottom, one loop iteration does:

1. collect the self-play tasks that finished (non-blocking) and give each worker its next task,
   with the best weights when its version is stale (AlphaGo Zero: self-play uses the best model);
2. if the schedule allows (``trainer/schedule.py``: the replay ratio), fetch a few batches from the
   buffer actor (the loop's one blocking ``ray.get``) and take an optimiser step on each; after
   each step the schedule says whether to publish weights, start a gating match, write a checkpoint;
3. collect a finished gating match (non-blocking) and promote the candidate if it passed;
4. log to TensorBoard and refresh the terminal status (``trainer/reporting.py``).

A dead self-play actor is replaced and the run goes on; the buffer keeps only whole games, since
workers send finished games only, so a killed actor leaves no half game in the buffer. A dead
buffer actor stops the run with a message that names the last checkpoint to resume from. Ctrl-C
or SIGTERM (``trainer/signals.py``) writes a checkpoint, then exits. The test-only fault hook
lives in ``trainer/faults.py``.
"""

from __future__ import annotations

import json
import logging
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import ray
import torch
from ray.exceptions import RayActorError

import games
from arena.rating import RatingPlan
from games.atomic import atomic_write_json
from networks import build_network
from trainer import checkpoint as ckpt
from trainer.actors import GatingActor, ReplayBufferActor, SelfPlayActor, actor_seed, start_ray
from trainer.best_model import write_best
from trainer.config import (
    TrainSchema,
    arena_gate,
    arena_search,
    game_id,
    learner_config,
    network_config,
    selfplay_search,
    to_dict,
    validate,
    worker_settings,
)
from trainer.counters import RunCounters
from trainer.faults import FaultPlan
from trainer.learner import Learner
from trainer.metrics import flat_hparams
from trainer.reporting import RunReport, run_provenance, search_record
from trainer.resume import check_resume_compatible
from trainer.schedule import Schedule
from trainer.signals import StopRequest, install_stop_handlers, restore_handlers
from trainer.status import LEGEND as STATUS_LEGEND
from trainer.status import StatusDisplay

log = logging.getLogger(__name__)


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
    gating: bool = True
    #: the last measurement against perfect play, ``{set: rate}`` (empty: none), of best version ``measured_version``
    mistake_rates: dict | None = None
    measured_version: int | None = None


def make_learner(config: TrainSchema, model):
    """The ``trainer.learner.Learner`` that ``config.trainer`` describes, for ``model``."""
    return Learner(model, learner_config(config))


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
        # the frozen settings of the library objects, built once (trainer/config.py)
        self.network_config = network_config(config)
        self.selfplay_search = selfplay_search(config)
        self.worker_settings = worker_settings(config)
        self.arena_search = arena_search(config)
        self.gate_config = arena_gate(config)
        self.config_dict = to_dict(config)
        self.schedule = Schedule.from_config(config)
        self.counters = RunCounters()
        self.report = RunReport(self.run_dir, config.run.sample_games_every)
        self.faults = FaultPlan.from_env()
        self.status = None  # the terminal display, from run()
        self.learner = None
        self.started_ray = False
        # actors and what is in flight to them
        self.buffer = None
        self.gater = None
        self.workers: list = []
        self.worker_versions: list[int] = []
        self.inflight: dict = {}
        self.gate_inflight = None
        self.gate_candidate: dict | None = None  # the weights the gating match in flight plays
        self.regate = False  # set by _restore when the checkpoint had a gating match in flight
        self.accuracy_inflight = None
        self.accuracy_version = -1
        # the best model (numpy weights and their Ray object) and what the run last saw
        self.best_weights: dict = {}
        self.best_ref = None
        self.last_gate = "-"
        self.last_metrics: dict = {}
        self.last_mistake_rates: dict = {}
        self.accuracy_measured_version: int | None = None  # the best version last_mistake_rates are of
        self.buffer_stats = {
            "games_added": 0, "positions_added": 0, "size": 0, "sampleable": 0, "rejected_games": 0,
            "age_versions_mean": None, "age_versions_max": None,
        }
        self.last_checkpoint_step: int | None = None  # the step of the newest checkpoint on disk
        self.started = time.monotonic()
        self.last_checkpoint_time = self.started  # monotonic seconds: the newest checkpoint, or the start
        self.stopped_by = "running"
        self.stop = StopRequest()  # set by SIGINT or SIGTERM, polled by the loop (trainer/signals.py)

    # ------------------------------------------------------------------ set-up
    def _setup_learner(self):
        tr = self.config.trainer
        torch.set_num_threads(tr.torch_threads)
        torch.manual_seed(self.config.run.seed)
        model = build_network(self.network_config, self.game.observation_shape, self.game.num_actions)
        self.learner = make_learner(self.config, model)

    def _start_ray(self) -> None:
        self.started_ray = start_ray(self.config.ray)

    def _worker_kwargs(self, incarnation: int) -> dict:
        return dict(
            game_name=self.game.name,
            network_config=self.network_config,
            search_config=self.selfplay_search,
            settings=self.worker_settings,
            seed=self.config.run.seed,
            incarnation=incarnation,
        )

    def _new_worker(self):
        sp = self.config.selfplay
        self.counters.actor_incarnations += 1
        options = {"num_cpus": sp.num_cpus_per_actor, "scheduling_strategy": "SPREAD"}
        if sp.num_gpus_per_actor > 0 and torch.cuda.is_available():
            options["num_gpus"] = sp.num_gpus_per_actor
        return SelfPlayActor.options(**options).remote(
            self.buffer, **self._worker_kwargs(self.counters.actor_incarnations)
        )

    def _restore_then_create_actors(self, loaded) -> int:
        """Restore the checkpoint ``loaded`` (None: a new run), then start the buffer, self-play and
        arena actors; returns the step the run continues from (0 for a new run).

        The order is the rule: the counters come back before any actor exists, because each actor
        takes its incarnation number from them (game-id block and random stream of a self-play
        worker, ``selfplay.worker.GAME_ID_BLOCK``; the arena's seed, ``trainer.actors.actor_seed``).
        Actors created first would reuse the interrupted run's numbers: game ids already in the
        restored buffer, and the same openings and root noise again.
        """
        self._set_best(self._snapshot_numpy(), 0)
        resumed_from = self._restore(loaded)
        tr = self.config.trainer
        self.buffer = ReplayBufferActor.options(num_cpus=0).remote(
            self.game.name, tr.replay_capacity, tr.min_replay_positions, self.config.run.seed,
            tr.replay_window_growth_start, tr.validation_every,
            max_generations_behind=self.config.selfplay.max_generations_behind,
        )
        if loaded is not None:
            ray.get(self.buffer.load_state_dict.remote(loaded.buffer_state()))
        self.buffer.note_best_version.remote(self.counters.best_version)
        self.buffer_stats = ray.get(self.buffer.stats.remote())
        self.workers = [self._new_worker() for _ in range(self.config.selfplay.num_actors)]
        self.worker_versions = [-1] * len(self.workers)
        self.gater = self._new_arena_actor()
        return resumed_from

    # ------------------------------------------------------------------ weights
    def _set_best(self, weights: dict, version: int) -> None:
        self.best_weights = {name: np.array(value) for name, value in weights.items()}
        self.counters.best_version = int(version)
        self.best_ref = ray.put(self.best_weights)
        if self.buffer is not None:  # the buffer ages its positions by the best versions (none yet at start-up)
            self.buffer.note_best_version.remote(int(version))

    def _snapshot_numpy(self) -> dict:
        return {name: tensor.numpy() for name, tensor in self.learner.snapshot().items()}

    def _write_best(self) -> None:
        """``best/``: the promoted model (``trainer/best_model.py``)."""
        extra = {
            # the learner step these weights were taken at (the best version is that step)
            "training_step": int(self.counters.best_version),
            "best_version": int(self.counters.best_version),
            "run_step": int(self.learner.steps),  # how far the run was when it wrote this file
            "last_gate": self.last_gate,
        }
        provenance = run_provenance(
            self.config_dict, self.run_dir / "config.json", time.monotonic() - self.started, self.counters,
            self.learner.steps, search_record(self.selfplay_search, self.config.mcts.algorithm),
            search_record(self.arena_search, self.config.arena.algorithm),
            self.last_mistake_rates, self.accuracy_measured_version,
        )
        write_best(
            self.run_dir / "best", self.best_weights, self.network_config, self.game, extra, self.status.message,
            provenance=provenance,
        )

    # ------------------------------------------------------------------ self-play
    def _submit(self, index: int) -> None:
        best_version = self.counters.best_version
        weights = self.best_ref if self.worker_versions[index] != best_version else None
        ref = self.workers[index].play.remote(best_version, weights)
        self.worker_versions[index] = best_version
        self.inflight[ref] = index

    def _collect_selfplay(self, timeout: float = 0.0) -> None:
        if not self.inflight:
            return
        ready, _ = ray.wait(list(self.inflight), num_returns=len(self.inflight), timeout=timeout)
        for ref in ready:
            index = self.inflight.pop(ref)
            try:
                stats = ray.get(ref)
            except RayActorError as exc:
                self.counters.actor_restarts += 1
                self.status.message(f"self-play actor {index} died ({type(exc).__name__}); starting a replacement")
                self.workers[index] = self._new_worker()
                self.worker_versions[index] = -1
                self._submit(index)
                continue
            self.counters.add_selfplay(stats)
            self.report.add_selfplay(stats, self.learner.steps)
            self._submit(index)

    # ------------------------------------------------------------------ training
    def _train_some(self) -> bool:
        """Train on the batches the schedule allows now (at most ``batches_per_fetch``); True if it did."""
        want = self.schedule.batches_to_fetch(
            self.learner.samples_trained, self.buffer_stats["positions_added"], self.buffer_stats["sampleable"]
        )
        try:
            if want >= 1:
                batches, self.buffer_stats = ray.get(self.buffer.fetch.remote(want, self.schedule.batch_size))
            else:
                self._collect_selfplay(timeout=0.05)
                self.buffer_stats = ray.get(self.buffer.stats.remote())
                return False
        except RayActorError as exc:
            raise self._buffer_lost(exc) from exc
        for batch in batches:
            # the "wsd" schedule decays towards the end of the budget (trainer/learner.py)
            self.learner.budget_progress = self.schedule.budget_progress(
                self.learner.steps, time.monotonic() - self.started
            )
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
        self.report.writer.scalars({f"train/{k}": v for k, v in metrics.items() if isinstance(v, (int, float))}, step)
        actions = self.schedule.after_step(
            step, gate_in_flight=self.gate_inflight is not None,
            seconds_since_checkpoint=time.monotonic() - self.last_checkpoint_time,
        )
        if actions.publish and self.learner.weights_finite():
            self._set_best(self._snapshot_numpy(), step)
        if actions.gate:
            self._start_gate()
        if actions.checkpoint:
            self._checkpoint()
        if self.faults:
            self._inject_faults(step)

    def _inject_faults(self, step: int) -> None:
        """The ``TABULA_RASA_FAULT`` test hook (``trainer/faults.py``)."""
        for role in self.faults.due(step, gate_in_flight=self.gate_inflight is not None):
            target = {"selfplay": self.workers[0], "buffer": self.buffer, "gating": self.gater}[role]
            self.status.message(f"fault injection: killing the {role} actor at step {step}")
            ray.kill(target, no_restart=True)

    # ------------------------------------------------------------------ gating
    def _start_gate(self) -> None:
        if not self.learner.weights_finite():
            self.status.message("candidate weights are not finite: not sent to gating")
            return
        candidate = self._snapshot_numpy()
        self.gate_inflight = self.gater.gate.remote(
            int(self.learner.steps), ray.put(candidate), int(self.counters.best_version), self.best_ref
        )
        self.gate_candidate = candidate

    def _wait_ready(self, ref, timeout: float) -> bool:
        """Whether ``ref`` finished within ``timeout`` seconds; a stop signal ends the wait early."""
        deadline = time.monotonic() + timeout
        while True:
            ready, _ = ray.wait([ref], timeout=max(0.0, min(0.5, deadline - time.monotonic())))
            if ready or self.stop or time.monotonic() >= deadline:
                return bool(ready)

    def _poll_gate(self, timeout: float = 0.0) -> None:
        if self.gate_inflight is None:
            return
        if not self._wait_ready(self.gate_inflight, timeout):
            return
        try:
            result = ray.get(self.gate_inflight)
        except RayActorError:
            self.gate_inflight = None
            self.counters.gating_restarts += 1
            self.status.message(
                f"the arena actor died at step {self.learner.steps}; its gating match is dropped and a new "
                "arena actor starts (the run goes on)"
            )
            self.gater = self._new_arena_actor()
            return
        self.gate_inflight = None
        self.counters.gates += 1
        step = self.learner.steps
        writer = self.report.writer
        if result.refused_reason:
            self.last_gate = f"refused: {result.refused_reason}"
        else:
            verdict = "promoted" if result.accepted else "rejected"
            llr = f", LLR {result.llr:+.2f} over {result.num_pairs} pairs" if result.rule == "sprt" else ""
            self.last_gate = (
                f"v{result.candidate_version} vs v{result.best_version}: {result.wins}W {result.draws}D "
                f"{result.losses}L, score {result.score:.3f}{llr} ({result.distinct_games} distinct), {verdict}"
            )
            writer.scalars({"arena/score_vs_best": result.score, "arena/distinct_games": result.distinct_games,
                            "arena/games_per_decision": result.num_games, "arena/pairs": result.num_pairs}, step)
            if result.rule == "sprt":
                writer.scalars({"arena/sprt/llr": result.llr}, step)
            if result.sample_game:
                self.report.sample_game("arena", result.sample_game, step)
        if result.accepted:
            self.counters.promotions += 1
            self._set_best(self.gate_candidate, result.candidate_version)
            self._write_best()
        writer.scalars({"arena/promotions": self.counters.promotions, "arena/gates": self.counters.gates}, step)
        writer.text("arena/last_gate", self.last_gate, step)

    def _games_per_gate(self) -> int:
        """The most games one gate can play (the fixed rule's match, or the sequential test's cap)."""
        gate = self.gate_config
        return gate.num_games if gate.rule == "fixed" else gate.sprt.max_games

    def _new_arena_actor(self):
        """A new arena actor (gating matches and mistake rates against perfect play), seeded by its
        incarnation number (``trainer.actors.actor_seed``)."""
        ar = self.config.arena
        self.counters.arena_incarnations += 1
        return GatingActor.options(num_cpus=ar.num_cpus).remote(
            game_name=self.game.name,
            network_config=self.network_config,
            search_config=self.arena_search,
            num_games=ar.num_games, threshold=ar.threshold, opening_random_plies=ar.opening_random_plies,
            seed=actor_seed(self.config.run.seed, self.counters.arena_incarnations),
            extra_labelled_sets=tuple(ar.extra_labelled_sets), inference=ar.inference,
            gate=self.gate_config,
            rating=RatingPlan(tuple(ar.rating_pool), ar.rating_games) if ar.rating else None,
        )

    def _start_accuracy(self) -> None:
        """Measure the best model's mistake rates in the arena actor, one measurement at a time."""
        if self.accuracy_inflight is None and self.counters.best_version != self.accuracy_version:
            self.accuracy_version = self.counters.best_version
            self.accuracy_inflight = self.gater.measure_best.remote(self.accuracy_version, self.best_ref)

    def _poll_accuracy(self, timeout: float = 0.0) -> None:
        if self.accuracy_inflight is None:
            return
        if not self._wait_ready(self.accuracy_inflight, timeout):
            return
        try:
            result = ray.get(self.accuracy_inflight)
        except RayActorError:
            self.accuracy_inflight = None
            return  # _poll_gate replaces the actor
        self.accuracy_inflight = None
        self.last_mistake_rates = result["rates"]
        self.accuracy_measured_version = self.accuracy_version
        self.report.writer.scalars(
            {f"arena/mistake_rate/{name}": rate for name, rate in result["rates"].items()}, self.learner.steps
        )
        if result.get("exact") is not None:  # the policy against optimal play, exactly (Pig)
            exact = result["exact"]
            self.report.writer.scalars(
                {"arena/exact_win/mean": exact["mean_win"], "arena/exact_win/as_first": exact["as_first"]["win"],
                 "arena/exact_win/as_second": exact["as_second"]["win"]},
                self.learner.steps,
            )
        if result.get("rating") is not None:  # arena.rating: the best model against the reference players
            rating = result["rating"]
            self.report.writer.scalars(
                {"arena/rating/elo": rating["elo"], "arena/rating/elo_low": rating["low"],
                 "arena/rating/elo_high": rating["high"], "arena/rating/games": rating["games"]},
                self.learner.steps,
            )

    # ------------------------------------------------------------------ status
    def _status(self) -> None:
        seconds_left = None
        if self.schedule.max_seconds is not None:
            seconds_left = self.schedule.max_seconds - (time.monotonic() - self.started)
        positions_per_s, evaluations_per_s = self.report.rates(self.counters)
        self.status.update(
            {
                "game": self.game.name,
                "network": self.network_config.name,
                "step": self.learner.steps,
                "games": self.counters.games,
                # averages since the run (or resume) started: self-play results arrive in lumps
                "positions_per_s": positions_per_s,
                "evaluations_per_s": evaluations_per_s,
                "buffer_size": self.buffer_stats["size"],
                "best_version": self.counters.best_version,
                "last_gate": self.last_gate if self.config.arena.gating else "off",
                "mistake_rates": ", ".join(f"{k} {v:.1%}" for k, v in self.last_mistake_rates.items()) or "-",
                "policy_loss": self.last_metrics.get("policy_loss", float("nan")),
                "value_loss": self.last_metrics.get("value_loss", float("nan")),
                "seconds_left": seconds_left,
            }
        )

    # ------------------------------------------------------------------ checkpoints
    def _checkpoint(self) -> None:
        if not self.learner.weights_finite():
            self.status.message("weights are not finite: checkpoint skipped")
            return
        refs = [self.buffer.state_dict.remote()]
        if self.config.trainer.validation_every:
            refs.append(self.buffer.validation_batch.remote(self.schedule.batch_size))
        try:
            buffer_state, validation = [*ray.get(refs), None][:2]
        except RayActorError as exc:
            raise self._buffer_lost(exc) from exc
        if validation is not None:  # the held-out games' losses (none before a game is held out)
            losses = self.learner.evaluate_losses(validation)
            self.report.writer.scalars({f"validation/{k}": v for k, v in losses.items()}, self.learner.steps)
        self.report.flush()  # TensorBoard events up to this step reach the disk before the commit
        ckpt.save_checkpoint(
            self.run_dir,
            self.learner.steps,
            self.learner,
            buffer_state,
            ckpt.capture_rng_states(),
            self.counters.to_dict(),
            self.config_dict,
            ckpt.code_version(),
            extra={
                "best_weights": {name: _tensor(value) for name, value in self.best_weights.items()},
                "last_gate": self.last_gate,
                "sample_counts": dict(self.report.sample_counts),
                # a gating match still playing is lost with the process: a resume plays it again
                "gate_in_flight": self.gate_inflight is not None,
            },
            game=self.game,
            network_config=self.network_config,
            keep_last=self.config.trainer.keep_checkpoints,
        )
        self.last_checkpoint_step = self.learner.steps
        self.last_checkpoint_time = time.monotonic()
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
        """Learner, counters and best weights from the checkpoint ``loaded`` (the buffer actor's
        contents are loaded by :meth:`_restore_then_create_actors`); the step restored, 0 if none."""
        if loaded is None:
            return 0
        ckpt.restore_checkpoint(loaded, self.learner, game=self.game, network_config=self.network_config)
        self.counters = RunCounters.from_dict(loaded.counters)
        if "arena_incarnations" not in loaded.counters:  # a checkpoint from before the counter existed
            self.counters.arena_incarnations = 1 + self.counters.gating_restarts
        extra = loaded.extra
        self._set_best({k: v.numpy() for k, v in extra["best_weights"].items()}, self.counters.best_version)
        self.last_gate = extra.get("last_gate", "-")
        self.report.sample_counts = dict(extra.get("sample_counts", {}))
        self.regate = bool(extra.get("gate_in_flight", False)) and self.config.arena.gating
        self.last_checkpoint_step = self.learner.steps
        return self.learner.steps

    # ------------------------------------------------------------------ the run
    def _budget_reached(self) -> bool:
        if self.stop:  # stopped_by is set where the run writes its checkpoint
            return True
        reason = self.schedule.stop_reason(self.learner.steps, time.monotonic() - self.started)
        if reason is not None:
            self.stopped_by = reason
        return reason is not None

    def run(self) -> RunSummary:
        run = self.config.run
        self.started = self.last_checkpoint_time = time.monotonic()
        self.stopped_by = "running"
        saved_config = self.run_dir / "config.json"
        if self.config.resume and saved_config.is_file():  # before Ray starts
            check_resume_compatible(json.loads(saved_config.read_text()), self.config_dict)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.status = StatusDisplay(live=run.live_status, every_seconds=run.status_every_seconds)
        if self.status.live is None:
            self.status.message(STATUS_LEGEND)
        loaded = self._load_checkpoint()  # before Ray starts: an unreadable run fails fast
        self._setup_learner()
        self._start_ray()
        old_handlers = install_stop_handlers(self.stop)  # after Ray, whose driver installs its own
        try:
            resumed_from = self._restore_then_create_actors(loaded)
            del loaded
            atomic_write_json(self.run_dir / "config.json", self.config_dict)
            nodes = ray.get([worker.node_id.remote() for worker in self.workers])
            # events after the checkpoint's step, written by the interrupted run, are purged
            # (a resume before the first checkpoint starts at step 0: everything logged is purged)
            purge_step = resumed_from + 1 if resumed_from else (0 if self.config.resume else None)
            writer = self.report.open_writer(purge_step)
            if resumed_from:
                self.status.message(f"resumed {self.run_dir} at step {resumed_from}")
                if self.regate:
                    self.status.message("the interrupted run had a gating match in flight: playing it again")
                    self._start_gate()
            else:
                writer.config(self.config_dict, flat_hparams(self.config_dict))
            self.report.start_rates(self.counters)
            for index in range(len(self.workers)):
                self._submit(index)
            # last before the main loop, whose stop signals write a checkpoint (tests wait for it)
            atomic_write_json(self.run_dir / "actors.json", {"selfplay_nodes": nodes})
            while not self._budget_reached():
                self._collect_selfplay()
                self._train_some()
                self._poll_gate()
                self._start_accuracy()
                self._poll_accuracy()
                self.report.log_selfplay(self.learner.steps, self.counters, self.buffer_stats)
                self._status()
            if not self.stop and self.gate_inflight is not None:  # let the last gating match finish
                self._poll_gate(timeout=max(60.0, 10.0 * self._games_per_gate()))
            if not self.stop:
                self._poll_accuracy(timeout=120.0)  # a measurement in flight (of an older best) first
                self._start_accuracy()  # the final best model's mistake rates
                self._poll_accuracy(timeout=120.0)
            if self.stop:
                self.stopped_by = self.stop.reason
                self.status.message(f"{self.stopped_by}: writing a checkpoint, then stopping")
            self.report.log_selfplay(self.learner.steps, self.counters, self.buffer_stats, force=True)
            self._checkpoint()
            if self.config.arena.gating:  # best/ again: its provenance with the final counts and mistakes
                self._write_best()
            self.report.flush()
        finally:
            self.status.close()
            self.report.close()
            for worker in self.workers:
                ray.kill(worker)
            if self.started_ray:
                ray.shutdown()
            restore_handlers(old_handlers)
        return RunSummary(
            run_dir=str(self.run_dir),
            steps=self.learner.steps,
            games=self.counters.games,
            positions=self.counters.positions,
            best_version=self.counters.best_version,
            promotions=self.counters.promotions,
            gates=self.counters.gates,
            seconds=time.monotonic() - self.started,
            stopped_by=self.stopped_by,
            gating=bool(self.config.arena.gating),
            mistake_rates=dict(self.last_mistake_rates),
            measured_version=self.accuracy_measured_version,
        )


def _tensor(value):
    return torch.as_tensor(np.asarray(value))
