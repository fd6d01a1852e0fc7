"""Integer codes shared by the Kem's engines, strategies and records (no branches on strings in kernels).

Cards are ids ``suit*13 + rank`` (0–51). A hand is ``int64[4]`` card ids, the centre ``int64[4]`` card ids
with ``EMPTY`` for a free slot. Public knowledge of where a card is: ``loc[c]`` = a seat (the card was seen
going into that hand and has not left it), ``LOC_TABLE``, ``LOC_DEAD`` (seen going into the hidden discard)
or ``LOC_UNKNOWN``.
"""

from __future__ import annotations

from simulator.core.kernels.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

EMPTY = -1
LOC_UNKNOWN, LOC_TABLE, LOC_DEAD = -1, 6, 7

# --- phases of a manche (§3.2) --------------------------------------------------------------------
PH_TURN_UP, PH_OPEN, PH_SWEEP = range(3)

# --- calls (KM8–KM11) ---------------------------------------------------------------------------
CALL_KEMS, CALL_CONTRE = 0, 1
WHY_SIGN, WHY_INFERENCE, WHY_FALSE = 0, 1, 2   # what made a player call

# --- how a manche ended ---------------------------------------------------------------------------
OUT_KEMS, OUT_DOUBLE, OUT_WRONG_KEMS, OUT_CONTRE, OUT_CAP = range(5)
OUTCOMES = ("kems", "double", "wrong kems", "contre", "cap")

# --- M-perception ---------------------------------------------------------------------------------
VISIBLE_BEFORE_DEAL = -(1 << 40)   # the tick "from" which the empty public state before the deal is visible

# --- events of the trace (both engines hash the same sequence) -------------------------------------
# Each event is (kind, a, b, c), every field an integer folded whole by simulator.core.kernels.trace (no packing):
#   EV_DEAL (seat, hand slot, card), one per card dealt, and per card drawn after a KM3 re-deal;
#   EV_REDEAL (seat, rank shown); EV_TURN_UP (centre slot, card); EV_TOP (tick); EV_SWAP (seat, card taken,
#   card given: the centre slot is the taken card's, the hand slot the given card's); EV_SWEEP (tick);
#   EV_RESHUFFLE (cards shuffled); EV_FOUR (seat, rank); EV_SIGN (holder, bit mask of the seats that saw it);
#   EV_CALL (caller, CALL_KEMS or CALL_CONTRE, points: 0 wrong, 1, or 2 for a double); EV_END (outcome,
#   caller or -1, ticks).
(EV_DEAL, EV_REDEAL, EV_TURN_UP, EV_TOP, EV_SWAP, EV_SWEEP, EV_RESHUFFLE, EV_FOUR, EV_SIGN, EV_CALL,
 EV_END) = range(11)
