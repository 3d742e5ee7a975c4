"""Kuhn and Leduc poker rules: sizes, OpenSpiel's information-state strings, payoffs, the contract."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.imperfect.base import CHANCE, TERMINAL
from search.game_tree import CHANCE_NODE, DECISION, TERMINAL_NODE, build_tree


@pytest.mark.parametrize(
    ("name", "num_histories", "num_infostates"), [("kuhn", 58, 12), ("leduc", 9457, 936)]
)
def test_tree_sizes(name, num_histories, num_infostates):
    tree = build_tree(name)
    assert tree.num_nodes == num_histories
    assert tree.num_infostates == num_infostates
    kinds = np.bincount(tree.arrays.kind, minlength=3)
    assert kinds[TERMINAL_NODE] == {"kuhn": 30, "leduc": 5520}[name]
    # every player acts at half of the information states (by symmetry of the deals)
    assert np.bincount(tree.arrays.infostate_player).tolist() == [num_infostates // 2] * 2


def test_kuhn_information_states_and_payoffs():
    game = games.make("kuhn")
    tree = build_tree(game)
    assert sorted(tree.infostate_names) == sorted(
        f"{card}{betting}" for card in "012" for betting in ("", "p", "b", "pb")
    )
    assert game.information_state((2, 0, 0, 1), 0) == "2pb"
    assert game.information_state((2, 0, 0, 1), 1) == "0pb"
    assert game.returns((0, 2, 0, 0)) == (-1.0, 1.0)  # check-check, K wins 1
    assert game.returns((0, 2, 1, 0)) == (1.0, -1.0)  # bet, fold
    assert game.returns((2, 1, 0, 1, 1)) == (2.0, -2.0)  # check, bet, call: K wins 2
    assert game.returns((2, 1, 0, 1, 0)) == (-1.0, 1.0)  # check, bet, fold
    assert game.player_to_move((2, 1, 0, 1)) == 0
    assert game.player_to_move((2, 1, 0, 1, 0)) == TERMINAL
    assert game.player_to_move((2,)) == CHANCE
    assert game.chance_outcomes((2,)) == [(0, 0.5), (1, 0.5)]


def test_leduc_information_state_strings_and_payoffs():
    game = games.make("leduc")
    # J(0) vs Q(3); raise, re-raise, call; public K(5); raise, re-raise
    history = (0, 3, 2, 2, 1, 5, 2, 2)
    assert game.information_state(history, 0) == (
        "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: 22][Money: 91 87][Public: 5]"
        "[Round1: 2 2 1][Round2: 2 2]"
    )
    assert game.information_state((0, 3), 0) == (
        "[Observer: 0][Private: 0][Round 1][Player: 0][Pot: 2][Money: 99 99][Round1: ][Round2: ]"
    )
    assert game.legal_actions((0, 3)) == [1, 2]  # nothing owed: no fold
    assert game.legal_actions(history) == [0, 1]  # two raises this round: no third
    assert game.returns(history + (0,)) == (-9.0, 9.0)  # player 0 folds the 1 + 2 + 2 + 4 it put in
    assert game.returns(history + (1,)) == (-13.0, 13.0)  # calls: queen high beats jack high, 13 each
    assert game.returns((0, 2, 1, 1, 1, 1, 1)) == (1.0, -1.0)  # pair of jacks beats a queen
    assert game.returns((0, 1, 1, 1, 2, 1, 1)) == (0.0, 0.0)  # jack against jack: split
    assert game.returns((0, 2, 1, 1, 4, 1, 1)) == (-1.0, 1.0)  # queen high beats jack high
    assert game.max_utility == 13.0
    with pytest.raises(ValueError, match=r"expected an action in \[1, 2\]"):
        game.result((0, 3), 0)
    with pytest.raises(ValueError, match="not terminal"):
        game.returns((0, 3))


@pytest.mark.parametrize("name", games.names([games.IMPERFECT]))
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_contract_on_random_playouts(name, seed):
    """Every playout ends; chance sums to 1; utilities are zero-sum and bounded; strings name the
    mover's knowledge only (the other player's string differs exactly when private cards do)."""
    game = games.make(name)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for _ in range(64):
        if game.is_terminal(state):
            break
        if game.is_chance(state):
            outcomes = game.chance_outcomes(state)
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
            state = game.result(state, outcomes[rng.integers(len(outcomes))][0])
            continue
        legal = game.legal_actions(state)
        assert legal == sorted(legal) and legal and all(0 <= a < game.num_actions for a in legal)
        mover = game.player_to_move(state)
        assert game.information_state(state, mover) != game.information_state(state, 1 - mover)
        state = game.result(state, legal[rng.integers(len(legal))])
    assert game.is_terminal(state)
    first, second = game.returns(state)
    assert first + second == 0.0 and abs(first) <= game.max_utility
    with pytest.raises(ValueError, match="over"):
        game.result(state, 0)


@pytest.mark.parametrize("name", games.names([games.IMPERFECT]))
def test_tree_arrays_are_consistent(name):
    tree = build_tree(name)
    arrays = tree.arrays
    decision = arrays.kind == DECISION
    assert np.all(arrays.infostate[decision] >= 0) and np.all(arrays.infostate[~decision] == -1)
    # children follow their parent, in breadth-first (depth) order
    internal = np.flatnonzero(arrays.kind != TERMINAL_NODE)
    assert np.all(arrays.first_child[internal] > internal)
    assert np.all(np.diff(arrays.depth) >= 0)
    # chance probabilities of every chance node's children sum to 1
    for node in np.flatnonzero(arrays.kind == CHANCE_NODE):
        first = arrays.first_child[node]
        assert arrays.chance_probability[first:first + arrays.num_children[node]].sum() == pytest.approx(1.0)
    assert tree.uniform_policy().sum(axis=1) == pytest.approx(np.ones(tree.num_infostates))


@pytest.mark.parametrize("name", games.names([games.IMPERFECT]))
def test_every_history_matches_openspiel(name):
    """Walk OpenSpiel's tree and ours together: the same chance outcomes and probabilities, players,
    legal actions (OpenSpiel's order), both players' information-state strings and returns."""
    pyspiel = pytest.importorskip("pyspiel")
    game = games.make(name)
    counts = {"histories": 0}
    names = set()

    def walk(state, spiel_state):
        counts["histories"] += 1
        if spiel_state.is_terminal():
            assert game.is_terminal(state)
            assert tuple(spiel_state.returns()) == game.returns(state)
            return
        if spiel_state.is_chance_node():
            assert game.is_chance(state)
            ours = game.chance_outcomes(state)
            theirs = spiel_state.chance_outcomes()
            assert [a for a, _ in ours] == [a for a, _ in theirs]
            assert [p for _, p in ours] == pytest.approx([p for _, p in theirs], abs=1e-12)
            children = [a for a, _ in theirs]
        else:
            assert game.player_to_move(state) == spiel_state.current_player()
            assert game.legal_actions(state) == spiel_state.legal_actions()
            for player in (0, 1):
                assert game.information_state(state, player) == spiel_state.information_state_string(player)
            names.add(spiel_state.information_state_string())
            children = spiel_state.legal_actions()
        for action in children:
            walk(state + (action,), spiel_state.child(action))

    walk(game.initial_state(), pyspiel.load_game(game.openspiel_name).new_initial_state())
    tree = build_tree(game)
    assert counts["histories"] == tree.num_nodes
    assert names == set(tree.infostate_names)


def test_unknown_game_lists_names():
    with pytest.raises(ValueError, match=r"expected one of \['kuhn', 'leduc'\]"):
        build_tree("holdem")


def test_parse_action_words():
    kuhn, leduc = games.make("kuhn"), games.make("leduc")
    assert [kuhn.parse_action(w) for w in ("p", "pass", "check", "b", "BET", "call", "1")] == [0, 0, 0, 1, 1, 1, 1]
    assert [leduc.parse_action(w) for w in ("f", "call", "check", "r", "bet", "2")] == [0, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match=r"expected one of \['fold', 'call', 'raise'\], got 'allin'"):
        leduc.parse_action("allin")


def test_what_a_player_sees_cards_chips_and_action_words():
    """The hooks the web page's hand view reads (frontends/web/poker.py): private and public cards,
    the chips each player has put in, and the poker word of each action where it is taken."""
    kuhn = games.make("kuhn")
    assert [kuhn.private_card((2,), 0), kuhn.private_card((2,), 1), kuhn.private_card((2, 1), 1)] == [2, None, 1]
    assert kuhn.public_card((2, 1, 0, 1)) is None and kuhn.num_public_cards == 0
    assert kuhn.contributions((2, 1)) == (1, 1)
    assert kuhn.contributions((2, 1, 0, 1)) == (1, 2)  # check, bet
    assert kuhn.contributions((2, 1, 0, 1, 1)) == (2, 2)  # ... call
    assert [kuhn.action_word((2, 1), a) for a in (0, 1)] == ["check", "bet"]
    assert [kuhn.action_word((2, 1, 0, 1), a) for a in (0, 1)] == ["fold", "call"]
    leduc = games.make("leduc")
    history = (0, 3, 2, 2, 1, 5, 2, 2)  # raise, re-raise, call; public K(5); raise, re-raise
    assert leduc.contributions(history) == (9, 13)
    assert leduc.contributions((0, 3)) == (1, 1)
    assert [leduc.public_card((0, 3, 2, 2, 1)), leduc.public_card(history)] == [None, 5]
    assert leduc.num_public_cards == 1
    assert [leduc.action_word((0, 3), a) for a in (1, 2)] == ["check", "bet"]
    assert [leduc.action_word((0, 3, 2), a) for a in (0, 1, 2)] == ["fold", "call", "raise"]
    assert kuhn.describe((2, 1, 0, 1), 0) == "your card: K\nbetting: P0 check, P1 bet\npot: 3"
