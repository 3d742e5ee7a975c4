"""Perfect-information Monte Carlo (PIMC): sample the hidden cards, solve each visible world.

At an information state the PIMC player samples histories consistent with what it has seen (its
cards, the public card, the betting), with the probability chance gives each deal, solves each
sampled world as if every card were face up (minimax, with chance still to come averaged:
expectimax), and plays the action with the best average value (Ginsberg 2001, "GIB: Imperfect
Information in a Computationally Challenging Game", sec. 3; Long et al. 2010, "Understanding the
Success of Perfect Information Monte Carlo Sampling in Game Tree Search", sec. 2).

In every sampled world nobody is uncertain, so PIMC never bluffs and never hides its hand
("strategy fusion" and "non-locality", Frank & Basin 1998, "Search in games with incomplete
information: a case study using Bridge card play", sec. 4): with Kuhn's jack after a check, the
second player bets with probability 1/3 at equilibrium; PIMC sees the jack lose to either card
and never bets. ``pimc_policy`` gives its whole (deterministic) policy table, so its NashConv is
one number (``search.best_response.nash_conv``).
"""

from __future__ import annotations

import numpy as np

from search.game_tree import CHANCE_NODE, DECISION, TERMINAL_NODE, GameTree


def perfect_information_values(tree: GameTree) -> np.ndarray:
    """`[N]` float64: player 0's value (chips) of each history when both players see every card:
    terminal utility, chance averaged, player 0 maximises, player 1 minimises."""
    arrays = tree.arrays
    value = np.zeros(tree.num_nodes)
    for level in range(arrays.level_start.shape[0] - 2, -1, -1):
        nodes = np.arange(arrays.level_start[level], arrays.level_start[level + 1])
        for node in nodes:
            kind = arrays.kind[node]
            if kind == TERMINAL_NODE:
                value[node] = arrays.utility[node]
                continue
            first = arrays.first_child[node]
            children = value[first:first + arrays.num_children[node]]
            if kind == CHANCE_NODE:
                value[node] = float(arrays.chance_probability[first:first + arrays.num_children[node]] @ children)
            elif arrays.player[node] == 0:
                value[node] = children.max()
            else:
                value[node] = children.min()
    return value


def chance_reach(tree: GameTree) -> np.ndarray:
    """`[N]` float64: the product of chance probabilities on the path to each history."""
    arrays = tree.arrays
    reach = np.ones(tree.num_nodes)
    internal = np.flatnonzero(arrays.kind != TERMINAL_NODE)
    for node in internal:  # breadth first: a parent is final before its children are written
        first = arrays.first_child[node]
        stop = first + arrays.num_children[node]
        reach[first:stop] = reach[node] * arrays.chance_probability[first:stop]
    return reach


def pimc_action_values(tree: GameTree, num_samples: int = 0, rng: np.random.Generator | None = None) -> np.ndarray:
    """`[I, A]` float64: PIMC's average value (chips, for the player to move) of each legal action
    at each information state; ``-inf`` on illegal actions.

    Args:
        num_samples: worlds sampled per information state (with replacement, weighted by chance);
            0 averages over every consistent world exactly (the limit of many samples).
        rng: a seeded generator, required when ``num_samples`` > 0.

    Raises:
        ValueError: if ``num_samples`` < 0, or > 0 without a generator.
    """
    if num_samples < 0:
        raise ValueError(f"expected num_samples >= 0, got {num_samples}")
    if num_samples > 0 and not isinstance(rng, np.random.Generator):
        raise ValueError(f"sampling worlds: expected a numpy.random.Generator, got {type(rng).__name__}")
    arrays = tree.arrays
    values = perfect_information_values(tree)
    reach = chance_reach(tree)
    decision = np.flatnonzero(arrays.kind == DECISION)
    order = np.argsort(arrays.infostate[decision], kind="stable")
    decision = decision[order]
    bounds = np.searchsorted(arrays.infostate[decision], np.arange(tree.num_infostates + 1))
    result = np.full((tree.num_infostates, tree.num_actions), -np.inf)
    for state in range(tree.num_infostates):
        histories = decision[bounds[state]:bounds[state + 1]]
        weights = reach[histories] / reach[histories].sum()
        if num_samples > 0:
            counts = np.bincount(rng.choice(len(histories), size=num_samples, p=weights), minlength=len(histories))
            weights = counts / num_samples
        sign = 1.0 if arrays.infostate_player[state] == 0 else -1.0
        first = arrays.first_child[histories]
        for slot in range(arrays.num_children[histories[0]]):
            action = arrays.action[first[0] + slot]
            result[state, action] = sign * float(weights @ values[first + slot])
    return result


def pimc_policy(tree: GameTree, num_samples: int = 0, rng: np.random.Generator | None = None) -> np.ndarray:
    """`[I, A]` float64 one-hot: PIMC's action at each information state, the best average value
    of ``pimc_action_values`` (ties to the lowest action id).

    Raises:
        ValueError: as ``pimc_action_values``.
    """
    scores = pimc_action_values(tree, num_samples, rng)
    policy = np.zeros_like(scores)
    policy[np.arange(tree.num_infostates), scores.argmax(axis=1)] = 1.0
    return policy
