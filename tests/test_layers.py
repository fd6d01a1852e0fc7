"""The layers are the folders, and they point one way. Every import of every project module is read, those
inside functions too; an import that points up the order of :data:`LAYERS` fails, so does an import cycle between
modules, and so does a game's name used as a branch outside its own packages.

A module's layer is its folder's (:data:`FOLDERS`, a few top-level files in :data:`FILES`): a game's
``vocabulary/`` (codes, rules, records, legal choices, views, contract) lies below strategies, its ``engines/``
(reference, kernels, plugin) above them; ``simulator/core/`` is four floors, each importing only those below it;
each study's package (``analysis/studies/<study>/``: plan, frames, answer, charts, page) lies above the pure
statistics of ``analysis/`` and the page tools of ``reports/``.
"""

from __future__ import annotations

import ast
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulator", "strategies", "analysis", "reports")
TOP_MODULES = ("cli", "cardsim")
LAYERS = ("core", "kernel tools", "contract", "storage", "run", "vocabulary", "strategies", "engines", "analysis",
          "reports", "studies", "api", "cli")
FOLDERS = {
    "simulator": "core",
    "simulator/core": "core",
    "simulator/core/kernels": "kernel tools",
    "simulator/core/contract": "contract",
    "simulator/core/storage": "storage",
    "simulator/core/run": "run",
    "simulator/*": "vocabulary",  # a game package's face: its docstring
    "simulator/*/vocabulary": "vocabulary",
    "strategies": "strategies",
    "strategies/*": "strategies",
    "simulator/*/engines": "engines",
    "analysis": "analysis",
    "reports": "reports",
    "analysis/studies": "studies",
    "analysis/studies/*": "studies",
}
"""Every folder of project code and its layer (``*``: one folder name, a game's)."""
FILES = {"simulator/games.py": "engines", "cardsim.py": "api", "cli.py": "cli", "simulator/launch.py": "cli"}
"""The files whose layer is not their folder's: the registry of games (it imports every game's plugin), the
library's face, the command line and the console script that starts it."""


def project_modules() -> dict[str, Path]:
    """``{dotted module name: path}`` of every project module (not tests, bench or scripts)."""
    out = {name: ROOT / f"{name}.py" for name in TOP_MODULES}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def layer_of(path: Path | str) -> str:
    """The layer of the project file at ``path`` (relative to the project's root, or absolute)."""
    relative = Path(path).relative_to(ROOT) if Path(path).is_absolute() else Path(path)
    if relative.as_posix() in FILES:
        return FILES[relative.as_posix()]
    folder = relative.parent.parts
    for pattern, layer in FOLDERS.items():
        parts = pattern.split("/")
        if len(parts) == len(folder) and all(fnmatchcase(f, p) for f, p in zip(folder, parts)):
            return layer
    raise LookupError(f"{relative.as_posix()}: its folder has no layer in FOLDERS (place it on the map)")


