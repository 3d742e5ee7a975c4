"""Tabular policies of the imperfect-information games as JSON files.

The format, written by ``cfr`` and read by ``play --game kuhn|leduc`` and ``arena expected-value``::

    {"game": "kuhn", "policy": {"0": [0.79, 0.21], "0p": [0.67, 0.33], ...}}

One entry per information state (OpenSpiel's ``information_state_string``), each a list of
probabilities over all of the game's actions in OpenSpiel's order (Kuhn: pass, bet; Leduc: fold,
call, raise), 0 for illegal ones. OpenSpiel's ``TabularPolicy`` can load the same table.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

import games
from games.atomic import atomic_write_text
from search.best_response import check_policy
from search.game_tree import GameTree, build_tree

#: Policy names accepted wherever a policy file is: the uniform random policy.
UNIFORM = "uniform"

_TREES: dict[str, GameTree] = {}


def game_tree(name: str) -> GameTree:
    """The flat tree of game ``name``, built once per process.

    Raises:
        ValueError: for an unknown game name.
    """
    if name not in _TREES:
        _TREES[name] = build_tree(games.make(name))
    return _TREES[name]


def policy_to_json(tree: GameTree, policy: np.ndarray) -> dict:
    """``{"game": ..., "policy": {INFOSTATE: [p(action 0), ...]}}`` for a `[I, A]` policy."""
    array = check_policy(tree, policy)
    return {
        "game": tree.game.name,
        "policy": {name: [float(p) for p in array[i]] for i, name in enumerate(tree.infostate_names)},
    }


def write_policy(path: str | Path, tree: GameTree, policy: np.ndarray) -> Path:
    """Write the policy JSON atomically (games/atomic.py), one information state a line.

    Raises:
        ValueError: for a bad policy; FileNotFoundError: if the folder does not exist.
    """
    data = policy_to_json(tree, policy)
    rows = ",\n".join(f"  {json.dumps(name)}: {json.dumps(row)}" for name, row in data["policy"].items())
    return atomic_write_text(path, f'{{"game": {json.dumps(data["game"])}, "policy": {{\n{rows}\n}}}}\n')


def policy_from_json(data, source: str = "policy") -> tuple[GameTree, np.ndarray]:
    """``(tree, policy [I, A] float64)`` from the JSON object of a policy file.

    Raises:
        ValueError: if the object is not a policy of a registered game: the message names the
            first wrong field (unknown game, a missing or unknown information state, a row of the
            wrong length, probabilities that are negative, on an illegal action or do not sum to 1).
    """
    if not isinstance(data, dict) or not isinstance(data.get("policy"), dict):
        raise ValueError(f"{source}: expected a JSON object with \"game\" and \"policy\" (an object)")  # noqa: TRY004 - bad file content
    game = data.get("game")
    if game not in games.names([games.IMPERFECT]):
        raise ValueError(f"{source}: \"game\": expected one of {games.names([games.IMPERFECT])}, got {game!r}")
    tree = game_tree(game)
    table = data["policy"]
    unknown = sorted(set(table) - set(tree.infostate_index))
    if unknown:
        raise ValueError(f"{source}: {len(unknown)} unknown information state(s) of {game}, e.g. {unknown[0]!r}")
    missing = [name for name in tree.infostate_names if name not in table]
    if missing:
        raise ValueError(f"{source}: {len(missing)} of {tree.num_infostates} information states missing, e.g. {missing[0]!r}")
    policy = np.zeros((tree.num_infostates, tree.num_actions))
    for name, row in table.items():
        if (not isinstance(row, list) or len(row) != tree.num_actions
                or not all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in row)):
            raise ValueError(f"{source}: {name!r}: expected a list of {tree.num_actions} numbers, got {row!r}")
        policy[tree.infostate_index[name]] = row
    return tree, check_policy(tree, policy, source)


def load_policy(spec: str, game: str | None = None) -> tuple[GameTree, np.ndarray]:
    """A policy file, or ``"uniform"`` (then ``game`` names the game).

    Raises:
        FileNotFoundError: if the file does not exist.
        ValueError: if it is not valid JSON or not a valid policy (``policy_from_json``), if it
            plays another game than ``game``, or for ``"uniform"`` without a game.
    """
    if spec == UNIFORM:
        if game is None:
            raise ValueError("the uniform policy needs a game: give --game kuhn or --game leduc")
        tree = game_tree(game)
        return tree, tree.uniform_policy()
    path = Path(spec)
    if not path.is_file():
        raise FileNotFoundError(f"policy file not found: {spec}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"{spec}: not a JSON policy file ({error})") from None
    tree, policy = policy_from_json(data, spec)
    if game is not None and tree.game.name != game:
        raise ValueError(f"{spec}: the policy plays {tree.game.name!r}, not {game!r}")
    return tree, policy
