"""``random``: a uniformly random legal action at every decision.

Turn: uniform over the legal actions (KAMOUL, CONTRE, stock, discard). After a stock draw: uniform over
"discard it" and "keep it in slot k" for each own card. A power: used or not with probability 1/2,
targets uniform over legal ones; a king swap: 1/2. Snap windows are optional interrupts: with
probability ``snap_prob`` the player flips one uniformly chosen card it may flip.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.core.named import indices
from simulator.core.params import Param, ParamSet
from simulator.core.rng import below, uniform
from simulator.kamoul.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, SNAP_NONE,
    SNAP_OTHER, SNAP_OWN,
)
from strategies.kamoul.views import count_occupied, list_swap_targets, nth_occupied

PARAMS = ParamSet((
    Param("snap_prob", "float", 0.1, "probability of trying a snap in each window", 0.0, 1.0),
    Param("speed", "float", 1.0, "reaction rate in snap races (race_policy=speed_weighted)", 0.01, 100.0, ability=True),
), what="parameter")
RP = indices("RandomParams", PARAMS.names())
"""Parameter positions in ``prm`` (``prm[RP.snap_prob]``), from ``PARAMS``."""


@njit(refcount=False, inline="always")
def peeks(prm, me, n, occ, nslots, rng, out):
    total = count_occupied(me, occ, nslots)
    for k in range(n):
        out[k] = -1
    chosen = 0
    while chosen < n and chosen < total:
        s = nth_occupied(me, occ, nslots, below(rng, total))
        dup = False
        for k in range(chosen):
            if out[k] == s:
                dup = True
        if not dup:
            out[chosen] = s
            chosen += 1
    return chosen


@njit(refcount=False, inline="always")
def turn(prm, me, can_call, can_contre, can_take, rng):
    options = 1 + int(can_call) + int(can_contre) + int(can_take)
    k = below(rng, options)
    if can_call:
        if k == 0:
            return ACT_CALL
        k -= 1
    if can_contre:
        if k == 0:
            return ACT_CONTRE
        k -= 1
    if k == 0:
        return ACT_STOCK
    return ACT_TAKE


@njit(refcount=False, inline="always")
def take_slot(prm, me, occ, nslots, rng):
    return nth_occupied(me, occ, nslots, below(rng, count_occupied(me, occ, nslots)))


@njit(refcount=False, inline="always")
def keep(prm, me, occ, nslots, rng):
    k = below(rng, count_occupied(me, occ, nslots) + 1)
    if k == 0:
        return -1
    return nth_occupied(me, occ, nslots, k - 1)


@njit(refcount=False, inline="always")
def power(prm, me, P, kind, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out):
    """Fill ``out`` = (p1, s1, p2, s2) and return True to use the power of ``kind``."""
    if below(rng, 2) == 0:
        return False
    half = tmp.shape[0] // 2
    tp = tmp[:half]
    ts = tmp[half:]
    if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
        n = 0
        for p in range(P):
            if (kind == POWER_PEEK_OWN) != (p == me):
                continue
            for s in range(nslots[p]):
                if occ[p, s] and faceup[p, s] == 0:
                    tp[n] = p
                    ts[n] = s
                    n += 1
        if n == 0:
            return False
        k = below(rng, n)
        out[0] = tp[k]
        out[1] = ts[k]
        return True
    if kind == POWER_SWAP or kind == POWER_KING:
        if own_vs_opp:
            n_own = list_swap_targets(P, occ, nslots, faceup, locked, 1, me, tp, ts)
            if n_own == 0:
                return False
            k = below(rng, n_own)
            out[0] = tp[k]
            out[1] = ts[k]
            n_opp = list_swap_targets(P, occ, nslots, faceup, locked, 2, me, tp, ts)
            if n_opp == 0:
                return False
            k = below(rng, n_opp)
            out[2] = tp[k]
            out[3] = ts[k]
            return True
        n = list_swap_targets(P, occ, nslots, faceup, locked, 0, me, tp, ts)
        if n < 2:
            return False
        a = below(rng, n)
        b = below(rng, n - 1)
        if b >= a:
            b += 1
        out[0] = tp[a]
        out[1] = ts[a]
        out[2] = tp[b]
        out[3] = ts[b]
        return True
    return False


@njit(refcount=False, inline="always")
def king_swap(prm, rng):
    return below(rng, 2) == 1


@njit(refcount=False, inline="always")
def snap(prm, me, P, occ, nslots, faceup, allow_others, locked, rng, tmp, out):
    """``SNAP_OWN`` with out = (1, slot), ``SNAP_OTHER`` with out = (player, slot, give_slot), or ``SNAP_NONE``."""
    if uniform(rng) >= prm[RP.snap_prob]:
        return SNAP_NONE
    half = tmp.shape[0] // 2
    tp = tmp[:half]
    ts = tmp[half:]
    n = 0
    own = count_occupied(me, occ, nslots)
    for p in range(P):
        if p != me and (not allow_others or own == 0 or p == locked):
            continue
        for s in range(nslots[p]):
            if occ[p, s] and faceup[p, s] == 0:
                tp[n] = p
                ts[n] = s
                n += 1
    if n == 0:
        return SNAP_NONE
    k = below(rng, n)
    if tp[k] == me:
        out[0] = 1
        out[1] = ts[k]
        return SNAP_OWN
    out[0] = tp[k]
    out[1] = ts[k]
    out[2] = nth_occupied(me, occ, nslots, below(rng, own))
    return SNAP_OTHER
