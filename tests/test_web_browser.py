"""The ``play --web`` page in a real headless Chromium (Selenium): the server is the ``play`` command
in a child process on a free port of 127.0.0.1; the test clicks Connect Four columns, sees the
model answer with its search on the board, plays to the end, sees the result announced, and
checks the layout on a phone-sized screen; and it plays a whole game of Pig (dice rolled by the
server, each roll shown on the page) against the model to the announced end; and it plays a
hand of Kuhn poker and one of Leduc hold'em against the CFR+ policy to the shown result.

Without Chromium (``/usr/bin/chromium`` and ``/usr/bin/chromedriver``: Debian's ``chromium`` and
``chromium-driver``) the test skips, unless ``TABULA_RASA_BROWSER_TEST=required`` (set by
``.ci/run``), where it fails: CI must run it.
"""

from __future__ import annotations

import os

import pytest
from helpers_models import export_tiny_mlp

import games
from frontends.game_text import result_text
from frontends.web.browser import (
    PHONE,
    find_chromium,
    start_chromium,
    start_server,
    stop_chromium,
    stop_server,
)
from search.alphabeta import alphabeta

REQUIRED = os.environ.get("TABULA_RASA_BROWSER_TEST") == "required"
SIMS = 8


def _browser_or_skip() -> None:
    reason = None
    try:
        import selenium  # noqa: F401
    except ImportError:
        reason = "selenium is not installed (pip install -e '.[dev]')"
    if reason is None and find_chromium() is None:
        reason = "Chromium not installed (Debian: apt-get install chromium chromium-driver)"
    if reason is not None:
        if REQUIRED:
            pytest.fail(f"TABULA_RASA_BROWSER_TEST=required but {reason}")
        pytest.skip(reason)


def _served_page(tmp_path_factory, game_name: str | None):
    """Yields ``(driver, url)``: headless Chromium and a ``play --web`` server with a tiny model of
    ``game_name`` (None: no ``--model``, every game with the shipped models, as a new user starts
    it); both are stopped after the module's tests."""
    _browser_or_skip()
    model = None if game_name is None else export_tiny_mlp(game_name, tmp_path_factory.mktemp("web") / "best")
    server, url = start_server(model, "--sims", str(SIMS))
    driver = None
    try:
        driver = start_chromium(1100, 850)
        yield driver, url
    finally:
        if driver is not None:
            stop_chromium(driver)
        stop_server(server)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    """``(driver, url)``: headless Chromium and a ``play --web`` server with a tiny Connect Four model."""
    yield from _served_page(tmp_path_factory, "connect4")


