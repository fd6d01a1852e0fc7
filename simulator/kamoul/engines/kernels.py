"""The Kamoul numba engine's chunk driver: games in blocks played in ``prange``, raw rows per block.

Contract: ``simulate(seed, start, stop, level, rules, seats, rows)`` plays games ``start <= i < stop`` (game ``i``
from the stream ``(seed, i)`` only) in as many blocks as ``rows`` has and writes per-block raw rows in the layout
of :mod:`simulator.kamoul.vocabulary.records`. The engine follows the reference (``hand.py``,
``match.py``) step for step and draws the same random numbers in the same order, so both produce identical rows
and trace hashes. Module map: :mod:`~simulator.kamoul.engines.kernel_state` (the named state),
:mod:`~simulator.kamoul.engines.hand_kernel` (a hand, K2–K14), :mod:`~simulator.kamoul.engines.score_kernel` (the reveal),
:mod:`~simulator.kamoul.engines.force_kernel` (the study hooks), :mod:`~simulator.kamoul.engines.match_kernel` (K15–K16).
"""

from __future__ import annotations

from numba import prange

from simulator.core.cards import DECK_SIZE
from simulator.core.kernels.block_kernel import block_games
from simulator.core.kernels.jit import njit
from simulator.kamoul.engines.kernel_state import (  # noqa: F401  (new_force, reset_force re-exported for the studies)
    Block, block_rows, new_force, new_scratch, new_state, new_tally, reset_force,
)
from simulator.kamoul.engines.match_kernel import play_block


@njit(parallel=True)
def simulate(seed, start, stop, level, rules_table, seats, rows):
    """Play games ``[start, stop)`` at ``level`` (``records.LEVEL``) in as many contiguous blocks as ``rows`` has
    (``prange``), writing each block's rows into ``rows``.

    ``rules_table``: :meth:`Rules.kernel <simulator.kamoul.vocabulary.rules.RulesMethods.kernel>`, read as the record
    ``rules`` in each block; ``seats``: :class:`~simulator.core.contract.user_table.KernelSeats`. Block ``b`` plays
    :func:`~simulator.core.kernels.block_kernel.block_games` (the split does not change any result). ``rows``: a
    :class:`~simulator.kamoul.engines.kernel_state.BlockRows` of every block (a leading axis of ``B`` blocks; the engine
    makes it, ``engine.run_rows``): ``hands`` ``int64[B, cap0, c0]``, ``estimates`` ``float64[B, cap0]``,
    ``traces`` ``uint64[B, cap0]``, ``manches`` ``int64[B, cap1, c1]``, ``parties`` ``int64[B, cap2, c2]``,
    ``tops`` ``int64[B, cap3, c3]``, ``counts`` ``int64[B, 4]`` (zero on entry). Returns those arrays as a tuple;
    rows past a block's count are left as they were; a block whose count exceeds its capacity kept only the
    first ``cap`` rows (the caller retries).
    """
    P = seats.sids.shape[0]
    S = DECK_SIZE * rules_table[0].n_decks
    for b in prange(rows.counts.shape[0]):
        rules = rules_table[0]
        block = Block(new_state(P), new_scratch(P, S), new_tally(P), block_rows(rows, b))
        first, end = block_games(start, stop, rows.counts.shape[0], b)
        play_block(first, end, level, seed, rules, seats, block)
    return rows.hands, rows.estimates, rows.traces, rows.manches, rows.parties, rows.tops, rows.counts
