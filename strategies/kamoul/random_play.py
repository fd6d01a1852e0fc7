"""``random``: a uniformly random legal answer at every decision, drawn from the engine's legal lists.

Each decision draws uniformly from the list :mod:`simulator.kamoul.vocabulary.legal` fills (in ``tmp``): the turn's
actions; after a stock draw, "discard it" or "keep it in position k"; the position a taken card replaces; the
initial peeks, distinct own positions. A power: used or not with probability 1/2, then targets uniform over its
list (two distinct cards for a swap or a king, one own and one opponent's under ``own_vs_opponent``); a king
swap: 1/2. Snap windows are optional interrupts: with probability ``snap_prob`` the player flips one card drawn
from its snap list (an opponent's card gives an own card drawn from its own cards). Being uniform over what the
engine lists, it is also the tests' probe of every legal answer.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.kernels.rng import below, uniform
from simulator.core.params import Param, ParamSet
from simulator.kamoul.vocabulary.codes import (
    POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, SNAP_NONE, SNAP_OTHER, SNAP_OWN,
)
from simulator.kamoul.vocabulary.legal import (
    WHO_ALL, WHO_OPPONENTS, WHO_OWN, keep_choices, look_targets, own_cards, snap_targets, swap_targets, turn_actions,
)

PARAMS = ParamSet((
    Param("snap_prob", "float", 0.1, "probability of trying a snap in each window", 0.0, 1.0),
    Param("speed", "float", 1.0, "reaction rate in snap races (race_policy=speed_weighted)", 0.01, 100.0, ability=True),
), what="parameter")
RP = indices("RandomParams", PARAMS.names())
"""Parameter positions in ``prm`` (``prm[RP.snap_prob]``), from ``PARAMS``."""



@njit(inline="llvm")
def _halves(tmp):
    """Two ``int64`` lists in ``tmp``: the players and the positions of a list of cards."""
    half = tmp.shape[0] // 2
    return tmp[:half], tmp[half:]


@njit(inline="llvm")
def peeks(prm, me, n, occ, nslots, rng, tmp, out):
    """K2: up to ``n`` distinct own positions, each drawn uniformly (a repeat is drawn again)."""
    total = own_cards(me, occ, nslots, tmp)
    for k in range(n):
        out[k] = -1
    chosen = 0
    while chosen < n and chosen < total:
        s = tmp[below(rng, total)]
        dup = False
        for k in range(chosen):
            if out[k] == s:
                dup = True
        if not dup:
            out[chosen] = s
            chosen += 1
    return chosen


@njit(inline="llvm")
def turn(prm, me, can_call, can_contre, can_take, rng, tmp):
    return tmp[below(rng, turn_actions(can_call, can_contre, can_take, tmp))]


@njit(inline="llvm")
def take_slot(prm, me, occ, nslots, rng, tmp):
    return tmp[below(rng, own_cards(me, occ, nslots, tmp))]


@njit(inline="llvm")
def keep(prm, me, occ, nslots, rng, tmp):
    return tmp[below(rng, keep_choices(me, occ, nslots, tmp))]


@njit(inline="llvm")
def power(prm, me, kind, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out):
    """Fill ``out`` = (p1, s1) for a look, (p1, s1, p2, s2) for a swap or a king, and return True to use the
    power of ``kind``."""
    if below(rng, 2) == 0:
        return False
    tp, ts = _halves(tmp)
    if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
        n = look_targets(me, kind, occ, nslots, faceup, tp, ts)
        if n == 0:
            return False
        k = below(rng, n)
        out[0] = tp[k]
        out[1] = ts[k]
        return True
    if kind == POWER_SWAP or kind == POWER_KING:
        if own_vs_opp:
            n_own = swap_targets(me, WHO_OWN, occ, nslots, faceup, locked, tp, ts)
            if n_own == 0:
                return False
            k = below(rng, n_own)
            out[0] = tp[k]
            out[1] = ts[k]
            n_opp = swap_targets(me, WHO_OPPONENTS, occ, nslots, faceup, locked, tp, ts)
            if n_opp == 0:
                return False
            k = below(rng, n_opp)
            out[2] = tp[k]
            out[3] = ts[k]
            return True
        n = swap_targets(me, WHO_ALL, occ, nslots, faceup, locked, tp, ts)
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


@njit(inline="llvm")
def king_swap(prm, rng):
    return below(rng, 2) == 1


@njit(inline="llvm")
def snap(prm, me, occ, nslots, faceup, allow_others, locked, rng, tmp, out):
    """``SNAP_OWN`` with out = (1, slot), ``SNAP_OTHER`` with out = (player, slot, give_slot), or ``SNAP_NONE``."""
    if uniform(rng) >= prm[RP.snap_prob]:
        return SNAP_NONE
    tp, ts = _halves(tmp)
    n = snap_targets(me, occ, nslots, faceup, allow_others, locked, tp, ts)
    if n == 0:
        return SNAP_NONE
    k = below(rng, n)
    if tp[k] == me:
        out[0] = 1
        out[1] = ts[k]
        return SNAP_OWN
    out[0] = tp[k]
    out[1] = ts[k]
    n_own = own_cards(me, occ, nslots, tp)  # the list of cards to give replaces the snap list
    out[2] = tp[below(rng, n_own)]
    return SNAP_OTHER