def _wait(driver, seconds: float = 120):
    """A wait that reads the page again when an element it read was redrawn in between (the page
    replaces the board's cells on every update, so a read can meet a stale element)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, seconds, ignored_exceptions=(StaleElementReferenceException,))


def _attribute(driver, element_id: str, name: str) -> str:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, element_id).get_attribute(name) or ""



def _human_turn_or_result(wait, driver) -> str:
    """Waits until the human is to move or the game is over; the page's result text, "" while the
    game goes on."""
    wait.until(
        lambda _: _attribute(driver, "status", "data-turn") == "human" or _attribute(driver, "status", "data-result")
    )
    return _attribute(driver, "status", "data-result")


def _play_the_lowest_open_column_to_the_end(wait, driver) -> None:
    """As X in Connect Four, clicks the lowest open column whenever it is the human's turn, until
    the page announces a result (X has at most 21 moves)."""
    from selenium.webdriver.common.by import By

    for _ in range(21):
        if _human_turn_or_result(wait, driver):
            break
        ply = int(_attribute(driver, "board", "data-ply"))
        driver.find_elements(By.CSS_SELECTOR, '#board .move[data-legal="true"]')[0].click()
        wait.until(
            lambda _, ply=ply: int(_attribute(driver, "board", "data-ply")) >= ply + 2
            or _attribute(driver, "status", "data-result")
        )


def _check_the_announced_end(driver, game) -> str:
    """Asserts that the page's moves finish ``game``, that the status names the winner and the
    result (``frontends.game_text.result_text``) with ``data-result`` X, O or draw, and that no move
    is offered; returns the move string."""
    from selenium.webdriver.common.by import By

    moves = _attribute(driver, "moves", "data-moves")
    state = game.states_from_moves([moves])[0]
    assert bool(game.terminal(state[None])[0]), f"the page stopped before the end: {moves}"
    winner = int(game.winner(state[None])[0])
    expected = {0: "You win (X).", 1: "Model (O) wins.", -1: "Draw."}[winner]
    status = driver.find_element(By.ID, "status")
    assert status.text == f"{expected} {result_text(game, tuple(int(v) for v in state))}"
    assert status.get_attribute("data-result") == {0: "X", 1: "O", -1: "draw"}[winner]
    assert driver.find_elements(By.CSS_SELECTOR, '#board .move[data-legal="true"]') == []
    return moves

@pytest.mark.slow
def test_clicking_columns_plays_the_model_to_an_announced_end(page):
    from selenium.webdriver.common.by import By

    driver, url = page
    driver.get(url)
    wait = _wait(driver)
    wait.until(lambda _: _attribute(driver, "board", "data-ready") == "true")
    assert driver.find_element(By.ID, "status").text == "Your move (X)."
    controls = driver.find_elements(By.CSS_SELECTOR, "#board [data-move]")
    assert [c.get_attribute("data-move") for c in controls] == list("1234567")

    game = games.make("connect4")
    first_reply_checked = False
    for _ in range(21):  # X has at most 21 moves
        if _human_turn_or_result(wait, driver):
            break
        ply = int(_attribute(driver, "board", "data-ply"))
        legal = driver.find_elements(By.CSS_SELECTOR, '#board .move[data-legal="true"]')
        legal[0].click()  # the lowest open column: stacking in column 1 ends games fast
        wait.until(
            lambda _, ply=ply: (
                int(_attribute(driver, "board", "data-ply")) >= ply + 2
                or _attribute(driver, "status", "data-result")
            )
        )
        if not first_reply_checked:  # the model answered, and its search is drawn per column
            moves = _attribute(driver, "moves", "data-moves")
            assert len(moves) == 2 and moves[0] == "1"
            visits = driver.find_elements(By.CSS_SELECTOR, "#board .visit-bar")
            assert len(visits) == 7
            assert sum(int(bar.get_attribute("data-visits")) for bar in visits) == SIMS
            assert "Evaluation for you (X)" in driver.find_element(By.ID, "eval-text").text
            first_reply_checked = True

    moves = _check_the_announced_end(driver, game)

    # Undo reopens the game; New game empties the board
    driver.find_element(By.ID, "undo").click()
    wait.until(lambda _: len(_attribute(driver, "moves", "data-moves")) < len(moves))
    assert _attribute(driver, "status", "data-result") == ""
    driver.find_element(By.ID, "new-game").click()
    wait.until(lambda _: _attribute(driver, "board", "data-ply") == "0")
    assert _attribute(driver, "moves", "data-moves") == ""


@pytest.mark.slow
def test_the_picker_switches_to_connect4_and_the_model_plays_a_whole_game(page):
    """The page opens on tic-tac-toe (``?game=tictactoe``); picking Connect Four in the game
    picker starts a Connect Four game against the served model, which is played to its announced
    end; the opponent picker offers the model, alpha-beta (with its depth selector), UCT and perfect
    play, and picking alpha-beta at depth 2 hands the model's seat to it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, url = page
    driver.get(f"{url}?game=tictactoe")
    wait = _wait(driver)
    wait.until(lambda _: _attribute(driver, "board", "data-ready") == "true")
    picker = Select(driver.find_element(By.ID, "game"))
    assert picker.first_selected_option.get_attribute("value") == "tictactoe"
    assert [o.get_attribute("value") for o in picker.options] == [
        "connect4", "othello", "othello6x6", "pig", "tictactoe", "kuhn", "leduc",
    ]
    assert [c.get_attribute("data-move") for c in driver.find_elements(By.CSS_SELECTOR, "#board [data-move]")] == list(
        "123456789"
    )

    picker.select_by_value("connect4")
    wait.until(
        lambda _: [c.get_attribute("data-move") for c in driver.find_elements(By.CSS_SELECTOR, "#board [data-move]")]
        == list("1234567")
        and _attribute(driver, "status", "data-turn") == "human"
    )
    assert driver.find_element(By.ID, "status").text == "Your move (X)."
    opponent = Select(driver.find_element(By.ID, "opponent"))
    assert [o.text for o in opponent.options][1:] == ["alpha-beta", "UCT (random rollouts)", "perfect play"]
    assert opponent.first_selected_option.get_attribute("value") == "model"
    assert not driver.find_element(By.ID, "setting-row").is_displayed()
    assert driver.find_element(By.ID, "model-card").is_displayed()

    game = games.make("connect4")
    _play_the_lowest_open_column_to_the_end(wait, driver)
    moves = _attribute(driver, "moves", "data-moves")
    state = game.states_from_moves([moves])[0]
    assert bool(game.terminal(state[None])[0]), f"the page stopped before the end: {moves}"
    winner = int(game.winner(state[None])[0])
    expected = {0: "You win (X).", 1: "Model (O) wins.", -1: "Draw."}[winner]
    assert driver.find_element(By.ID, "status").text == f"{expected} {result_text(game, tuple(int(v) for v in state))}"

    # alpha-beta at depth 2 takes the model's seat in a new game, and answers the human's move
    opponent.select_by_visible_text("alpha-beta")
    wait.until(lambda _: _attribute(driver, "board", "data-ply") == "0")
    Select(driver.find_element(By.ID, "setting")).select_by_value("2")
    wait.until(lambda _: Select(driver.find_element(By.ID, "seat-1")).first_selected_option.text == "alphabeta:depth=2")
    assert Select(driver.find_element(By.ID, "seat-0")).first_selected_option.get_attribute("value") == "human"
    driver.find_element(By.CSS_SELECTOR, '#board .move[data-move="4"]').click()
    wait.until(lambda _: len(_attribute(driver, "moves", "data-moves")) == 2)
    state = game.states_from_moves(["4"])[0]
    reply = game.action_to_string(alphabeta(game, tuple(int(v) for v in state), 2).action)
    assert _attribute(driver, "moves", "data-moves") == "4" + reply


