"""Models shipped with the package, so that ``play`` works right after installing.

Each model is a folder ``networks/shipped/NAME/`` written by ``export-model`` (``model.onnx``,
``model.safetensors``, ``model.json`` with its provenance, ``networks.provenance``) plus a
``PROVENANCE.md`` giving the exact command that rebuilds it (``scripts/build_shipped_model.sh``)
and its measured strength. A folder named after a game id (``tictactoe``) is that game's default:
``play --game tictactoe`` without ``--model`` plays it. ``play --model NAME``, ``play --web --model
NAME`` and the player spec ``mcts:model=NAME`` take a shipped model by name
(``networks.loading.resolve_model``).
"""

from __future__ import annotations

from pathlib import Path

from networks.onnx_evaluator import SIDECAR_FILE

#: the folder holding the shipped model folders
SHIPPED_DIR = Path(__file__).resolve().parent


def shipped_names() -> list[str]:
    """Names of the shipped models (their folder names), sorted."""
    return sorted(path.parent.name for path in SHIPPED_DIR.glob(f"*/{SIDECAR_FILE}"))


def shipped_path(name: str) -> Path | None:
    """The export folder of the shipped model ``name``, or None if none has that name."""
    if not isinstance(name, str) or name not in shipped_names():
        return None
    return SHIPPED_DIR / name
