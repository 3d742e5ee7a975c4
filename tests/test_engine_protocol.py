"""The text engine protocol of ``play --engine`` (never a traceback, whatever the input)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers_models import export_tiny_mlp
from helpers_positions import finished_games_with_a_pass
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import games
from frontends.engine import Engine
from frontends.game_text import move_text_limit, result_text, state_after
from frontends.play_cli import main
from mcts import uniform_evaluator

REPO_ROOT = Path(__file__).resolve().parents[1]
ANSWER_PREFIXES = ("bestmove ", "info ", "error: ", "readyok")


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    """A tiny exported tic-tac-toe MLP (random weights)."""
    return export_tiny_mlp("tictactoe", tmp_path_factory.mktemp("engine") / "best")


def engine_session(model_dir: Path, lines: list[str], sims: int = 32) -> tuple[int, list[str]]:
    out = io.StringIO()
    status = main(
        ["--engine", "--model", str(model_dir), "--sims", str(sims)],
        stdin=io.StringIO("".join(line + "\n" for line in lines)),
        stdout=out,
    )
    return status, out.getvalue().splitlines()


def _parse_info(line: str) -> dict:
    tokens = line.split()
    assert tokens[0] == "info"
    info = {}
    index = 1
    while index < len(tokens):
        key = tokens[index]
        if key in ("policy", "visits"):
            info[key] = tokens[index + 1 : index + 10]
            index += 10
        else:
            info[key] = tokens[index + 1]
            index += 2
    return info


def test_scripted_session(model_dir):
    status, answers = engine_session(
        model_dir,
        [
            "isready",
            "position 1425",  # P1: X X . / O O . / . . .  X to move
            "go",
            "analyze",
            "go sims 5",
            "position",
            "analyze sims 0",
            "quit",
            "isready",  # after quit: never read
        ],
    )
    assert status == 0
    assert answers[0] == "readyok"
    assert answers[1] == "bestmove 3"
    info = _parse_info(answers[2])
    assert info["tomove"] == "X" and info["bestmove"] == "3"
    assert float(info["value"]) == 1.0
    policy = np.array([float(p) for p in info["policy"]])
    visits = np.array([int(v) for v in info["visits"]])
    assert np.all(policy[[0, 1, 3, 4]] == 0) and policy.sum() == pytest.approx(1.0, abs=1e-3)
    assert visits.sum() == 32 and np.all(visits[[0, 1, 3, 4]] == 0) and visits.argmax() == 2
    assert answers[3] in {f"bestmove {c}" for c in "36789"}
    empty = _parse_info(answers[4])  # start position, policy only
    assert empty["tomove"] == "X" and sum(int(v) for v in empty["visits"]) == 0
    assert float(empty["value"]) == float(empty["netvalue"])
    assert len(answers) == 5


def test_garbage_lines_answer_errors_and_the_engine_keeps_going(model_dir):
    garbage = [
        "hello",
        "go sims",
        "go sims -3",
        "go sims 10 20",
        "go sims 999999999999",
        "go fast",
        "position 1a",
        "position 11",
        "position 1 2",
        "position 1234567",  # X wins at move 7: accepted, but no move to search
        "go",
        "analyze now",
        "isready now",
        "\x00\x01\x7f",
        "position " + "1" * 5000,
        "\u202e\U0001f600",
    ]
    status, answers = engine_session(model_dir, [*garbage, "  ", "position 5", "go", "isready"])
    assert status == 0
    assert [a.startswith("error: ") for a in answers[:-2]] == [True] * (len(garbage) - 1)
    assert "the game is over (X wins (1-0))" in answers[9]
    assert answers[-2] in {f"bestmove {c}" for c in "12346789"}
    assert answers[-1] == "readyok"


def tiny_connect4_export(folder: Path, seed: int) -> Path:
    """A one-block, 4-channel Connect Four ResNet with random weights from ``seed``, exported."""
    torch = pytest.importorskip("torch")
    from networks import NetworkConfig, build_network
    from networks.export import export_model

    game = games.make("connect4")
    torch.manual_seed(seed)
    config = NetworkConfig(kind="resnet", num_blocks=1, channels=4, value_hidden=4)
    model = build_network(config, game.observation_shape, game.num_actions)
    return export_model(model, config, game.name, game.version, folder)


def test_engine_on_a_connect4_model_uses_columns(tmp_path):
    folder = tiny_connect4_export(tmp_path / "c4", seed=1)
    # X has 1 2 3 on the bottom row: column 4 wins
    status, answers = engine_session(
        folder, ["position 112233", "go", "position 1111111", "position 8"], sims=64
    )
    assert status == 0
    assert answers[0] == "bestmove 4"
    assert answers[1].startswith("error: move 7: column 1 is full")
    assert answers[2].startswith("error: move 1: expected a column 1-7")


def test_engine_searches_one_leaf_per_call_on_the_mirror_averaged_network_by_default(tmp_path):
    """The engine's search is ``mcts.search.run_puct``'s, visit for visit, on the mirror-averaged network
    by default and on the network alone with ``--no-symmetries``."""
    from mcts import PUCTConfig
    from mcts.evaluators import symmetry_averaged
    from mcts.search import run_puct
    from networks.onnx_evaluator import load_exported

    folder = tiny_connect4_export(tmp_path / "c4", seed=3)
    game = games.make("connect4")
    network = load_exported(folder, expected_game=game).evaluate
    for extra, evaluate_fn in (([], symmetry_averaged(game, network)), (["--no-symmetries"], network)):
        for moves in ("", "4453", "334455"):
            out = io.StringIO()
            status = main(
                ["--engine", "--model", str(folder), *extra],
                stdin=io.StringIO(f"position {moves}\nanalyze sims 120\n"), stdout=out,
            )
            assert status == 0
            tokens = out.getvalue().split()
            visits = [int(v) for v in tokens[tokens.index("visits") + 1 :]]
            plain = run_puct(
                game, game.states_from_moves([moves]), evaluate_fn, PUCTConfig(num_simulations=120),
                np.random.default_rng(0), add_root_noise=False,
            )
            assert visits == plain.visit_counts[0].tolist()
            assert sum(visits) == 120


def test_engine_with_symmetries_sees_the_mirror_image_of_a_connect4_position_mirrored(tmp_path):
    folder = tiny_connect4_export(tmp_path / "c4", seed=2)

    def analysis(extra: list[str], moves: str) -> dict:
        out = io.StringIO()
        status = main(
            ["--engine", "--model", str(folder), "--sims", "0", *extra],
            stdin=io.StringIO(f"position {moves}\nanalyze\n"),
            stdout=out,
        )
        assert status == 0
        tokens = out.getvalue().split()
        return {"policy": [float(p) for p in tokens[tokens.index("policy") + 1 :][:7]],
                "netvalue": float(tokens[tokens.index("netvalue") + 1])}

    # "1223" and "7665" are each other's mirror image (columns c and 8 - c)
    left, right = analysis(["--symmetries"], "1223"), analysis(["--symmetries"], "7665")
    assert left["netvalue"] == right["netvalue"]
    assert left["policy"] == right["policy"][::-1]
    # without averaging the random network tells the two apart
    plain_left, plain_right = analysis(["--no-symmetries"], "1223"), analysis(["--no-symmetries"], "7665")
    # averaging is the default
    assert analysis([], "1223") == left
    assert plain_left["policy"] != plain_right["policy"][::-1]
    assert left["netvalue"] == pytest.approx((plain_left["netvalue"] + plain_right["netvalue"]) / 2, abs=2e-4)


line_text = st.text(
    alphabet=st.characters(blacklist_characters="\n\r", blacklist_categories=("Cs",)), max_size=30
)
command_lines = st.one_of(
    line_text,
    st.builds(
        lambda word, rest: f"{word} {rest}",
        st.sampled_from(["position", "go", "analyze", "isready", "go sims", "analyze sims", "position 5"]),
        line_text,
    ),
    st.builds(
        lambda word, n: f"{word} {n}", st.sampled_from(["go sims", "analyze sims"]), st.integers(-5, 80)
    ),
    st.builds(lambda moves: f"position {moves}", st.text(alphabet="0123456789", max_size=10)),
)


def _check_fuzzed_session(lines: list[str]) -> None:
    game = games.make("tictactoe")
    out = io.StringIO()
    engine = Engine(game, uniform_evaluator, num_simulations=4, seed=0, stdout=out, max_simulations=64)
    status = engine.run(io.StringIO("".join(line + "\n" for line in lines) + "isready\n"))
    assert status == 0
    answers = out.getvalue().splitlines()
    assert all(a.startswith(ANSWER_PREFIXES) for a in answers), answers
    quit_seen = any(line.split()[:1] == ["quit"] for line in lines)
    if not quit_seen:
        # one answer per non-blank line, except a position that was accepted (silent)
        assert answers[-1] == "readyok"
        commands = [line.split()[0] for line in lines if line.split()]
        answered = sum(1 for word in commands if word != "position")
        assert answered + 1 <= len(answers) <= len(commands) + 1


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command_lines, max_size=8))
def test_fuzzed_lines_never_escape(lines):
    _check_fuzzed_session(lines)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(command_lines, max_size=12))
def test_fuzzed_lines_never_escape_long_run(lines):
    _check_fuzzed_session(lines)


def test_binary_garbage_through_the_real_command(model_dir):
    noise = bytes(b for b in np.random.default_rng(0).integers(0, 256, 64).tolist() if b not in b"\n\r\t ")
    data = (
        b"isready\n\xff\xfe\xfa garbage\n\x00\x00\nposition \xc3\x28\ngo\x00\n"
        + noise
        + b"\nposition 5\ngo\nisready\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT), LANG="C", LC_ALL="C", PYTHONIOENCODING="")
    completed = subprocess.run(
        [sys.executable, "-m", "frontends.play_cli", "--engine", "--model", str(model_dir), "--sims", "8"],
        input=data,
        check=False,
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert completed.returncode == 0
    assert b"Traceback" not in completed.stderr, completed.stderr
    answers = completed.stdout.decode("utf-8", "replace").splitlines()
    assert answers[0] == "readyok" and answers[-1] == "readyok"
    assert answers[-2].startswith("bestmove ")
    assert all(a.startswith(ANSWER_PREFIXES) for a in answers)
    assert sum(a.startswith("error: ") for a in answers) == 5


def test_othello_games_with_a_pass_load_as_positions():
    """A pass is 4 characters (``pass``): a finished 6x6 game with passes is longer in characters
    than the longest game in plies, and still a position the engine takes."""
    game = games.make("othello6x6")
    texts = finished_games_with_a_pass(game, seed=0, count=17)
    assert max(len(text) for text in texts) > game.max_game_length  # the old bound refused these
    out = io.StringIO()
    engine = Engine(game, uniform_evaluator, num_simulations=4, seed=0, stdout=out)
    for text in texts:
        engine.handle(f"position {text}")
        replayed = game.states_from_moves([text])[0]
        assert state_after(game, engine.moves) == tuple(int(v) for v in replayed)
        assert "pass" in game.format_moves(engine.moves)
        engine.handle("go")
        assert out.getvalue().splitlines()[-1] == f"error: the game is over ({result_text(game, state_after(game, engine.moves))}); send a new position"
    limit = move_text_limit(game)
    assert limit == 64 * 5  # 64 plies of at most 4 characters (pass) and a separator
    engine.handle("position " + "a1" * (limit // 2 + 1))
    assert out.getvalue().splitlines()[-1] == (
        f"error: moves: expected at most {limit} characters (the longest othello6x6 game, 64 plies), got {limit + 2}"
    )
