"""Evaluate an exported model with ONNX Runtime. Imports numpy, onnxruntime and json only (no torch).

:func:`load_exported` reads a folder written by :func:`networks.export.export_model`
(``model.onnx``, ``model.safetensors``, ``model.json``), checks the sidecar against the ONNX file
(format, SHA-256, input and output names) and returns an :class:`OnnxEvaluator` whose ``evaluate``
has the signature of ``TorchEvaluator.evaluate``. This is what ``play`` uses, so playing against a
model needs neither torch nor trainer code.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path

import numpy as np

from networks.policy_numpy import DEGENERATE_LEGAL_MASS, masked_softmax_with_count_numpy
from networks.shapes import check_evaluate_inputs, check_sizes

EXPORT_FORMAT = "tabula-rasa-export"
EXPORT_FORMAT_VERSION = 1
ONNX_FILE = "model.onnx"
WEIGHTS_FILE = "model.safetensors"
SIDECAR_FILE = "model.json"
INPUT_NAME = "observation"
OUTPUT_NAMES = ("policy_logits", "value")
_OUTPUT_LIST = list(OUTPUT_NAMES)
#: ONNX Runtime's CPU threads for a session when the caller names none: one intra-op thread, no
#: inter-op pool, worker threads that sleep instead of spinning. For the project's networks (b4c32 on
#: a Connect Four board: well under a millisecond a call) more threads cost more in hand-offs than
#: they save, and spinning threads take CPU from the search and from other processes on the machine
#: (docs/results.md, "Benchmarks": the thread settings of ``play --engine`` measured interleaved).
DEFAULT_NUM_THREADS = 1


def session_options(num_threads: int | None = None, spinning: bool = False):
    """``onnxruntime.SessionOptions`` for a CPU session: ``num_threads`` intra-op threads (``None``:
    ``DEFAULT_NUM_THREADS``; 0: ONNX Runtime's own choice, one per physical core), one inter-op
    thread, sequential execution, and the intra- and inter-op pools' spinning
    (``session.intra_op.allow_spinning``) on only when ``spinning``.

    Raises:
        ValueError: if ``num_threads`` is not None or an integer >= 0.
    """
    import onnxruntime  # heavy dependency (onnxruntime): imported where it is used

    if num_threads is None:
        num_threads = DEFAULT_NUM_THREADS
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or num_threads < 0:
        raise ValueError(f"num_threads: expected None or an integer >= 0, got {num_threads!r}")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = int(num_threads)
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "1" if spinning else "0")
    return options


def sha256_file(path: str | os.PathLike) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _export_folder(path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.is_file() and path.name in (ONNX_FILE, SIDECAR_FILE, WEIGHTS_FILE):
        path = path.parent
    if not path.exists():
        raise FileNotFoundError(f"exported model not found: {path}")
    if not path.is_dir():
        raise ValueError(f"{path}: expected an export folder holding {SIDECAR_FILE} and {ONNX_FILE}")
    return path


def read_sidecar(path: str | os.PathLike) -> dict:
    """Read and check ``model.json`` of an export folder (or the path of a file in it).

    Returns:
        The sidecar dict (see :func:`networks.export.export_model` for its keys).

    Raises:
        FileNotFoundError: if the folder or its ``model.json`` does not exist.
        ValueError: if ``model.json`` is not JSON or lacks a field of the export format.
    """
    folder = _export_folder(path)
    sidecar_path = folder / SIDECAR_FILE
    if not sidecar_path.is_file():
        raise FileNotFoundError(f"{folder}: no {SIDECAR_FILE}; expected a folder written by export-model")
    try:
        sidecar = json.loads(sidecar_path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{sidecar_path}: expected JSON written by export-model ({error})") from error
    if not isinstance(sidecar, dict) or sidecar.get("format") != EXPORT_FORMAT:
        raise ValueError(f"{sidecar_path}: expected format {EXPORT_FORMAT!r}")
    if sidecar.get("format_version") != EXPORT_FORMAT_VERSION:
        raise ValueError(
            f"{sidecar_path}: expected format_version {EXPORT_FORMAT_VERSION}, "
            f"found {sidecar.get('format_version')!r}"
        )
    for key in ("game", "observation_shape", "num_actions", "network", "files"):
        if key not in sidecar:
            raise ValueError(f"{sidecar_path}: missing field {key!r}")
    return sidecar


class OnnxEvaluator:
    """Batched evaluation of an exported model with ONNX Runtime.

    Build it with :func:`load_exported`.

    Attributes:
        metadata: the sidecar dict (game, network, extra...).
        game_name, game_version, observation_shape, num_actions: from the sidecar.
        num_calls, num_positions, num_degenerate_priors: counters, as ``TorchEvaluator``.
    """

    def __init__(self, session, metadata: dict) -> None:
        self.session = session
        self.metadata = metadata
        self.game_name = str(metadata["game"]["name"])
        self.game_version = int(metadata["game"]["version"])
        self.observation_shape, self.num_actions = check_sizes(
            tuple(metadata["observation_shape"]), int(metadata["num_actions"])
        )
        self.num_calls = 0
        self.num_positions = 0
        self.num_degenerate_priors = 0
        self._bound: dict[tuple[int, int], BoundBuffers] = {}

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Raw network outputs: ``([B, A]`` float32 unmasked logits, ``[B]`` float32 values``)``.

        Raises:
            ValueError: if ``observations`` is not ``[B, C, H, W]`` with the model's ``(C, H, W)``.
        """
        mask = np.ones((getattr(observations, "shape", (0,))[0], self.num_actions), dtype=bool)
        observations, _ = check_evaluate_inputs(observations, mask, self.observation_shape, self.num_actions)
        return self._run(observations)

    def _run(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # checked observations in, float32 logits [B, A] and values [B] out
        logits, values = self.session.run(_OUTPUT_LIST, {INPUT_NAME: observations})
        return logits.astype(np.float32, copy=False), values.reshape(-1).astype(np.float32, copy=False)

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked priors and values, as ``TorchEvaluator.evaluate``.

        Args:
            observations: ``[B, C, H, W]`` float32, from the view of the player to move.
            legal_mask: ``[B, A]`` bool, True = legal.

        Returns:
            ``(priors [B, A] float32`` exactly 0 on illegal actions and summing to 1 over legal ones,
            ``values [B] float32`` in ``[-1, 1]`` for the player to move``)``.

        Raises:
            ValueError: for inputs of the wrong type, shape or dtype (expected vs actual).
        """
        observations, legal_mask = check_evaluate_inputs(
            observations, legal_mask, self.observation_shape, self.num_actions
        )
        if observations.shape[0] == 0:
            return np.zeros((0, self.num_actions), np.float32), np.zeros(0, np.float32)
        logits, values = self._run(observations)
        priors, num_degenerate = masked_softmax_with_count_numpy(logits, legal_mask)
        self.num_degenerate_priors += num_degenerate
        self.num_calls += 1
        self.num_positions += observations.shape[0]
        return priors, np.minimum(np.maximum(values, np.float32(-1.0)), np.float32(1.0))

    __call__ = evaluate

    def bind_buffers(self, rows: int) -> BoundBuffers:
        """The network on ``rows`` observations through preallocated buffers (``BoundBuffers``),
        for searches that write their leaves in place (``mcts.evaluators.bound_network``). Made
        once per thread and row count and handed out again (a search runs to its end before the
        thread's next one starts), while the session stays the same.

        Raises:
            ValueError: if ``rows`` is not an integer >= 1.
        """
        key = (threading.get_ident(), rows if isinstance(rows, (int, np.integer)) and not isinstance(rows, bool) else -1)
        bound = self._bound.get(key)
        if bound is None or bound.session is not self.session:
            bound = BoundBuffers(self, rows)
            self._bound[key] = bound
        return bound


class BoundBuffers:
    """An ``OnnxEvaluator``'s session bound to preallocated numpy buffers (ONNX Runtime's IO binding).

    ``run()`` runs the network on ``observations`` (``[rows, C, H, W]`` float32, the caller writes
    it in place) and leaves its raw outputs in ``logits`` (``[rows, A]`` float32, unmasked) and
    ``values`` (``[rows]`` float32, unclipped), without allocating: the buffers are wrapped as ONNX
    Runtime values once (``OrtValue.ortvalue_from_numpy`` shares the memory on the CPU) and bound to
    the session's input and outputs. Each run counts as one ``evaluate`` call of ``rows`` positions
    in the evaluator's counters; ``count_degenerate(n)`` adds rows with less than
    ``min_legal_mass`` (``networks.policy_numpy.DEGENERATE_LEGAL_MASS``) on the legal actions,
    counted by the caller as ``masked_softmax_with_count_numpy`` counts them.

    Raises:
        ValueError: if ``rows`` is not an integer >= 1.
    """

    min_legal_mass = DEGENERATE_LEGAL_MASS

    def __init__(self, evaluator: OnnxEvaluator, rows: int) -> None:
        import onnxruntime  # heavy dependency (onnxruntime): imported where it is used

        if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or rows < 1:
            raise ValueError(f"rows: expected an integer >= 1, got {rows!r}")
        rows = int(rows)
        self.evaluator = evaluator
        self.session = evaluator.session  # bound to this session
        self.rows = rows
        self.observations = np.zeros((rows, *evaluator.observation_shape), dtype=np.float32)
        self.logits = np.zeros((rows, evaluator.num_actions), dtype=np.float32)
        value_rank = len(evaluator.session.get_outputs()[1].shape)
        self._values = np.zeros((rows, 1) if value_rank == 2 else (rows,), dtype=np.float32)
        self.values = self._values.reshape(rows)
        ort_value = onnxruntime.OrtValue.ortvalue_from_numpy
        self._ort_values = [ort_value(array) for array in (self.observations, self.logits, self._values)]
        self._binding = evaluator.session.io_binding()
        self._binding.bind_ortvalue_input(INPUT_NAME, self._ort_values[0])
        for name, value in zip(OUTPUT_NAMES, self._ort_values[1:]):
            self._binding.bind_ortvalue_output(name, value)
        self._run = _binding_runner(evaluator.session, self._binding)
        self._row_runs = {rows: (self._run, self._binding, self._ort_values)}

    def run(self) -> None:
        """One network run on ``observations`` into ``logits`` and ``values`` (class docstring)."""
        self._run()
        self.evaluator.num_calls += 1
        self.evaluator.num_positions += self.rows

    def run_rows(self, rows: int) -> None:
        """One network run on the first ``rows`` observations into the first ``rows`` of ``logits``
        and ``values``, counted as one ``evaluate`` call of ``rows`` positions. Each row count gets
        its own binding of the buffers' leading rows, made at its first run.

        Raises:
            ValueError: if ``rows`` is not in ``[1, self.rows]``.
        """
        entry = self._row_runs.get(rows)
        if entry is None:
            if isinstance(rows, bool) or not isinstance(rows, (int, np.integer)) or not 1 <= rows <= self.rows:
                raise ValueError(f"rows: expected an integer in [1, {self.rows}], got {rows!r}")
            import onnxruntime  # heavy dependency (onnxruntime): imported where it is used

            views = (self.observations[:rows], self.logits[:rows], self._values[:rows])
            ort_values = [onnxruntime.OrtValue.ortvalue_from_numpy(view) for view in views]
            binding = self.session.io_binding()
            binding.bind_ortvalue_input(INPUT_NAME, ort_values[0])
            for name, value in zip(OUTPUT_NAMES, ort_values[1:]):
                binding.bind_ortvalue_output(name, value)
            entry = self._row_runs[int(rows)] = (_binding_runner(self.session, binding), binding, ort_values)
        entry[0]()
        self.evaluator.num_calls += 1
        self.evaluator.num_positions += int(rows)

    def count_degenerate(self, count: int) -> None:
        """Add ``count`` rows with almost no probability on the legal actions to the evaluator's count."""
        self.evaluator.num_degenerate_priors += int(count)


def _binding_runner(session, binding):
    """A no-argument call running ``session`` on ``binding``: the extension's own
    ``run_with_iobinding`` when the session exposes it (``InferenceSession._sess`` and
    ``IOBinding._iobinding``, what the public method calls after checks that only a WebGPU graph
    capture needs), else the public method. Per call this saves about as much Python as a
    one-position search spends on each of its leaves besides the network."""
    inner_session = getattr(session, "_sess", None)
    inner_binding = getattr(binding, "_iobinding", None)
    capturing = getattr(inner_session, "is_webgpu_graph_capture_enabled", None)
    if inner_session is None or inner_binding is None or capturing is None or capturing():
        return lambda: session.run_with_iobinding(binding)
    run = inner_session.run_with_iobinding
    return lambda: run(inner_binding, None)


def load_exported(
    path: str | os.PathLike,
    expected_game=None,
    providers: list[str] | None = None,
    num_threads: int | None = None,
    spinning: bool = False,
) -> OnnxEvaluator:
    """Open an exported model with ONNX Runtime.

    Args:
        path: the export folder (or its ``model.json``/``model.onnx``).
        expected_game: ``None``, a game id ``str``, or a game object (name, version, observation
            shape and action count are checked where present).
        providers: ONNX Runtime execution providers; default CUDA when onnxruntime offers it, then CPU.
        num_threads: intra-op CPU threads (``None``: ``DEFAULT_NUM_THREADS``, one; 0: ONNX Runtime's
            own choice).
        spinning: let idle worker threads spin (``session_options``; default False).

    Returns:
        An :class:`OnnxEvaluator`.

    Raises:
        FileNotFoundError: if the folder, ``model.json`` or ``model.onnx`` is missing.
        ValueError: if ``num_threads`` is not None or an integer >= 0, the sidecar is malformed, ``model.onnx`` does not match the SHA-256 recorded
            in the sidecar (a half-replaced export), ONNX Runtime cannot read it, its inputs or
            outputs are not the export's, or it is for another game (named in the message).
    """
    import onnxruntime  # heavy dependency (onnxruntime): imported where it is used

    folder = _export_folder(path)
    sidecar = read_sidecar(folder)
    onnx_path = folder / sidecar["files"].get("onnx", ONNX_FILE)
    if not onnx_path.is_file():
        raise FileNotFoundError(f"{folder}: no {onnx_path.name}; expected a folder written by export-model")
    expected_hash = sidecar.get("sha256", {}).get(onnx_path.name)
    if expected_hash is not None and sha256_file(onnx_path) != expected_hash:
        raise ValueError(f"{onnx_path}: SHA-256 differs from the one in {SIDECAR_FILE}; re-export the model")

    name = sidecar["game"].get("name")
    if expected_game is not None:
        want_name = expected_game if isinstance(expected_game, str) else getattr(expected_game, "name", None)
        if want_name is not None and name != want_name:
            raise ValueError(f"{folder}: exported model is for game {name!r}, expected {want_name!r}")
        if not isinstance(expected_game, str):
            for key in ("version", "observation_shape", "num_actions"):
                want = getattr(expected_game, key, None)
                have = sidecar["game"].get("version") if key == "version" else sidecar.get(key)
                if (
                    want is not None
                    and have is not None
                    and list(np.atleast_1d(have)) != list(np.atleast_1d(want))
                ):
                    raise ValueError(f"{folder}: exported model has {key} {have!r}, expected {want!r}")

    options = session_options(num_threads, spinning)
    if providers is None:
        available = onnxruntime.get_available_providers()
        providers = [p for p in ("CUDAExecutionProvider", "CPUExecutionProvider") if p in available]
    try:
        session = onnxruntime.InferenceSession(str(onnx_path), sess_options=options, providers=providers)
    except Exception as error:  # onnxruntime raises its own exception types for bad files
        raise ValueError(
            f"{onnx_path}: ONNX Runtime cannot load it ({type(error).__name__}: {error})"
        ) from error
    inputs = [i.name for i in session.get_inputs()]
    outputs = [o.name for o in session.get_outputs()]
    if inputs != [INPUT_NAME] or outputs != list(OUTPUT_NAMES):
        raise ValueError(
            f"{onnx_path}: expected input {[INPUT_NAME]} and outputs {list(OUTPUT_NAMES)}, "
            f"got {inputs} and {outputs}"
        )
    return OnnxEvaluator(session, sidecar)
