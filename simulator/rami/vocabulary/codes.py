"""Integer codes shared by the Rami engines, strategies and records (no branches on strings in kernels).

Cards are ids ``suit*13 + rank`` (0–51) and ``JOKER = 52``; a hand is a count vector ``int8[53]``.
A table meld is the ``int8[5]`` code of :mod:`simulator.rami.vocabulary.melds`:
run ``(RUN, suit, start_rank, length, joker_slot)``, set ``(SET, rank, suit_mask, n_cards, joker_suit)``.
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

from simulator.core.cards import DECK_SIZE, JOKER
from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.rami.vocabulary.melds_ref import JOKER_END_VALUE, RANK_VALUE

N_IDS = JOKER + 1          # 53 entries of a count vector

# --- rule constants (docs/rules/rami.md), each named once with its rule number ----------------------
JOKERS_PER_DECK = 2                       # R1: each deck is 52 cards and two jokers
DECK_CARDS = DECK_SIZE + JOKERS_PER_DECK  # R1: 54 cards a deck
MAX_DECKS = 3                             # R1: three decks for 6 players and more
HAND_CARDS = 13                           # R2: cards dealt to each player (the first player gets one more)
DEALT_BEYOND_HANDS = 2                    # R2: the first player's extra card and the discard turned up
TAKE_FROM_TURN = 2                        # R5: the discard may be taken from a player's 2nd own turn on
A_CARTE = 1                               # R5: a player holding one card ("à carte") never takes the discard
MIN_MELD_CARDS = 3                        # R6: a combination holds at least three cards
OPENING_POINTS = 51                       # R7: what the first lay-down must total
KEPT_FOR_DISCARD = 1                      # R11 (final_discard_required): the card kept for the last discard
MAX_CARD_VALUE = JOKER_END_VALUE          # R13: the highest value a card left in hand has (a joker, 20)
RAMI_SEC_HAND_FACTOR = 2                  # R12: after a rami sec an opened player scores twice their hand
RAMI_SEC_UNOPENED = 200                   # R12: what each player who had not opened scores after a rami sec
TARGET = 1000                             # R15: the game ends when someone reaches this many points
MAX_TURNS_PER_ROUND = 2000                # R15 guard: a round ends with no winner after this many turns
MAX_ROUNDS = 1000                         # R15 guard: a game stops after this many rounds (odd options only)
MAX_STEPS = 400                           # lay-off steps in one turn (each lays a card: never reached)
MAX_MELDS = 64             # table melds in one round (3 decks: at most 162 / 3 = 54)
MAX_MOVES = 5 * MAX_MELDS  # lay-off moves listed at once (layoffs_nb writes at most 5 per meld)

MELD = indices("MeldCode", ("kind", "key", "low", "n_cards", "joker"))
"""Fields of an ``int8[5]`` meld code: ``kind`` RUN/SET; ``key`` a run's suit / a set's rank; ``low`` a run's first
rank / a set's suit mask; ``n_cards``; ``joker`` a run's joker slot / a set's joker suit (-1 none)."""
MOVE = indices("Move", ("card", "meld", "action", "declared"))
"""Fields of an ``int16[4]`` lay-off row of :func:`simulator.rami.vocabulary.melds.layoffs_nb`."""

END_VALUE = np.array(list(RANK_VALUE) * 4 + [JOKER_END_VALUE], dtype=np.int64)
"""``int64[53]``: R13 value of each card id left in hand (ace 11, J/Q/K 10, joker 20)."""

# --- draw sources (R4/R5) ---------------------------------------------------------------------------
DRAW_STOCK, DRAW_DISCARD = 0, 1

# --- what an unopened player does after drawing (R7/R12) -------------------------------------------
OPEN_NONE, OPEN_OPEN, OPEN_SEC = 0, 1, 2

# --- which opening an unopened player lays once it opens (R7): simulator.rami.vocabulary.melds.opening_nb ----------------
OPENING_BEST, OPENING_SMALLEST, OPENING_LARGEST, OPENING_KEEP_JOKERS = 0, 1, 2, 3

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
