"""What a first-time user reads: the status line and its legend, the end of a run, the ``latest``
link, override errors, ``solve`` input handling and help, and ``arena human``."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from frontends.arena_cli import main as arena_main
from games.solve_cli import main as solve_main
from games.solve_cli import without_trailing_blank_lines
from trainer import status as status_module
from trainer.cli import CONFIG_DIR, class_game_overrides, finish_message, link_latest
from trainer.config import check_overrides
from trainer.loop import RunSummary
from trainer.status import LEGEND, StatusDisplay


def test_the_plain_status_line_names_each_loss_and_the_mistake_rates(capsys, monkeypatch):
    monkeypatch.setattr(status_module.time, "monotonic", lambda: 1000.0)
    display = StatusDisplay(live=False, every_seconds=0.0)
    display.update({
        "step": 6400, "games": 900, "positions_per_s": 812.4, "buffer_size": 30000, "best_version": 6400,
        "last_gate": "off", "policy_loss": 0.7412, "value_loss": 0.0061, "mistake_rates": "all 0.0%",
        "seconds_left": 75.0,
    })
    assert capsys.readouterr().out == (
        "step 6400 | games 900 | 812 pos/s | buffer 30000 | best v6400 | gate off | "
        "loss policy 0.741 value 0.006 | mistakes all 0.0% | left 0:01:15\n"
    )
    assert "'off': gating is off and self-play takes the latest weights, so no promotion is expected" in LEGEND
    assert "loss policy / value = cross-entropy against the search's visit counts / squared error" in LEGEND


def test_the_end_of_a_run_with_gating_off_prints_mistakes_and_next_commands():
    summary = RunSummary(
        "outputs/tictactoe/latest", 6412, 30000, 120000, 6400, 0, 0, 181.0, "max_minutes",
        gating=False, mistake_rates={"all": 0.00221}, measured_version=6400,
    )
    assert finish_message(summary, 3.0) == (
        "run finished (max_minutes): 6412 steps, 30000 games, best version 6400 (gating off: the latest "
        "weights, no gating matches), 181 s; outputs in outputs/tictactoe/latest\n"
        "mistakes against perfect play (best version 6400): all 0.22%\n"
        "next:\n"
        "  play --model outputs/tictactoe/latest/best  # play against it\n"
        "  arena accuracy mcts:model=outputs/tictactoe/latest/best  # its mistakes against perfect play\n"
        "  arena mcts:model=outputs/tictactoe/latest/best alphabeta:depth=4 --games 20  # a match against alpha-beta\n"
        "  train-report outputs/tictactoe/latest  # write outputs/tictactoe/latest/report.html again"
    )
    interrupted = RunSummary("r", 5, 3, 30, 5, 0, 0, 9.0, "interrupted", gating=True)
    assert finish_message(interrupted, 3.0) == (
        "run finished (interrupted): 5 steps, 3 games, best version 5 (0 promotions in 0 gates), 9 s; outputs in r"
    )


def test_latest_points_at_the_newest_run_and_is_replaced_atomically(tmp_path):
    first, second = tmp_path / "2026-01-01_10-00-00", tmp_path / "2026-01-01_11-00-00"
    first.mkdir()
    second.mkdir()
    link = link_latest(first)
    assert link == tmp_path / "latest" and link.is_symlink() and link.resolve() == first.resolve()
    assert str(link.readlink()) == first.name  # relative: the outputs folder can move
    link_latest(second)
    assert link.resolve() == second.resolve()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["2026-01-01_10-00-00", "2026-01-01_11-00-00", "latest"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "latest").mkdir()  # a real folder of that name is never replaced
    (tmp_path / "other" / "run").mkdir()
    assert link_latest(tmp_path / "other" / "run").is_dir() and not (tmp_path / "other" / "latest").is_symlink()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["run.max_minutes=abc"], "run.max_minutes: expected a number or null, got 'abc'"),
        (["selfplay.games_per_actor=many"], "selfplay.games_per_actor: expected an integer, got 'many'"),
        (["run.live_status=maybe"], "run.live_status: expected true or false, got 'maybe'"),
        (
            ["network=b4c23"],
            (
                "network=b4c23: no such option; accepted options of network: "
                f"{sorted(path.stem for path in (Path(CONFIG_DIR) / 'network').glob('*.yaml'))}; "
                "did you mean network=b4c32?"
            ),
        ),
        (
            ["max_minutes=5"],
            (
                "max_minutes: unknown key; accepted top-level keys and config groups: ['arena', 'experiment', "
                "'game', 'mcts', 'network', 'ray', 'resume', 'selfplay', 'trainer'], and section.key=value for "
                "the sections ['arena', 'game', 'mcts', 'network', 'ray', 'run', 'selfplay', 'trainer'] "
                "(e.g. run.max_minutes=5); did you mean run.max_minutes?"
            ),
        ),
    ],
)
def test_an_override_of_the_wrong_type_or_a_misspelt_option_gets_one_clear_line(overrides, message):
    with pytest.raises(ValueError) as raised:
        check_overrides(overrides, CONFIG_DIR)
    assert str(raised.value) == "invalid configuration:\n  " + message


def test_good_overrides_and_a_module_class_game_pass():
    check_overrides(
        ["game=tictactoe", "run.max_minutes=3", "run.max_minutes=null", "run.live_status=false",
         "network.mlp_hidden=[64,64]", "game=mypkg.mygame:MyGame", "experiment=tiny"],
        CONFIG_DIR,
    )
    assert class_game_overrides(["game=mypkg.mygame:MyGame", "run.max_minutes=3"]) == [
        "game=module", "game.name=mypkg.mygame:MyGame", "run.max_minutes=3",
    ]
    assert class_game_overrides(["game=tictactoe"]) == ["game=tictactoe"]


def test_solve_drops_trailing_blank_lines_but_reports_a_blank_line_inside(capsys):
    out = io.StringIO()
    assert solve_main([], stdin=io.StringIO("4\n\n  \n"), stdout=out) == 0
    assert out.getvalue() == "4 -1\n"
    out = io.StringIO()
    assert solve_main(["--game", "pig"], stdin=io.StringIO("0 0 0\n\n"), stdout=out) == 0
    assert out.getvalue() == "0 0 0 0.5305927253 roll\n"
    err = io.StringIO()
    assert solve_main([], stdin=io.StringIO("4\n\n5\n"), stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue() == "line 2: empty line, expected a position (column digits 1-7)\n1 invalid line(s)\n"
    assert list(without_trailing_blank_lines(["a\n", "\n", "b\n", "\n", " \n"])) == ["a\n", "\n", "b\n"]


def test_solve_help_gives_the_pig_input_format(capsys):
    with pytest.raises(SystemExit):
        solve_main(["--game", "pig", "--help"])
    text = capsys.readouterr().out
    assert "  --game pig                 'I J K': own score, opponent's score (0 to goal-1) and turn total (>= 0)," in text
    assert "answers 'I J K P ACTION'" in text


def test_arena_human_names_the_human_side_and_shows_the_final_board(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.StringIO("5\n3\n4\n6\n8\n9\n2\n"))
    assert arena_main(["human", "alphabeta:depth=9", "--game", "tictactoe", "--games", "1"]) == 0
    out = capsys.readouterr().out
    first_prompt = out.split("your move")[0]
    assert first_prompt == "you play X (first player)\n. . .\n. . .\n. . .\n"  # no hidden opening moves
    assert "your move as X (1 2 3 4 5 6 7 8 9, quit): " in out
    assert "O O X\nX X O\nO X X\ngame over: draw (you played X)\n" in out
    assert "0 random opening plies" in out