def imports_of(path: Path, module: str, modules: dict[str, Path]) -> list[tuple[int, str]]:
    """``(line, imported project module)`` for every import statement in the file, at any depth. ``from p import
    m`` imports the module ``p.m`` when there is one (not ``p`` itself: a package's ``__init__`` runs before its
    modules whoever imports them), else ``p``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name, modules)
            if target is not None and target != module and (node.lineno, target) not in found:
                found.append((node.lineno, target))
    return sorted(found)


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The project module ``name`` refers to (itself, or its closest parent package that is one)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def import_graph() -> dict[str, list[tuple[int, str]]]:
    """``{module: [(line, imported module)]}`` over every project module."""
    modules = project_modules()
    return {module: imports_of(path, module, modules) for module, path in modules.items()}


def upward_edges() -> list[str]:
    modules = project_modules()
    bad = []
    for module, edges in sorted(import_graph().items()):
        rank = LAYERS.index(layer_of(modules[module]))
        for line, target in edges:
            if LAYERS.index(layer_of(modules[target])) > rank:
                bad.append(f"{modules[module].relative_to(ROOT)}:{line}: {module} ({layer_of(modules[module])}) "
                           f"imports {target} ({layer_of(modules[target])})")
    return bad


def import_cycles(graph: dict[str, list[tuple[int, str]]]) -> list[list[str]]:
    """The modules that import each other in a loop, directly or not (Tarjan's strongly connected components of
    more than one module, or a module importing itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for _line, target in graph.get(module, ()):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while not component or component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                cycles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return cycles


def test_every_folder_has_a_layer():
    for module, path in project_modules().items():
        assert layer_of(path) in LAYERS, module


def test_layer_of_reads_the_folders():
    assert layer_of("simulator/core/errors.py") == "core"
    assert layer_of("simulator/core/storage/store.py") == "storage"
    assert layer_of("simulator/core/kernels/jit.py") == "kernel tools"
    assert layer_of("simulator/kamoul/vocabulary/codes.py") == "vocabulary"
    assert layer_of("simulator/rami/vocabulary/melds.py") == "vocabulary"
    assert layer_of("strategies/kamoul/heuristic.py") == "strategies"
    assert layer_of("simulator/kamoul/engines/kernels.py") == "engines"
    assert layer_of("simulator/games.py") == "engines"
    assert layer_of("analysis/stats.py") == "analysis"
    assert layer_of("reports/layout.py") == "reports"
    assert layer_of("analysis/studies/balance/page.py") == "studies"
    assert layer_of("cardsim.py") == "api"
    assert layer_of("cli.py") == "cli"
    with pytest.raises(LookupError, match="place it on the map"):
        layer_of("simulator/kamoul/engines/extra/new.py")


def test_imports_are_read_at_any_depth(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import os\n\ndef f():\n    from cardsim import simulate\n    import reports.layout\n"
                      "    from strategies.kamoul import heuristic\n")
    modules = {"cardsim": Path("a"), "reports.layout": Path("b"), "strategies.kamoul": Path("c"),
               "strategies.kamoul.heuristic": Path("d"), "m": source}
    assert imports_of(source, "m", modules) == [(4, "cardsim"), (5, "reports.layout"), (6, "strategies.kamoul.heuristic")]


def test_every_import_points_down_the_layers():
    bad = upward_edges()
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


def test_no_vocabulary_file_imports_strategies():
    """What strategies read (a game's vocabulary) never reads them back, not even inside a function."""
    modules = project_modules()
    bad = [f"{module} imports {target}" for module, edges in import_graph().items()
           if layer_of(modules[module]) == "vocabulary" for _line, target in edges if target.startswith("strategies")]
    assert not bad, bad


WRITERS = ("write_frame", "write_bytes_atomic", "write_json_atomic", "write_text_atomic", "DirLock")


def test_analysis_writes_no_file_itself():
    """analysis/ computes and the run layer writes: a tuning, a growth or a study's part files are written through
    their directory's ``Workdir`` (simulator/core/run/workdir.py), never with the storage layer's writers or
    locks imported into analysis/."""
    bad = []
    for path in sorted((ROOT / "analysis").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("simulator.core.storage"):
                bad += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name in WRITERS]
    assert not bad, bad


def test_no_import_cycle():
    """No two modules import each other, directly or through others, at module level or inside a function."""
    cycles = import_cycles(import_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_cycle_finder_finds_a_cycle_through_a_function_level_import(tmp_path):
    (tmp_path / "a.py").write_text("import b\n")
    (tmp_path / "b.py").write_text("def f():\n    import c\n")
    (tmp_path / "c.py").write_text("from a import x\n")
    modules = {name: tmp_path / f"{name}.py" for name in "abc"}
    graph = {name: imports_of(path, name, modules) for name, path in modules.items()}
    assert import_cycles(graph) == [["a", "b", "c"]]


# the one place a module is imported by name, with why: nothing else may hide an edge this way
DYNAMIC_IMPORTS = {
    "simulator/core/contract/registry.py": "unpickling a plugin (a spec on a cluster's worker) imports the module that "
                                           "declared it, as pickle does for any module-level object",
    "simulator/core/moved.py": "a module name from before the layered layout (a user's old file) imports the module "
                               "it became: the table MOVED lists every one",
}


def test_no_string_imports_of_project_modules():
    """``importlib.import_module("simulator...")`` hides an edge from the test above: registries import for real."""
    bad = []
    for module, path in project_modules().items():
        if path.relative_to(ROOT).as_posix() in DYNAMIC_IMPORTS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in
                    ("import_module", "__import__")):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, "string imports: " + ", ".join(bad)


GAME_NAMES = ("kamoul", "rami", "kems")


def _own_packages(path: Path) -> set[str]:
    """The games whose own packages ``path`` lies in (``simulator/<g>/``, ``strategies/<g>/``)."""
    parts = path.relative_to(ROOT).parts
    return {parts[1]} if len(parts) > 2 and parts[0] in ("simulator", "strategies") and parts[1] in GAME_NAMES else set()


@pytest.mark.parametrize("game", GAME_NAMES)
def test_no_branch_on_a_game_name_outside_its_packages(game):
    """A comparison or a mapping keyed by a game's name outside ``simulator/<g>/``, ``strategies/<g>/`` means that
    adding a game touches that file: what analysis and reports need comes from the game's plugin instead."""
    bad = []
    for module, path in project_modules().items():
        if game in _own_packages(path):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            constants = []
            if isinstance(node, ast.Compare):
                constants = [c for c in [node.left, *node.comparators] if isinstance(c, ast.Constant)]
                for c in [node.left, *node.comparators]:
                    if isinstance(c, (ast.Tuple, ast.List, ast.Set)):
                        constants += [e for e in c.elts if isinstance(e, ast.Constant)]
            elif isinstance(node, ast.Dict):
                constants = [k for k in node.keys if isinstance(k, ast.Constant)]
            elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
                constants = [node.pattern.value] if isinstance(node.pattern.value, ast.Constant) else []
            if any(c.value == game for c in constants):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not bad, f"branches on {game!r} outside its packages: " + ", ".join(bad)


LAZY_LIBRARIES = {
    "optuna": "a second to import, and only tuning and its report use it",
    "distributed": "the Dask extra, installed only for clusters",
    "scipy": "scipy.optimize (the metagame's linear program) is the slowest part of scipy to import",
    "babel": "formats numbers and lists only when a French page or summary asks",
    "tqdm": "tqdm.auto looks for a notebook when imported; only a visible bar needs it",
    "fcntl": "POSIX only",
}
"""Libraries a function may import where it uses them, and why."""
START_UP = {"cli.py": ("analysis", "reports"), "cardsim.py": ("analysis", "reports"),
            "simulator/launch.py": ("",)}
"""Project modules the command line and the library import only in the command that needs them: importing all
of analysis and reports (scipy.stats, pandas, matplotlib) would add about two seconds to every command."""


def imports_inside_functions() -> list[tuple[str, int, str]]:
    """``(file, line, imported module)`` of every import statement inside a function."""
    found = []
    for module, path in project_modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in ast.walk(tree):
            if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(function):
                    if isinstance(node, (ast.Import, ast.ImportFrom)):
                        name = node.module if isinstance(node, ast.ImportFrom) else node.names[0].name
                        found.append((path.relative_to(ROOT).as_posix(), node.lineno, name or ""))
    return sorted(set(found))


def test_an_import_inside_a_function_says_why():
    """Imports stand at the top of their module, where a reader sees what it depends on; a function imports only a
    library of :data:`LAZY_LIBRARIES` or, in the command line and the library's face, the modules of one command."""
    bad = [f"{file}:{line}: {name}" for file, line, name in imports_inside_functions()
           if name.split(".")[0] not in LAZY_LIBRARIES
           and not any(name == p or name.startswith(f"{p}.") or p == "" for p in START_UP.get(file, ()))]
    assert not bad, "imports inside functions without a reason:\n" + "\n".join(bad)
    assert len(imports_inside_functions()) <= 100
