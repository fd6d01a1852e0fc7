"""The project's numba decorator, with a cache keyed on the kernel sources.

numba's on-disk cache does not notice when a jitted function in *another* module changes: the
caller's cached machine code silently keeps the old callee. We therefore point numba's cache at a
directory named after a hash of every module that holds jitted code and of every project module those
import (see :func:`kernel_sources`): any edit to a kernel source moves the whole cache, and a user's second run of an unchanged install loads the
compiled kernels instead of compiling them again.

Set ``CARDSIM_CACHE_DIR`` to move the cache root (default ``~/.cache/cardsim``).
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

import numba

_ROOT = Path(__file__).resolve().parents[2]
_SOURCE_DIRS = ("simulator", "strategies")


_IMPORT = re.compile(r"^\s*(?:from\s+((?:simulator|strategies)[\w.]*)\s+import\s+(\([^)]*\)|[\w, ]+)|import\s+((?:simulator|strategies)[\w.]*))",
                     re.M)


def _module_path(module: str) -> Path | None:
    base = _ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def kernel_sources() -> list[Path]:
    """Every module that defines jitted code, and every project module those import (their constants are
    frozen into the compiled code), found by following import lines."""
    todo = [p for folder in _SOURCE_DIRS for p in (_ROOT / folder).rglob("*.py") if "njit" in p.read_text()]
    seen: set[Path] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for match in _IMPORT.finditer(path.read_text()):
            module = match.group(1) or match.group(3)
            names = [n.strip() for n in (match.group(2) or "").replace("(", "").replace(")", "").split(",")]
            for target in [module] + [f"{module}.{n}" for n in names if n]:
                found = _module_path(target)
                if found is not None:
                    todo.append(found)
    return sorted(seen)


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for path in kernel_sources():
        digest.update(str(path.relative_to(_ROOT)).encode())
        digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    root = Path(os.environ.get("CARDSIM_CACHE_DIR", Path.home() / ".cache" / "cardsim"))
    return root / f"numba-{_sources_digest()}"


numba.config.CACHE_DIR = str(cache_dir())


def njit(*args, refcount: bool = True, **kwargs):
    """``numba.njit`` with ``cache=True`` and no fastmath (results must match the Python engine bit for bit).

    ``refcount=False`` compiles the function without numba's runtime (NRT) reference counting. Every array
    a function receives, slices or unpacks from a tuple otherwise costs an atomic increment and decrement
    of its owner's count; in the Kamoul kernel's hot path these atomics took ~60% of the time (and two
    threads touching the same shared arrays contend on them). Use it only for functions that work on
    arrays their caller keeps alive: they must not allocate an array nor return one (numba refuses to
    compile an allocation there: "NRT required but not enabled").
    """
    if not refcount:
        kwargs["_nrt"] = False
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    if args and callable(args[0]):
        return numba.njit(**kwargs)(args[0])
    return numba.njit(*args, **kwargs)
