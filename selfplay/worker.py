"""The self-play worker: a plain class (tested without Ray; ``trainer.actors`` wraps it).

A worker owns a network evaluator and a ``SelfPlayRunner``. Each ``play`` call plays
``moves_per_call`` plies of its K games with the newest weights it was given, hands finished games
to its ``sink`` (the replay buffer) whole, and returns ``SelfPlayStats``. Weights arrive only when
their version changes; between calls the worker keeps the ones it has (AlphaGo Zero: self-play
uses the best model; AlphaZero: the latest).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

import games
from games.checks import check_choice, check_int, check_number
from networks import build_network
from networks.config import INFERENCE_RUNTIMES, NetworkConfig, check_device
from selfplay.eval_cache import EvaluationCache
from selfplay.records import GameRecord
from selfplay.runner import DEFAULT_SETTINGS, SelfPlayRunner, SelfPlaySettings, SelfPlayStats

#: game ids of worker incarnation ``i`` start at ``i * GAME_ID_BLOCK``: ids never repeat across
#: restarted or replaced workers.
GAME_ID_BLOCK = 1 << 32


@dataclass(frozen=True)
class WorkerSettings:
    """The settings of one self-play worker, one frozen object (``trainer.config.worker_settings``
    builds it from the ``selfplay`` section of a run's config).

    Attributes:
        num_games: K, the games searched at once (the network batch), >= 1.
        moves_per_call: plies per ``SelfPlayWorker.play`` call, >= 1.
        device: ``"auto"``, ``"cpu"`` or ``"cuda"`` for the network.
        torch_threads: intra-op threads of torch in this process, >= 1.
        eval_cache_size: slots of the evaluation cache (``selfplay.eval_cache``), >= 0; 0 = no cache.
        inference: ``"torch"`` (``networks.evaluator.TorchEvaluator``) or ``"onnx"``: each new set
            of weights is exported (``networks.export.onnx_bytes``) and run by ONNX Runtime on the
            CPU with ``torch_threads`` intra-op threads (``networks.onnx_evaluator``); same outputs
            within float rounding (``scripts/bench_network.py --onnx``). The default is ``"onnx"``
            (onnxruntime is a dependency of the package); with ``device="cuda"`` choose ``"torch"``.
        play: how the games are played and recorded (``selfplay.runner.SelfPlaySettings``).

    Raises:
        ValueError: for a field out of its range above (``games.checks``: the message names the
            field, the range and the value), or ``play`` that is not a ``SelfPlaySettings``.
    """

    num_games: int = 64
    moves_per_call: int = 8
    device: str = "auto"
    torch_threads: int = 1
    eval_cache_size: int = 0
    inference: str = "onnx"
    play: SelfPlaySettings = DEFAULT_SETTINGS

    def __post_init__(self) -> None:
        for name in ("num_games", "moves_per_call", "torch_threads"):
            check_int(name, getattr(self, name), 1)
        check_device("device", self.device)
        check_int("eval_cache_size", self.eval_cache_size, 0)
        check_choice("inference", self.inference, INFERENCE_RUNTIMES)
        if not isinstance(self.play, SelfPlaySettings):
            raise ValueError(f"play: expected a selfplay.runner.SelfPlaySettings, got {type(self.play).__name__}")


class SelfPlayWorker:
    """Plays K games at once and hands finished ones to ``sink``.

    Args:
        game_name: registry id.
        network_config: the frozen ``networks.config.NetworkConfig``.
        search_config: the frozen settings of a registered search (``mcts.registry``:
            ``mcts.PUCTConfig``, ``mcts.GumbelConfig``, ...).
        settings: the frozen ``WorkerSettings``.
        seed: seeds this worker's ``numpy.random.Generator``.
        incarnation: a number unique to this worker within the run (game-id block).
        sink: called with the list of finished ``GameRecord``s; ``None`` keeps them for ``play``
            to return.

    Raises:
        ValueError: for ``network_config`` that is not a ``NetworkConfig``, ``settings`` that are not a
            ``WorkerSettings``, and as ``SelfPlayRunner``.
    """

    def __init__(
        self,
        game_name: str,
        network_config: NetworkConfig,
        search_config,
        settings: WorkerSettings,
        seed: int,
        incarnation: int,
        sink: Callable[[list[GameRecord]], None] | None = None,
    ) -> None:
        import torch  # heavy dependency (torch): imported where it is used

        from networks.evaluator import TorchEvaluator  # heavy dependency (torch): imported where it is used

        if not isinstance(settings, WorkerSettings):
            raise ValueError(f"settings: expected a selfplay.worker.WorkerSettings, got {type(settings).__name__}")
        if not isinstance(network_config, NetworkConfig):
            raise ValueError(
                f"network_config: expected a networks.config.NetworkConfig, got {type(network_config).__name__}"
            )
        torch.set_num_threads(max(1, int(settings.torch_threads)))
        self.settings = settings
        self.torch_threads = max(1, int(settings.torch_threads))
        self.inference = settings.inference
        self.game = games.make(game_name)
        model = build_network(network_config, self.game.observation_shape, self.game.num_actions)
        self.evaluator = TorchEvaluator(model, device=settings.device)
        self.network_config = network_config
        self.onnx = self._onnx_evaluator() if settings.inference == "onnx" else None
        self.cache = EvaluationCache(self.game, self.evaluate, settings.eval_cache_size) if settings.eval_cache_size else None
        self.moves_per_call = int(settings.moves_per_call)
        self.sink = sink
        self.version = -1
        self.runner = SelfPlayRunner(
            self.game,
            self.cache if self.cache is not None else self.evaluate,
            search_config,
            settings.num_games,
            np.random.default_rng([seed, incarnation]),
            settings.play,
            first_game_id=incarnation * GAME_ID_BLOCK,
        )

    def play(self, version: int, weights: Mapping | None = None):
        """Play ``moves_per_call`` plies with weights ``version``.

        Args:
            version: the weights version the caller wants used.
            weights: the state dict of that version, or None when this worker already has it.

        Returns:
            ``SelfPlayStats``, or ``(records, stats)`` when the worker has no sink.

        Raises:
            ValueError: if the worker does not have ``version`` and no weights were given.
        """
        if weights is not None:
            # copies: arrays that arrive through Ray's object store are read-only views
            self.evaluator.set_weights({name: np.array(value) for name, value in weights.items()}, version=version)
            if self.onnx is not None:
                self.onnx = self._onnx_evaluator()
            self.version = version
            self.runner.model_version = version
            self.runner.reset_trees()
            if self.cache is not None:
                self.cache.clear()  # never an output of other weights
        elif version != self.version:
            raise ValueError(f"worker holds weights version {self.version}, asked for {version} without weights")
        hits, lookups = (self.cache.hits, self.cache.lookups) if self.cache is not None else (0, 0)
        records, stats = self.runner.play_moves(self.moves_per_call)
        if self.cache is not None:
            stats.eval_cache_hits = self.cache.hits - hits
            stats.eval_cache_lookups = self.cache.lookups - lookups
        if self.sink is None:
            return records, stats
        if records:
            self.sink(records)
        return stats

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The current weights' masked priors ``[B, A]`` float32 and values ``[B]`` float32."""
        if self.onnx is not None:
            return self.onnx.evaluate(observations, legal_mask)
        return self.evaluator.evaluate(observations, legal_mask)

    def bind_buffers(self, rows: int):
        """The ONNX Runtime network's bound buffers for ``rows`` positions
        (``networks.onnx_evaluator.OnnxEvaluator.bind_buffers``), so the compiled searches
        (``mcts.evaluators.bound_network``) run it in place; None on torch."""
        return self.onnx.bind_buffers(rows) if self.onnx is not None else None

    def _onnx_evaluator(self):
        """An ONNX Runtime (CPU) evaluator of the torch evaluator's current weights."""
        # heavy dependency (torch): imported where it is used
        from networks.export import onnx_runtime_evaluator

        return onnx_runtime_evaluator(self.evaluator.model, self.game, self.network_config, self.torch_threads)

    def ping(self) -> int:
        return self.version


__all__ = ["GAME_ID_BLOCK", "SelfPlaySettings", "SelfPlayStats", "SelfPlayWorker", "WorkerSettings"]
