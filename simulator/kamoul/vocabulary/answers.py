"""The engines' check of every strategy answer (the Kamoul contract's legal choices), and its one-line report.

``legal_<decision>(fault, me, answer, <what the answer is checked against>)`` returns True for a legal answer;
for an illegal one it writes a *fault record* (:mod:`simulator.core.kernels.faults`) into ``fault``, if none is recorded
yet, and returns False. The same functions run in both engines: compiled in the kernel's dispatch to a user's
strategy, and as plain Python in the reference engine for every seat, built-in or file. They accept exactly the
answers built from the engine's legal lists (:mod:`simulator.kamoul.vocabulary.legal`). :func:`describe` turns a
record into the line the user reads, naming the strategy, the seat, the decision, the answer, the rule broken and
what was legal; :class:`StrategyError` carries it (exit 2).

In a record, ``decision`` is 1 + the index in :data:`DECISION_ORDER`, ``reason`` one of ``R_*``, and the context
words are the turn's legal actions as a bit mask, the own occupied positions as a bit mask, or the ``out`` words
of a power or a snap.
"""

from __future__ import annotations

import math

import numpy as np

from simulator.core.kernels import faults
from simulator.core.kernels.faults import F_ANSWER, F_CONTEXT, F_REASON, record
from simulator.core.kernels.faults import StrategyError, new_fault  # noqa: F401  (re-exported with the contract)
from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, POWER_KING, POWER_NAMES, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP,
    SNAP_NONE, SNAP_OTHER, SNAP_OWN,
)

DECISION_ORDER = ("peeks", "turn", "take_slot", "keep", "power", "king_swap", "snap", "estimate", "forget",
                  "memory_noise", "speed")
D = {name: i + 1 for i, name in enumerate(DECISION_ORDER)}
D_PEEKS, D_TURN, D_TAKE_SLOT, D_KEEP, D_POWER, D_KING_SWAP, D_SNAP, D_ESTIMATE, D_FORGET, D_MEMORY_NOISE, D_SPEED = range(1, 12)

(R_COUNT, R_SLOT, R_ACTION, R_NOT_NOW, R_TARGET, R_FACE_UP, R_LOCKED, R_SAME, R_SCOPE, R_PEEK_SIDE, R_SNAP_KIND,
 R_OTHERS_OFF, R_SELF, R_GIVE, R_DUPLICATE, R_PROBABILITY, R_RATE) = range(1, 18)
REASONS = {
    R_COUNT: "is not a count between 0 and the positions allowed",
    R_SLOT: "is not an own position holding a card",
    R_ACTION: "is no action",
    R_NOT_NOW: "is not allowed at this turn",
    R_TARGET: "names a position holding no card",
    R_FACE_UP: "names a face-up card",
    R_LOCKED: "names the caller's locked layout (caller_immune)",
    R_SAME: "swaps a card with itself",
    R_SCOPE: "needs one own card and one opponent's (swap_scope=own_vs_opponent)",
    R_PEEK_SIDE: "looks at the wrong side (the 7/8 look at an own card, the 9/10 at an opponent's)",
    R_SNAP_KIND: "is no snap kind",
    R_OTHERS_OFF: "flips an opponent's card, which this rule set does not allow (snap_others=false)",
    R_SELF: "flips an own card as an opponent's",
    R_GIVE: "gives an own position holding no card",
    R_DUPLICATE: "names the same position twice",
    R_PROBABILITY: "is not a probability in [0, 1]",
    R_RATE: "is not a rate > 0",
}
ACTION_NAMES = {ACT_STOCK: "draw from the stock", ACT_TAKE: "take the discard", ACT_CALL: "call KAMOUL",
                ACT_CONTRE: "contre"}


@njit(refcount=False)
def own_mask(me, occ, nslots):
    """``int64``: bit ``s`` set for each own position ``s < 63`` holding a card."""
    mask = 0
    for s in range(min(nslots[me], 63)):
        if occ[me, s]:
            mask |= 1 << s
    return mask


@njit(refcount=False)
def first_own(me, occ, nslots):
    """The first own position holding a card (the take's fallback answer; the take needs one)."""
    for s in range(nslots[me]):
        if occ[me, s]:
            return s
    return 0


@njit(refcount=False)
def _holds(occ, nslots, q, s):
    return 0 <= q < occ.shape[0] and 0 <= s < nslots[q] and occ[q, s] != 0


