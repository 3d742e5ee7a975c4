"""The snippets of docs/python_api.md (linked from the README) run as printed: the model snippet
against a tiny exported Connect Four model (its path substituted), the solver snippet as is, with
the values its comments state."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from helpers_models import export_tiny_mlp

API_PAGE = Path(__file__).resolve().parents[1] / "docs" / "python_api.md"
#: the model path the page's snippet names; the test puts its own model there
MODEL_PATH = "runs/c4/best"


def api_blocks() -> list[str]:
    """The ```python blocks of docs/python_api.md, in order."""
    text = API_PAGE.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)


def run_block(code: str, capsys) -> str:
    exec(compile(code, "docs/python_api.md", "exec"), {"__name__": "readme_snippet"})  # noqa: S102
    return capsys.readouterr().out


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory) -> Path:
    """A tiny exported Connect Four MLP (random weights), laid out like a run's ``best/``."""
    return export_tiny_mlp("connect4", tmp_path_factory.mktemp("readme") / "best")


def test_the_section_has_the_two_snippets():
    blocks = api_blocks()
    assert len(blocks) == 2
    assert MODEL_PATH in blocks[0] and "solver" in blocks[1]


def test_model_snippet_searches_and_prints_a_move_and_visit_counts(model_dir, capsys):
    code = api_blocks()[0]
    assert code.count(f'"{MODEL_PATH}"') == 1
    out = run_block(code.replace(f'"{MODEL_PATH}"', repr(str(model_dir))), capsys)
    move_line, visits_line = out.splitlines()
    match = re.fullmatch(r"move ([1-7]) value (-?\d+(\.\d+)?)", move_line)
    assert match, move_line
    assert -1.0 <= float(match.group(2)) <= 1.0
    assert visits_line.startswith("visits ")
    visits = ast.literal_eval(visits_line.removeprefix("visits "))
    simulations = int(re.search(r"num_simulations=(\d+)", code).group(1))
    assert sum(visits.values()) == simulations  # every simulation went to a root child
    assert set(visits) <= set("1234567")
    assert visits[match.group(1)] == max(visits.values())  # the most visited move is played


def test_model_snippet_fails_loudly_without_a_model(tmp_path, capsys):
    code = api_blocks()[0].replace(f'"{MODEL_PATH}"', repr(str(tmp_path / "missing")))
    with pytest.raises(FileNotFoundError):
        run_block(code, capsys)


def test_solver_snippet_prints_what_its_comments_say(capsys):
    code = api_blocks()[1]
    out = run_block(code, capsys).splitlines()
    assert out == ["7", "[-8, -8, -9, None, 7, -8, -9]"]
    comments = [line.partition("#")[2] for line in code.splitlines() if "print(" in line]
    assert len(comments) == 2
    for printed, comment in zip(out, comments):
        assert printed in comment, (printed, comment)
