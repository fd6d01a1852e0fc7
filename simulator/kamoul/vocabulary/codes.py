"""Integer codes shared by the Kamoul engines, strategies and records (no branches on strings in kernels)."""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

from simulator.core.cards import DECK_SIZE, N_RANKS
from simulator.core.kernels.jit import njit

# --- rule values, each named once with its rule number (docs/rules/kamoul.md) -----------------------
RED_KING_VALUE = 0  # K1: a red king (diamonds, hearts) is worth 0
BLACK_KING_VALUE = 15  # K1: a black king (clubs, spades) is worth 15
KING_RANK = 12  # K1/K5: rank index of the kings
CALL_MAX = 5  # K8/K10: a normal KAMOUL (or CONTRE) is valid at a total of at most 5
NORMAL_WIN_POINTS = -5  # K11: the winner of a normal KAMOUL scores -5
AU_SCORE_HIGH = 15  # K11: at a cumulative >= 15, a total equal to the cumulative is an au-score
AU_SCORE_LOW = -15  # K11: at a cumulative <= -15, a total of AU_SCORE_TOTAL is an au-score
AU_SCORE_TOTAL = 30  # K11: the total of the low au-score (exactly, or at least with au_score_30=ge)
AU_RESET_CUM = 0  # K11: a high au-score resets the cumulative to 0
AU_WIN_CUM = -31  # K11: a low au-score sets the cumulative to -31, which wins the manche (K15)
ULTIME_POINTS = -15  # K7: the KAMOUL ULTIME player scores -15
DUTCH_FALSE_EXTRA = 10  # K12 false_call_mode=dutch: a false announcer adds 10 to its hand
MANCHE_HIGH = 31  # K15: a cumulative above 31 ends the manche
MANCHE_LOW = -31  # K15: a cumulative at or below -31 ends the manche
DOUBLE_CREDIT = 2  # K15 special case: a -31 in the hand where another passes 31 counts 2 manches
BEST_OF = 3  # K16: a partie is at most 3 manches, a TOP at most 3 parties
WINS_NEEDED = 2  # K16: first to 2 manches (parties) wins the partie (TOP)
STICK_MORE_PROB = 0.2  # K13 physical layer: stuck cards are 1 + Geom(0.8): one more with this probability

# --- card values (K1, seed table): A=1, 2–10 face, J=Q=1, red K=0, black K=15 ----------------------
_RANK_VALUE = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 1, None)
CARD_VALUE = np.array(
    [(_RANK_VALUE[c % N_RANKS] if c % N_RANKS != KING_RANK
      else (RED_KING_VALUE if c // N_RANKS in (1, 2) else BLACK_KING_VALUE)) for c in range(DECK_SIZE)],
    dtype=np.int64,
)
"""``int64[52]``: Kamoul points of each card id."""
DECK_MEAN_VALUE = float(CARD_VALUE.mean())


@njit(inline="llvm")
def is_au_score(total, cum, au_ge):
    """K11: a hand total ``total`` at cumulative ``cum`` is a valid au-score (``au_ge``: ``au_score_30=ge``).
    The one statement of the rule: both engines and the strategies call it."""
    if cum >= AU_SCORE_HIGH:
        return total == cum
    return cum <= AU_SCORE_LOW and (total == AU_SCORE_TOTAL or (au_ge and total >= AU_SCORE_TOTAL))


@njit(inline="llvm")
def announcement_class(total, cum, au_ge):
    """K10/K11/K12: ``CLS_NORMAL`` (total <= CALL_MAX), ``CLS_AU`` (a valid au-score) or ``CLS_FALSE``."""
    if total <= CALL_MAX:
        return CLS_NORMAL
    if is_au_score(total, cum, au_ge):
        return CLS_AU
    return CLS_FALSE


@njit(inline="llvm")
def ends_manche(cum):
    """K15: a cumulative that ends the manche (above MANCHE_HIGH or at most MANCHE_LOW)."""
    return cum > MANCHE_HIGH or cum <= MANCHE_LOW


# --- powers of a stock card discarded directly (K5) -------------------------------------------------
POWER_NONE, POWER_PEEK_OWN, POWER_PEEK_OPP, POWER_SWAP, POWER_KING = 0, 1, 2, 3, 4
POWER_NAMES = ("none", "peek own", "peek opponent", "blind swap", "king look-and-swap")
POWER_USES = ("peeks", "jq_swaps", "red_king_looks", "black_king_looks", "king_swaps")
"""The hand row's counts of card powers used (K5): 7-10 looks, J/Q blind swaps, red and black king looks, and the
king looks that ended in a swap."""
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


@njit(inline="llvm")
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