@njit(refcount=False)
def legal_peeks(fault, me, k, n, occ, nslots, out):
    """K2: ``k`` in ``[0, n]``, ``out[:k]`` own positions holding a card."""
    if k < 0 or k > n:
        return record(fault, D_PEEKS, me, R_COUNT, k, n, own_mask(me, occ, nslots), 0, 0, 0, 0)
    for i in range(k):
        if not _holds(occ, nslots, me, out[i]):
            return record(fault, D_PEEKS, me, R_SLOT, k, n, own_mask(me, occ, nslots), out[i], 0, 0, 0)
    return True


@njit(refcount=False)
def legal_turn(fault, me, act, can_call, can_contre, can_take):
    """K4/K8/K9: the stock always; the discard if ``can_take``; KAMOUL if ``can_call``; CONTRE if ``can_contre``."""
    mask = ((1 << ACT_STOCK) | (int(can_take) << ACT_TAKE) | (int(can_call) << ACT_CALL)
            | (int(can_contre) << ACT_CONTRE))
    if act != ACT_STOCK and act != ACT_TAKE and act != ACT_CALL and act != ACT_CONTRE:
        return record(fault, D_TURN, me, R_ACTION, act, mask, 0, 0, 0, 0, 0)
    if not (mask >> act) & 1:
        return record(fault, D_TURN, me, R_NOT_NOW, act, mask, 0, 0, 0, 0, 0)
    return True


@njit(refcount=False)
def legal_slot(fault, decision, me, slot, may_discard, occ, nslots):
    """K4(c)/(d): an own position holding a card, or ``-1`` (discard the drawn card) when ``may_discard``."""
    if (slot == -1 and may_discard) or _holds(occ, nslots, me, slot):
        return True
    return record(fault, decision, me, R_SLOT, slot, own_mask(me, occ, nslots), int(may_discard), 0, 0, 0, 0)


@njit(refcount=False)
def _target(q, s, occ, nslots, faceup, locked):
    """A swap or snap target: a face-down card not in the locked layout; 0 if legal, else the reason."""
    if not _holds(occ, nslots, q, s):
        return R_TARGET
    if faceup[q, s]:
        return R_FACE_UP
    if q == locked:
        return R_LOCKED
    return 0


@njit(refcount=False)
def legal_power(fault, me, used, kind, locked, own_vs_opp, occ, nslots, faceup, out):
    """K5: a look at one face-down card of the right side; a swap (J/Q) or king of two distinct face-down cards outside the
    locked layout, one own and one opponent's under ``swap_scope=own_vs_opponent``.

    Ten parameters: the contract's check expression passes the engine's arguments as they are."""
    if not used:
        return True
    p1, s1 = out[0], out[1]
    if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
        if not _holds(occ, nslots, p1, s1):
            return record(fault, D_POWER, me, R_TARGET, 1, kind, p1, s1, 0, 0, locked)
        if faceup[p1, s1]:
            return record(fault, D_POWER, me, R_FACE_UP, 1, kind, p1, s1, 0, 0, locked)
        if (p1 == me) != (kind == POWER_PEEK_OWN):
            return record(fault, D_POWER, me, R_PEEK_SIDE, 1, kind, p1, s1, 0, 0, locked)
        return True
    p2, s2 = out[2], out[3]
    for q, s in ((p1, s1), (p2, s2)):
        reason = _target(q, s, occ, nslots, faceup, locked)
        if reason != 0:
            return record(fault, D_POWER, me, reason, 1, kind, p1, s1, p2, s2, locked)
    if p1 == p2 and s1 == s2:
        return record(fault, D_POWER, me, R_SAME, 1, kind, p1, s1, p2, s2, locked)
    if own_vs_opp and (p1 == me) == (p2 == me):
        return record(fault, D_POWER, me, R_SCOPE, 1, kind, p1, s1, p2, s2, locked)
    return True


