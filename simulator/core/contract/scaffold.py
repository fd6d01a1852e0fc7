"""``cardsim new-strategy``: a documented strategy module for a game's contract, and a test file that passes as
written.

The module comes from the game's jinja2 template (``GamePlugin.strategy_template``), filled in from its contract
(:attr:`GamePlugin.decisions`): one function per decision with its arguments, what it answers, what is legal, and
the body of the game's default strategy. The test file (``simulator/core/templates/test_strategy.py.j2``) checks
the module with :func:`cardsim.check_strategy`. Nothing on disk is overwritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import jinja2

from simulator.core.contract.registry import get_game, registered_games
from simulator.core.errors import SpecError

NAME = re.compile(r"[a-z][a-z0-9_-]{0,39}")
TEST_GAMES = 40
_TEMPLATES = Path(__file__).with_name("templates")


@dataclass(frozen=True)
class Written:
    """The two files :func:`new_strategy` wrote."""

    module: Path
    test: Path


def _environment(directory: Path) -> jinja2.Environment:
    return jinja2.Environment(loader=jinja2.FileSystemLoader(directory), undefined=jinja2.StrictUndefined,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
                              autoescape=False)


def new_strategy(game: str, name: str, out: str | Path) -> Written:
    """Write ``<out>/<name>.py`` (the strategy, playing like the game's default strategy until edited) and
    ``<out>/test_<name>.py``; refuse a bad name, a game without a template, or files that already exist."""
    plugin = get_game(game)
    if plugin.strategy_template is None:
        ready = ", ".join(sorted(p.name for p in registered_games() if p.strategy_template))
        raise SpecError("GAME", game, f"{ready} (the games open to strategies from files so far)",
                        "has no strategy contract yet")
    if not NAME.fullmatch(name) or name in plugin.strategies:
        raise SpecError("NAME", name, "a new name of lower-case letters, digits, '-' or '_' (at most 40, starting "
                        f"with a letter), not a built-in ({', '.join(plugin.strategies)})")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SpecError("--out", str(out), "a directory (new or existing)", "is a file")
    stem = name.replace("-", "_")
    module, test = out / f"{stem}.py", out / f"test_{stem}.py"
    for path in (module, test):
        if path.exists():
            raise SpecError("--out", str(out), f"a directory without {path.name}", f"already holds {path.name}")
    context = {"game": game, "name": name, "module_file": module.name, "test_file": str(test),
               "constant": stem.upper(), "n": TEST_GAMES}
    template = Path(plugin.strategy_template)
    decisions = [{"name": key, "signature": d.user_signature, "answers": d.answers, "legal": d.legal,
                  "default": _wrap_call(d.default, len("    return "))} for key, d in plugin.decisions.items()]
    module_text = _environment(template.parent).get_template(template.name).render(
        decisions=decisions, keyword_lines=_keyword_lines(list(plugin.decisions)), **context)
    test_text = _environment(_TEMPLATES).get_template("test_strategy.py.j2").render(**context)
    out.mkdir(parents=True, exist_ok=True)
    module.write_text(module_text)
    test.write_text(test_text)
    return Written(module, test)


def _keyword_lines(names: list[str], width: int = 112) -> list[str]:
    """``name=name,`` for every decision, packed into lines of at most ``width`` characters (indent 4)."""
    lines, line = [], ""
    for name in names:
        word = f"{name}={name},"
        if line and len(line) + 1 + len(word) > width - 4:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return lines + [line] if line else lines


def _wrap_call(call: str, indent: int, width: int = 112) -> str:
    """``f(a, b, ...)`` broken after commas so that no line passes ``width`` (continuations under the first
    argument), starting at column ``indent``."""
    head, _, args = call.partition("(")
    if indent + len(call) <= width or not args:
        return call
    pad = " " * (indent + len(head) + 1)
    lines, line = [], head + "("
    for arg in args.split(", "):
        piece = arg if line.endswith("(") else " " + arg
        start = indent if not lines else 0
        if start + len(line) + len(piece) + 1 > width and not line.endswith("("):
            lines.append(line + ",")
            line = pad + arg
        else:
            line += ("," if not line.endswith("(") else "") + piece
    return "\n".join(lines + [line])
