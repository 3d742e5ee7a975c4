"""Fuzzing the line-based commands : ``solve`` (games/connect4/solve_cli.py) and the
``play --engine`` protocol (frontends/play_cli.py, docs/engine_protocol.md) with hypothesis-generated
input. Neither may raise: ``solve`` answers every line, on stdout (``POSITION SCORE``) or as
``line N: ...`` on stderr, and carries on; the engine answers every command but an accepted
``position`` and ``quit`` with exactly one line (``error: ...`` for a bad one) and carries on.
(The human side of ``play`` is fuzzed in tests/test_play_cli.py.)

``TABULA_RASA_FUZZ_EXAMPLES`` scales the number of generated sessions (default 150 per test); the
figure in docs/reliability.md comes from a larger run.
"""

from __future__ import annotations

import io
import os
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from frontends.engine import Engine
from games.connect4 import solve_cli
from games.connect4.solver import parse_moves
from mcts.evaluators import uniform_evaluator

EXAMPLES = int(os.environ.get("TABULA_RASA_FUZZ_EXAMPLES", "150"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: positions with fewer stones can take the solver minutes without an opening book
MIN_STONES_TO_SOLVE = 20

#: inputs tried in this session, by test (printed by the last test of the module, -s shows it)
TRIED = {"solve lines": 0, "engine lines": 0}


# ------------------------------------------------------------------------------------- solve
def _quick_to_solve(token: str) -> bool:
    try:
        parse_moves(token)
    except ValueError:
        return True  # invalid: answered at once
    return len(token) >= MIN_STONES_TO_SOLVE


@st.composite
def deep_positions(draw) -> str:
    """A legal, unfinished Connect Four position with at least ``MIN_STONES_TO_SOLVE`` stones (or an
    invalid move string when random play ends the game first)."""
    game = games.make("connect4")
    state, moves = game.initial_state(), ""
    target = draw(st.integers(MIN_STONES_TO_SOLVE, 41))
    choices = draw(st.lists(st.integers(0, 6), min_size=target, max_size=target))
    for choice in choices:
        legal = game.actions(state)
        action = legal[choice % len(legal)]
        moves += str(action + 1)
        state = game.result(state, action)
        if game.terminal_test(state):
            break  # the string now ends with a winning (or last) move: an invalid or full position
    return moves


GARBAGE = st.text(
    alphabet=st.sampled_from("12345670 89\t-x+.#\u00e9\u2028\x00\x0b\ufeff"), max_size=40
) | st.text(max_size=30)
SOLVE_LINE = st.one_of(
    GARBAGE,
    deep_positions(),
    st.tuples(deep_positions(), st.sampled_from(["", " 3", " -2 extra", "\t0"])).map("".join),
).map(lambda line: line if _quick_to_solve((line.split() or [""])[0]) else "x" + line)


def _stdin(text: str, raw: bytes = b"") -> io.TextIOWrapper:
    # as solve_cli.main wraps the real stdin: undecodable bytes become U+FFFD
    return io.TextIOWrapper(
        io.BytesIO(text.encode("utf-8", "surrogatepass") + raw), encoding="utf-8", errors="replace"
    )


@FUZZ
@given(
    lines=st.lists(SOLVE_LINE, min_size=1, max_size=6),
    raw=st.binary(max_size=12),
    analyze=st.booleans(),
)
def test_solve_answers_every_line_and_never_raises(lines, raw, analyze):
    text = "\n".join(lines) + "\n"
    expected_lines = list(_stdin(text, raw))
    for line in expected_lines:
        token = (line.split() or [""])[0]
        if not _quick_to_solve(token):  # bytes joined onto a line can make a short valid position
            return
    stdout, stderr = io.StringIO(), io.StringIO()
    status = solve_cli.main(
        ["--analyze"] if analyze else [], stdin=_stdin(text, raw), stdout=stdout, stderr=stderr
    )
    TRIED["solve lines"] += len(expected_lines)
    answered = stdout.getvalue().splitlines()
    errors = [line for line in stderr.getvalue().splitlines() if re.match(r"line \d+: ", line)]
    assert len(answered) + len(errors) == len(expected_lines)
    assert "Traceback" not in stderr.getvalue()
    error_numbers = [int(re.match(r"line (\d+): ", line).group(1)) for line in errors]
    assert error_numbers == sorted(set(error_numbers))
    good = [line.split()[0] for number, line in enumerate(expected_lines, 1) if number not in error_numbers]
    assert [answer.split()[0] for answer in answered] == good
    for answer in answered:
        fields = answer.split()
        assert len(fields) == (8 if analyze else 2)
        assert all(re.fullmatch(r"-?\d+|-", field) for field in fields[1:])
    if errors:
        assert status == 1 and stderr.getvalue().splitlines()[-1] == f"{len(errors)} invalid line(s)"
    else:
        assert status == 0


# ------------------------------------------------------------------------------------- engine
TOKENS = st.sampled_from(
    [
        "position",
        "go",
        "analyze",
        "isready",
        "quit",
        "sims",
        "position",
        "go",
        "analyze",
        "0",
        "1",
        "3",
        "-1",
        "100001",
        "99999999999999999999",
        "abc",
        "4453",
        "159",
        "1234567",
        "44444444",
        "",
        "\t",
        "\u00e9",
        "POSITION",
        "go\x00",
        "sims\u2028",
        "5" * 50,
    ]
)
ENGINE_LINE = st.one_of(
    st.lists(TOKENS, min_size=0, max_size=5).map(" ".join),
    st.tuples(st.just("position"), st.text(alphabet="0123456789", max_size=12)).map(" ".join),
    st.tuples(st.sampled_from(["go sims", "analyze sims"]), st.integers(-3, 12)).map(
        lambda t: f"{t[0]} {t[1]}"
    ),
    st.text(max_size=25),
)


def _answers_expected(line: str) -> tuple[int, int]:
    """(fewest, most) answer lines for one input line (``quit`` is handled by the caller)."""
    tokens = line.split()
    if not tokens:
        return 0, 0
    if tokens[0] == "position":
        return 0, 1  # none if accepted, an error line if not
    return 1, 1


@FUZZ
@given(
    game_name=st.sampled_from(["tictactoe", "connect4"]), lines=st.lists(ENGINE_LINE, min_size=1, max_size=8)
)
def test_engine_answers_every_command_and_goes_on(game_name, lines):
    game = games.make(game_name)
    stdout = io.StringIO()
    engine = Engine(game, uniform_evaluator, num_simulations=8, seed=0, stdout=stdout, max_simulations=64)
    # (``sims`` above 64 is refused with an error line, so no search runs long)
    for line in lines:
        for piece in io.StringIO(line + "\n"):  # a generated line may hold several lines
            TRIED["engine lines"] += 1
            before = len(stdout.getvalue().splitlines())
            tokens = piece.split()
            keep_going = engine.handle(piece)
            answers = stdout.getvalue().splitlines()[before:]
            if tokens and tokens[0] == "quit":
                assert keep_going is False and answers == []
                return
            assert keep_going is True
            fewest, most = _answers_expected(piece)
            assert fewest <= len(answers) <= most, (piece, answers)
            for answer in answers:
                assert re.match(r"(readyok|bestmove \S+|info tomove [XO] .*|error: \S.*)$", answer), answer
                if answer.startswith(("bestmove", "info")):  # a legal move of the current position
                    move = answer.split()[answer.split().index("bestmove") + 1]
                    state = game.initial_state()
                    for action in engine.moves:
                        state = game.result(state, action)
                    assert game.parse_moves(move)[0] in game.actions(state)
    engine.handle("isready")
    assert stdout.getvalue().splitlines()[-1] == "readyok"  # the session is still alive


@FUZZ
@given(chunks=st.lists(st.binary(max_size=20), min_size=1, max_size=6))
def test_engine_survives_bytes_that_are_not_text(chunks):
    data = b"\n".join(chunks) + b"\nisready\n"
    # as play_cli.main reconfigures the real stdin: undecodable bytes become U+FFFD
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="replace")
    stdout = io.StringIO()
    engine = Engine(
        games.make("tictactoe"),
        uniform_evaluator,
        num_simulations=4,
        seed=0,
        stdout=stdout,
        max_simulations=16,
    )
    TRIED["engine lines"] += len(chunks) + 1
    status = engine.run(stdin)
    assert status == 0
    output = stdout.getvalue().splitlines()
    for answer in output:
        assert re.match(r"(readyok|bestmove \S+|info tomove [XO] .*|error: \S.*)$", answer), answer
    quit_sent = any((line.split() or [b""])[0] == b"quit" for line in re.split(rb"\r\n|\r|\n", data))
    if not quit_sent:
        assert output[-1] == "readyok"  # the session went on to the end


def test_solve_process_with_binary_garbage_answers_and_exits_1():
    """The real process: bytes that are not UTF-8, a NUL, a deep position, a bad line, no newline at the end."""
    import subprocess
    import sys

    deep = "5616445371234311112735"  # 22 stones, a valid unfinished position
    data = b"\xff\xfe garbage\n\x00\n" + deep.encode() + b" 0\n\n55555555\n" + deep.encode()
    result = subprocess.run(
        [sys.executable, "-m", "games.connect4.solve_cli"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    err = result.stderr.decode()
    assert result.returncode == 1, err
    assert "Traceback" not in err
    assert [line.split()[0] for line in result.stdout.decode().splitlines()] == [deep, deep]
    assert re.findall(r"^line (\d+): ", err, flags=re.MULTILINE) == ["1", "2", "4", "5"]
    assert err.splitlines()[-1] == "4 invalid line(s)"


def test_zz_report_the_number_of_inputs_tried():
    print(f"\nfuzzed inputs tried: {TRIED}")
    assert TRIED["solve lines"] > 0 and TRIED["engine lines"] > 0 or EXAMPLES == 0
