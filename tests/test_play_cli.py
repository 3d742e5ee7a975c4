"""``play``: a human against an exported model, scripted through stdin (the evaluation is shown from a stated side)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers_models import export_tiny_mlp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from arena.players import MCTSPlayer
from frontends.play_cli import HumanSession, main
from mcts import PUCTConfig, uniform_evaluator

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    """A tiny exported tic-tac-toe MLP (random weights)."""
    return export_tiny_mlp("tictactoe", tmp_path_factory.mktemp("play") / "best")


def play(model_dir: Path, lines: str, *args: str) -> tuple[int, str]:
    out = io.StringIO()
    status = main(["--model", str(model_dir), "--sims", "16", *args], stdin=io.StringIO(lines), stdout=out)
    # piped input is not echoed, so what follows a prompt lands on the prompt's line: split it off
    return status, out.getvalue().replace("quit): ", "quit):\n")


def _final_moves(text: str) -> str:
    return [line for line in text.splitlines() if line.startswith("moves: ")][-1].split()[-1]


def test_illegal_and_malformed_moves_reprompt_with_the_legal_moves(model_dir):
    status, text = play(model_dir, "foo\n0\n10\n\n5 5\n\u0665\nquit\n")
    assert status == 0
    assert text.count("legal moves: 1 2 3 4 5 6 7 8 9") == 6
    assert text.count("your move (1 2 3 4 5 6 7 8 9; undo, hint, quit):") == 7
    assert text.rstrip().endswith("game abandoned; moves: (none)")
    assert "Traceback" not in text


def test_occupied_cell_is_illegal_and_undo_takes_back_the_pair(model_dir):
    status, text = play(model_dir, "5\n5\nundo\nundo\nquit\n")
    assert status == 0
    lines = text.splitlines()
    model_reply = next(line for line in lines if line.startswith("model plays "))
    reply = model_reply.split()[2]
    assert reply != "5"
    assert "illegal or malformed move '5'" in text
    assert "took back your last move; moves: (none)" in text
    assert "nothing to undo" in text
    assert text.rstrip().endswith("game abandoned; moves: (none)")


def test_hint_names_a_legal_move_and_the_game_plays_to_the_end(model_dir):
    # try every cell in turn, twice over: illegal ones re-prompt, so the game always finishes
    status, text = play(model_dir, "hint\n" + "1\n2\n3\n4\n5\n6\n7\n8\n9\n" * 2)
    assert status == 0
    hint = next(line for line in text.splitlines() if line.startswith("hint: "))
    assert hint.split()[-1] in "123456789"
    moves = _final_moves(text)
    game = games.make("tictactoe")
    state = game.initial_state()
    for action in game.parse_moves(moves):
        state = game.result(state, action)
    assert game.terminal_test(state)
    expected = {1.0: "X wins (1-0)", -1.0: "O wins (0-1)", 0.0: "draw (1/2-1/2)"}[game.utility(state, 0)]
    assert f"result: {expected}" in text
    assert moves[0::2] == "".join(sorted(moves[0::2]))  # the human's tries go up the cells in order


def test_end_of_input_abandons_the_game_cleanly(model_dir):
    status, text = play(model_dir, "")
    assert status == 0
    assert "game abandoned" in text


def test_evaluation_names_x_winning_for_either_human_side(model_dir):
    # X X . / O O . / . . .  X to move, whichever side the human plays (moves 1 4 2 5)
    status, text = play(model_dir, "quit\n", "--position", "1425", "--human-first", "--sims", "64")
    assert status == 0
    assert "evaluation for you (X): search +1.000" in text
    assert "X is winning" in text
    status, text = play(model_dir, "quit\n", "--position", "1425", "--human-second", "--sims", "64")
    assert status == 0
    assert "model plays 3 (evaluation for the model (X): search +1.000" in text
    assert "X is winning" in text
    assert "result: X wins (1-0)" in text and "moves: 14253" in text


def test_policy_display_lists_the_legal_moves(model_dir):
    status, text = play(model_dir, "quit\n", "--position", "1425")
    assert status == 0
    lines = text.splitlines()
    header = next(line for line in lines if line.startswith("move "))
    assert header.split() == ["move", "3", "6", "7", "8", "9"]
    policy = next(line for line in lines if line.startswith("policy "))
    assert sum(float(v) for v in policy.split()[1:]) == pytest.approx(1.0, abs=0.03)
    visits = next(line for line in lines if line.startswith("visits "))
    assert sum(int(v) for v in visits.split()[1:]) == 16


def test_no_analysis_hides_the_policy_and_evaluation_but_hint_answers(model_dir):
    status, text = play(model_dir, "hint\n5\nquit\n", "--no-analysis")
    assert status == 0
    for hidden in ("policy ", "visits ", "evaluation for"):
        assert hidden not in text
    assert "hint: the model would play " in text
    assert "model plays " in text and "game abandoned; moves: 5" in text


def test_policy_only_model_and_opponent_spec(model_dir):
    status, text = play(model_dir, "quit\n", "--sims", "0")
    assert status == 0 and "network" in text and "visits" not in text
    status, text = play(model_dir, "", "--opponent", "solver", "--human-first")
    assert status == 0
    assert "solver plays" in text
    assert "result: X wins (1-0)" in text or "result: draw (1/2-1/2)" in text  # solver is X


def test_usage_errors(model_dir, tmp_path, capsys):
    status, _ = play(tmp_path / "missing", "")
    assert status == 2 and "model not found" in capsys.readouterr().err
    status, _ = play(model_dir, "", "--game", "connect4")
    assert status == 2 and "plays 'tictactoe'" in capsys.readouterr().err
    status, _ = play(model_dir, "", "--sims", "-1")
    assert status == 2
    status, _ = play(model_dir, "", "--opponent", "alphabeta:depht=1")
    assert status == 2 and "unknown option" in capsys.readouterr().err


def test_a_game_imports_neither_trainer_nor_torch(model_dir):
    script = (
        "import io, sys\n"
        "from frontends.play_cli import main\n"
        "out = io.StringIO()\n"
        f"status = main(['--model', {str(model_dir)!r}, '--sims', '8'], stdin=io.StringIO('1\\n2\\n3\\n4\\n5\\n6\\n7\\n8\\n9\\n'), stdout=out)\n"
        "assert status == 0 and 'result: ' in out.getvalue(), out.getvalue()\n"
        "print(sorted(m for m in ('trainer', 'torch') if m in sys.modules))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    completed = subprocess.run(
        [sys.executable, "-c", script],
        check=False,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "[]"


human_line = st.one_of(
    st.text(alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=20),
    st.sampled_from(["undo", "hint", "1", "5", "9", "0", "10", " 3 ", "undo undo"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(human_line, max_size=12), st.sampled_from([0, 1]))
def test_fuzzed_human_input_never_escapes(lines, human_side):
    # fuzzed input: every line is a move, a command, or answered with a re-prompt
    game = games.make("tictactoe")
    model = MCTSPlayer(uniform_evaluator, PUCTConfig(num_simulations=2), rng=0)
    out = io.StringIO()
    session = HumanSession(game, model, human_side, [], io.StringIO("".join(f"{s}\n" for s in lines)), out)
    assert session.run() == 0
    text = out.getvalue()
    assert "error: " not in text  # nothing fell through to the last-resort handler
    assert "result: " in text or "game abandoned" in text
