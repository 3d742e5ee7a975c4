"""Where an exported model came from: the ``provenance`` record of ``model.json``.

``networks.export.export_model`` writes it; ``play`` prints :func:`provenance_summary` of it. This
module imports neither torch nor ONNX Runtime, so reading a model's story costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from importlib import metadata as package_metadata
from pathlib import Path

#: the keys a ``provenance`` record may hold, in the order ``provenance_summary`` reads them:
#: ``code`` (:func:`code_version`), ``config`` (``sha256`` of the resolved config's canonical JSON,
#: ``path`` of the run's ``config.json``, ``values``: the config itself), ``training``
#: (``minutes``, ``steps``, ``games``, ``promotions``, ``gates``, ``best_version``), ``search``
#: (``trained_with`` and ``play_with``: ``algorithm`` and its settings) and ``mistake_rates``
#: (``rates``: ``{set: rate}``, the share of labelled positions where the model's move loses value,
#: the run's last measurement; ``measured_version``: the best model version it was measured on)
PROVENANCE_KEYS = ("code", "config", "training", "search", "mistake_rates")

#: the distribution name of this project (its version is the fallback code version)
PACKAGE_NAME = "tabula-rasa"


def code_version(folder: str | os.PathLike | None = None) -> dict:
    """The version of the code that runs now: ``{"commit", "dirty", "package_version"}``.

    ``commit`` is ``git rev-parse HEAD`` of the checkout holding ``folder`` (default: this file's
    folder) and ``dirty`` whether ``git status --porcelain --untracked-files=no`` lists a change
    there; outside a checkout (an installed wheel) both are ``None`` and only the package version
    (``importlib.metadata``; ``None`` when not installed) says which code it is.
    """
    where = Path(folder) if folder is not None else Path(__file__).resolve().parent
    commit = dirty = None
    try:
        head = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True, timeout=10, check=False
        )
        if head.returncode == 0 and head.stdout.strip():
            commit = head.stdout.strip()
            status = subprocess.run(
                ["git", "status", "--porcelain", "--untracked-files=no"], cwd=where, capture_output=True,
                text=True, timeout=30, check=False,
            )
            dirty = bool(status.stdout.strip()) if status.returncode == 0 else None
    except (OSError, subprocess.SubprocessError):
        commit = dirty = None
    try:
        version = package_metadata.version(PACKAGE_NAME)
    except package_metadata.PackageNotFoundError:
        version = None
    return {"commit": commit, "dirty": dirty, "package_version": version}


def config_digest(values: dict) -> str:
    """SHA-256 (hex) of ``values`` as canonical JSON (sorted keys, no spaces): two runs with the
    same resolved config have the same digest.

    Raises:
        ValueError: if ``values`` is not JSON-serialisable.
    """
    try:
        text = json.dumps(values, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"config: expected JSON-serialisable plain values ({error})") from error
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _search_words(search: dict | None) -> str:
    if not search:
        return "?"
    words = str(search.get("algorithm", "?"))
    if search.get("num_simulations") is not None:
        words += f" {search['num_simulations']} sims"
    return words


def provenance_summary(sidecar: dict) -> str:
    """One line saying where an exported model came from, from its ``model.json`` dict.

    Example: ``tictactoe model (mlp), trained 3.0 min: 5120 steps, 4000 games, 2 promotions;
    self-play gumbel 32 sims, play puct 64 sims; mistakes all 0.00%; code 1a2b3c4d5e6f (dirty)``.
    A sidecar without ``provenance`` (written before it existed) gives ``... no provenance recorded``.
    """
    game = sidecar.get("game", {}).get("name", "?")
    head = f"{game} model ({sidecar.get('network_name', '?')})"
    provenance = sidecar.get("provenance")
    if not isinstance(provenance, dict) or not provenance:
        return f"{head}: no provenance recorded (exported before model.json carried it)"
    parts = []
    training = provenance.get("training") or {}
    if training:
        minutes = training.get("minutes")
        trained = f"trained {minutes:.1f} min" if isinstance(minutes, (int, float)) else "trained"
        parts.append(
            f"{trained}: {training.get('steps', '?')} steps, {training.get('games', '?')} games, "
            f"{training.get('promotions', '?')} promotions"
        )
    search = provenance.get("search") or {}
    if search:
        parts.append(
            f"self-play {_search_words(search.get('trained_with'))}, play {_search_words(search.get('play_with'))}"
        )
    rates = (provenance.get("mistake_rates") or {}).get("rates") or {}
    if rates:
        parts.append("mistakes " + ", ".join(f"{name} {rate:.2%}" for name, rate in rates.items()))
    code = provenance.get("code") or {}
    if code.get("commit"):
        parts.append(f"code {code['commit'][:12]}" + (" (dirty)" if code.get("dirty") else ""))
    elif code.get("package_version"):
        parts.append(f"code tabula-rasa {code['package_version']}")
    return head + (", " + "; ".join(parts) if parts else "")


#: ``play_with`` keys that do not shape the played search: the simulations (each player sets its
#: own) and the root noise (self-play's exploration; a player searches without it)
NOT_PLAYED_KEYS = ("num_simulations", "dirichlet_alpha", "dirichlet_epsilon")


def play_search(sidecar: dict) -> tuple[str, dict] | None:
    """The search a model should be played with, from its ``provenance.search.play_with``: the
    registered search's name (``mcts.registry``) and its settings by field name, less
    ``NOT_PLAYED_KEYS``; None for a ``model.json`` without that record (older exports).

    Pig's models, for example, record ``backup="max_self"`` (their arena's backup, not self-play's), so
    ``play`` and ``mcts:model=`` players search with it rather than the library's mean backup.
    """
    play_with = ((sidecar.get("provenance") or {}).get("search") or {}).get("play_with")
    if not isinstance(play_with, dict) or not isinstance(play_with.get("algorithm"), str):
        return None
    settings = {k: v for k, v in play_with.items() if k != "algorithm" and k not in NOT_PLAYED_KEYS}
    return play_with["algorithm"], settings