def _poker_history(driver, game, seat: int) -> tuple:
    """The hand the page shows, as a history of ``game`` (``games/imperfect``): the cards it names
    (``data-card``) and the action words of its betting list, the human in ``seat``."""
    from selenium.webdriver.common.by import By

    number = {game.card_name(card): card for card in range(6 if game.num_public_cards else 3)}
    cards = [number[_attribute(driver, "your-card", "data-card")], number[_attribute(driver, "opponent-card", "data-card")]]
    state = (cards[seat], cards[1 - seat])
    for item in driver.find_elements(By.CSS_SELECTOR, "#betting li"):
        if game.is_chance(state):
            state += (number[_attribute(driver, "board-card", "data-card")],)
        betting = item.text.partition(": ")[2]
        for said in ([] if betting == "no bets yet" else betting.split(", ")):
            word = said.split(" ")[-1]
            state += (next(a for a in game.legal_actions(state) if game.action_word(state, a) == word),)
    return state


def _play_a_poker_hand_to_the_end(wait, driver, game, choose) -> None:
    """As the first player, clicks ``choose(words)`` among the offered action buttons whenever it
    is the human's turn, checking the policy's card stays face down, until the page announces the
    result; then checks the result against the rules (``game.returns`` of the shown hand)."""
    from selenium.webdriver.common.by import By

    for _ in range(12):  # a Leduc hand has at most 3 actions of the human per round
        if _human_turn_or_result(wait, driver):
            break
        assert _attribute(driver, "opponent-card", "data-card") == ""
        assert driver.find_element(By.ID, "opponent-card").text == "?"
        words = [b.get_attribute("data-move") for b in driver.find_elements(By.CSS_SELECTOR, "#board button.move")]
        ply = int(_attribute(driver, "board", "data-ply"))
        driver.find_element(By.CSS_SELECTOR, f'#board button[data-move="{choose(words)}"]').click()
        wait.until(
            lambda _, ply=ply: int(_attribute(driver, "board", "data-ply")) > ply or _attribute(driver, "status", "data-result")
        )
    state = _poker_history(driver, game, 0)
    assert game.is_terminal(state), f"the page stopped before the end: {state}"
    chips = game.returns(state)[0]
    amount = f"{abs(int(chips))} chip" + ("" if abs(chips) == 1 else "s")
    message = f"You win {amount}." if chips > 0 else f"You lose {amount}." if chips < 0 else "Split pot."
    status = driver.find_element(By.ID, "status")
    assert status.text.startswith(f"{message} Your {game.card_name(state[0])} against the policy's {game.card_name(state[1])}")
    assert status.get_attribute("data-result") == ("P0" if chips > 0 else "P1" if chips < 0 else "draw")
    put_in = game.contributions(state)
    assert driver.find_element(By.ID, "pot").text == f"Pot {sum(put_in)} (you put in {put_in[0]}, the policy {put_in[1]})."
    assert driver.find_elements(By.CSS_SELECTOR, "#board button.move") == []


