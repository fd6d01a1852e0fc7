"""Integer codes shared by the Kem's engines, strategies and records (no branches on strings in kernels).

Cards are ids ``suit*13 + rank`` (0–51). A hand is ``int64[4]`` card ids, the centre ``int64[4]`` card ids
with ``EMPTY`` for a free slot. Public knowledge of where a card is: ``loc[c]`` = a seat (the card was seen
going into that hand and has not left it), ``LOC_TABLE``, ``LOC_DEAD`` (seen going into the hidden discard)
or ``LOC_UNKNOWN``.
"""

from __future__ import annotations

from simulator.core.trace import FNV_PRIME, MASK64, TRACE_SEED, trace_py  # noqa: F401  (re-exported)

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

# --- events of the trace (both engines hash the same sequence) -------------------------------------
(EV_DEAL, EV_REDEAL, EV_TURN_UP, EV_TOP, EV_SWAP, EV_SWEEP, EV_RESHUFFLE, EV_FOUR, EV_SIGN, EV_CALL,
 EV_END) = range(11)
