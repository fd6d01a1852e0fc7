"""The kernels' reusable output buffers: a buffer comes back only when no array made of it is alive."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from simulator.core.kernels import buffers
from simulator.core.kernels.buffers import release, reusable


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@pytest.fixture(autouse=True)
def _empty_pool():
    release()
    yield
    release()


def test_a_result_still_held_is_never_written_over():
    first = reusable("t.rows", (100, 3), np.int64)
    first[:] = 7
    second = reusable("t.rows", (100, 3), np.int64)
    second[:] = -1
    assert not np.shares_memory(first, second)
    assert (first == 7).all()


def test_a_view_derived_from_a_result_holds_its_buffer():
    first = reusable("t.rows", (10, 4), np.int64)
    address = _address(first)
    column = first[:, 2].reshape(-1)  # what gather and to_frame make of the kernel's rows
    del first
    again = reusable("t.rows", (10, 4), np.int64)
    assert _address(again) != address
    assert not np.shares_memory(column, again)


def test_a_dropped_result_gives_its_pages_to_the_next_call_even_smaller_or_of_another_dtype():
    first = reusable("t.rows", (50, 8), np.int64)
    address = _address(first)
    del first
    again = reusable("t.rows", (20, 8), np.float64)
    assert _address(again) == address
    assert again.shape == (20, 8) and again.dtype == np.float64 and again.flags.c_contiguous


def test_a_larger_request_gets_a_new_buffer_and_names_do_not_share():
    small = reusable("t.rows", (4, 2), np.int64)
    other = reusable("t.traces", (4, 2), np.int64)
    assert not np.shares_memory(small, other)
    address = _address(small)
    del small
    larger = reusable("t.rows", (400, 2), np.int64)
    assert _address(larger) != address and larger.shape == (400, 2)


def test_a_buffer_above_the_limit_is_not_kept(monkeypatch):
    monkeypatch.setattr(buffers, "KEEP_BYTES", 1000)
    big = reusable("t.rows", (200,), np.int64)  # 1,600 bytes
    del big
    assert "t.rows" not in buffers._BUFFERS
    small = reusable("t.rows", (10,), np.int64)  # 80 bytes: kept
    assert small.shape == (10,)
    assert buffers._BUFFERS["t.rows"].nbytes == 80


def test_threads_never_hold_the_same_buffer_at_once():
    clashes = []

    def work(mark: int):
        for _ in range(300):
            rows = reusable("t.shared", (64,), np.int64)
            rows[:] = mark
            if not (rows == mark).all():
                clashes.append(mark)

    threads = [threading.Thread(target=work, args=(m,)) for m in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert clashes == []


@pytest.mark.slow
def test_kamoul_rows_kept_by_a_caller_survive_the_next_chunk():
    """Two chunks in a row: the first chunk's rows, still held, are unchanged by the second, which reuses
    nothing of them; after they are dropped, the next chunk is identical to the first (same seed)."""
    from simulator.core.storage.spec import build_spec
    from simulator.kamoul.engines.engine import raw_kernel

    spec = build_spec("kamoul", n=400, seed=3, strategies=["balanced"], level="hands")
    first = raw_kernel(spec, 0, 400, threads=1)
    kept = {k: v.copy() for k, v in first.items()}
    other = raw_kernel(build_spec("kamoul", n=400, seed=4, strategies=["balanced"], level="hands"), 0, 400, threads=1)
    assert not np.shares_memory(first["hands"], other["hands"])
    for k in kept:
        np.testing.assert_array_equal(first[k], kept[k])
    del first, other
    again = raw_kernel(spec, 0, 400, threads=1)
    for k in kept:
        np.testing.assert_array_equal(again[k], kept[k])
