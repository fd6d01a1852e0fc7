"""Integer codes shared by the Kamoul engines, strategies and records (no branches on strings in kernels)."""

from __future__ import annotations

import numpy as np

from simulator.core.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

from simulator.core.cards import DECK_SIZE, N_RANKS
from simulator.core.jit import njit

# --- card values (K1, seed table): A=1, 2–10 face, J=Q=1, red K=0, black K=15 ----------------------
_RANK_VALUE = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1, -1)
CARD_VALUE = np.array(
    [(_RANK_VALUE[c % N_RANKS] if c % N_RANKS != 12 else (0 if c // N_RANKS in (1, 2) else 15)) for c in range(DECK_SIZE)],
    dtype=np.int64,
)
"""``int64[52]``: Kamoul points of each card id."""
DECK_MEAN_VALUE = float(CARD_VALUE.mean())

# --- powers of a stock card discarded directly (K5) -------------------------------------------------
POWER_NONE, POWER_PEEK_OWN, POWER_PEEK_OPP, POWER_SWAP, POWER_KING = 0, 1, 2, 3, 4
POWER_NAMES = ("none", "peek own", "peek opponent", "blind swap", "king look-and-swap")
RANK_POWER = np.array([0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4], dtype=np.int64)
"""``int64[13]``: power of each rank (7/8 peek own, 9/10 peek opponent, J/Q swap, K look and swap)."""

# --- turn actions (K4) ------------------------------------------------------------------------------
ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE = 0, 1, 2, 3

# --- snap choices (K6) ------------------------------------------------------------------------------
SNAP_NONE, SNAP_OWN, SNAP_OTHER = 0, 1, 2

# --- outcome kinds of a hand (K7–K14) --------------------------------------------------------------
OUT_NORMAL, OUT_FALSE, OUT_CONTRE_WON, OUT_CONTRE_LOST, OUT_ULTIME, OUT_AU_RESET, OUT_AU_M31, OUT_NO_CALL, OUT_BEATEN = range(9)
OUTCOMES = (
    "normal", "false call", "contre won", "contre lost", "ultime", "au-score reset", "au-score -31",
    "no call", "call beaten",
)

# --- announcement classes at reveal (K10) ------------------------------------------------------------
CLS_FALSE, CLS_AU, CLS_NORMAL = 0, 1, 2

# --- events of the trace (both engines hash the same sequence) -----------------------------------
(EV_DEAL, EV_PEEK, EV_DRAW, EV_KEEP, EV_DISCARD, EV_TAKE, EV_POWER, EV_SWAP, EV_SNAP_OK, EV_SNAP_BAD,
 EV_PENALTY, EV_CALL, EV_CONTRE, EV_ULTIME, EV_RESHUFFLE, EV_FORGET, EV_REORDER, EV_FALSE_SHOWN, EV_END,
 EV_MISREMEMBER) = range(20)

# --- imperfect memory (K13 "carte retournée", INTERPRETATION §4 ``memory_noise``) --------------------
WRONG_RANKS = N_RANKS - 1
"""A misremembered card takes one of the ``WRONG_RANKS`` ranks other than the remembered one, uniformly."""


@njit(inline="always")
def misremembered(card, k):
    """The card (``int64``) a player wrongly believes it saw instead of ``card`` (``0 <= k < WRONG_RANKS``): the
    same suit, the rank moved on by ``1 + k`` (mod 13), so never the remembered rank. Both engines call it."""
    return (card // N_RANKS) * N_RANKS + (card % N_RANKS + 1 + k) % N_RANKS


PENALTY_SNAP, PENALTY_STUCK, PENALTY_OUT_OF_TURN, PENALTY_REORDER, PENALTY_FALSE = 1, 2, 3, 4, 5


# --- counterfactual rollouts (Study 1): the ``force`` array of a hand --------------------------------
# Inputs: the focal player, the own turn at which to intervene, what to do there (MODE_*), whether the focal
# player may call before that turn (0) or not (1), and an optional layout to impose at that turn: FC_N_KNOWN
# cards it knows, given as rank codes (RANK_CODES) in FC_SPEC.., then FC_N_UNKNOWN cards it has not seen
# (FC_N_KNOWN = -1: impose nothing). Outputs, written by the hand: whether the turn was reached with a call
# allowed, the focal player's first and last own turns at which a call was allowed, its belief at the
# decision (known points, unseen cards, cards), its true total, whether its strategy would have called,
# whether the imposed layout could not be dealt from the stock.
FC_PLAYER, FC_TURN, FC_MODE, FC_SUPPRESS, FC_N_KNOWN, FC_N_UNKNOWN, FC_SPEC = range(7)
FC_SPEC_MAX = 8
(FC_REACHED, FC_FIRST, FC_LAST, FC_KNOWN, FC_UNKNOWN, FC_CARDS, FC_TOTAL, FC_NATURAL_CALL,
 FC_IMPOSE_FAILED) = range(FC_SPEC + FC_SPEC_MAX, FC_SPEC + FC_SPEC_MAX + 9)
FC_LEN = FC_IMPOSE_FAILED + 1
MODE_NATURAL, MODE_CALL, MODE_PLAY_ON = 0, 1, 2
RANK_CODES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "RK", "BK")
"""Rank codes of an imposed card: ``A``…``Q`` by rank (any suit), ``RK`` a red king (0 points), ``BK`` a black
king (15 points)."""
RANK_CODE_RED_KING, RANK_CODE_BLACK_KING = 12, 13

