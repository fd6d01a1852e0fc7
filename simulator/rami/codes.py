"""Integer codes shared by the Rami engines, strategies and records (no branches on strings in kernels).

Cards are ids ``suit*13 + rank`` (0–51) and ``JOKER = 52``; a hand is a count vector ``int8[53]``.
A table meld is the ``int8[5]`` code of :mod:`simulator.rami.melds`:
run ``(RUN, suit, start_rank, length, joker_slot)``, set ``(SET, rank, suit_mask, n_cards, joker_suit)``.
"""

from __future__ import annotations

import numpy as np

from simulator.core.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

from simulator.core.cards import JOKER
from simulator.core.jit import njit
from simulator.rami.melds_ref import JOKER_END_VALUE, RANK_VALUE

N_IDS = JOKER + 1          # 53 entries of a count vector
MAX_MELDS = 64             # table melds in one round (3 decks: at most 162 / 3 = 54)
MAX_MOVES = 5 * MAX_MELDS  # lay-off moves listed at once (layoffs_nb writes at most 5 per meld)

END_VALUE = np.array(list(RANK_VALUE) * 4 + [JOKER_END_VALUE], dtype=np.int64)
"""``int64[53]``: R13 value of each card id left in hand (ace 11, J/Q/K 10, joker 20)."""

# --- draw sources (R4/R5) ---------------------------------------------------------------------------
DRAW_STOCK, DRAW_DISCARD = 0, 1

# --- what an unopened player does after drawing (R7/R12) -------------------------------------------
OPEN_NONE, OPEN_OPEN, OPEN_SEC = 0, 1, 2

# --- lay-down plan of an opened player (R8) -------------------------------------------------------
LAY_NONE, LAY_ALL, LAY_KEEP_JOKERS = 0, 1, 2

# --- outcome kinds of a round (R11–R15) -------------------------------------------------------------
# OUT_CLAIM: a claimant went out on an R10 claim (only possible with the R5 option ``a_carte_claims``)
OUT_NORMAL, OUT_RAMI_SEC, OUT_TURN_CAP, OUT_BLOCKED, OUT_CLAIM = range(5)
OUTCOMES = ("out", "rami sec", "turn cap", "blocked", "out on claim")

# --- events of the trace (both engines hash the same sequence) -----------------------------------
# EV_OPEN: an R7 opening (p, points, melds); EV_RAMI_SEC: the R12 whole-hand lay-down (p, points, melds)
(EV_DEALER_DRAW, EV_DEALER, EV_DEAL, EV_DRAW, EV_TAKE, EV_OPEN, EV_MELD, EV_LAYOFF, EV_SWAP, EV_DISCARD,
 EV_CLAIM, EV_RESHUFFLE, EV_END, EV_RAMI_SEC) = range(14)

INT8_OFFSET, INT16_OFFSET = 1 << 7, 1 << 15


@njit
def meld_word(code):
    """A meld code ``int8[5]`` as one trace field: field ``i`` plus 128 (0–255 for every int8) in byte ``i``.

    Each field keeps a byte of its own, so two different codes give different words (40 bits, no overlap and
    no overflow whatever the values)."""
    word = 0
    for i in range(5):
        word |= (np.int64(code[i]) + INT8_OFFSET) << (8 * i)
    return word


@njit
def move_word(card, action, declared):
    """A lay-off or swap ``(card, action, declared)`` (fields of an ``int16`` move row) as one trace field:
    each plus 32768 (0–65535 for every int16) in 16 bits of its own (48 bits, injective)."""
    return ((np.int64(card) + INT16_OFFSET) | ((np.int64(action) + INT16_OFFSET) << 16)
            | ((np.int64(declared) + INT16_OFFSET) << 32))
