"""The layering of the product packages, read statically from their source with ``ast``.

* No import circle among product modules. A module's edges are the modules its import statements
  name, inside functions too: ``import a.b`` and ``from a.b import c`` name ``a.b`` (and ``a.b.c``
  when that is a module); ``from a import b`` names the package ``a`` itself, so a submodule that
  imports from its own package's ``__init__``, which imports it back, is a circle.
* Arrows point downward: ``games`` imports nothing of the product above it, ``search`` and
  ``mcts`` nothing but ``games``, and ``arena`` never ``selfplay`` or ``trainer``.
* The front ends sit on top: ``frontends`` may import every other package and no product package
  imports ``frontends``; ``arena`` holds no command line (no ``argparse``, no ``main`` function, no
  ``if __name__ == "__main__"``) and no web code (no FastAPI, Starlette, uvicorn or pydantic).
* Imports sit at the top of a module. A function-local import is kept only where it brings an
  optional or heavy dependency (``OPTIONAL_DEPENDENCIES``: directly, or through a product module
  that imports one at its top, as ``networks.evaluator`` brings torch) that importing the module
  does not already bring, so that a light module stays light: the arena and ``play`` run an
  exported model without torch, and ``games`` never loads OpenSpiel until a game asks for it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the product packages, lowest first
PRODUCT_PACKAGES = ("games", "search", "mcts", "networks", "selfplay", "trainer", "arena", "frontends")
#: what each package may import of the product besides itself (the rest are upward arrows)
ALLOWED_ARROWS = {
    "games": set(),
    "search": {"games"},
    "mcts": {"games"},
}
#: packages each package must never import
FORBIDDEN_ARROWS = {"arena": {"selfplay", "trainer"}}
#: the top package: it may import every other one, and none imports it
FRONT_ENDS = "frontends"
#: modules that parse a command line
COMMAND_LINE_LIBRARIES = frozenset({"argparse"})
#: modules that serve or describe a web API: only ``frontends`` imports them
WEB_LIBRARIES = frozenset({"fastapi", "pydantic", "starlette", "uvicorn"})
#: packages with no command line at all (``games``, ``networks`` and ``trainer`` keep their own
#: commands: ``solve``, ``export-model``, ``train``, ``train-report``)
WITHOUT_COMMAND_LINE = ("arena",)
#: third-party packages a function may import where it needs them: heavy to import (torch, Ray,
#: ONNX Runtime, the web server, Hydra, SciPy, rich) or not installed everywhere (OpenSpiel,
#: Selenium, matplotlib)
OPTIONAL_DEPENDENCIES = frozenset({
    "fastapi", "hydra", "matplotlib", "omegaconf", "onnx", "onnxruntime", "pyspiel", "ray", "rich",
    "safetensors", "scipy", "selenium", "starlette", "tensorboard", "torch", "uvicorn", "yaml",
})


def product_modules(root: Path = REPO_ROOT) -> dict[str, Path]:
    """``{dotted module name: file}`` of every module of the product packages under ``root``."""
    modules = {}
    for package in PRODUCT_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def _imported_names(node: ast.AST, module: str, is_package: bool) -> list[str]:
    """The dotted names one import statement names (see the module docstring)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = ".".join(part for part in (package, base) if part)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """``{module: modules it imports}`` among ``modules``, every import statement counted."""
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for name in _imported_names(node, module, path.name == "__init__.py"):
                    while name and name not in modules:
                        name = name.rpartition(".")[0]
                    if name and name != module:
                        edges.add(name)
        graph[module] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan 1972, "Depth-first search
    and linear graph algorithms"), each sorted; a module importing itself is not counted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def _top_level_imports(path: Path, module: str) -> list[str]:
    """The dotted names imported at module level (not inside a function) by ``path``."""
    names = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names += _imported_names(node, module, path.name == "__init__.py")
    return names


