"""The chunk driver every game's kernel uses: games in blocks played in ``prange``, rows gathered in game order.

A kernel plays games ``[start, stop)`` in ``n_blocks`` contiguous blocks (one per ``prange`` iteration, each with
its own scratch state, so threads share nothing they write) and writes each table's rows into a per-block
buffer of a capacity given in advance. How many rows a game makes is not known before it is played (a manche
has as many hands as it takes), so :func:`play_in_blocks` guesses from ``rows_per_game``, and a block whose
count overflowed its capacity is played again with twice the room (the kernel kept its first ``cap`` rows and
counted the rest). The split into blocks never changes a result: game ``i`` draws only from its own stream.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numba
import numpy as np

from simulator.core.records import gather_blocks


def block_count(n: int, threads: int | None) -> int:
    """Blocks for ``n`` games: four per thread (numba's threads then balance uneven blocks), at most one per game."""
    threads = threads or numba.get_num_threads()
    return max(1, min(n, 4 * threads))


def play_in_blocks(kernel: Callable[[int, np.ndarray], tuple], n: int, threads: int | None,
                   rows_per_game: Sequence[int]) -> tuple[tuple, np.ndarray]:
    """Run ``kernel(n_blocks, caps)`` until no block overflows and return ``(outputs, counts)``.

    ``rows_per_game``: a first guess of each table's rows per game (``0`` for a table the level does not write);
    ``caps`` is ``int64[T]``, the rows each block may hold per table; ``kernel`` returns its per-block arrays
    followed by ``counts`` (``int64[n_blocks, T]``, the rows each block made per table).
    """
    n_blocks = block_count(n, threads)
    per_block = -(-n // n_blocks) if n > 0 else 1
    factors = np.array(rows_per_game, dtype=np.int64)
    while True:
        caps = np.maximum(factors * per_block, 1)
        *outputs, counts = kernel(n_blocks, caps)
        if (counts <= caps[None, :]).all():
            return tuple(outputs), counts
        factors = factors * 2


def gather(outputs: Sequence[np.ndarray], counts: np.ndarray, table_of: Sequence[int]) -> list[np.ndarray]:
    """Each per-block output's rows in game order; ``table_of[k]`` is the table (column of ``counts``) whose row
    count output ``k`` follows (a hand's trace follows the hands)."""
    return [gather_blocks(out, counts[:, t]) for out, t in zip(outputs, table_of)]


def first_fault_in_game_order(fault: np.ndarray, play: Callable[[], object]) -> None:
    """After a parallel run recorded a fault (``fault[0] != 0``: a strategy's illegal answer, see
    :class:`~simulator.core.contract.user_table.KernelSeats`), clear it and ``play()`` the run again on one numba thread,
    so the record kept is the first fault in game order, as the reference engine meets it, and no two threads
    wrote it at once."""
    if fault[0] == 0:
        return
    fault[:] = 0
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        play()
    finally:
        numba.set_num_threads(threads)
