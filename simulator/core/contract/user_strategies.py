"""Strategies written outside cardsim: in a user's Python file, or in an installed package's entry point.

A strategy file declares one or more strategies with :func:`strategy` (its game, name, declared parameters, doc
and one function per decision of the game's contract, ``simulator/<game>/vocabulary/contract.py``). Users name one as
``path/to/file.py:NAME[:k=v,...]`` wherever a strategy is accepted (``NAME`` may be left out when the file
declares one); an installed package adds strategies under the entry-point group ``cardsim.strategies`` (each
entry point a module that declares them), which users then name like a built-in.

When every decision function is a numba dispatcher the strategy runs in the compiled engine, which calls it
through a table of function pointers (:mod:`simulator.core.contract.user_table`: the kernel is compiled once for every
file, the file's functions once per content of the file); otherwise it runs on the reference engine. The run's spec records the file's path and the SHA-256 of its content; resuming a run whose
strategy file has changed since is refused.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from importlib.metadata import entry_points
from pathlib import Path

from numba.core.registry import CPUDispatcher

from simulator.core.contract import file_code
from simulator.core.contract.file_code import GUARD, Interrupted, fault_line, watched
from simulator.core.contract.inlined import user_kernel_mode
from simulator.core.contract.registry import registered_games
from simulator.core.contract.seats import StrategyDef
from simulator.core.errors import SpecError, StrategyFileError
from simulator.core.params import ParamSet

ENTRY_POINT_GROUP = "cardsim.strategies"
MAX_FILE_BYTES = 1 << 22


@dataclass(frozen=True)
class Declared:
    """What :func:`strategy` returns: a strategy as its file declares it (not yet validated)."""

    game: str
    name: str
    params: ParamSet
    doc: str
    functions: dict = field(default_factory=dict)
    snaps_on_belief: bool = False


def strategy(*, game: str, name: str, params: ParamSet, doc: str, snaps_on_belief: bool = False,
             **functions) -> Declared:
    """Declare a strategy in a user's file: ``functions`` holds one function per decision of ``game``'s contract.
    ``snaps_on_belief`` (Kamoul): the file's ``snap`` answers "no", without drawing a random number, whenever the
    player believes none of its own cards has the discard's rank, so both engines need not ask it then (what the
    built-in heuristic declares, ``simulator.kamoul.engines.beliefs``); they do not, whatever the function would say."""
    return Declared(game, name, params, doc, dict(functions), snaps_on_belief)


@dataclass(frozen=True)
class UserStrategy:
    """A validated strategy from a file: where it comes from (``path``, ``digest`` of the content), its functions,
    and whether they are compiled (numba) or plain Python."""

    name: str
    game: str
    params: ParamSet
    doc: str
    functions: dict
    path: str
    digest: str
    compiled: bool
    snaps_on_belief: bool = False

    @property
    def label(self) -> str:
        return f"{Path(self.path).name}:{self.name}"

    def definition(self, kernel_id: int) -> StrategyDef:
        return StrategyDef(self.name, kernel_id, self.params, self.doc, "user file " + Path(self.path).name)


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def split_reference(text: str) -> tuple[str, str, str] | None:
    """``"dir/f.py:NAME:k=v"`` → ``("dir/f.py", "NAME", "k=v")``; ``None`` when ``text`` names no file."""
    head, sep, tail = text.partition(".py")
    if not sep or (tail and not tail.startswith(":")):
        return None
    name, _, rest = tail[1:].partition(":")
    return head + sep, name.strip(), rest


@lru_cache(maxsize=None)
def _load_module(path: str, digest: str):
    module_name = f"cardsim_user_{digest[:16]}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        with watched(file_code.IMPORT_SECONDS):
            GUARD.inside, GUARD.calls = "import", GUARD.calls + 1
            spec.loader.exec_module(module)
    except BaseException as err:  # a user's file: whatever it raises or exits with is one line, exit 2
        del sys.modules[module_name]
        if isinstance(err, Interrupted):
            raise
        raise StrategyFileError(fault_line(path, "import", err, file_code.IMPORT_SECONDS)) from None
    finally:
        GUARD.inside = None
    return module


def _declared(module) -> list[Declared]:
    return [v for v in vars(module).values() if isinstance(v, Declared)]


def _contract(plugin) -> dict:
    if not plugin.decisions:
        with_contract = ", ".join(sorted(p.name for p in registered_games() if p.decisions))
        raise SpecError("--strategy", plugin.name, f"{with_contract} (the games open to strategies from files)",
                        "has no contract for strategies from files yet")
    return plugin.decisions


def _validate(decl: Declared, plugin, path: str, digest: str, field_name: str) -> UserStrategy:
    game = plugin.name
    where = f"{field_name} {Path(path).name}:{decl.name}"
    if decl.game != game:
        raise SpecError(f"{where}: game", decl.game, game, "is another game")
    if not isinstance(decl.params, ParamSet):
        raise SpecError(f"{where}: params", decl.params, "a simulator.core.params.ParamSet")
    lead = list(plugin.leading_params)
    if decl.params.names()[: len(lead)] != lead:
        raise SpecError(f"{where}: params", ", ".join(decl.params.names()[: len(lead)]),
                        f"parameters that begin with {', '.join(lead)} (the {game} engines read them by position)")
    decisions = _contract(plugin)
    missing = sorted(n for n, d in decisions.items() if n not in decl.functions and d.optional is None)
    extra = sorted(set(decl.functions) - set(decisions))
    if missing or extra:
        allowed = [n for n, d in decisions.items() if d.optional is None] if missing else list(decisions)
        raise SpecError(f"{where}: decisions", ", ".join(missing or extra), ", ".join(allowed),
                        "are missing" if missing else "are not decisions of " + game)
    for name, fn in decl.functions.items():
        if not callable(fn):
            raise SpecError(f"{where}: {name}", fn, "a function")
    if not isinstance(decl.snaps_on_belief, bool):
        raise SpecError(f"{where}: snaps_on_belief", decl.snaps_on_belief, "True or False")
    if decl.snaps_on_belief and plugin.contract.belief_snappers is None:
        raise SpecError(f"{where}: snaps_on_belief", True, "False", f"has no meaning in {game} (a Kamoul declaration)")
    compiled = all(_is_numba(fn) for fn in decl.functions.values())
    functions = dict(decl.functions)
    for name, d in decisions.items():  # an optional decision the file leaves out: the contract's answer
        if name not in functions:
            functions[name] = d.optional if compiled else d.optional.py_func
    return UserStrategy(decl.name, game, decl.params, decl.doc, functions, path, digest, compiled,
                        decl.snaps_on_belief)


def _is_numba(fn) -> bool:
    return isinstance(fn, CPUDispatcher)


def load_file(plugin, path_text: str, name: str, field_name: str = "--strategy",
              expect_digest: str | None = None) -> UserStrategy:
    """The strategy ``name`` of the file at ``path_text`` (the only one when ``name`` is empty), validated for
    ``plugin``'s game (a run spec then tries it: :mod:`simulator.core.contract.strategy_trial`). With ``expect_digest``,
    refuse a file whose content changed."""
    user_kernel_mode()  # which compiled kernel plays the file: a wrong choice is refused before anything is written
    path = Path(path_text).expanduser()
    if not path.is_file():
        raise SpecError(field_name, path_text, "an existing Python file (path/to/file.py:NAME)", "is not a file")
    if path.stat().st_size > MAX_FILE_BYTES:
        raise SpecError(field_name, path_text, f"a strategy file under {MAX_FILE_BYTES} bytes", "is too big")
    path = path.resolve()
    digest = file_digest(path)
    if expect_digest is not None and digest != expect_digest:
        raise SpecError(field_name, str(path), f"the file as it was when the run was made (sha256 {expect_digest[:12]}…)",
                        f"has changed since (sha256 {digest[:12]}…)")
    declared = _declared(_load_module(str(path), digest))
    names = [d.name for d in declared]
    if not declared:
        raise SpecError(field_name, str(path), "a file that declares strategies with "
                        "simulator.core.contract.user_strategies.strategy(...)", "declares none")
    if not name:
        if len(declared) > 1:
            raise SpecError(field_name, path_text, ", ".join(f"{path.name}:{n}" for n in names),
                            "declares several strategies: name one")
        decl = declared[0]
    else:
        matches = [d for d in declared if d.name == name]
        if not matches:
            raise SpecError(field_name, name, ", ".join(names), f"is not a strategy of {path.name}")
        decl = matches[0]
    return _validate(decl, plugin, str(path), digest, field_name)


@lru_cache(maxsize=None)
def installed(game: str) -> dict[str, tuple[str, str]]:
    """Strategies of ``game`` that installed packages add (entry-point group ``cardsim.strategies``): name → (file,
    strategy name)."""
    out = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            module = ep.load()
        except Exception:  # a broken third-party package must not stop cardsim: its strategies are left out
            continue
        for decl in _declared(module):
            if decl.game == game and getattr(module, "__file__", None):
                out.setdefault(decl.name, (module.__file__, decl.name))
    return out


def load_seat_strategy(plugin, seat_strategy) -> UserStrategy:
    """The :class:`UserStrategy` behind a spec's seat (its ``source`` file, checked against its ``digest``)."""
    return load_file(plugin, seat_strategy.source, seat_strategy.name, expect_digest=seat_strategy.digest)
