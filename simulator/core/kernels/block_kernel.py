"""The compiled half of the chunk driver (:mod:`simulator.core.kernels.blocks`): which games a block plays and the
per-block row buffers, the same for every game's ``simulate``.

A game's ``simulate`` (``parallel=True``) gets its buffers (Rami and Kem's allocate them here with
:func:`row_buffers`; Kamoul, which writes far more rows a second, receives them from its engine, made of pages a
previous chunk used: :mod:`simulator.core.kernels.buffers`), then in ``prange`` over the blocks plays :func:`block_games`
of each block into that block's slices; :func:`simulator.core.kernels.blocks.play_in_blocks` retries with more room when
a count exceeds its capacity.
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.jit import njit


@njit
def block_games(start, stop, n_blocks, b):
    """Games ``[first, end)`` of block ``b``: blocks of ``ceil((stop - start) / n_blocks)`` contiguous games from
    ``start``, clipped to ``stop`` (the split changes no result: one random stream per game)."""
    per = (stop - start + n_blocks - 1) // n_blocks
    return min(start + per * b, stop), min(start + per * (b + 1), stop)


@njit
def row_buffers(n_blocks, caps, n_cols):
    """Per-block buffers of a game with a traced table 0 and a table 1 (``caps``, ``n_cols``: ``int64[2]``, row
    capacity per block and columns per table): ``(rows0 int64[B, cap0, c0], traces uint64[B, cap0], rows1
    int64[B, cap1, c1], counts int64[B, 2])``, counts zeroed, rows uninitialised."""
    rows0 = np.empty((n_blocks, caps[0], n_cols[0]), dtype=np.int64)
    traces = np.empty((n_blocks, caps[0]), dtype=np.uint64)
    rows1 = np.empty((n_blocks, caps[1], n_cols[1]), dtype=np.int64)
    counts = np.zeros((n_blocks, 2), dtype=np.int64)
    return rows0, traces, rows1, counts
