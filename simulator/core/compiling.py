"""Saying so when numba compiles: the first run of a kernel on a machine compiles it for a minute or more, and a
silent frozen progress bar is what makes a new user give up.

:func:`compile_notice` wraps a kernel's first call: when the kernel is neither compiled in this process nor in
numba's on-disk cache (its index file, :mod:`simulator.core.jit`), it prints one line at once, "compiling the
Kamoul kernels (first run on this machine, about N s)…", and "compiled in X s" when the call returns. Each game's
engine names its kernels and gives ``N``, measured on the 2-core reference machine (docs/architecture.md,
"Compile times"). ``cardsim warm`` (``simulator.api.warm``) compiles ahead, with the same lines. :data:`NOTICES` turns the lines
off (``--quiet``).
"""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager

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


@contextmanager
def compile_notice(dispatcher, label: str, seconds: int, line: str | None = None):
    """Around the first call of ``dispatcher``: the compile notice and the time it took (see the module doc);
    ``label`` names the kernels ("Kamoul"), ``seconds`` is what they take to compile on the reference machine.
    ``line``: a compile the cache check cannot see (a kernel compiled for a user's files), announced so."""
    if line is None and not needs_compile(dispatcher):
        yield
        return
    say(line or f"compiling the {label} kernels (first run on this machine, about {seconds} s)…")
    begin = time.perf_counter()
    yield
    say(f"compiled in {time.perf_counter() - begin:.0f} s")
    compile_finished()  # the rate and ETA of open progress count from here
