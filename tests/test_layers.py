"""The layers point one way (issue 11): core -> game vocabulary -> strategies -> engines -> analysis -> reports ->
api -> cli. Every import of every project module is read, those inside functions too, and an import that points
up the order fails the test; so does a game's name used as a branch outside its own packages.

A module's layer comes from its name (:func:`layer_of`); a game package's modules are vocabulary (what strategies
may read: codes, rules, records, the legal choices, the meld solver and its screens) or engine (everything that
plays games).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("simulator", "strategies", "analysis", "reports")
LAYERS = ("core", "vocabulary", "strategies", "engines", "analysis", "reports", "api", "cli")
VOCABULARY = {"codes", "rules", "records", "legal", "melds", "melds_ref", "screens", "cards"}


def project_modules() -> dict[str, Path]:
    """``{dotted module name: path}`` of every project module (not tests, bench or scripts)."""
    out = {"cli": ROOT / "cli.py"}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def layer_of(module: str) -> str:
    parts = module.split(".")
    if module in ("cli", "simulator.launch"):  # the console script starts the command line: the top layer
        return "cli"
    if module == "simulator.api":
        return "api"
    if parts[0] in ("analysis", "reports", "strategies"):
        return parts[0]
    if parts[:2] == ["simulator", "core"] or module == "simulator":
        return "core"
    if len(parts) == 2:  # simulator.<game>, simulator.games: the packages' faces and the registry of games
        return "engines"
    return "vocabulary" if parts[2] in VOCABULARY else "engines"


def imports_of(path: Path, module: str, modules: dict[str, Path]) -> list[tuple[int, str]]:
    """``(line, imported project module)`` for every import statement in the file, at any depth."""
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
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
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


def upward_edges() -> list[str]:
    modules = project_modules()
    bad = []
    for module, path in sorted(modules.items()):
        rank = LAYERS.index(layer_of(module))
        for line, target in imports_of(path, module, modules):
            if LAYERS.index(layer_of(target)) > rank:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {module} ({layer_of(module)}) imports {target} "
                           f"({layer_of(target)})")
    return bad


def test_layer_of_reads_the_module_names():
    assert layer_of("simulator.core.store") == "core"
    assert layer_of("simulator.kamoul.codes") == "vocabulary"
    assert layer_of("simulator.rami.melds") == "vocabulary"
    assert layer_of("strategies.kamoul.heuristic") == "strategies"
    assert layer_of("simulator.kamoul.kernels") == "engines"
    assert layer_of("simulator.games") == "engines"
    assert layer_of("analysis.stats") == "analysis"
    assert layer_of("reports.html") == "reports"
    assert layer_of("simulator.api") == "api"
    assert layer_of("cli") == "cli"


def test_imports_are_read_at_any_depth(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("import os\n\ndef f():\n    from simulator.api import simulate\n    import reports.html\n")
    modules = {"simulator.api": Path("a"), "reports.html": Path("b"), "m": source}
    assert imports_of(source, "m", modules) == [(4, "simulator.api"), (5, "reports.html")]


def test_every_import_points_down_the_layers():
    bad = upward_edges()
    assert not bad, "imports against the layer order:\n" + "\n".join(bad)


# the one place a module is imported by name, with why: nothing else may hide an edge this way
DYNAMIC_IMPORTS = {
    "simulator/core/game.py": "unpickling a plugin (a spec on a cluster's worker) imports the module that declared "
                              "it, as pickle does for any module-level object",
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
