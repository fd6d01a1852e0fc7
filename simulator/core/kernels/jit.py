"""The project's numba decorator, with an on-disk cache keyed on each module's sources.

numba's on-disk cache does not notice when a jitted function in *another* module changes: the
caller's cached machine code silently keeps the old callee. Each jitted function is therefore cached
in a directory named after a hash of its own module and of every project module that module imports,
directly or not (:func:`module_closure`; their constants are frozen into the compiled code too). An
edit to a kernel or a strategy moves exactly the caches that depend on it; an edit elsewhere (the
CLI, the reference engine, another game) recompiles nothing, and a user's second run of an unchanged
install loads the compiled kernels instead of compiling them again.

Set ``CARDSIM_CACHE_DIR`` to move the cache root (default ``~/.cache/cardsim``).
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import re
import sys
import types
import warnings
from pathlib import Path

import numba
from numba.core.errors import NumbaIRAssumptionWarning


# numba's own "internal pedantic check" fires when it inlines the strategy dispatch (an ``overload`` with
# ``inline="always"``, strategies/<g>/policy.py) into a function with a loop: a phi variable it does not expect.
# The compiled code is right (both engines agree game for game); the message is for numba's developers.
warnings.filterwarnings("ignore", message=r"variable '.*' is not in scope", category=NumbaIRAssumptionWarning)

_ROOT = Path(__file__).resolve().parents[3]


_IMPORT = re.compile(r"^\s*(?:from\s+((?:simulator|strategies)[\w.]*)\s+import\s+(\([^)]*\)|[\w, ]+)|import\s+((?:simulator|strategies)[\w.]*))",
                     re.M)


def _module_path(module: str) -> Path | None:
    base = _ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    loaded = getattr(sys.modules.get(module), "__file__", None)  # an old name (simulator.core.moved): what it became
    return Path(loaded) if loaded else None


def module_closure(path: Path) -> list[Path]:
    """``path`` and every project module it imports, directly or not, found by following import lines."""
    todo = [Path(path).resolve()]
    seen: set[Path] = set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for match in _IMPORT.finditer(current.read_text()):
            module = match.group(1) or match.group(3)
            names = [n.strip() for n in (match.group(2) or "").replace("(", "").replace(")", "").split(",")]
            for target in [module] + [f"{module}.{n}" for n in names if n]:
                found = _module_path(target)
                if found is not None:
                    todo.append(found)
    return sorted(seen)


@functools.lru_cache(maxsize=None)
def _closure_digest(path: Path) -> str:
    digest = hashlib.sha256(numba.__version__.encode())
    for source in module_closure(path):
        digest.update(str(source.relative_to(_ROOT)).encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def user_cache_dir(path: str) -> Path:
    """Where the functions of a user's strategy file are cached: one directory per hash of the file's content and
    of the project modules it imports (the project's functions it calls are compiled into it)."""
    source = Path(path).resolve()
    digest = hashlib.sha256(numba.__version__.encode())
    for module in module_closure(source):
        digest.update(module.read_bytes())
    return cache_root() / f"numba-user-{digest.hexdigest()[:16]}"


def cache_root() -> Path:
    return Path(os.environ.get("CARDSIM_CACHE_DIR", Path.home() / ".cache" / "cardsim"))


def cache_dir_for(func) -> Path:
    """Where numba caches ``func``: one directory per hash of its module's import closure."""
    source = Path(inspect.getsourcefile(func)).resolve()
    if _ROOT not in source.parents:
        return cache_root() / "numba-external"
    return cache_root() / f"numba-{_closure_digest(source)}"


def _jit(func, kwargs):
    if kwargs.get("cache"):
        numba.config.CACHE_DIR = str(cache_dir_for(func))  # read by numba when the dispatcher enables caching
    return numba.njit(**kwargs)(func)


def njit(*args, refcount: bool = True, **kwargs):
    """``numba.njit`` with ``cache=True`` and no fastmath (results must match the Python engine bit for bit).

    ``inline="llvm"`` compiles the function once per signature, cached like any other, without reference
    counting, and marks it for LLVM to inline into every caller (``forceinline``). numba's own
    ``inline="always"`` inlines the body into each caller's numba IR, where it is typed and rewritten again in
    every caller: in the Kamoul kernels that inlining was 93 s of a 167 s compile; LLVM inlining the same bodies
    made the kernel 5% faster and its compile 79 s (docs/architecture.md, "Where the compile goes"). Rami and
    Kem's keep numba's inlining: LLVM's cost them more (their solver and meld loops are inlined in many places).

    ``refcount=False`` compiles the function without numba's runtime (NRT) reference counting. Every array
    a function receives, slices or unpacks from a tuple otherwise costs an atomic increment and decrement
    of its owner's count; in the Kamoul kernel's hot path these atomics took ~60% of the time (and two
    threads touching the same shared arrays contend on them). Use it only for functions that work on
    arrays their caller keeps alive: they must not allocate an array nor return one (numba refuses to
    compile an allocation there: "NRT required but not enabled").
    """
    if kwargs.get("inline") == "llvm":
        del kwargs["inline"]
        kwargs["forceinline"] = True
        refcount = False
    if not refcount:
        kwargs["_nrt"] = False
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    if args and callable(args[0]):
        return _jit(args[0], kwargs)
    return lambda func: _jit(func, kwargs)


def second_copy(dispatcher, **replaced):
    """Another numba function of ``dispatcher``'s Python code, its globals ``replaced`` by name (other copies), for
    LLVM to inline into its callers (compiled with them, not cached on its own).

    A function numba is still compiling cannot be compiled again from inside that compilation for another type:
    numba then links the inner call through a placeholder symbol, which its on-disk cache cannot restore (the loaded
    kernel calls address 0). A kernel that plays a loop inside that same loop (the searching player's rollouts)
    calls copies instead."""
    original = getattr(dispatcher, "py_func", dispatcher)  # a plain function under NUMBA_DISABLE_JIT
    namespace = dict(original.__globals__)
    namespace.update(replaced)
    function = types.FunctionType(original.__code__, namespace, original.__name__, original.__defaults__,
                                  original.__closure__)
    function.__qualname__ = original.__qualname__
    function.__doc__ = original.__doc__
    return numba.njit(forceinline=True, _nrt=False, nogil=True)(function)
