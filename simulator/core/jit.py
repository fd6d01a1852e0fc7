"""The project's numba decorator, with a cache keyed on the kernel sources.

numba's on-disk cache does not notice when a jitted function in *another* module changes: the
caller's cached machine code silently keeps the old callee. We therefore point numba's cache at a
directory named after a hash of every ``.py`` file under ``simulator/`` and ``strategies/``: any edit
to a kernel source moves the whole cache, and a user's second run of an unchanged install loads the
compiled kernels instead of compiling them again.

Set ``CARDSIM_CACHE_DIR`` to move the cache root (default ``~/.cache/cardsim``).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

_ROOT = Path(__file__).resolve().parents[2]
_SOURCE_DIRS = ("simulator", "strategies")


def _sources_digest() -> str:
    digest = hashlib.sha256()
    for folder in _SOURCE_DIRS:
        for path in sorted((_ROOT / folder).rglob("*.py")):
            digest.update(str(path.relative_to(_ROOT)).encode())
            digest.update(path.read_bytes())
    digest.update(numba.__version__.encode())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    root = Path(os.environ.get("CARDSIM_CACHE_DIR", Path.home() / ".cache" / "cardsim"))
    return root / f"numba-{_sources_digest()}"


numba.config.CACHE_DIR = str(cache_dir())


def njit(*args, **kwargs):
    """``numba.njit`` with ``cache=True`` and no fastmath (results must match the Python engine bit for bit)."""
    kwargs.setdefault("cache", True)
    kwargs.setdefault("nogil", True)
    if args and callable(args[0]):
        return numba.njit(**kwargs)(args[0])
    return numba.njit(*args, **kwargs)
