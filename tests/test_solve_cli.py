"""The ``solve`` command: scripted stdin, invalid lines, exit status."""

from __future__ import annotations

import io

from helpers_scripts import run_module

from games.connect4.solve_cli import main


def run(text: str, *argv: str, notes: bool = False) -> tuple[int, list[str], list[str]]:
    """Status, stdout lines, stderr lines (without the slow-position note unless ``notes``)."""
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv) + ["--no-book"], stdin=io.StringIO(text), stdout=out, stderr=err)
    errors = err.getvalue().splitlines()
    if not notes:
        errors = [line for line in errors if not line.startswith("note: ")]
    return status, out.getvalue().splitlines(), errors


def test_early_positions_without_a_book_get_one_note():
    note = (
        "note: no opening book; a position before ply 6 can take seconds to minutes "
        "(scripts/build_opening_book.py builds a book)"
    )
    status, out, err = run("4455\n6146\n", notes=True)
    assert status == 0 and out == ["4455 18", "6146 18"]
    assert err == [note]
    status, _, err = run("44455554221\n", notes=True)  # ply 11: no note
    assert status == 0 and err == []


def test_valid_lines_and_pons_format():
    status, out, err = run("4455\n44455554221 -15\n  6146   18 trailing words\n")
    assert status == 0
    assert out == ["4455 18", "44455554221 -15", "6146 18"]
    assert err == []


def test_analyze_prints_seven_scores_and_dash_for_full_columns():
    status, out, err = run("33445\n6661655774624632341525413332\n", "--analyze")
    assert status == 0 and err == []
    assert out == ["33445 -18 -18 -18 -18 -18 -18 -18", "6661655774624632341525413332 -1 0 -1 -1 0 - -1"]


def test_nodes_option_appends_node_count():
    status, out, _ = run("4455\n", "--nodes")
    assert status == 0
    moves, score, nodes = out[0].split()
    assert (moves, score) == ("4455", "18") and int(nodes) >= 1


def test_each_kind_of_invalid_line_is_reported_and_others_answered():
    text = "4455\n\n44x5\n1111111\n1212121\n   \n6146\n"
    status, out, err = run(text)
    assert status == 1
    assert out == ["4455 18", "6146 18"]
    assert err[0] == "line 2: empty line, expected a position (column digits 1-7)"
    assert err[1] == "line 3: '44x5': move 3: character 'x' is not a column 1-7"
    assert err[2] == "line 4: '1111111': move 7: column 1 is already full"
    assert err[3].startswith("line 5: '1212121': move 7: column 1 makes four in a row")
    assert err[4].startswith("line 6: empty line")
    assert err[5] == "5 invalid line(s)"
    assert len(err) == 6


def test_invalid_line_in_analyze_mode():
    status, out, err = run("8\n33445\n", "--analyze")
    assert status == 1
    assert out == ["33445 -18 -18 -18 -18 -18 -18 -18"]
    assert err[0] == "line 1: '8': move 1: character '8' is not a column 1-7"


def test_no_input_is_success():
    assert run("") == (0, [], [])


def test_console_process_without_traceback():
    """The real process: undecodable bytes are an invalid line, not a traceback; status 1."""
    proc = run_module("games.connect4.solve_cli", "--no-book", stdin=b"4455\n\xff\xfe\n", timeout=120)
    assert proc.returncode == 1
    assert proc.stdout.decode().splitlines() == ["4455 18"]
    stderr = proc.stderr.decode()
    assert "line 2:" in stderr and "not a column 1-7" in stderr
    assert "Traceback" not in stderr


def test_bad_option_exits_with_usage_error():
    proc = run_module("games.connect4.solve_cli", "--bogus", timeout=120)
    assert proc.returncode == 2
    assert "unrecognized arguments: --bogus" in proc.stderr.decode()
