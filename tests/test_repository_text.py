"""The repository explains itself: its comments, docstrings, docs and test names cite papers and
files in the repository, never documents a reader does not have (planning notes, lists of
failure cases by their ids, issue numbers)."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
#: citations of documents outside the repository: a failure-case id, the planning and style
#: notes, the original brief, an issue number ("the[ ]seed" is spelled so that this file passes)
OUTSIDE_CITATION = re.compile(r"CASES [A-Z][0-9]|DESIGN\.md|STYLE\.md|the[ ]seed|\bissue [0-9]")
#: a test named after a failure-case id (``test_g1_...``, ``test_p12_...``, ``..._i5``) instead of
#: its behaviour: one letter and a number, as the whole first or last word of the name
CASE_ID_TEST_NAME = re.compile(r"def (test_[a-z][0-9]+_\w*|test_\w*_[a-z][0-9]+)\(")
SKIPPED_FOLDERS = {".git", ".venv", "runs", "outputs", "multirun", "__pycache__", "node_modules"}


def _text_files():
    """Every ``.py`` and ``.md`` file of the repository (hidden and generated folders skipped)."""
    for folder, subfolders, files in os.walk(REPO_ROOT):
        subfolders[:] = sorted(d for d in subfolders if d not in SKIPPED_FOLDERS and not d.startswith("."))
        for name in sorted(files):
            if name.endswith((".py", ".md")):
                yield Path(folder) / name


def test_the_patterns_find_what_they_look_for():
    # the examples are assembled from pieces so that this file's own text passes the scan
    assert OUTSIDE_CITATION.search("no root noise (CASES " + "D2)")
    assert OUTSIDE_CITATION.search("see DESIGN" + ".md, Ties")
    assert OUTSIDE_CITATION.search("the " + "seed's six functions")
    assert OUTSIDE_CITATION.search("(issue " + "6, part 2)")
    assert not OUTSIDE_CITATION.search("pytorch issues #48841 and a seeded generator")
    assert CASE_ID_TEST_NAME.search("def test_" + "g1_gate_decisions():")
    assert CASE_ID_TEST_NAME.search("def test_resume_equivalence_" + "i5(tmp_path):")
    assert CASE_ID_TEST_NAME.search("def test_" + "p1_evaluation_names_x_winning(model_dir):")
    assert CASE_ID_TEST_NAME.search("def test_" + "z12_late_letter_and_two_digits():")
    assert not CASE_ID_TEST_NAME.search("def test_resume_equivalence(tmp_path):")
    assert not CASE_ID_TEST_NAME.search("def test_connect4_reads_a_labelled_file(connect4):")
    assert not CASE_ID_TEST_NAME.search("def test_bf16_logits_are_computed_in_float32():")


def test_no_file_cites_a_document_outside_the_repository():
    found = []
    for path in _text_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE_CITATION.search(line):
                found.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_tests_are_named_by_the_behaviour_they_check():
    found = []
    for path in sorted((REPO_ROOT / "tests").glob("test_*.py")):
        text = path.read_text(encoding="utf-8")
        found += [f"{path.name}: {m.group(1)}" for m in CASE_ID_TEST_NAME.finditer(text)]
    assert found == []


#: a markdown link ``[text](target)``; the target's own parentheses (``openspiel:hex(...)``) do not occur in links
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
#: a reference to a file of docs/ (a page with an optional section), as configs and code comments write it
DOCS_REFERENCE = re.compile(r"\bdocs/([\w/]+\.(?:md|json|png|svg))(#[\w-]+)?")
#: the hook's count of per-seed figures in the README
PER_SEED_FIGURE = re.compile(r"seed [0-9]|seeds? 0 and 1|two seeds", re.IGNORECASE)


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a markdown page's headings: lower case, punctuation dropped, spaces to hyphens."""
    anchors = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


def _link_problem(source: Path, target: str, base: Path | None = None) -> str | None:
    """Why the link ``target`` written in ``source`` does not resolve, or None when it does; the
    target is relative to ``base`` (default: the folder of ``source``)."""
    path_part, _, anchor = target.partition("#")
    page = ((base or source.parent) / path_part).resolve() if path_part else source
    if not page.exists():
        return f"{source.relative_to(REPO_ROOT)}: {target}: no such file"
    if anchor and page.suffix == ".md" and anchor not in _anchors(page):
        return f"{source.relative_to(REPO_ROOT)}: {target}: no heading with that anchor"
    return None


def test_the_readme_is_a_front_door():
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert [line for line in text.splitlines() if PER_SEED_FIGURE.search(line)] == []
    for command in ("bash scripts/train.sh", "bash scripts/test.sh"):
        assert f"```bash\n{command}\n```" in text
    assert "](docs/results.md)" in text


def test_relative_links_of_the_docs_resolve():
    pages = [REPO_ROOT / "README.md", REPO_ROOT / "scripts" / "README.md", *sorted((REPO_ROOT / "docs").rglob("*.md"))]
    problems = []
    for page in pages:
        for target in MARKDOWN_LINK.findall(page.read_text(encoding="utf-8")):
            if not target.startswith(("http://", "https://", "mailto:")):
                problems.append(_link_problem(page, target))
    assert [problem for problem in problems if problem] == []


def test_references_to_docs_in_configs_scripts_and_code_resolve():
    problems = []
    for folder in ("configs", "games", "search", "mcts", "networks", "selfplay", "trainer", "arena", "frontends", "scripts",
                   "tests"):
        for path in sorted((REPO_ROOT / folder).rglob("*")):
            if path.suffix in (".yaml", ".py") and ".venv" not in path.parts:
                for page, anchor in DOCS_REFERENCE.findall(path.read_text(encoding="utf-8")):
                    problems.append(_link_problem(path, f"docs/{page}{anchor}", base=REPO_ROOT))
    assert [problem for problem in problems if problem] == []


def test_every_script_the_repository_names_exists():
    script = re.compile(r"\bscripts/[\w/]+\.(?:py|sh|txt)\b")
    missing = []
    for path in [*_text_files(), *sorted((REPO_ROOT / "configs").rglob("*.yaml"))]:
        for name in sorted(set(script.findall(path.read_text(encoding="utf-8")))):
            if not (REPO_ROOT / name).is_file():
                missing.append(f"{path.relative_to(REPO_ROOT)}: {name}")
    assert missing == []
