"""Per-game random streams: the Python ``Stream`` and the numba functions draw the same numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulator.core.kernels import rng
from simulator.core.kernels.rng import GOLDEN, MASK64, Stream, _mix64, stream_state, stream_words

CASES = [(0, 0), (1, 1), (7, 123_456), (2**63 - 1, 10**12), (987_654_321, 0), (42, 2**40 + 3)]


BOTH_IMPLEMENTATIONS = pytest.mark.parametrize("impl", ["jit", "py"])


def fns(impl):
    """``(next_u64, below, uniform, seed_state)``, compiled or as plain Python."""
    funcs = (rng.next_u64, rng.below, rng.uniform, rng.seed_state)
    return funcs if impl == "jit" else tuple(f.py_func for f in funcs)


def test_reference_vectors():
    """SplitMix64 and xoshiro256** match their published reference outputs."""
    z, outs = 1234567, []
    for _ in range(3):
        z = (z + GOLDEN) & MASK64
        outs.append(_mix64(z))
    assert outs == [6457827717110365317, 3203168211198807973, 9817491932198370423]
    stream = Stream(0, 0)
    stream.s = [1, 2, 3, 4]
    assert [stream.next_u64() for _ in range(4)] == [11520, 0, 1509978240, 1215971899390074240]


def test_golden_stream():
    """Pinned draws: changing them changes every stored run's results."""
    stream = Stream(0, 0)
    assert [stream.next_u64() for _ in range(3)] == [0x99EC5F36CB75F2B4, 0xBF6E1F784956452A, 0x1A5F849D4933E6E0]


@BOTH_IMPLEMENTATIONS
@pytest.mark.parametrize("seed,index", CASES)
def test_numba_and_python_draw_the_same(impl, seed, index):
    next_u64, below, uniform, seed_state = fns(impl)
    state = np.zeros(4, dtype=np.uint64)
    with np.errstate(over="ignore"):  # the plain-Python path wraps uint64 arithmetic, as intended
        seed_state(seed, index, state)
    assert state.tolist() == list(stream_words(seed, index)) == stream_state(seed, index).tolist()
    stream = Stream(seed, index)
    with np.errstate(over="ignore"):
        for n in (1, 2, 3, 13, 52, 54, 104, 2**31):
            for _ in range(20):
                assert int(next_u64(state)) == stream.next_u64()
                assert int(below(state, n)) == stream.below(n)
                assert float(uniform(state)) == stream.uniform()


@pytest.mark.parametrize("n", [1, 2, 3, 7, 52, 54, 108, 2**32 - 1])
def test_below_stays_in_range(n):
    stream = Stream(3, 5)
    state = stream_state(3, 5)
    draws = [stream.below(n) for _ in range(2000)]
    assert all(0 <= d < n for d in draws)
    assert all(0 <= rng.below(state, n) < n for _ in range(2000))


def test_below_is_uniform_within_4_sigma():
    n, draws_per_value = 13, 2000
    stream = Stream(11, 0)
    counts = np.bincount([stream.below(n) for _ in range(n * draws_per_value)], minlength=n)
    sigma = math.sqrt(draws_per_value * (1 - 1 / n))
    assert np.all(np.abs(counts - draws_per_value) < 4 * sigma)


def test_uniform_in_unit_interval():
    stream = Stream(5, 9)
    draws = [stream.uniform() for _ in range(5000)]
    assert all(0.0 <= u < 1.0 for u in draws)
    assert abs(np.mean(draws) - 0.5) < 4 * math.sqrt(1 / 12 / len(draws))


def test_streams_of_different_games_and_seeds_differ():
    firsts = {}
    for seed in (0, 1, 2):
        for index in range(200):
            stream = Stream(seed, index)
            firsts[(seed, index)] = tuple(stream.next_u64() for _ in range(4))
    assert len(set(firsts.values())) == len(firsts)
    assert len({stream_words(seed, i) for seed in (0, 1) for i in range(200)}) == 400
