"""Output arrays a kernel writes its rows into, kept from one call to the next while nobody holds them.

A kernel's rows land in memory fresh from the system, and every fresh page costs a fault that zeroes it (Kamoul
writes 256 bytes a hand: about 60,000 faults a second per thread, and two threads take them in turn). A process
that plays chunk after chunk pays that on every chunk. :func:`reusable` hands out arrays backed by a buffer kept
here and gives the same buffer again only when no array made of it is still alive (its reference count says so):
a result a caller still holds is never written over, and a caller that dropped its rows gets pages already
mapped. Measured with Kamoul (docs/architecture.md, issue 41, step 11): 1.085x on one thread, 1.083x on two.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

KEEP_BYTES = 1 << 30
"""A buffer larger than this is not kept (a huge chunk's rows are returned to the system with its last array)."""

_BUFFERS: dict[str, np.ndarray] = {}
_LOCK = threading.Lock()


def _unused_refs() -> int:
    """The reference count :func:`reusable` sees for a kept buffer nobody else holds (the dict, the local name and
    ``getrefcount``'s argument: 3 in CPython 3.11–3.13), measured the same way rather than assumed."""
    kept = {"probe": np.empty(1, dtype=np.uint8)}
    buffer = kept.get("probe")
    return sys.getrefcount(buffer)


_UNUSED_REFS = _unused_refs()


def reusable(name: str, shape: tuple[int, ...], dtype) -> np.ndarray:
    """An uninitialised array of ``shape`` and ``dtype`` for output ``name`` (unique per game and table). It is a
    view of a buffer kept under ``name``, reused when no array made of it is alive and it is large enough, else
    a new buffer that replaces it."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    with _LOCK:  # a free buffer is handed out once: the view made here holds it before the lock is let go
        buffer = _BUFFERS.get(name)
        if buffer is None or buffer.nbytes < nbytes or sys.getrefcount(buffer) > _UNUSED_REFS:
            buffer = np.empty(max(nbytes, 1), dtype=np.uint8)
            if nbytes <= KEEP_BYTES:
                _BUFFERS[name] = buffer
            else:
                _BUFFERS.pop(name, None)
        return buffer[:nbytes].view(dtype).reshape(shape)


def release() -> None:
    """Forget every kept buffer (their memory goes back once no array made of them is alive)."""
    with _LOCK:
        _BUFFERS.clear()
