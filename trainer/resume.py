"""The configuration of a resumed run: the run's saved ``config.json`` plus what the command line names.

``train resume=DIR`` goes on with the run's own settings. A key takes a new value only when the
command line names it:

* ``section.key=value`` names ``section.key`` (also with ``+`` or ``++``);
* a group choice ``group=option`` names the keys that the option's own file sets
  (``configs/<group>/<option>.yaml``), and nothing that its ``defaults`` list pulls in: re-stating
  ``game=tictactoe`` names ``game.name`` only, although ``configs/game/tictactoe.yaml`` chooses the
  tic-tac-toe trainer, search and network groups; ``network=b4c32`` names the six keys its file
  sets; ``experiment=tiny`` names every key its (global) file sets.

Every other key keeps the saved value, and :func:`resume_changes` lists each key whose value
differs from the saved one, so the run can say what changed. The game and the network are fixed
for the life of a run (:func:`check_resume_compatible`): the checkpoint would not fit another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from trainer.config import CONFIG_GROUPS, TrainSchema, from_dict

#: sections of the config that a resumed run may not change: the checkpoint would not fit
IMMUTABLE_ON_RESUME = ("game", "network")
#: single keys a resumed run may not change: the saved replay buffer's split depends on it
IMMUTABLE_KEYS_ON_RESUME = ("trainer.validation_every",)

#: the folder of the YAML files ``train`` composes
CONFIG_DIR = Path(__file__).resolve().parents[1] / "configs"


def _override_key(override: str) -> str | None:
    """The key of one command-line override (``+a.b=1`` -> ``a.b``), or None for options and
    ``hydra...`` keys."""
    if override.startswith("-") or "=" not in override:
        return None
    key = override.split("=", 1)[0].lstrip("+~")
    if not key or key.startswith("hydra"):
        return None
    return key


def override_keys(overrides: list[str]) -> set[str]:
    """What command-line overrides name, syntactically: ``section.key`` for a value (``a.b=1``,
    ``+a.b=1``, ``++a.b=1``) and ``section`` for a group choice that fills one section
    (``game=tictactoe``).

    ``experiment=`` (it spans sections), ``resume`` and ``hydra...`` keys are not included; see
    :func:`named_keys` for the keys a group choice sets.
    """
    keys = set()
    for override in overrides:
        key = _override_key(override)
        if key is None:
            continue
        if key.count(".") == 1 or (key in CONFIG_GROUPS and key != "experiment"):
            keys.add(key)
    return keys


def option_keys(group: str, option: str, config_dir: str | Path = CONFIG_DIR) -> set[str]:
    """The ``section.key`` names that ``configs/<group>/<option>.yaml`` sets in its own body.

    A file whose first lines say ``# @package _global_`` sets keys from the root (``game:`` /
    ``name: ...`` is ``game.name``); any other file sets keys of its group's section. The
    ``defaults`` list is not included: what it chooses is named by those files, not this one;
    except that a group file built on another option of its own group (``defaults: [default,
    _self_]``, as ``configs/trainer/tictactoe.yaml`` is) sets that option's keys too, since
    choosing it chooses them all.

    Raises:
        ValueError: if the file does not exist or is not a mapping.
    """
    import yaml  # heavy dependency (yaml): imported where it is used

    path = Path(config_dir) / group / f"{option}.yaml"
    if not path.is_file():
        raise ValueError(f"{group}={option}: expected a file {path}, which does not exist")
    text = path.read_text()
    data = yaml.safe_load(text) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of settings, got {type(data).__name__}")
    defaults = data.pop("defaults", None) or []
    header = [line for line in text.splitlines()[:5] if line.startswith("# @package")]
    if header and header[0].split()[-1] == "_global_":
        keys = set()
        for section, values in data.items():
            if isinstance(values, dict):
                keys.update(f"{section}.{key}" for key in values)
            else:
                keys.add(str(section))
        return keys
    keys = {f"{group}.{key}" for key in data}
    for base in defaults:  # options of the same group this file extends (a plain name in its list)
        if isinstance(base, str) and base != "_self_" and "/" not in base and ":" not in base:
            keys |= option_keys(group, base, config_dir)
    return keys


def named_keys(overrides: list[str], config_dir: str | Path = CONFIG_DIR) -> set[str]:
    """Every ``section.key`` that a command line names (see the module docstring).

    Args:
        overrides: Hydra's task overrides, e.g. ``["resume=DIR", "game=tictactoe", "run.max_steps=6"]``.
        config_dir: the folder holding the config groups.

    Raises:
        ValueError: as :func:`option_keys`, for a group choice without a file.
    """
    keys = set()
    for override in overrides:
        key = _override_key(override)
        if key is None or "/" in key or "@" in key or key == "resume":
            continue
        if key in CONFIG_GROUPS:
            option = override.split("=", 1)[1].strip()
            if option and option != "null":
                keys |= option_keys(key, option, config_dir)
        elif key.count(".") >= 1:
            keys.add(".".join(key.split(".")[:2]))
    return keys


def resume_config(saved: dict, composed: dict, named: set[str]) -> TrainSchema:
    """The configuration of a resumed run: the run's own ``config.json`` plus this command line.

    A key takes the value the command line composed (``composed``) when ``named`` holds it
    (``section.key``, or ``section`` for every key of that section), even when that value is the
    default; every other key keeps the run's saved value, so ``train resume=DIR`` alone goes on
    with the run's own game, network and settings. Keys the saved file lacks (written before they
    existed) take the composed value.

    Args:
        saved, composed: plain nested dicts as written by ``trainer.config.to_dict``.
        named: from :func:`named_keys` (or :func:`override_keys`).

    Raises:
        ValueError: for a key in ``saved`` that the schema does not know (``from_dict``).
    """
    merged: dict = {}
    for section, values in composed.items():
        if section == "resume":
            continue
        base = dict(saved.get(section, {}))
        for key, value in values.items():
            if f"{section}.{key}" in named or section in named or key not in base:
                base[key] = value
        merged[section] = base
    merged["resume"] = composed.get("resume")
    return from_dict(merged)


def resume_changes(saved: dict, merged: dict) -> list[tuple[str, Any, Any]]:
    """``(section.key, saved value, new value)`` for every key whose value the resume changes,
    sorted by key; a key the saved file lacks has the saved value ``MISSING``.

    Args:
        saved, merged: plain nested dicts (``config.json`` and ``to_dict`` of the resumed config).
    """
    changes = []
    for section in sorted(merged):
        if section == "resume" or not isinstance(merged[section], dict):
            continue
        old_section = saved.get(section, {})
        for key in sorted(merged[section]):
            old = old_section.get(key, MISSING) if isinstance(old_section, dict) else MISSING
            new = merged[section][key]
            if old is MISSING or old != new:
                changes.append((f"{section}.{key}", old, new))
    return changes


class _Missing:
    def __repr__(self) -> str:
        return "(not in the saved config)"


#: the saved value of a key that the run's ``config.json`` lacks (:func:`resume_changes`)
MISSING = _Missing()


def describe_changes(changes: list[tuple[str, Any, Any]]) -> list[str]:
    """One line per change: ``trainer.learning_rate: 0.005 -> 0.001``."""
    return [f"{key}: {old!r} -> {new!r}" for key, old, new in changes]


def check_resume_compatible(saved: dict, current: dict) -> None:
    """Raise ValueError naming every key of ``IMMUTABLE_ON_RESUME`` (sections) and
    ``IMMUTABLE_KEYS_ON_RESUME`` whose value differs from the saved run's (plain nested dicts); a
    single key the saved run lacks (an older run) is not compared."""
    problems = []
    for section in IMMUTABLE_ON_RESUME:
        old, new = saved.get(section, {}), current.get(section, {})
        for key in sorted(set(old) | set(new)):
            if old.get(key) != new.get(key):
                problems.append(f"{section}.{key}: the run has {old.get(key)!r}, the override asks {new.get(key)!r}")
    for dotted in IMMUTABLE_KEYS_ON_RESUME:
        section, key = dotted.split(".")
        old, new = saved.get(section, {}), current.get(section, {})
        if key in old and old.get(key) != new.get(key):
            problems.append(f"{dotted}: the run has {old.get(key)!r}, the override asks {new.get(key)!r}")
    if problems:
        raise ValueError("cannot change these keys when resuming a run:\n  " + "\n  ".join(problems))
