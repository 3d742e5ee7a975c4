"""A game as text for a person: move strings replayed into states, and plain words for them.

Shared by the terminal ``play`` (``frontends/play_cli.py``), its engine protocol
(``frontends/engine.py``) and the web page (``frontends/web``): replaying a game's events
(decisions and chance outcomes) from the start, the one length check of a position's move string,
the players' symbols, who leads, how a game ended, and text written to a terminal that may not
encode every character.
"""

from __future__ import annotations

#: the players' symbols, by player (0 moves first)
PLAYER_SYMBOLS = ("X", "O")


def verdict(value_for_first: float) -> str:
    """Plain words for a value in ``[-1, 1]`` from X's (the first player's) view."""
    leader = "X" if value_for_first > 0 else "O"
    size = abs(value_for_first)
    if size >= 0.8:
        return f"{leader} is winning"
    if size >= 0.25:
        return f"{leader} is better"
    return "balanced"


def result_text(game, state: tuple) -> str:
    """The result of the finished ``state`` (a single-state tuple) with its score in PGN notation."""
    utility = game.utility(state, 0)
    if utility > 0:
        return "X wins (1-0)"
    if utility < 0:
        return "O wins (0-1)"
    return "draw (1/2-1/2)"


def state_after(game, events: list[int]) -> tuple:
    """The state after ``events`` from the start position (a single-state tuple).

    In a game with chance, an event played at a chance state is that state's outcome index, the
    order ``Game.parse_moves`` returns and ``Game.format_moves`` writes (Pig: ``r4`` is a roll
    and the face 4). The terminal game, the engine protocol and the web page all replay a game
    with this function, so none of them reads a die face as a decision.

    Raises:
        ValueError: for an event that is not legal where it stands (from ``Game.result`` or
            ``Game.chance_result``).
    """
    state = game.initial_state()
    for event in events:
        state = game.chance_result(state, event) if game.is_chance_state(state) else game.result(state, event)
    return state


def event_players(game, events: list[int]) -> list[int]:
    """For each of ``events`` (as ``state_after``), the player (0 or 1) who decided it, or -1 for
    a chance outcome (nobody decides the dice)."""
    state = game.initial_state()
    players = []
    for event in events:
        if game.is_chance_state(state):
            players.append(-1)
            state = game.chance_result(state, event)
        else:
            players.append(game.player(state))
            state = game.result(state, event)
    return players


def move_text_limit(game) -> int:
    """The longest move string a position request may carry (characters).

    Every game lasts at most ``game.max_game_length`` plies (chance outcomes included); each is
    written with at most the longest text of any action or chance outcome (Othello: ``pass``,
    4 characters), plus one separator. ``Game.parse_moves`` accepts every string that
    ``Game.format_moves`` writes, spaced or not, so no game's move string is refused here; only
    input no game could produce is.
    """
    texts = [game.action_to_string(a) for a in range(game.num_actions)]
    texts += [game.chance_outcome_to_string(k) for k in range(game.num_chance_outcomes)]
    return game.max_game_length * (max(len(text) for text in texts) + 1)


def parse_position(game, text: str) -> list[int]:
    """The events of a position's move string, refused before parsing when it is longer than any
    game's (``move_text_limit``); the one check of the engine's ``position`` and the web page's
    new game.

    Raises:
        ValueError: ``moves: expected at most N characters ..., got M`` for a string too long,
            else as ``game.parse_moves`` (naming the move).
    """
    limit = move_text_limit(game)
    if len(text) > limit:
        raise ValueError(
            f"moves: expected at most {limit} characters (the longest {game.name} game, "
            f"{game.max_game_length} plies), got {len(text)}"
        )
    return game.parse_moves(text)


def write_text(stream, text: str) -> None:
    """Write and flush; characters the stream cannot encode are written as escapes."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        stream.write(text.encode("ascii", "backslashreplace").decode("ascii"))
    stream.flush()