def _module_of(name: str, modules: dict[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def dependencies_on_import(modules: dict[str, Path]) -> dict[str, set[str]]:
    """``{module: the OPTIONAL_DEPENDENCIES that importing it imports}``, through its module-level
    imports and theirs (function bodies do not run on import)."""
    imports = {module: _top_level_imports(path, module) for module, path in modules.items()}
    reached = {
        module: {name.split(".")[0] for name in names if name.split(".")[0] in OPTIONAL_DEPENDENCIES}
        for module, names in imports.items()
    }
    changed = True
    while changed:
        changed = False
        for module, names in imports.items():
            for name in names:
                other = _module_of(name, modules)
                if other and other != module and not reached[other] <= reached[module]:
                    reached[module] |= reached[other]
                    changed = True
    return reached


def dependencies_of_name(name: str, modules: dict[str, Path], reached: dict[str, set[str]]) -> set[str]:
    """The OPTIONAL_DEPENDENCIES that importing ``name`` (a dotted name) imports."""
    top = name.split(".")[0]
    if top in OPTIONAL_DEPENDENCIES:
        return {top}
    module = _module_of(name, modules)
    return set(reached[module]) if module else set()


def local_imports(modules: dict[str, Path]) -> list[tuple[str, int, str]]:
    """``(module, line, name imported)`` of every import inside a function: the statement's first
    name (``from a.b import c``: ``a.b``; ``import a, b``: ``a``)."""
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    names = _imported_names(node, module, path.name == "__init__.py")
                    found.append((module, node.lineno, names[0]))
    return sorted(set(found))


def _is_main_guard(test: ast.expr) -> bool:
    """Whether ``test`` is ``__name__ == "__main__"`` (either way round)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = {ast.dump(test.left), ast.dump(test.comparators[0])}
    return sides == {ast.dump(ast.Name(id="__name__", ctx=ast.Load())), ast.dump(ast.Constant(value="__main__"))}


def library_imports(modules: dict[str, Path], libraries: frozenset[str]) -> list[tuple[str, int, str]]:
    """``(module, line, name)`` for each absolute import of one of ``libraries`` (a top-level name)
    in ``modules``, inside functions too."""
    found = []
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            found += [(module, node.lineno, name) for name in names if name.split(".")[0] in libraries]
    return sorted(found)


def entry_points(modules: dict[str, Path]) -> list[tuple[str, int, str]]:
    """``(module, line, what)`` for each way ``modules`` run as a program: a module-level function
    named ``main`` (``"defines main"``), an ``if __name__ == "__main__":`` block (``"runs as a script"``)."""
    found = []
    for module, path in modules.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main":
                found.append((module, node.lineno, "defines main"))
            elif isinstance(node, ast.If) and _is_main_guard(node.test):
                found.append((module, node.lineno, "runs as a script"))
    return sorted(found)


@pytest.fixture(scope="module")
def graph():
    return import_graph(product_modules())


# ------------------------------------------------------------------- the scans on known input
def _write(root: Path, files: dict[str, str]) -> dict[str, Path]:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return product_modules(root)


def test_a_submodule_importing_its_own_package_back_is_a_circle(tmp_path):
    modules = _write(tmp_path, {
        "mcts/__init__.py": "from mcts.search import run\n",
        "mcts/search.py": "from mcts import _kernels\n",
        "mcts/_kernels.py": "",
        "games/__init__.py": "from games.base import Game\n",
        "games/base.py": "import numpy as np\n",
        "games/tictactoe.py": "import games.base\n",
    })
    graph = import_graph(modules)
    assert graph["mcts.search"] == {"mcts", "mcts._kernels"}
    assert circles(graph) == [["mcts", "mcts.search"]]
    # the same import through the submodule's own name is no circle
    (tmp_path / "mcts/search.py").write_text("import mcts._kernels as _kernels\n", encoding="utf-8")
    assert circles(import_graph(product_modules(tmp_path))) == []


def test_a_circle_hidden_in_a_function_is_found(tmp_path):
    modules = _write(tmp_path, {
        "games/__init__.py": "",
        "games/game.py": "def sets():\n    from games.positions import SETS\n    return SETS\n",
        "games/positions.py": "from games.game import Game\n",
        "arena/__init__.py": "",
        "arena/cli.py": "def main():\n    import torch\n    from arena import web\n",
    })
    assert circles(import_graph(modules)) == [["games.game", "games.positions"]]
    assert local_imports(modules) == [("arena.cli", 2, "torch"), ("arena.cli", 3, "arena"), ("games.game", 2, "games.positions")]


def test_optional_dependencies_are_followed_through_module_level_imports_only(tmp_path):
    modules = _write(tmp_path, {
        "networks/__init__.py": "",
        "networks/evaluator.py": "import torch\n",
        "networks/loading.py": "from networks.evaluator import TorchEvaluator\nimport ray.util\n",
        "networks/config.py": "import json\ndef load():\n    import torch\n",
    })
    reached = dependencies_on_import(modules)
    assert reached == {
        "networks": set(),
        "networks.config": set(),
        "networks.evaluator": {"torch"},
        "networks.loading": {"ray", "torch"},
    }
    assert dependencies_of_name("networks.loading", modules, reached) == {"ray", "torch"}
    assert dependencies_of_name("onnxruntime", modules, reached) == {"onnxruntime"}
    assert dependencies_of_name("networks.config", modules, reached) == set()


def test_relative_imports_resolve_to_their_modules(tmp_path):
    modules = _write(tmp_path, {
        "arena/__init__.py": "from . import match\n",
        "arena/match.py": "from .results import Result\n",
        "arena/results.py": "",
        "arena/web/__init__.py": "",
        "arena/web/app.py": "from ..results import Result\nfrom . import sessions\n",
        "arena/web/sessions.py": "",
    })
    graph = import_graph(modules)
    assert graph["arena"] == {"arena.match"}
    assert graph["arena.match"] == {"arena.results"}
    assert graph["arena.web.app"] == {"arena.results", "arena.web", "arena.web.sessions"}


def test_command_lines_web_code_and_imports_of_the_front_ends_are_found(tmp_path):
    modules = _write(tmp_path, {
        "arena/__init__.py": "",
        "arena/cli.py": "import argparse\n\n\ndef main():\n    from fastapi import FastAPI\n",
        "arena/match.py": "def play():\n    pass\n\n\nif '__main__' == __name__:\n    play()\n",
        "arena/web.py": "import starlette.responses\nfrom pydantic import BaseModel\n",
        "arena/elo.py": "import math\n\n\ndef main_line():\n    def main():\n        pass\n",
        "trainer/__init__.py": "",
        "trainer/loop.py": "def report():\n    from frontends.web import app\n",
        "frontends/__init__.py": "",
        "frontends/web/__init__.py": "",
        "frontends/web/app.py": "from arena import match\n",
    })
    assert library_imports(modules, COMMAND_LINE_LIBRARIES | WEB_LIBRARIES) == [
        ("arena.cli", 1, "argparse"),
        ("arena.cli", 5, "fastapi"),
        ("arena.web", 1, "starlette.responses"),
        ("arena.web", 2, "pydantic"),
    ]
    assert library_imports(modules, WEB_LIBRARIES) == [
        ("arena.cli", 5, "fastapi"), ("arena.web", 1, "starlette.responses"), ("arena.web", 2, "pydantic"),
    ]
    assert entry_points(modules) == [("arena.cli", 4, "defines main"), ("arena.match", 5, "runs as a script")]
    graph = import_graph(modules)
    assert _imports_of(graph, "trainer", lambda target: target == FRONT_ENDS) == [
        "trainer.loop -> frontends.web", "trainer.loop -> frontends.web.app",
    ]
    assert _imports_of(graph, "frontends", lambda target: target != FRONT_ENDS) == [
        "frontends.web.app -> arena", "frontends.web.app -> arena.match",
    ]


# ---------------------------------------------------------------------------- the product
def test_no_import_circle_among_product_modules(graph):
    assert circles(graph) == []


def test_every_product_package_is_scanned(graph):
    assert {module.split(".")[0] for module in graph} == set(PRODUCT_PACKAGES)
    sample = {"games.base", "mcts.kernels", "arena.positions.pons", "trainer.loop", "frontends.web.app"}
    assert sample <= set(graph)


def _imports_of(graph, package: str, chosen) -> list[str]:
    """``"module -> other"`` for each import of a module of ``package`` whose target's top package
    ``chosen(name)`` accepts, sorted."""
    return sorted(
        f"{module} -> {other}"
        for module, others in graph.items()
        if module.split(".")[0] == package
        for other in others
        if chosen(other.split(".")[0])
    )


@pytest.mark.parametrize("package", sorted(ALLOWED_ARROWS))
def test_lower_packages_import_nothing_above_them(graph, package):
    upward = _imports_of(graph, package, lambda target: target not in ALLOWED_ARROWS[package] | {package})
    assert upward == []


@pytest.mark.parametrize("package", sorted(FORBIDDEN_ARROWS))
def test_arena_never_imports_selfplay_or_trainer(graph, package):
    forbidden = _imports_of(graph, package, lambda target: target in FORBIDDEN_ARROWS[package])
    assert forbidden == []


def test_function_local_imports_are_only_for_optional_dependencies():
    """Each import inside a function brings an optional dependency that importing its module does
    not already bring; any other import belongs at the top."""
    modules = product_modules()
    reached = dependencies_on_import(modules)
    hidden = [
        f"{module}:{line} imports {name}"
        for module, line, name in local_imports(modules)
        if not dependencies_of_name(name, modules, reached) - reached[module]
    ]
    assert hidden == []


def _names_a_dependency(line: str, dependencies: set[str]) -> bool:
    return "#" in line and any(name in line.split("#", 1)[1] for name in dependencies)


def test_each_function_local_import_says_which_dependency_it_defers():
    """The import's line, or the line above it (a comment, or the import before it in the same
    block), carries a comment naming the optional dependency the import brings."""
    modules = product_modules()
    reached = dependencies_on_import(modules)
    silent = []
    for module, line, name in local_imports(modules):
        brings = dependencies_of_name(name, modules, reached) - reached[module]
        lines = modules[module].read_text(encoding="utf-8").splitlines()
        own, above = lines[line - 1], lines[line - 2] if line > 1 else ""
        if not (_names_a_dependency(own, brings) or _names_a_dependency(above, brings)):
            silent.append(f"{module}:{line} ({', '.join(sorted(brings))})")
    assert silent == []


@pytest.mark.parametrize("package", [package for package in PRODUCT_PACKAGES if package != FRONT_ENDS])
def test_no_product_package_imports_the_front_ends(graph, package):
    assert _imports_of(graph, package, lambda target: target == FRONT_ENDS) == []


@pytest.mark.parametrize("package", WITHOUT_COMMAND_LINE)
def test_arena_holds_no_command_line_and_no_web_code(package):
    modules = {name: path for name, path in product_modules().items() if name.split(".")[0] == package}
    assert library_imports(modules, COMMAND_LINE_LIBRARIES | WEB_LIBRARIES) == []
    assert entry_points(modules) == []


def test_only_the_front_ends_import_web_libraries():
    outside = {name: path for name, path in product_modules().items() if name.split(".")[0] != FRONT_ENDS}
    assert library_imports(outside, WEB_LIBRARIES) == []


def test_the_commands_and_the_web_app_are_front_ends():
    """The scans find the front ends where they live: each command's parser and ``main``, and the
    web app's FastAPI, pydantic and uvicorn imports."""
    modules = {name: path for name, path in product_modules().items() if name.split(".")[0] == FRONT_ENDS}
    libraries = COMMAND_LINE_LIBRARIES | WEB_LIBRARIES
    imported = {(module, name.split(".")[0]) for module, _, name in library_imports(modules, libraries)}
    runnable = {(module, what) for module, _, what in entry_points(modules)}
    for module in ("frontends.arena_cli", "frontends.play_cli", "frontends.cfr_cli", "frontends.poker_play",
                   "frontends.policy_compare_cli"):
        assert (module, "argparse") in imported
        assert (module, "defines main") in runnable
    assert {("frontends.web.app", "fastapi"), ("frontends.web.app", "pydantic"),
            ("frontends.web.server", "uvicorn")} <= imported
