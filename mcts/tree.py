"""The search tree: a record of preallocated arrays with a leading batch axis (mctx layout).

Node ``i`` of row ``b`` lives at index ``[b, i]`` of every per-node array and ``[b, i, :]`` of
every per-edge array. The root is node ``ROOT_INDEX`` (0); a fresh search creates node ``i`` at
simulation ``i`` (a simulation that ends on a terminal node already in the tree creates nothing).
In a game with chance a simulation may create a chance node together with one of its outcomes
(sampling) or all of them (expectation; see ``mcts.search``).
There are no node objects; the layout follows DeepMind's ``mctx`` (``mctx/_src/tree.py``).

Value convention (negamax): every node value is from the view of the player to move at that
node, in ``[-1, 1]``. ``Q(s, a)`` (the value of an edge) is from the view of the player who chooses
``a`` at ``s``; it equals the child's value when the child has the same player to move and its
negation otherwise.

Chance nodes (games with chance, ``games.base``): a node whose state is a chance state has
``node_chance`` True; its ``K`` edges are the chance outcomes (edge ``k`` is outcome ``k``),
``chance_probs`` holds their probabilities (float64), ``children_legal`` marks the outcomes of
probability > 0 and ``children_prior`` stays 0 (no player chooses there). Its ``node_to_play`` is
the player whose decision led to it, and its value is from that player's view. The per-edge
arrays then have ``W = max(A, K)`` columns; decision nodes use the first ``A``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numba import njit

#: Index of the root node in every row.
ROOT_INDEX = 0
#: ``children_index`` entry of an edge whose child node has not been created yet.
UNVISITED = -1
#: ``parents`` entry of the root (and of unused slots).
NO_PARENT = -1
#: ``node_proof`` codes (MCTS-solver, Winands et al. 2008): not proven, or proven with the value
#: ``code - PROVEN_DRAW`` (-1, 0, +1) for the player to move at the node.
UNPROVEN = 0
PROVEN_LOSS = 1
PROVEN_DRAW = 2
PROVEN_WIN = 3


@dataclass
class Tree:
    """Search trees for ``B`` root states, ``N`` node slots each, ``A`` actions, ``S`` state columns.

    Attributes:
        node_visits: ``[B, N]`` int32, visit count of each node (its own first evaluation counts 1).
        node_value_sum: ``[B, N]`` float64, sum of backed-up values, player-to-move view.
        node_raw_value: ``[B, N]`` float32, the evaluator's value (or the exact terminal value) at
            creation, player-to-move view.
        node_to_play: ``[B, N]`` int8, player (0/1) to move at the node.
        node_terminal: ``[B, N]`` bool, True for finished states.
        node_states: ``[B, N, S]`` int64, the game state of each node.
        parents: ``[B, N]`` int32, parent node index, ``NO_PARENT`` for the root and unused slots.
        action_from_parent: ``[B, N]`` int32, the action that led from the parent, -1 for the root.
        children_index: ``[B, N, A]`` int32, child node index or ``UNVISITED``.
        children_prior: ``[B, N, A]`` float32, masked, renormalised priors (exactly 0 on illegal
            actions). The root's row holds the noisy priors when root noise was added.
        children_legal: ``[B, N, A]`` bool, legal mask of each node (all False for terminal nodes).
        num_nodes: ``[B]`` int32, slots in use per row (0 for a row whose root is not expanded yet).
        root_raw_prior: ``[B, A]`` float32, the root's masked priors before Dirichlet noise.
        node_proof: ``[B, N]`` int8, the MCTS-solver's proof of each node (``UNPROVEN``,
            ``PROVEN_LOSS``, ``PROVEN_DRAW``, ``PROVEN_WIN``, player-to-move view); terminal nodes
            are proven by their exact value. Only searches with the solver on fill it.
        node_chance: ``[B, N]`` bool, True for chance nodes.
        chance_probs: ``[B, N, K]`` float64, outcome probabilities of chance nodes (0 elsewhere;
            ``K = 0`` for games without chance).
    """

    node_visits: np.ndarray
    node_value_sum: np.ndarray
    node_raw_value: np.ndarray
    node_to_play: np.ndarray
    node_terminal: np.ndarray
    node_states: np.ndarray
    parents: np.ndarray
    action_from_parent: np.ndarray
    children_index: np.ndarray
    children_prior: np.ndarray
    children_legal: np.ndarray
    num_nodes: np.ndarray
    root_raw_prior: np.ndarray
    node_proof: np.ndarray
    node_chance: np.ndarray
    chance_probs: np.ndarray

    def arrays(self) -> TreeArrays:
        """The tree's arrays as one ``TreeArrays`` record (the same arrays, not copies)."""
        return TreeArrays(**{name: getattr(self, name) for name in TreeArrays._fields})

    def row_arrays(self, row: int) -> TreeArrays:
        """Row ``row``'s arrays without the batch axis (views; ``num_nodes`` stays a ``[1]``
        array so a kernel can count nodes in it), for kernels over one tree (``mcts.minibatch``)."""
        return TreeArrays(**{
            name: getattr(self, name)[row : row + 1] if name == "num_nodes" else getattr(self, name)[row]
            for name in TreeArrays._fields
        })

    @property
    def batch_size(self) -> int:
        return int(self.node_visits.shape[0])

    @property
    def capacity(self) -> int:
        """``N``, the node slots per row."""
        return int(self.node_visits.shape[1])

    @property
    def num_actions(self) -> int:
        """``W``, the edge columns per node: ``A``, or ``max(A, K)`` in a game with chance."""
        return int(self.children_index.shape[2])

    @property
    def num_chance_outcomes(self) -> int:
        """``K`` (0 for a game without chance)."""
        return int(self.chance_probs.shape[2])

    def node_values(self) -> np.ndarray:
        """Mean backed-up value per node, player-to-move view: ``[B, N]`` float32, NaN if unvisited."""
        with np.errstate(invalid="ignore", divide="ignore"):
            values = self.node_value_sum / self.node_visits
        return np.where(self.node_visits > 0, values, np.nan).astype(np.float32)

    def q_values(self, node: int | np.ndarray = ROOT_INDEX) -> np.ndarray:
        """``Q(s, a)`` of node ``node`` (int or ``[B]`` int) from its player's view: ``[B, A]`` float32.

        NaN for actions whose child has not been visited (and for illegal actions).
        """
        rows = np.arange(self.batch_size)
        node = np.broadcast_to(np.asarray(node, dtype=np.int64), (self.batch_size,))
        children = self.children_index[rows, node]  # [B, A]
        safe = np.maximum(children, 0)
        visits = self.node_visits[rows[:, None], safe]
        value_sum = self.node_value_sum[rows[:, None], safe]
        same_player = self.node_to_play[rows[:, None], safe] == self.node_to_play[rows, node][:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = value_sum / visits
        q = np.where(same_player, mean, -mean)
        return np.where((children != UNVISITED) & (visits > 0), q, np.nan).astype(np.float32)

    def children_visits(self, node: int | np.ndarray = ROOT_INDEX) -> np.ndarray:
        """Visit counts of the children of ``node``: ``[B, A]`` int32 (0 where not created)."""
        rows = np.arange(self.batch_size)
        node = np.broadcast_to(np.asarray(node, dtype=np.int64), (self.batch_size,))
        children = self.children_index[rows, node]
        visits = self.node_visits[rows[:, None], np.maximum(children, 0)]
        return np.where(children != UNVISITED, visits, 0).astype(np.int32)

    def take(self, rows: np.ndarray) -> Tree:
        """The trees of ``rows`` (``[B']`` int indices or ``[B]`` bool mask), copied: a ``[B', ...]`` tree.

        Use it to drop finished games from a batch before reusing the others' subtrees.

        Raises:
            ValueError: if an index is out of range or a bool mask has the wrong length.
        """
        rows = np.asarray(rows)
        if rows.dtype == np.bool_:
            if rows.shape != (self.batch_size,):
                raise ValueError(f"expected a bool mask of shape [{self.batch_size}], got {rows.shape}")
            rows = np.flatnonzero(rows)
        if rows.ndim != 1 or not np.issubdtype(rows.dtype, np.integer):
            raise ValueError(f"expected [B'] integer row indices, got {rows.dtype} of shape {rows.shape}")
        if np.any((rows < 0) | (rows >= self.batch_size)):
            raise ValueError(f"expected row indices in [0, {self.batch_size}), got {rows.tolist()}")
        return Tree(**{name: getattr(self, name)[rows].copy() for name in self.__dataclass_fields__})

    def depths(self) -> np.ndarray:
        """Depth (edges from the root) of every used node: ``[B, N]`` int32, -1 for unused slots."""
        depth = np.full(self.parents.shape, -1, dtype=np.int32)
        _fill_depths(self.parents, self.num_nodes, depth)
        return depth


#: The arrays of a ``Tree`` as one record for compiled kernels (Numba compiles a NamedTuple of
#: arrays; mctx passes its ``Tree`` the same way). Its fields are ``Tree``'s, in ``Tree``'s order,
#: taken from the dataclass (one list of fields); the arrays are the tree's own (``Tree.arrays``,
#: no copies), so a kernel's writes land in the tree.
TreeArrays = NamedTuple("TreeArrays", [(f.name, np.ndarray) for f in dataclasses.fields(Tree)])


def empty_tree(batch_size: int, capacity: int, num_actions: int, state_size: int, num_chance_outcomes: int = 0) -> Tree:
    """Allocate a tree with ``num_nodes == 0`` in every row (no root yet).

    The per-edge arrays get ``max(num_actions, num_chance_outcomes)`` columns.
    """
    b, n, a = batch_size, capacity, max(num_actions, num_chance_outcomes)
    return Tree(
        node_visits=np.zeros((b, n), dtype=np.int32),
        node_value_sum=np.zeros((b, n), dtype=np.float64),
        node_raw_value=np.zeros((b, n), dtype=np.float32),
        node_to_play=np.zeros((b, n), dtype=np.int8),
        node_terminal=np.zeros((b, n), dtype=np.bool_),
        node_states=np.zeros((b, n, state_size), dtype=np.int64),
        parents=np.full((b, n), NO_PARENT, dtype=np.int32),
        action_from_parent=np.full((b, n), -1, dtype=np.int32),
        children_index=np.full((b, n, a), UNVISITED, dtype=np.int32),
        children_prior=np.zeros((b, n, a), dtype=np.float32),
        children_legal=np.zeros((b, n, a), dtype=np.bool_),
        num_nodes=np.zeros(b, dtype=np.int32),
        root_raw_prior=np.zeros((b, a), dtype=np.float32),
        node_proof=np.zeros((b, n), dtype=np.int8),
        node_chance=np.zeros((b, n), dtype=np.bool_),
        chance_probs=np.zeros((b, n, num_chance_outcomes), dtype=np.float64),
    )


#: the fields of ``Tree`` with no node axis (``[B]`` and ``[B, A]``)
_PER_ROW_FIELDS = ("num_nodes", "root_raw_prior")


def grow_tree(tree: Tree, capacity: int) -> Tree:
    """Copy ``tree`` into a new tree with ``capacity`` node slots per row (``>= max(num_nodes)``)."""
    new = empty_tree(tree.batch_size, capacity, tree.num_actions, tree.node_states.shape[2], tree.num_chance_outcomes)
    n = min(tree.capacity, capacity)
    for name in TreeArrays._fields:
        if name in _PER_ROW_FIELDS:
            getattr(new, name)[:] = getattr(tree, name)
        else:
            getattr(new, name)[:, :n] = getattr(tree, name)[:, :n]
    return new


def reroot(tree: Tree, actions: np.ndarray) -> Tree:
    """Subtree reuse: the tree below the root's child ``actions[b]``, compacted, for the next search.

    For each row the child reached by ``actions[b]`` becomes the new root (node ``ROOT_INDEX``) with
    its visit counts and values; every node not below it is dropped and the kept nodes are
    renumbered in breadth-first order, so nothing unreachable stays allocated. Rows whose child was
    never created come back empty (``num_nodes == 0``) and are expanded afresh by the next search.
    ``root_raw_prior`` becomes the new root's raw priors, so the next search mixes in fresh noise.

    Args:
        tree: the ``tree`` of a ``SearchOutput``.
        actions: ``[B]`` integer actions played at the roots.

    Returns:
        A new ``Tree`` with ``N = max(1, max_b subtree size)``.

    Raises:
        ValueError: if ``actions`` is not ``[B]`` or an action is outside ``[0, A)``, or a row's
            root was never expanded.
    """
    actions = np.asarray(actions)
    if actions.shape != (tree.batch_size,):
        raise ValueError(f"expected actions of shape [{tree.batch_size}], got {actions.shape}")
    if not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(f"expected integer actions, got {actions.dtype}")
    if np.any((actions < 0) | (actions >= tree.num_actions)):
        raise ValueError(f"expected actions in [0, {tree.num_actions}), got {actions.tolist()}")
    if np.any(tree.num_nodes < 1):
        raise ValueError(f"rows {np.flatnonzero(tree.num_nodes < 1).tolist()} have no expanded root")
    actions = actions.astype(np.int64)
    rows = np.arange(tree.batch_size)
    new_roots = tree.children_index[rows, ROOT_INDEX, actions]
    sizes = np.zeros(tree.batch_size, dtype=np.int32)
    order = np.full((tree.batch_size, tree.capacity), -1, dtype=np.int32)
    _subtree_order(tree.children_index, new_roots.astype(np.int32), order, sizes)
    new = empty_tree(
        tree.batch_size, max(1, int(sizes.max())), tree.num_actions, tree.node_states.shape[2], tree.num_chance_outcomes
    )
    _copy_subtrees(order, sizes, tree.arrays(), new.arrays())
    new.num_nodes[:] = sizes
    kept = order[:, : new.capacity]
    new.node_proof[:] = np.where(kept >= 0, np.take_along_axis(tree.node_proof, np.maximum(kept, 0), axis=1), 0)
    if new.num_chance_outcomes:
        safe = np.maximum(kept, 0)
        new.node_chance[:] = (kept >= 0) & np.take_along_axis(tree.node_chance, safe, axis=1)
        probs = np.take_along_axis(tree.chance_probs, safe[:, :, None], axis=1)
        new.chance_probs[:] = np.where((kept >= 0)[:, :, None], probs, 0.0)
    new.root_raw_prior[:] = np.where(sizes[:, None] > 0, new.children_prior[:, ROOT_INDEX], 0.0)
    return new


@njit(cache=True)
def _subtree_order(children_index, new_roots, order, sizes):  # pragma: no cover - compiled
    batch, _, num_actions = children_index.shape
    for b in range(batch):
        if new_roots[b] < 0:
            sizes[b] = 0
            continue
        order[b, 0] = new_roots[b]
        head = 0
        tail = 1
        while head < tail:
            node = order[b, head]
            head += 1
            for a in range(num_actions):
                child = children_index[b, node, a]
                if child >= 0:
                    order[b, tail] = child
                    tail += 1
        sizes[b] = tail


@njit(cache=True)
def _copy_subtrees(order, sizes, old_tree, new_tree):  # pragma: no cover - compiled
    """Copy node ``order[b, i]`` of ``old_tree`` (``TreeArrays``) to node ``i`` of ``new_tree``
    for ``i < sizes[b]``, renumbering parents and children (proofs and chance arrays: ``reroot``)."""
    t = old_tree
    n = new_tree
    batch, capacity = t.node_visits.shape
    num_actions = t.children_index.shape[2]
    old_to_new = np.full(capacity, -1, dtype=np.int32)
    for b in range(batch):
        size = sizes[b]
        for i in range(size):
            old_to_new[order[b, i]] = i
        for i in range(size):
            old = order[b, i]
            n.node_visits[b, i] = t.node_visits[b, old]
            n.node_value_sum[b, i] = t.node_value_sum[b, old]
            n.node_raw_value[b, i] = t.node_raw_value[b, old]
            n.node_to_play[b, i] = t.node_to_play[b, old]
            n.node_terminal[b, i] = t.node_terminal[b, old]
            n.node_states[b, i, :] = t.node_states[b, old, :]
            if i == 0:
                n.parents[b, i] = -1
                n.action_from_parent[b, i] = -1
            else:
                n.parents[b, i] = old_to_new[t.parents[b, old]]
                n.action_from_parent[b, i] = t.action_from_parent[b, old]
            for a in range(num_actions):
                child = t.children_index[b, old, a]
                n.children_index[b, i, a] = old_to_new[child] if child >= 0 else -1
                n.children_prior[b, i, a] = t.children_prior[b, old, a]
                n.children_legal[b, i, a] = t.children_legal[b, old, a]
        for i in range(size):
            old_to_new[order[b, i]] = -1


@njit(cache=True)
def _fill_depths(parents, num_nodes, depth):  # pragma: no cover - compiled
    for b in range(parents.shape[0]):
        for i in range(num_nodes[b]):
            d = 0
            node = i
            while parents[b, node] >= 0:
                node = parents[b, node]
                d += 1
            depth[b, i] = d
