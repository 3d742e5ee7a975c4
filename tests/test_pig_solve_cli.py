"""``solve --game pig``: exact win probabilities and optimal actions, bad lines reported."""

from __future__ import annotations

import io

from helpers_scripts import run_module

from games.solve_cli import main


def run(text: str, *argv: str) -> tuple[int, list[str], list[str]]:
    out, err = io.StringIO(), io.StringIO()
    status = main(["--game", "pig", *argv], stdin=io.StringIO(text), stdout=out, stderr=err)
    return status, out.getvalue().splitlines(), err.getvalue().splitlines()


def test_known_values_and_actions():
    status, out, err = run("0 0 0\n99 99 0\n  90 0 10  \n50 50 50\n")
    assert status == 0 and err == []
    assert out == [
        "0 0 0 0.5305927253 roll",
        "99 99 0 0.8571428571 roll",
        "90 0 10 1.0000000000 hold",
        "50 50 50 1.0000000000 hold",
    ]
    status, out, _ = run("0 0 0\n", "--goal", "10")
    assert out == ["0 0 0 0.7094243226 roll"]


def test_every_bad_line_names_what_was_expected_and_the_rest_is_answered():
    text = "\n0 0\n0 0 x\n100 0 0\n0 -1 0\n0 0 -3\n0 0 0 0\n0 0 0\n"
    status, out, err = run(text)
    assert status == 1
    assert out == ["0 0 0 0.5305927253 roll"]
    expected = "expected 'I J K': own score, opponent's score (0-99) and turn total (>= 0)"
    assert err == [
        f"line 1: '': {expected}, got 0 field(s)",
        f"line 2: '0 0': {expected}, got 2 field(s)",
        f"line 3: '0 0 x': {expected}; K is not an integer: 'x'",
        "line 4: '100 0 0': I (own score) must be in [0, 99] at goal 100, got 100",
        "line 5: '0 -1 0': J (opponent's score) must be in [0, 99] at goal 100, got -1",
        "line 6: '0 0 -3': K (turn total) must be >= 0, got -3",
        f"line 7: '0 0 0 0': {expected}, got 4 field(s)",
        "7 invalid line(s)",
    ]


def test_connect4_is_still_the_default():
    out, err = io.StringIO(), io.StringIO()
    status = main(["--no-book"], stdin=io.StringIO("44455554221\n"), stdout=out, stderr=err)
    assert status == 0 and out.getvalue() == "44455554221 -15\n"


def test_the_process_never_dies_on_input():
    proc = run_module("games.solve_cli", "--game", "pig", "--goal", "10", stdin=b"0 0 0\n\xff\xfe 1 2\n9 9 \xc3\xa9\n1 2 3\n")
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines()[0] == "0 0 0 0.7094243226 roll"
    assert len(proc.stdout.decode().splitlines()) == 2
    stderr = proc.stderr.decode()
    assert "line 2:" in stderr and "line 3:" in stderr and "Traceback" not in stderr


def test_bad_options_are_usage_errors():
    for argv in (["--goal", "0"], ["--die", "12"], ["--game", "chess"]):
        proc = run_module("games.solve_cli", *(argv if argv[0] == "--game" else ["--game", "pig", *argv]))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr.decode()
