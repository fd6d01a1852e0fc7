"""The Kamoul numba engine's chunk driver: games in blocks played in ``prange``, raw rows per block.

Contract: ``simulate(seed, start, stop, level, rules, seats, n_blocks, caps, n_cols)`` plays games
``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks and returns per-block
raw rows in the layout of :mod:`simulator.kamoul.records`. The engine follows the reference (``hand.py``,
``match.py``) step for step and draws the same random numbers in the same order, so both produce identical rows
and trace hashes. Module map: :mod:`~simulator.kamoul.kernel_state` (the named state),
:mod:`~simulator.kamoul.hand_kernel` (a hand, K2–K14), :mod:`~simulator.kamoul.score_kernel` (the reveal),
:mod:`~simulator.kamoul.force_kernel` (the study hooks), :mod:`~simulator.kamoul.match_kernel` (K15–K16).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.block_kernel import block_games
from simulator.core.cards import DECK_SIZE
from simulator.core.jit import njit
from simulator.kamoul.kernel_state import (  # noqa: F401  (new_force, reset_force re-exported for the studies)
    Block, BlockRows, new_force, new_scratch, new_state, new_tally, reset_force,
)
from simulator.kamoul.match_kernel import play_block
from simulator.kamoul.records import LEVEL


@njit(parallel=True)
def simulate(seed, start, stop, level, rules_table, seats, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` at ``level`` (``records.LEVEL``) in ``n_blocks`` contiguous blocks (``prange``).

    ``rules_table``: :meth:`Rules.kernel <simulator.kamoul.rules.RulesMethods.kernel>`, read as the record
    ``rules`` in each block; ``sids`` ``int64[P]``, ``prm`` ``float64[P, K]``: the
    seats' strategy ids and parameters. Block ``b`` plays :func:`~simulator.core.block_kernel.block_games` (the
    split does not change any result).
    ``caps``/``n_cols``: ``int64[4]`` row capacity per block and columns, per table (``records.LEVELS`` order).
    Returns ``(hands int64[B, cap0, c0], estimates float64[B, cap0], traces uint64[B, cap0], manches int64[B, cap1,
    c1], parties int64[B, cap2, c2], tops int64[B, cap3, c3], counts int64[B, 4])``; rows past a block's count are
    uninitialised; a block whose count exceeds its capacity kept only the first ``cap`` rows (the caller retries).
    Ten arguments: the compiled entry point takes what Python hands it (the run, the variant, the seats, the
    block plan); everything inside goes by the named state.
    """
    P = seats.sids.shape[0]
    S = DECK_SIZE * rules_table[0].n_decks
    hands = np.empty((n_blocks, caps[LEVEL.hands], n_cols[LEVEL.hands]), dtype=np.int64)
    estimates = np.empty((n_blocks, caps[LEVEL.hands]), dtype=np.float64)
    traces = np.empty((n_blocks, caps[LEVEL.hands]), dtype=np.uint64)
    manches = np.empty((n_blocks, caps[LEVEL.manches], n_cols[LEVEL.manches]), dtype=np.int64)
    parties = np.empty((n_blocks, caps[LEVEL.parties], n_cols[LEVEL.parties]), dtype=np.int64)
    tops = np.empty((n_blocks, caps[LEVEL.tops], n_cols[LEVEL.tops]), dtype=np.int64)
    counts = np.zeros((n_blocks, 4), dtype=np.int64)
    for b in prange(n_blocks):
        rules = rules_table[0]
        rows = BlockRows(hands[b], estimates[b], traces[b], manches[b], parties[b], tops[b], counts[b])
        block = Block(new_state(P), new_scratch(P, S), new_tally(P), rows)
        first, end = block_games(start, stop, n_blocks, b)
        play_block(first, end, level, seed, rules, seats, block)
    return hands, estimates, traces, manches, parties, tops, counts