@pytest.mark.slow
def test_a_kuhn_hand_and_a_leduc_hand_against_the_cfr_policy_to_the_shown_result(page):
    """The page opens on Kuhn poker (``?game=kuhn``): the human's card is shown, the policy's face
    down; betting or calling whenever offered plays the hand to a showdown, where the page shows
    the policy's card and the chips won or lost. Picking Leduc hold'em deals a hand with a board
    card, played by calling or checking to its end."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, url = page
    driver.get(f"{url}?game=kuhn")
    wait = _wait(driver)
    wait.until(lambda _: driver.find_elements(By.ID, "your-card") and _attribute(driver, "status", "data-turn") == "human")
    assert _attribute(driver, "your-card", "data-card") in ("J", "Q", "K")
    assert driver.find_element(By.ID, "status").text == "Your move (P0)."
    assert [b.get_attribute("data-move") for b in driver.find_elements(By.CSS_SELECTOR, "#board button.move")] == ["check", "bet"]
    assert driver.find_element(By.ID, "pot").text == "Pot 2 (you put in 1, the policy 1)."
    assert driver.find_element(By.ID, "policy").text.startswith("Opponent: CFR+ policy after 1000 iterations (exploitability ")
    assert [o.text for o in Select(driver.find_element(By.ID, "opponent")).options] == ["CFR+ policy (1000 iterations)"]
    assert driver.find_elements(By.ID, "board-card") == []  # Kuhn has no board card
    assert not driver.find_element(By.ID, "model-card").is_displayed()
    assert not driver.find_element(By.ID, "moves-card").is_displayed()
    _play_a_poker_hand_to_the_end(wait, driver, games.make("kuhn"), lambda words: "bet" if "bet" in words else "call")

    Select(driver.find_element(By.ID, "game")).select_by_value("leduc")
    wait.until(lambda _: driver.find_elements(By.ID, "board-card") and _attribute(driver, "status", "data-turn") == "human")
    assert _attribute(driver, "board-card", "data-card") == ""  # dealt after the first round
    leduc = games.make("leduc")
    # the human never bets, so the policy never folds: the hand reaches the board card and a showdown
    _play_a_poker_hand_to_the_end(wait, driver, leduc, lambda words: "call" if "call" in words else "check")
    assert _attribute(driver, "board-card", "data-card") in {leduc.card_name(card) for card in range(6)}
    driver.execute_script("sessionStorage.clear()")  # the module's next test opens the default game again


@pytest.mark.slow
def test_the_page_fits_a_phone_screen(page):
    from selenium.webdriver.common.by import By

    driver, url = page
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        driver.get(url)
        _wait(driver).until(lambda _: _attribute(driver, "board", "data-ready") == "true")
        width = PHONE["width"]
        assert driver.execute_script("return document.documentElement.scrollWidth") <= width
        board = driver.find_element(By.CSS_SELECTOR, "#board svg").rect
        assert 0 <= board["x"] and board["x"] + board["width"] <= width
        assert board["width"] >= 0.8 * width  # the board takes the screen's width
        panel = driver.find_element(By.ID, "panel").rect
        assert panel["y"] >= board["y"] + board["height"]  # the controls go below the board
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.fixture(scope="module")
def pig_page(tmp_path_factory):
    """``(driver, url)``: headless Chromium and a ``play --web`` server with a tiny Pig model."""
    yield from _served_page(tmp_path_factory, "pig")


#: the human's turn total at which it holds (Neller & Presser 2004, "hold at 20")
HOLD_AT = 20


@pytest.mark.slow
def test_a_whole_game_of_pig_against_the_model_with_the_dice_shown(pig_page):
    """Roll until the turn total reaches 20, then hold; the server rolls each die, the page shows
    every roll, the model takes its turns, and the game ends with its result announced."""
    from selenium.webdriver.common.by import By

    driver, url = pig_page
    driver.get(url)
    wait = _wait(driver)
    wait.until(lambda _: _attribute(driver, "board", "data-ready") == "true")
    assert driver.find_element(By.ID, "status").text == "Your move (X)."
    assert [c.get_attribute("data-move") for c in driver.find_elements(By.CSS_SELECTOR, "#board [data-move]")] == ["r", "h"]
    assert not driver.find_element(By.ID, "dice").is_displayed()  # nothing rolled yet

    game = games.make("pig")
    rolls_seen = 0
    for _ in range(600):  # a game to 100 points: far fewer human decisions than this
        if _human_turn_or_result(wait, driver):
            break
        moves = _attribute(driver, "moves", "data-moves")
        state = tuple(int(v) for v in game.states_from_moves([moves])[0])
        assert driver.find_element(By.CSS_SELECTOR, "#board pre").text == game.render(state)
        if moves and moves[-1].isdigit():  # the last event was a roll: the page shows its face
            dice = driver.find_element(By.ID, "dice")
            assert dice.get_attribute("data-outcome") == moves[-1] and dice.is_displayed()
            roller = int(game.to_play(game.states_from_moves([moves[:-1]]))[0])  # who rolled: X (you) or O
            assert dice.text == f"{('You (X)', 'Model (O)')[roller]} rolled {moves[-1]}"
            rolls_seen += 1
        _, _, turn_total = game.scores(state)
        move = "r" if turn_total < HOLD_AT and 0 in game.actions(state) else "h"
        ply = int(_attribute(driver, "board", "data-ply"))
        driver.find_element(By.CSS_SELECTOR, f'#board button[data-move="{move}"]').click()
        wait.until(
            lambda _, ply=ply: (
                int(_attribute(driver, "board", "data-ply")) > ply or _attribute(driver, "status", "data-result")
            )
        )

    moves = _check_the_announced_end(driver, game)
    assert rolls_seen > 0 and "h" in moves


@pytest.fixture(scope="module")
def shipped_page(tmp_path_factory):
    """``(driver, url)``: headless Chromium and ``play --web`` started as a new user would, without
    ``--model``: every game, with the shipped models (``networks/shipped/``)."""
    yield from _served_page(tmp_path_factory, None)


@pytest.mark.slow
def test_a_new_user_picks_connect4_and_plays_the_shipped_model_to_the_end(shipped_page):
    """``play --web`` with no ``--model``: the page opened on tic-tac-toe offers every game; picking
    Connect Four seats the shipped Connect Four model (``networks/shipped/connect4``) against the
    human, and a whole game is played to its announced result."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver, url = shipped_page
    driver.get(f"{url}?game=tictactoe")
    wait = _wait(driver)
    wait.until(lambda _: _attribute(driver, "board", "data-ready") == "true")
    picker = Select(driver.find_element(By.ID, "game"))
    picker.select_by_value("connect4")
    wait.until(
        lambda _: [c.get_attribute("data-move") for c in driver.find_elements(By.CSS_SELECTOR, "#board [data-move]")]
        == list("1234567")
        and _attribute(driver, "status", "data-turn") == "human"
    )
    assert Select(driver.find_element(By.ID, "opponent")).first_selected_option.get_attribute("value") == "model"
    assert driver.find_element(By.ID, "model-card").is_displayed()
    game = games.make("connect4")
    _play_the_lowest_open_column_to_the_end(wait, driver)
    _check_the_announced_end(driver, game)
