"""Saying so when numba compiles: the first run of a kernel on a machine compiles it for a minute or more, and a
silent frozen progress bar is what makes a new user give up.

:func:`compile_notice` wraps a kernel's first call: when the kernel is neither compiled in this process nor in
numba's on-disk cache (its index file, :mod:`simulator.core.kernels.jit`), it prints one line at once, "compiling the
Kamoul kernels (first run on this machine, about N s)…", and "compiled in X s" when the call returns. Each game's
engine names its kernels and gives ``N``, measured on the 2-core reference machine (docs/architecture.md,
"Compile times"); once a family has compiled on this machine, ``N`` is what it took here (kept beside the cache,
``compile-seconds.json``). ``cardsim warm`` (``cardsim.warm``) compiles ahead, with the same lines. :data:`NOTICES` turns the lines
off (``--quiet``).
"""

from __future__ import annotations

import json
import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numba
from numba.core.typing.typeof import Purpose

from simulator.core.kernels.jit import cache_dir_for, cache_root
from simulator.core.progress import compile_finished

NOTICES = {"enabled": True}


def say(line: str) -> None:
    """One notice line on stderr (unless notices are off)."""
    if NOTICES["enabled"]:
        print(line, file=sys.stderr, flush=True)


def needs_compile(dispatcher) -> bool:
    """True when calling ``dispatcher`` (a numba ``njit`` function) will compile: nothing compiled in this process
    and no index file in its on-disk cache. (numba's cache is keyed by argument types too; a cached kernel is
    compiled again only for new types, e.g. a run's first strategy from a user's file.)"""
    if getattr(dispatcher, "signatures", None):
        return False
    cache_file = getattr(getattr(dispatcher, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is None or not os.path.exists(index)


def needs_compile_for(dispatcher, args: tuple) -> bool:
    """True when calling ``dispatcher`` with ``args`` will compile: no overload for their types in this process nor
    in its on-disk cache's index (the index is numba's own file: keys ``(signature, target, code digests)``; a
    cache numba cannot read counts as a compile)."""
    signature = tuple(numba.typeof(a, Purpose.argument) for a in args)
    if signature in dispatcher.overloads:
        return False
    try:
        return not any(key[0] == signature for key in dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001  (numba's private index: any failure to read it means no cached kernel)
        return True


MIN_COMPILE_SECONDS = 2.0
"""A first call shorter than this loaded kernels that another process compiled meanwhile: not a compile time."""

TIMES_FILE = "compile-seconds.json"
"""Beside the cache: how long each family of kernels last took to compile on this machine, by label."""


def _times_path() -> Path:
    return cache_root() / TIMES_FILE


def code_of(dispatcher) -> str | None:
    """Which code a compile time is of: the digest that names ``dispatcher``'s cache directory (its module, every
    project module that one imports, numba's version: :func:`simulator.core.kernels.jit.cache_dir_for`)."""
    try:
        return cache_dir_for(dispatcher.py_func).name
    except (AttributeError, TypeError, OSError):
        return None


def last_seconds(label: str, code: str | None = None) -> float | None:
    """How long the ``label`` kernels last took to compile on this machine, if that was the same ``code``
    (:func:`code_of`; an upgrade or an edit changes what a compile takes); ``None``: not measured here."""
    try:
        entry = json.loads(_times_path().read_text(encoding="utf-8")).get(label)
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(entry, dict) or entry.get("code") != code:
        return None
    value = entry.get("seconds")
    valid = isinstance(value, (int, float)) and not isinstance(value, bool) and value >= MIN_COMPILE_SECONDS
    return float(value) if valid else None


@contextmanager
def _times_locked(path: Path):
    """The times file's lock: families compiled side by side (:mod:`simulator.core.kernels.compile_apart`) each keep
    their time, and none may write over another's."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: one process at a time is the usual case there
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(f".{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def remember_seconds(label: str, seconds: float, code: str | None = None) -> None:
    """Keep what the ``label`` compile of ``code`` took, for the next notice (a cache that cannot be written keeps
    nothing)."""
    path = _times_path()
    try:
        with _times_locked(path):
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                data = data if isinstance(data, dict) else {}
            except (OSError, ValueError):
                data = {}
            data[label] = {"seconds": round(seconds, 1), "code": code}
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            temporary.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")
            os.replace(temporary, path)
    except OSError:
        pass


def estimate(label: str, seconds: int, code: str | None = None) -> int:
    """The notice's "about N s": what the last compile of ``label`` took on this machine for the same ``code``,
    else ``seconds`` (what it took on the 2-core reference machine, docs/architecture.md)."""
    return round(last_seconds(label, code) or seconds)


@dataclass(frozen=True)
class KernelFamily:
    """Kernels of ``game`` that compile together on their first call. ``name`` is what ``cardsim warm`` reports
    ("kamoul", "kamoul rollouts"); ``label`` names them in the notices ("the Kamoul kernels"); ``kernel()`` is the numba
    dispatcher whose on-disk cache says whether they are compiled; ``seconds()`` what compiling them alone, in a
    fresh process, takes on this machine (:func:`estimate`); ``compile()`` compiles them, or loads them."""

    game: str
    name: str
    label: str
    kernel: Callable[[], object]
    seconds: Callable[[], int]
    compile: Callable[[], None]

    def compiled(self) -> bool:
        return not needs_compile(self.kernel())


@contextmanager
def compile_notice(dispatcher, label: str, seconds: int, line: str | None = None, key: str | None = None,
                   args: tuple | None = None):
    """Around the first call of ``dispatcher``: the compile notice and the time it took (see the module doc);
    ``label`` names the kernels ("Kamoul"), ``seconds`` is what they take to compile on the reference machine
    (the notice says what they last took on this one when known, :func:`estimate`). ``line``: a compile the cache
    check cannot see (a kernel compiled for a user's files), announced so. ``key``: what the time is remembered
    under when the same kernels take different times in different cases (default ``label``). ``args``: the call's
    arguments, when the kernel may be cached for other types than theirs (:func:`needs_compile_for`)."""
    if line is None and not (needs_compile(dispatcher) if args is None else needs_compile_for(dispatcher, args)):
        yield
        return
    key, code = key or label, code_of(dispatcher)
    say(line or f"compiling the {label} kernels (first run on this machine, about {estimate(key, seconds, code)} s)…")
    begin = time.perf_counter()
    yield
    took = time.perf_counter() - begin
    say(f"compiled in {took:.0f} s")
    if line is None and took >= MIN_COMPILE_SECONDS:  # less: another process compiled them meanwhile, this one loaded
        remember_seconds(key, took, code)
    compile_finished()  # the rate and ETA of open progress count from here
