"""Architecture rules of the search, checked on the source: callers never branch on the search
algorithm (mcts/registry.py is the one place that knows which search runs), and no function takes
its settings or arrays one by one (a frozen settings object, a ``mcts.tree.TreeArrays`` record)."""

from __future__ import annotations

import ast
from pathlib import Path

import mcts

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the packages that run searches and must not ask which one
CALLER_PACKAGES = ("selfplay", "arena", "trainer", "frontends")
#: the product packages whose functions are counted
PRODUCT_PACKAGES = ("games", "search", "mcts", "networks", "selfplay", "trainer", "arena", "frontends")
#: most parameters of a Python function, and of a Numba-compiled kernel
MAX_PARAMETERS = 12
MAX_KERNEL_PARAMETERS = 8
#: functions allowed above those limits, each with its reason (none: every kernel takes its arrays
#: as NamedTuple records, which Numba compiles); an entry that no longer exceeds the limit fails
#: the test, so the list only shrinks
OVER_THE_LIMIT: dict[str, str] = {}


def _settings_class_names() -> set[str]:
    return {mcts.algorithm(name).settings_type.__name__ for name in mcts.names()}


def _algorithm_branches(source: str, class_names: set[str]) -> list[str]:
    """``isinstance(x, C)`` with ``C`` a search settings class, ``type(x) is C``, and comparisons
    of an ``.algorithm`` attribute: the ways a caller could branch on the search."""

    def names_in(node) -> set[str]:
        if isinstance(node, ast.Tuple):
            return set().union(*(names_in(element) for element in node.elts))
        if isinstance(node, ast.Attribute):
            return {node.attr}
        if isinstance(node, ast.Name):
            return {node.id}
        return set()

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "isinstance" and len(node.args) == 2:
            if names_in(node.args[1]) & class_names:
                found.append(ast.unparse(node))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            literal = any(isinstance(side, (ast.Constant, ast.Tuple, ast.List, ast.Set)) for side in sides)
            by_name = literal and any(isinstance(side, ast.Attribute) and side.attr == "algorithm" for side in sides)
            by_class = any(isinstance(op, (ast.Is, ast.IsNot, ast.Eq)) for op in node.ops) and any(
                names_in(side) & class_names for side in sides
            )
            if by_name or by_class:
                found.append(ast.unparse(node))
    return found


def test_the_scan_finds_a_branch_on_the_search():
    classes = {"PUCTConfig", "GumbelConfig"}
    assert _algorithm_branches("if isinstance(config, GumbelConfig): pass", classes)
    assert _algorithm_branches("ok = isinstance(c, (int, mcts.PUCTConfig))", classes)
    assert _algorithm_branches("if type(config) is PUCTConfig: pass", classes)
    assert _algorithm_branches('if settings.algorithm == "gumbel": pass', classes)
    assert not _algorithm_branches("if isinstance(config, NetworkConfig): pass", classes)
    assert _algorithm_branches('if config.mcts.algorithm in ("puct", "uct"): pass', classes)
    assert not _algorithm_branches('if kind == "uct": pass', classes)
    assert not _algorithm_branches("if config.mcts.algorithm in mcts.names(): pass", classes)


def test_no_caller_branches_on_the_search_algorithm():
    classes = _settings_class_names()
    assert {"PUCTConfig", "GumbelConfig", "UCTConfig"} <= classes
    found = {}
    for package in CALLER_PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            hits = _algorithm_branches(path.read_text(encoding="utf-8"), classes)
            if hits:
                found[str(path.relative_to(REPO_ROOT))] = hits
    assert found == {}


def _is_compiled(function: ast.FunctionDef) -> bool:
    for decorator in function.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in ("njit", "jit"):
            return True
    return False


def _parameter_counts(source: str) -> list[tuple[str, int, bool]]:
    """``(qualified name, parameters, compiled)`` of every function; ``self``/``cls`` not counted."""
    rows = []

    def visit(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                a = child.args
                count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
                if prefix and a.args and a.args[0].arg in ("self", "cls"):
                    count -= 1
                rows.append((f"{prefix}{child.name}", count, _is_compiled(child)))
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(source), "")
    return rows


def test_the_parameter_count_sees_methods_and_kernels():
    source = (
        "from numba import njit\n"
        "@njit(cache=True)\ndef kernel(a, b, c, d, e, f, g, h, i): pass\n"
        "class C:\n    def __init__(self, a, *rest, key=1, **more): pass\n"
    )
    assert _parameter_counts(source) == [("kernel", 9, True), ("C.__init__", 4, False)]


def test_no_function_takes_more_parameters_than_the_limits():
    over = {}
    for package in PRODUCT_PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            for name, count, compiled in _parameter_counts(path.read_text(encoding="utf-8")):
                if count > (MAX_KERNEL_PARAMETERS if compiled else MAX_PARAMETERS):
                    over[f"{path.relative_to(REPO_ROOT)}::{name}"] = count
    assert sorted(over) == sorted(OVER_THE_LIMIT), {key: over.get(key) for key in set(over) ^ set(OVER_THE_LIMIT)}
    assert not [key for key in over if key.startswith("mcts/")]  # every search kernel takes records


#: the entry points behind ``mcts.run_search``: none is part of the package's namespace, and only
#: ``mcts/`` itself and the tests of an algorithm's internals import them from their modules
PRIVATE_ENTRY_POINTS = ("run_puct", "run_gumbel", "run_uct", "run_puct_minibatch", "uct_search", "compiled_uct_search")


def _imported_names(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "mcts":
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "mcts":
            names.add(node.attr)
    return names


def test_the_import_scan_sees_from_imports_and_attributes():
    assert _imported_names("from mcts.uct import uct_search\nimport mcts\nmcts.run_puct(1)") == {"uct_search", "run_puct"}
    assert _imported_names("from search.cfr import run_uct") == set()


def test_run_search_is_the_one_public_search_call():
    assert not set(PRIVATE_ENTRY_POINTS) & set(mcts.__all__)
    assert [name for name in PRIVATE_ENTRY_POINTS if hasattr(mcts, name)] == []
    assert "run_search" in mcts.__all__
    found = {}
    folders = [p for p in REPO_ROOT.iterdir() if p.is_dir() and p.name not in ("mcts", "tests") and not p.name.startswith(".")]
    for path in sorted(path for folder in folders for path in folder.rglob("*.py")):
        relative = path.relative_to(REPO_ROOT)
        hits = _imported_names(path.read_text(encoding="utf-8")) & set(PRIVATE_ENTRY_POINTS)
        if hits:
            found[str(relative)] = sorted(hits)
    assert found == {}
