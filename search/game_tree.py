"""The whole tree of an imperfect-information game as flat arrays, built once per game.

Counterfactual regret minimisation, best responses and policy evaluation walk every history many
times; walking Python objects would dominate their cost. ``build_tree`` enumerates the histories
once, breadth first, into a ``TreeArrays`` record (the layout of DeepMind's ``mctx`` trees: no
node objects, one array per field). Breadth-first numbering gives what the kernels rely on:

* a node's children are contiguous (``first_child[n] .. first_child[n] + num_children[n] - 1``),
  in ascending action (or chance outcome) order;
* a parent comes before its children, so one forward loop pushes reach probabilities down and one
  backward loop pulls values up;
* nodes are sorted by depth, and every history of one information state has the same depth
  (checked at build time), so a backward loop meets an information state's histories together.

Utilities are player 0's, in chips (the game is zero-sum, so player 1's is the negation).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

import games
from games.imperfect.base import ImperfectInformationGame

#: ``TreeArrays.kind`` values.
DECISION = 0
CHANCE_NODE = 1
TERMINAL_NODE = 2
#: ``TreeArrays.infostate`` of a chance or terminal node.
NO_INFOSTATE = -1


class TreeArrays(NamedTuple):
    """One record of arrays for the compiled kernels (``N`` nodes, ``I`` information states,
    ``A`` actions).

    Attributes:
        kind: `[N]` int8, ``DECISION``, ``CHANCE_NODE`` or ``TERMINAL_NODE``.
        player: `[N]` int8, the player to move (0 or 1) at a decision node, else -1.
        infostate: `[N]` int32, the information state index of a decision node, else ``NO_INFOSTATE``.
        first_child: `[N]` int32, index of the first child (0 for terminal nodes).
        num_children: `[N]` int32, number of children (legal actions or chance outcomes).
        action: `[N]` int32, the action or chance outcome that led to the node (-1 at the root).
        chance_probability: `[N]` float64, the probability of the chance outcome that led to the
            node, 1.0 when the parent is not a chance node.
        utility: `[N]` float64, player 0's chips at a terminal node, else 0.
        depth: `[N]` int32, number of actions (chance outcomes included) from the root.
        level_start: `[D + 1]` int32, nodes of depth ``d`` are ``level_start[d] .. level_start[d+1]-1``.
        infostate_player: `[I]` int8, the player who acts at each information state.
        infostate_legal: `[I, A]` bool, True for legal actions.
    """

    kind: np.ndarray
    player: np.ndarray
    infostate: np.ndarray
    first_child: np.ndarray
    num_children: np.ndarray
    action: np.ndarray
    chance_probability: np.ndarray
    utility: np.ndarray
    depth: np.ndarray
    level_start: np.ndarray
    infostate_player: np.ndarray
    infostate_legal: np.ndarray


@dataclass(frozen=True)
class GameTree:
    """A game's flat tree and the names of its information states.

    Attributes:
        game: the rules it was built from.
        arrays: the ``TreeArrays`` record.
        infostate_names: `[I]` OpenSpiel information-state strings, index = information state id.
        infostate_index: name -> id.
    """

    game: ImperfectInformationGame
    arrays: TreeArrays
    infostate_names: tuple[str, ...]
    infostate_index: dict

    @property
    def num_nodes(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def num_infostates(self) -> int:
        return len(self.infostate_names)

    @property
    def num_actions(self) -> int:
        return int(self.game.num_actions)

    def uniform_policy(self) -> np.ndarray:
        """`[I, A]` float64: uniform over each information state's legal actions, 0 elsewhere."""
        legal = self.arrays.infostate_legal.astype(np.float64)
        return legal / legal.sum(axis=1, keepdims=True)


def build_tree(game: ImperfectInformationGame | str) -> GameTree:
    """Enumerate every history of ``game`` (an object or a registered name) breadth first.

    Raises:
        ValueError: for an unknown game name, or if the game breaks an assumption of the kernels
            (two histories of one information state at different depths or with different legal
            actions, an information state acted on by both players).
    """
    if isinstance(game, str):
        if not games.is_known(game, [games.IMPERFECT]):
            expected = games.names([games.IMPERFECT])
            raise ValueError(f"unknown imperfect-information game {game!r}; expected one of {expected}")
        game = games.make(game)
    histories = [game.initial_state()]
    kind, player, infostate, first_child, num_children = [], [], [], [], []
    action, chance_probability, utility, depth = [-1], [1.0], [], [0]
    names: list[str] = []
    index: dict[str, int] = {}
    infostate_player: list[int] = []
    infostate_legal: list[list[bool]] = []
    infostate_depth: list[int] = []
    head = 0
    while head < len(histories):
        state = histories[head]
        mover = game.player_to_move(state)
        first_child.append(len(histories))
        if game.is_terminal(state):
            kind.append(TERMINAL_NODE)
            player.append(-1)
            infostate.append(NO_INFOSTATE)
            num_children.append(0)
            first_child[-1] = 0
            utility.append(float(game.returns(state)[0]))
        elif game.is_chance(state):
            outcomes = game.chance_outcomes(state)
            kind.append(CHANCE_NODE)
            player.append(-1)
            infostate.append(NO_INFOSTATE)
            num_children.append(len(outcomes))
            utility.append(0.0)
            for outcome, probability in outcomes:
                histories.append(state + (outcome,))
                action.append(outcome)
                chance_probability.append(probability)
                depth.append(depth[head] + 1)
        else:
            legal = game.legal_actions(state)
            name = game.information_state(state, mover)
            mask = [a in legal for a in range(game.num_actions)]
            if name not in index:
                index[name] = len(names)
                names.append(name)
                infostate_player.append(mover)
                infostate_legal.append(mask)
                infostate_depth.append(depth[head])
            slot = index[name]
            if (infostate_player[slot], infostate_legal[slot], infostate_depth[slot]) != (mover, mask, depth[head]):
                raise ValueError(
                    f"{game.name}: information state {name!r} has histories with different players, legal "
                    f"actions or depths (expected {infostate_player[slot], infostate_legal[slot], infostate_depth[slot]}, "
                    f"got {mover, mask, depth[head]})"
                )
            kind.append(DECISION)
            player.append(mover)
            infostate.append(slot)
            num_children.append(len(legal))
            utility.append(0.0)
            for move in legal:
                histories.append(state + (move,))
                action.append(move)
                chance_probability.append(1.0)
                depth.append(depth[head] + 1)
        head += 1
    depth_array = np.asarray(depth, dtype=np.int32)
    level_start = np.searchsorted(depth_array, np.arange(int(depth_array.max()) + 2)).astype(np.int32)
    arrays = TreeArrays(
        kind=np.asarray(kind, dtype=np.int8),
        player=np.asarray(player, dtype=np.int8),
        infostate=np.asarray(infostate, dtype=np.int32),
        first_child=np.asarray(first_child, dtype=np.int32),
        num_children=np.asarray(num_children, dtype=np.int32),
        action=np.asarray(action, dtype=np.int32),
        chance_probability=np.asarray(chance_probability, dtype=np.float64),
        utility=np.asarray(utility, dtype=np.float64),
        depth=depth_array,
        level_start=level_start,
        infostate_player=np.asarray(infostate_player, dtype=np.int8),
        infostate_legal=np.asarray(infostate_legal, dtype=bool).reshape(len(names), game.num_actions),
    )
    return GameTree(game=game, arrays=arrays, infostate_names=tuple(names), infostate_index=index)
