"""Pages are laid out by templates, not by code: no Python string in ``reports/`` or in a study's package
(``analysis/studies/``) holds an HTML tag; every page comes from ``reports/templates`` and pandas' Styler. (No
import cycle anywhere: ``tests/test_layers.py``.)"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9]*(?=[\s>/]|$)")


def _strings(tree: ast.AST):
    """Every string constant and f-string of a module but its docstrings, with its line."""
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and node.body
                  and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    docstrings |= {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    for node in ast.walk(tree):
        if id(node) in docstrings:  # and the parts of f-strings, read whole below
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
            yield node.lineno, text
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_no_html_is_built_in_python_code_in_reports():
    pages = sorted((ROOT / "reports").glob("*.py")) + sorted((ROOT / "analysis" / "studies").rglob("*.py"))
    assert any(path.name == "page.py" for path in pages)
    found = [f"{path.relative_to(ROOT)}:{line}: {text[:60]!r}" for path in pages
             for line, text in _strings(ast.parse(path.read_text(encoding="utf-8"))) if TAG.search(text)]
    assert found == []


def test_the_check_finds_an_f_string_tag_and_a_concatenated_one():
    source = '"""A <b>docstring</b>."""\na = f"<p>{x}</p>"\nb = "<td" + " class=num>"\nc = "x < y"\n'
    assert sorted(line for line, text in _strings(ast.parse(source)) if TAG.search(text)) == [2, 3]


def test_no_module_that_translates_rebinds_the_translation_function():
    """``_`` is gettext's (``simulator.core.i18n._``) wherever it is imported: a throwaway ``_, x = ...`` in such a
    module would make ``_("...")`` in the same function call a tuple item (caught once in the balance report)."""
    found = []
    for package in ("reports", "analysis", "simulator", "strategies"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imports = any(isinstance(n, ast.ImportFrom) and n.module == "simulator.core.i18n"
                          and any(a.name == "_" for a in n.names) for n in ast.walk(tree))
            if not imports:
                continue
            for node in ast.walk(tree):
                targets = (node.targets if isinstance(node, ast.Assign) else [node.target]
                           if isinstance(node, (ast.For, ast.AnnAssign, ast.AugAssign)) else [])
                for target in targets:
                    names = [t for t in ast.walk(target) if isinstance(t, ast.Name) and t.id == "_"]
                    found += [f"{path.relative_to(ROOT)}:{n.lineno}" for n in names]
    assert found == []
