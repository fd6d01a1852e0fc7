"""The event-trace hash both engines of every game fold each event into.

A hand's or round's trace is the proof that two engines played it the same way, move for move; it is
stored with each row, so a replay can be checked against a stored run. Every field of an event enters the
hash whole (no field is cut to a few bits, so two events that differ anywhere hash differently): the event
``(ev, a, b, c)`` is reduced to one 64-bit word by a multilinear combination with fixed odd 64-bit keys,
``w = ev*K0 + a*K1 + b*K2 + c*K3 (mod 2**64)``, then folded FNV-style, ``h = (h ^ w) * FNV_PRIME``. The four
products are independent, so the fold costs about one multiplication of latency in the kernels. Negative
fields enter as their two's complement (``x mod 2**64``), as numba's ``uint64`` conversion does.

:func:`fold` is the kernels' version (``h`` a ``uint64[1]`` array), :func:`trace_py` the reference engines'.
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.jit import njit

MASK64 = (1 << 64) - 1
FNV_PRIME = 0x100000001B3
TRACE_SEED = 0xCBF29CE484222325
# fixed odd 64-bit keys (arbitrary, chosen once: changing them changes every stored trace)
K_EVENT = 0x910A2DEC89025CC1 | 1
K_A = 0xBEEB8DA1658EEC67 | 1
K_B = 0xF893A2EEFB32555F | 1
K_C = 0x71C18690EE42C90B | 1


def trace_py(h: int, ev: int, a: int, b: int, c: int) -> int:
    """One event ``(ev, a, b, c)`` folded into ``h``: the Python twin of :func:`fold`."""
    word = (ev * K_EVENT + a * K_A + b * K_B + c * K_C) & MASK64
    return ((h ^ word) * FNV_PRIME) & MASK64


@njit(inline="always")
def fold(h, ev, a, b, c):
    """Fold event ``(ev, a, b, c)`` (integers) into ``h[0]`` (``uint64[1]``), as :func:`trace_py`."""
    word = (np.uint64(np.int64(ev)) * np.uint64(K_EVENT) + np.uint64(np.int64(a)) * np.uint64(K_A)
            + np.uint64(np.int64(b)) * np.uint64(K_B) + np.uint64(np.int64(c)) * np.uint64(K_C))
    h[0] = (h[0] ^ word) * np.uint64(FNV_PRIME)
