"""Issue 11, "smaller pieces": no function in the engines (``simulator/``, the API aside) over ~80 lines or ~8
positional parameters unless its docstring says why ("Ten arguments: ...", "Ten parameters: ...", "Longer than ...: ...").

Keyword-only parameters do not count: every call names them. The limit is the issue's: a function a reader can
hold in mind, and a call whose arguments can be told apart."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 80
MAX_POSITIONAL = 8
ENGINE_DIRS = ("simulator",)
NOT_ENGINES = {"cardsim.py"}  # the library's entry points: keyword options, one per CLI option
PARAMS_REASON = re.compile(r"(?i)\b\w+ (?:arguments|parameters)\b\s*[:(]")
LENGTH_REASON = re.compile(r"(?i)\blonger than\b")


def oversized(source: str) -> list[tuple[int, str, str]]:
    """``(line, name, what)`` of every function of ``source`` over a limit without its reason in its docstring."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node) or ""
        lines = node.end_lineno - node.lineno + 1
        positional = len(node.args.posonlyargs) + len(node.args.args)
        if lines > MAX_LINES and not LENGTH_REASON.search(doc):
            out.append((node.lineno, node.name, f"{lines} lines"))
        if positional > MAX_POSITIONAL and not PARAMS_REASON.search(doc):
            out.append((node.lineno, node.name, f"{positional} positional parameters"))
    return out


def engine_files() -> list[Path]:
    files = [p for d in ENGINE_DIRS for p in sorted((ROOT / d).rglob("*.py"))]
    return [p for p in files if p.relative_to(ROOT).as_posix() not in NOT_ENGINES]


def test_a_long_function_without_its_reason_is_found():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    many = ", ".join(f"a{i}" for i in range(MAX_POSITIONAL + 1))
    source = (f"def long():\n    '''Plain.'''\n{body}\n\n"
              f"def wide({many}):\n    '''Plain.'''\n\n"
              f"def wide_ok({many}):\n    '''Nine arguments: the block's arrays.'''\n\n"
              f"def keywords(a, *, {many}):\n    '''Keyword-only parameters are named at every call.'''\n")
    assert [(name, what.split()[1]) for _, name, what in oversized(source)] == [("long", "lines"), ("wide", "positional")]


def test_engine_functions_are_small_or_say_why():
    bad = [f"{path.relative_to(ROOT)}:{line} {name}: {what}, no reason in its docstring"
           for path in engine_files() for line, name, what in oversized(path.read_text(encoding="utf-8"))]
    assert not bad, "\n".join(bad)
