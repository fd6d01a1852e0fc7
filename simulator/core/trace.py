"""The event-trace hash both engines of a game fold every event into (FNV-1a style over 64 bits).

A hand's or round's trace is the proof that two engines played it the same way, move for move; it is
stored with each row, so a replay can be checked against a stored run.
"""

from __future__ import annotations

MASK64 = (1 << 64) - 1
FNV_PRIME = 0x100000001B3
TRACE_SEED = 0xCBF29CE484222325


def trace_py(h: int, ev: int, a: int, b: int, c: int) -> int:
    """One event ``(ev, a, b, c)`` folded into ``h`` (kernels do the same in ``uint64``)."""
    word = (ev & 0xFF) | ((a & 0xFF) << 8) | ((b & 0xFFFF) << 16) | ((c & 0xFFFF) << 32)
    return ((h ^ word) * FNV_PRIME) & MASK64
