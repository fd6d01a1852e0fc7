"""The event-trace hash sees every field of every event whole (issue 18 item 6), in both forms."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.kernels.trace import TRACE_SEED, fold, trace_py
from simulator.kamoul.vocabulary.codes import EV_POWER, POWER_KING

KING_A = (1 * 256 + 0) * 65536 + 2 * 256 + 3  # king: looked at (1, 0) and (2, 3)
KING_B = (3 * 256 + 2) * 65536 + 2 * 256 + 3  # king: looked at (3, 2) and (2, 3)


def test_two_different_king_swaps_hash_differently():
    """K5 king look-and-swap: the packed pair of targets used to be cut to 16 bits, so both hashed alike."""
    assert trace_py(TRACE_SEED, EV_POWER, 0, POWER_KING, KING_A) != trace_py(TRACE_SEED, EV_POWER, 0, POWER_KING, KING_B)


@pytest.mark.parametrize("field", range(4))
@pytest.mark.parametrize("delta", [1 << 8, 1 << 16, 1 << 32, 1 << 62, -1])
def test_a_change_in_any_bit_range_of_any_field_changes_the_hash(field, delta):
    event = [7, 300, 70_000, 1 << 40]
    other = list(event)
    other[field] += delta
    assert trace_py(TRACE_SEED, *event) != trace_py(TRACE_SEED, *other)


def test_kernel_fold_equals_the_python_hash():
    rng = np.random.default_rng(5)
    events = rng.integers(-(1 << 62), 1 << 62, size=(500, 4))
    events[:100] = rng.integers(-3, 300, size=(100, 4))
    h_py = TRACE_SEED
    h = np.array([TRACE_SEED], dtype=np.uint64)
    with np.errstate(over="ignore"):  # uint64 products wrap, as in compiled code
        for ev, a, b, c in events.tolist():
            h_py = trace_py(h_py, ev, a, b, c)
            fold.py_func(h, ev, a, b, c)
    assert int(h[0]) == h_py
    # and compiled, through a jitted caller (fold is inlined into the kernels)
    from simulator.core.kernels.jit import njit

    @njit(cache=False)
    def run(events):
        h = np.zeros(1, dtype=np.uint64)
        h[0] = np.uint64(TRACE_SEED)
        for i in range(events.shape[0]):
            fold(h, events[i, 0], events[i, 1], events[i, 2], events[i, 3])
        return h[0]

    assert int(run(events)) == h_py
