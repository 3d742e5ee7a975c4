"""One search interface: every algorithm is chosen by name, called the same way, and returns
the same ``mcts.SearchOutput``.

The shape is DeepMind ``mctx``'s (``mctx/_src/policies.py``): ``muzero_policy`` and
``gumbel_muzero_policy`` take the same arguments and return one ``PolicyOutput`` (action, action
weights, search tree). Here an algorithm is a frozen *settings* dataclass whose class attribute
``algorithm`` names it, registered with the function that runs it::

    register(PUCTConfig, run_fn, reuses_tree=True, searches_chance=True)
    output = run_search(game, root_states, evaluate_fn, PUCTConfig(num_simulations=64), rng, explore=True)

Callers hold the settings object and never branch on its type: whether an algorithm reuses
trees or searches games with chance is asked of ``algorithm_of(settings)``. The built-in
algorithms (``puct``, ``gumbel``, ``uct``) register in ``mcts.algorithms``; another registers
itself the same way, from any module, with no edit elsewhere.

The move choice lives here, once (``choose_moves``): a visit-count search (PUCT, UCT) plays from
its root visit counts after the MCTS-solver's rule (``mcts.solver.solver_visit_counts``: a proven
win is played, a proven loss never while another move is not proven lost), sampled at a
temperature (Silver et al. 2017, Methods, "Self-play") or greedily, the most visited (the robust
child; Browne et al. 2012, sec. 3.3.3) with ties broken by ``ties``; Gumbel plays its Sequential
Halving winner (Danihelka et al. 2022, sec. 4), which applies the solver's rule itself.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from games.base import Game
from mcts.policy import GREEDY_TEMPERATURE, argmax_random_ties, select_actions
from mcts.solver import solver_visit_counts
from mcts.tree import Tree

#: ``ties`` settings of ``run_search``: greedy ties go to the lowest action index (deterministic, for
#: the engine protocol and mistake rates), to the generator (seeded self-play and arena games),
#: or to the highest Q among the most visited and then the generator (arena players)
TIES = ("lowest", "random", "q")


class SearchOptions(NamedTuple):
    """How one ``run_search`` call runs and chooses (the settings say what the algorithm is);
    immutable (a named tuple: built on every call, so cheaply).

    Attributes:
        explore: root noise: Dirichlet noise for PUCT, the Gumbel draw for Gumbel (self-play);
            False for arena and play.
        temperature: a float or ``[B]`` floats >= 0 for visit-count searches: rows below
            ``mcts.policy.GREEDY_TEMPERATURE`` play the most visited move, the others sample.
        ties: one of ``TIES``.
        tree: a tree from ``mcts.tree.reroot`` (subtree reuse), for algorithms that reuse trees.
        leaves_per_call: leaves per evaluator call for one root (virtual loss,
            ``mcts.minibatch``), for algorithms that collect several.
        time_limit: seconds per search, or None.
        row_rngs: one generator per row, or None: row ``b``'s move choice (samples and ties)
            then draws from ``row_rngs[b]`` alone, so it does not depend on the other rows.
    """

    explore: bool = False
    temperature: float | np.ndarray = 0.0
    ties: str = "lowest"
    tree: Tree | None = None
    leaves_per_call: int = 1
    time_limit: float | None = None
    row_rngs: tuple | None = None


#: ``run_fn(game, root_states [B, S] int64, evaluate_fn, settings, rng, options) -> SearchOutput``
RunFn = Callable[..., object]


@dataclass(frozen=True)
class Algorithm:
    """A registered search.

    Attributes:
        name: the registry name (the settings class's ``algorithm``).
        settings_type: its frozen settings dataclass (with a ``num_simulations`` field).
        run_fn: runs a search and fills ``actions`` and ``policy_targets`` of its output.
        reuses_tree: accepts ``SearchOptions.tree``.
        searches_chance: searches games with chance states.
        chooses_by_visits: ``choose_moves`` picks its move from the root visit counts at the
            caller's temperature; False: ``run_fn``'s ``actions`` are played as they are. A
            visit-count search's ``run_fn`` fills ``actions`` with ``choose_moves``' greedy choice,
            ties to the lowest index (``mcts.search.with_visit_choice``), which ``run_search`` then
            plays as it is at a greedy temperature with ``ties="lowest"``.
    """

    name: str
    settings_type: type
    run_fn: RunFn
    reuses_tree: bool = False
    searches_chance: bool = False
    chooses_by_visits: bool = True


_ALGORITHMS: dict[str, Algorithm] = {}


def register(
    settings_type: type, run_fn: RunFn, *, reuses_tree: bool = False, searches_chance: bool = False,
    chooses_by_visits: bool = True,
) -> Algorithm:
    """Register a search under ``settings_type.algorithm``; returns its ``Algorithm``.

    Registering the same settings class again replaces its entry (a module reloaded).

    Raises:
        ValueError: if ``settings_type`` is not a frozen dataclass with a string ``algorithm``
            class attribute and a ``num_simulations`` field, or the name belongs to another class.
    """
    name = getattr(settings_type, "algorithm", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"expected a settings class with a string class attribute 'algorithm', got {settings_type!r}")
    if not dataclasses.is_dataclass(settings_type) or not settings_type.__dataclass_params__.frozen:
        raise ValueError(f"{name}: expected a frozen dataclass of settings, got {settings_type!r}")
    if "num_simulations" not in {f.name for f in dataclasses.fields(settings_type)}:
        raise ValueError(f"{name}: expected a num_simulations field in {settings_type.__name__}")
    known = _ALGORITHMS.get(name)
    if known is not None and known.settings_type.__qualname__ != settings_type.__qualname__:
        raise ValueError(f"search {name!r} is already registered with {known.settings_type.__name__}")
    entry = Algorithm(name, settings_type, run_fn, bool(reuses_tree), bool(searches_chance), bool(chooses_by_visits))
    _ALGORITHMS[name] = entry
    return entry


def unregister(name: str) -> None:
    """Remove search ``name`` from the registry (a test's own search, say).

    Raises:
        ValueError: for an unknown ``name``.
    """
    algorithm(name)
    del _ALGORITHMS[name]


def names() -> tuple[str, ...]:
    """The registered search names, in registration order (``puct``, ``gumbel``, ``uct``, ...)."""
    return tuple(_ALGORITHMS)


def algorithm(name: str) -> Algorithm:
    """The search registered as ``name``.

    Raises:
        ValueError: naming the registered searches, for an unknown ``name``.
    """
    if name not in _ALGORITHMS:
        raise ValueError(f"unknown search {name!r}; expected one of {list(_ALGORITHMS)}")
    return _ALGORITHMS[name]


def algorithm_of(settings) -> Algorithm:
    """The registered search whose settings ``settings`` are.

    Raises:
        ValueError: if ``settings`` is not an instance of a registered settings class.
    """
    entry = _ALGORITHMS.get(getattr(type(settings), "algorithm", None))
    if entry is None or not isinstance(settings, entry.settings_type):
        raise ValueError(
            f"expected the settings of a registered search ({list(_ALGORITHMS)}), got {type(settings).__name__}"
        )
    return entry


def config_key(settings_type: type, field_name: str) -> str:
    """The key of ``field_name`` in a flat mapping of search settings (``trainer.config``'s
    ``mcts`` section): the field's own name, unless ``settings_type.config_keys`` names another
    (``gumbel_c_visit`` for Gumbel's ``c_visit``: keys of several algorithms share one section)."""
    return getattr(settings_type, "config_keys", {}).get(field_name, field_name)


def settings_from(name: str, values: Mapping, **overrides):
    """The frozen settings of search ``name`` from a flat mapping of settings (``config_key``).

    Keys that ``name``'s settings do not have (other algorithms' keys) are ignored; ``overrides``
    (by field name) win over ``values`` and are ignored likewise where the field does not exist.

    Raises:
        ValueError: for an unknown ``name``, and as the settings class for a value out of range.
    """
    settings_type = algorithm(name).settings_type
    chosen = {}
    for f in dataclasses.fields(settings_type):
        if f.name in overrides:
            chosen[f.name] = overrides[f.name]
        elif config_key(settings_type, f.name) in values:
            chosen[f.name] = values[config_key(settings_type, f.name)]
    try:
        return settings_type(**chosen)
    except TypeError as error:
        raise ValueError(f"{name}: {error}") from None


def run_search(
    game: Game,
    root_states: np.ndarray,
    evaluate_fn,
    settings,
    rng: np.random.Generator,
    *,
    explore: bool = False,
    temperature: float | np.ndarray = 0.0,
    ties: str = "lowest",
    tree: Tree | None = None,
    leaves_per_call: int = 1,
    time_limit: float | None = None,
    row_rngs=None,
):
    """Search ``B`` roots with the algorithm ``settings`` name and choose each row's move.

    Args:
        game: the rules.
        root_states: ``[B, S]`` int64 non-terminal decision states.
        evaluate_fn: ``mcts.evaluators`` evaluator (priors and values for the player to move);
            None for UCT's random rollouts.
        settings: a registered settings object (``PUCTConfig``, ``GumbelConfig``, ``UCTConfig``...).
        rng: every random draw of the search and the move choice.
        explore, temperature, ties, tree, leaves_per_call, time_limit, row_rngs: see ``SearchOptions``.

    Returns:
        ``mcts.SearchOutput`` with ``actions`` ``[B]`` int64 (the moves to play) and
        ``policy_targets`` ``[B, A]`` float32.

    Raises:
        ValueError: for unregistered settings, an unknown ``ties``, a ``tree`` for a search that
            does not reuse trees, a game with chance for a search without chance nodes, and as the
            algorithm (malformed roots, evaluator output, options it does not take).
    """
    entry = algorithm_of(settings)
    if ties not in TIES:
        raise ValueError(f"expected ties in {list(TIES)}, got {ties!r}")
    if tree is not None and not entry.reuses_tree:
        raise ValueError(f"the {entry.name} search does not reuse trees; expected tree=None")
    if game.num_chance_outcomes and not entry.searches_chance:
        raise ValueError(
            f"{game.name} has chance states; the {entry.name} search handles games without chance only "
            f"(searches with chance nodes: {[a.name for a in _ALGORITHMS.values() if a.searches_chance]})"
        )
    if row_rngs is not None and len(row_rngs) != len(root_states):
        raise ValueError(f"expected one generator per root ({len(root_states)}), got {len(row_rngs)}")
    row_rngs = tuple(row_rngs) if row_rngs is not None else None
    options = SearchOptions(explore, temperature, ties, tree, leaves_per_call, time_limit, row_rngs)
    output = entry.run_fn(game, root_states, evaluate_fn, settings, rng, options)
    if entry.chooses_by_visits:
        if row_rngs is None and ties == "lowest" and _greedy(temperature):
            return output  # run_fn's own actions: the greedy choice, lowest index on ties (Algorithm)
        if row_rngs is None:
            output.actions = choose_moves(output, temperature, ties, rng)
        else:
            temps = np.broadcast_to(np.asarray(temperature, dtype=np.float64), (len(root_states),))
            output.actions = np.array(
                [choose_moves(_row(output, b), temps[b], ties, row_rngs[b])[0] for b in range(len(root_states))],
                dtype=np.int64,
            )
    return output


def _greedy(temperature) -> bool:
    """Whether one temperature (not a per-row array) plays the most visited move."""
    if isinstance(temperature, (int, float)):  # the usual case, without numpy's slower ndim
        return temperature < GREEDY_TEMPERATURE
    return np.ndim(temperature) == 0 and temperature < GREEDY_TEMPERATURE


def _row(output, b: int):
    """What ``choose_moves`` reads of ``output``, for row ``b`` alone (a batch of one)."""
    return _OneRow(output.visit_counts[b : b + 1], output.q_values[b : b + 1], output.tree.take(np.array([b])))


@dataclass(frozen=True)
class _OneRow:
    visit_counts: np.ndarray
    q_values: np.ndarray
    tree: Tree


def choose_moves(output, temperature: float | np.ndarray, ties: str, rng: np.random.Generator) -> np.ndarray:
    """The moves of a visit-count search: ``[B]`` int64 (the rule of the module docstring).

    Counts are ``mcts.solver.solver_visit_counts(output)`` (the plain counts without proofs);
    rows at ``temperature >= GREEDY_TEMPERATURE`` sample ``N(a)^(1/T)`` (``mcts.select_actions``);
    greedy rows take the most visited action, ties to the lowest index (``"lowest"``), to ``rng``
    (``"random"``), or to the highest Q and then ``rng`` (``"q"``).

    Raises:
        ValueError: as ``mcts.select_actions``, and for an unknown ``ties``.
    """
    if ties not in TIES:
        raise ValueError(f"expected ties in {list(TIES)}, got {ties!r}")
    counts = solver_visit_counts(output)
    if ties == "lowest" and _greedy(temperature):
        return np.argmax(counts, axis=1).astype(np.int64)  # select_actions' greedy rule, without its checks
    if ties != "q":
        return select_actions(counts, temperature, rng, break_ties=ties == "random")
    temps = np.broadcast_to(np.asarray(temperature, dtype=np.float64), counts.shape[:1])
    actions = select_actions(counts, temps, rng, break_ties=False)
    greedy = temps < GREEDY_TEMPERATURE
    if greedy.any():
        most = counts[greedy] == counts[greedy].max(axis=1, keepdims=True)
        q_values = np.nan_to_num(output.q_values[greedy].astype(np.float64), nan=-1.5)
        actions[greedy] = argmax_random_ties(np.where(most, q_values, -2.0), rng)  # -2: below every Q
    return actions