@njit(refcount=False)
def legal_snap(fault, me, kind, allow_others, locked, occ, nslots, faceup, out):
    """K6: none; own face-down cards (``out = (k, slot_1..slot_k)``, ``k >= 1``, distinct); or, with
    ``snap_others``, an opponent's face-down card outside the locked layout and an own position to give
    (``out = (player, slot, own slot)``).

    Nine parameters: the contract's check expression passes the engine's arguments as they are."""
    if kind == SNAP_NONE:
        return True
    if kind == SNAP_OWN:
        k = out[0]
        if k < 1 or k > out.shape[0] - 1:
            return record(fault, D_SNAP, me, R_COUNT, kind, k, 0, 0, 0, 0, locked)
        for i in range(k):
            s = out[1 + i]
            reason = _target(me, s, occ, nslots, faceup, -1)
            if reason != 0:
                return record(fault, D_SNAP, me, reason, kind, k, me, s, 0, 0, locked)
            for j in range(i):
                if out[1 + j] == s:
                    return record(fault, D_SNAP, me, R_DUPLICATE, kind, k, me, s, 0, 0, locked)
        return True
    if kind != SNAP_OTHER:
        return record(fault, D_SNAP, me, R_SNAP_KIND, kind, 0, 0, 0, 0, 0, locked)
    tp, ts, give = out[0], out[1], out[2]
    if not allow_others:
        return record(fault, D_SNAP, me, R_OTHERS_OFF, kind, tp, ts, give, 0, 0, locked)
    if tp == me:
        return record(fault, D_SNAP, me, R_SELF, kind, tp, ts, give, 0, 0, locked)
    reason = _target(tp, ts, occ, nslots, faceup, locked)
    if reason != 0:
        return record(fault, D_SNAP, me, reason, kind, tp, ts, give, 0, 0, locked)
    if not _holds(occ, nslots, me, give):
        return record(fault, D_SNAP, me, R_GIVE, kind, tp, ts, give, 0, 0, locked)
    return True


@njit(refcount=False)
def legal_rate(fault, decision, me, value):
    """K13 ``forget``/``memory_noise``: a probability; the snap race's ``speed``: a rate > 0 (both finite)."""
    if decision == D_SPEED:
        if not (value > 0.0 and value < math.inf):
            return record(fault, decision, me, R_RATE, int(value * 1000) if value == value and abs(value) < 1e15
                           else 0, 0, 0, 0, 0, 0, 0)
        return True
    if not (0.0 <= value <= 1.0):
        return record(fault, decision, me, R_PROBABILITY, int(value * 1000) if value == value and abs(value) < 1e15
                       else 0, 0, 0, 0, 0, 0, 0)
    return True


def _positions(mask: int) -> str:
    slots = [str(s) for s in range(63) if (mask >> s) & 1]
    return ", ".join(slots) if slots else "none"


def _answer_and_legal(decision: str, fault: np.ndarray) -> tuple[str, str]:
    answer, w = int(fault[F_ANSWER]), [int(x) for x in fault[F_CONTEXT:]]
    if decision == "turn":
        legal = [f"{a} ({ACTION_NAMES[a]})" for a in sorted(ACTION_NAMES) if (w[0] >> a) & 1]
        return f"{answer}", ", ".join(legal)
    if decision in ("take_slot", "keep"):
        legal = f"own positions {_positions(w[0])}" + (" or -1 (discard the drawn card)" if w[1] else "")
        return f"{answer}", legal
    if decision == "peeks":
        return (f"{answer} positions" + (f" (position {w[2]})" if fault[F_REASON] == R_SLOT else ""),
                f"at most {w[0]} of own positions {_positions(w[1])}")
    if decision == "power":
        kind = w[0]
        what = f"{POWER_NAMES[kind]} on P{w[1]} position {w[2]}" + (
            f" and P{w[3]} position {w[4]}" if kind in (POWER_SWAP, POWER_KING) else "")
        if kind in (POWER_PEEK_OWN, POWER_PEEK_OPP):
            side = "an own card" if kind == POWER_PEEK_OWN else "an opponent's card"
            return what, f"pass, or a look at {side} lying face down"
        caller = w[-1]  # the last context word of a power: the locked layout's player
        locked = f", not P{caller}'s (the caller)" if caller >= 0 else ""
        return what, f"pass, or two distinct face-down cards{locked}"
    if decision == "snap":
        kind = answer
        if kind == SNAP_OWN:
            return f"own snap of {w[0]} card(s), position {w[2]}", "own face-down positions, each once"
        if kind == SNAP_OTHER:
            return (f"snap of P{w[0]} position {w[1]} giving own position {w[2]}",
                    "none, own face-down cards, or an opponent's face-down card and an own position to give")
        return f"{kind}", f"{SNAP_NONE} (none), {SNAP_OWN} (own cards), {SNAP_OTHER} (an opponent's card)"
    if decision == "speed":
        return f"{answer / 1000:g}", "a finite rate > 0"
    return f"{answer / 1000:g}", "a probability in [0, 1]"


def describe(fault: np.ndarray, label: str) -> str:
    """The one line for a Kamoul fault record (:func:`simulator.core.kernels.faults.fault_line`)."""
    return faults.fault_line(fault, label, DECISION_ORDER, REASONS, _answer_and_legal)


def raise_fault(fault: np.ndarray, labels) -> None:
    """Raise :class:`StrategyError` for a recorded Kamoul fault (``labels``: each seat's strategy label, a list or
    a dict by seat); no-op without one."""
    faults.raise_fault(fault, labels, describe)
