"""Poker in the ``play --web`` page (frontends/web/poker.py) through FastAPI's test client: Kuhn poker
and Leduc hold'em against the CFR+ policy, dealt by the server from the session's seeded generator,
with the opponent's card kept out of every answer until the hand is over."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient
from helpers_web import get, new_session, post
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from frontends.poker_play import wants_poker
from frontends.web.app import create_app
from frontends.web.catalogue import WebOptions, build_catalogue, served_models
from frontends.web.poker import (
    OPPONENT_SPEC,
    POLICY_ITERATIONS,
    PokerService,
    SolvedPolicy,
    hand_view,
    solved_policy,
)
from frontends.web.sessions import HUMAN, OPPONENT, Catalogue, ModelService
from search.best_response import nash_conv

#: NashConv (chips) the served CFR+ policies stay below, measured by search/best_response.py
NASH_CONV_BOUND = 1e-3


def _catalogue(seed: int = 0, policies: dict | None = None) -> Catalogue:
    """Kuhn and Leduc against their CFR+ policies (or ``policies``), beside tic-tac-toe without a model."""
    policies = policies or {}
    services = {
        name: PokerService(game=games.make(name), solved=policies.get(name) or solved_policy(name), seed=seed)
        for name in ("kuhn", "leduc")
    }
    services["tictactoe"] = ModelService(game=games.make("tictactoe"), evaluate_fn=None, seed=seed)
    return Catalogue(services, "tictactoe")


@pytest.fixture
def client():
    with TestClient(create_app(_catalogue())) as client:
        yield client


def _always_bet(name: str) -> SolvedPolicy:
    """A policy that bets or raises wherever it may, else calls (never folds)."""
    tree = solved_policy(name).tree
    policy = np.zeros((tree.num_infostates, tree.num_actions))
    aggressive = tree.num_actions - 1  # Kuhn: bet; Leduc: raise (OpenSpiel's action ids)
    legal = tree.arrays.infostate_legal
    policy[legal[:, aggressive], aggressive] = 1.0
    policy[~legal[:, aggressive], 1] = 1.0  # two raises this round: call
    return SolvedPolicy(tree, policy, "always bet", 0, 0, nash_conv(tree, policy), 0.0)


def _play_out(client, game: dict, word_of) -> list[dict]:
    """Plays the hand to its end: the human sends ``word_of(controls)``, the policy is advanced;
    returns every answer, the last one finished."""
    answers = [game]
    while game["result"] is None:
        if game["turn"] == HUMAN:
            answer = post(client, game, "move", {"move": word_of([c["move"] for c in game["controls"]])})
        else:
            answer = post(client, game, "advance", {"sims": 0})
        assert answer.status_code == 200, answer.text
        game = answer.json()
        answers.append(game)
    return answers


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_the_policy_is_cfr_plus_with_a_nash_conv_below_the_bound(client, name):
    entry = client.get("/api/info", params={"game": name}).json()
    solved = solved_policy(name)
    measured = nash_conv(solved.tree, solved.policy)
    assert measured < NASH_CONV_BOUND
    assert entry["policy"] == {
        "algorithm": "cfr+", "iterations": POLICY_ITERATIONS[name], "seed": 0, "nash_conv": measured,
        "exploitability": measured / 2, "game_value": solved.game_value,
    }
    # the game value of the equilibrium: -1/18 for Kuhn (Kuhn 1950), about -0.0856 for Leduc
    assert solved.game_value == pytest.approx({"kuhn": -1 / 18, "leduc": -0.0856}[name], abs=1e-3)
    assert entry["opponents"] == [
        {"kind": "cfr+", "label": "CFR+ policy (1000 iterations)", "option": None, "values": [], "default": None,
         "spec": "cfr+"},
    ]
    assert (entry["poker"], entry["default_opponent"], entry["seat_kinds"], entry["default_seats"]) == (
        True, OPPONENT_SPEC, [HUMAN, OPPONENT], [HUMAN, OPPONENT],
    )
    assert entry["public_cards"] == {"kuhn": 0, "leduc": 1}[name]


def test_a_seeded_kuhn_deal_gives_the_known_cards_and_the_hand_ends_with_both_shown(client):
    game = new_session(client, game="kuhn")
    assert game["hand"] == {
        "seat": 0, "your_card": "Q", "board_card": None, "opponent_card": None, "pot": 2, "put_in": [1, 1],
        "rounds": [[]], "events": [], "folded": None, "chips": None,
    }
    assert (game["turn"], game["seats"], game["text"]) == (HUMAN, [HUMAN, OPPONENT], "your card: Q\nbetting: none yet\npot: 2")
    assert [c["move"] for c in game["controls"]] == ["check", "bet"]
    last = _play_out(client, game, lambda words: "bet" if "bet" in words else "call")[-1]
    # the policy holds the king: facing a bet it calls (its only equilibrium reply), and Q loses 2
    assert last["hand"] == {
        "seat": 0, "your_card": "Q", "board_card": None, "opponent_card": "K", "pot": 4, "put_in": [2, 2],
        "rounds": [[[0, "bet"], [1, "call"]]], "events": ["bet", "call"], "folded": None, "chips": -2.0,
    }
    assert last["result"] == {"winner": 1, "text": "Your Q against the policy's K (showdown).",
                              "message": "You lose 2 chips.", "chips": -2.0}
    assert last["match"] == {"hands": 1, "chips": -2.0}
    assert last["controls"] == [] and last["turn"] is None
    again = post(client, last, "new", {}).json()  # the next hand: the session's next deal
    assert again["hand"]["opponent_card"] is None and again["match"] == {"hands": 1, "chips": -2.0}


def test_the_same_seed_deals_the_same_cards_and_another_seed_other_ones():
    deals = []
    for seed in (0, 0, 1):
        with TestClient(create_app(_catalogue(seed))) as client:
            game = new_session(client, game="leduc")
            last = _play_out(client, game, lambda words: "call" if "call" in words else "check")[-1]
            deals.append((game["hand"]["your_card"], last["hand"]["opponent_card"], last["hand"]["board_card"]))
    assert deals[0] == deals[1] == ("Qs", "Kh", "Qh")
    assert deals[2] != deals[0]


def test_the_opponents_card_is_absent_from_every_answer_before_the_end(client):
    """The first Leduc session of seed 0 holds Qs against the policy's Kh, board Qh: no answer
    before the end names Kh, and the last one does."""
    game = new_session(client, game="leduc")
    answers = _play_out(client, game, lambda words: "bet" if "bet" in words else "call")
    assert answers[-1]["hand"]["opponent_card"] == "Kh"
    assert answers[-1]["hand"]["board_card"] == "Qh" and answers[-1]["hand"]["your_card"] == "Qs"
    for answer in answers[:-1]:
        assert answer["hand"]["opponent_card"] is None
        assert "Kh" not in repr(answer)
    assert "the policy's card: Kh" in answers[-1]["text"]


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_folding_at_once_loses_exactly_the_ante(name):
    """Second to act against a policy that always bets, the human folds at once: 1 chip lost."""
    with TestClient(create_app(_catalogue(policies={name: _always_bet(name)}))) as client:
        game = new_session(client, game=name, seats=[OPPONENT, HUMAN])
        assert game["turn"] == OPPONENT and game["hand"]["seat"] == 1
        game = post(client, game, "advance", {}).json()
        assert game["hand"]["rounds"] == [[[0, "bet"]]]
        assert [c["move"] for c in game["controls"]] == {"kuhn": ["fold", "call"], "leduc": ["fold", "call", "raise"]}[name]
        game = post(client, game, "move", {"move": "fold"}).json()
    assert game["hand"]["chips"] == -1.0 and game["hand"]["folded"] == 1
    assert game["result"]["message"] == "You lose 1 chip."
    assert game["result"]["text"].endswith("(you folded).")
    assert game["match"] == {"hands": 1, "chips": -1.0}


def test_refused_requests_leave_the_hand_unchanged(client):
    game = new_session(client, game="kuhn")
    refusals = [
        ("move", {"move": "fold"}, 400, "illegal move 'fold'; legal moves: check bet"),
        ("move", {"move": "shove"}, 400, "malformed move 'shove'; legal moves: check bet"),
        ("advance", {}, 409, "it is your turn (P0): send a move"),
        ("advance", {"sims": 5}, 400, "sims: expected an integer in 0..0, got 5"),
        ("hint", {}, 409, "no model plays kuhn here: a hint needs one"),
        ("undo", None, 409, "nothing to undo: poker actions are final"),
        ("new", {"moves": "0 1"}, 400, "moves: a kuhn hand starts from a fresh deal; expected no moves, got '0 1'"),
        ("new", {"seats": [HUMAN, HUMAN]}, 400,
         "seats: expected one 'human' and one 'opponent' in kuhn, got ['human', 'human']"),
        ("new", {"opponent": "solver"}, 400, "opponent: expected one of cfr+ for kuhn, got 'solver'"),
    ]
    for action, body, status, message in refusals:
        answer = post(client, game, action, body)
        assert (answer.status_code, answer.json()) == (status, {"error": message}), action
        assert get(client, game) == game
    answer = client.post("/api/sessions", json={"game": "leduc", "moves": "2"})
    assert answer.json() == {"error": "moves: a leduc hand starts from a fresh deal; expected no moves, got '2'"}
    game = post(client, game, "move", {"move": "check"}).json()
    if game["turn"] == OPPONENT:
        assert post(client, game, "move", {"move": "check"}).json() == {"error": "it is the policy's turn (P1)"}


def test_a_session_switches_between_a_board_game_and_poker_under_the_same_id(client):
    game = new_session(client, game="tictactoe")
    poker = post(client, game, "new", {"game": "kuhn", "seats": [HUMAN, OPPONENT], "opponent": "cfr+"}).json()
    assert (poker["session"], poker["game"], poker["opponent"]) == (game["session"], "kuhn", "cfr+")
    assert get(client, game)["hand"]["your_card"] == poker["hand"]["your_card"]
    bad = post(client, game, "new", {"game": "tictactoe", "opponent": "cfr+"})
    assert bad.status_code == 400 and get(client, game) == poker  # refused: still the poker hand
    leduc = post(client, game, "new", {"game": "leduc"}).json()
    assert leduc["game"] == "leduc" and leduc["match"] == {"hands": 0, "chips": 0.0}
    board = post(client, game, "new", {"game": "tictactoe", "seats": [HUMAN, OPPONENT], "opponent": "solver"}).json()
    assert (board["session"], board["game"], board["opponent"], board["moves"]) == (game["session"], "tictactoe", "solver", "")
    assert "hand" not in get(client, game)


def test_the_per_client_cap_counts_poker_sessions():
    with TestClient(create_app(_catalogue(), max_sessions_per_client=2)) as client:
        new_session(client, game="kuhn")
        new_session(client, game="leduc")
        answer = client.post("/api/sessions", json={"game": "kuhn"})
    assert answer.status_code == 429
    assert answer.json()["error"].startswith("too many games from your address: 2 are open and 2 is the most")


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_the_view_of_a_random_hand_shows_the_opponents_card_only_at_the_end(name, seed):
    game = games.make(name)
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    while True:
        if len(state) >= 2:
            for seat in (0, 1):
                view = hand_view(game, state, seat)
                over = game.is_terminal(state)
                assert view["your_card"] == game.card_name(state[seat])
                assert view["opponent_card"] == (game.card_name(state[1 - seat]) if over else None)
                assert view["pot"] == sum(view["put_in"]) == sum(game.contributions(state))
                decisions = [word for round_ in view["rounds"] for _, word in round_]
                board = [] if view["board_card"] is None else [view["board_card"]]
                assert sorted(view["events"]) == sorted(decisions + board)
                assert view["chips"] == (game.returns(state)[seat] if over else None)
                if view["folded"] is not None:
                    assert view["chips"] == (-view["put_in"][seat] if view["folded"] == seat else view["put_in"][1 - seat])
        if game.is_terminal(state):
            break
        options = [o for o, _ in game.chance_outcomes(state)] if game.is_chance(state) else game.legal_actions(state)
        state = game.result(state, options[rng.integers(len(options))])


def test_a_poker_service_needs_a_poker_game_and_its_own_policy():
    with pytest.raises(ValueError, match="^expected an imperfect-information game, got TicTacToe$"):
        PokerService(game=games.make("tictactoe"), solved=solved_policy("kuhn"))
    with pytest.raises(ValueError, match="^expected a policy of kuhn, got one of leduc$"):
        PokerService(game=games.make("kuhn"), solved=solved_policy("leduc"))
    with pytest.raises(ValueError, match="^expected a policy of kuhn, got one of None$"):
        PokerService(game=games.make("kuhn"))


def test_play_web_with_a_poker_game_serves_the_page_with_that_game_first():
    assert wants_poker(["--game", "kuhn"]) and wants_poker(["--game=leduc", "--policy", "uniform"])
    assert not wants_poker(["--web", "--game", "kuhn"]) and not wants_poker(["--game", "kuhn", "--web"])
    models, default, notes = served_models(None, "kuhn")
    assert default == "kuhn" and notes == []
    catalogue = build_catalogue({}, default, WebOptions(seed=0))
    with TestClient(create_app(catalogue)) as client:
        answer = client.get("/api/games").json()
    assert answer["default"] == "kuhn"
    assert {"kuhn", "leduc", "connect4"} <= {g["game"] for g in answer["games"]}
