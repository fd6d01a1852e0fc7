"""The Kem's kernel's signs and calls (KM8–KM12, M-signal, M-calls); see :mod:`simulator.kems.kernels`.

Each function mirrors the :class:`simulator.kems.reference.Manche` method it names and draws the same random
numbers in the same order.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.core.rng import NEVER, below, geometric, uniform
from simulator.kems.codes import (
    CALL_CONTRE, CALL_KEMS, EV_CALL, EV_SIGN, OUT_CONTRE, OUT_DOUBLE, OUT_KEMS, OUT_WRONG_KEMS, WHY_FALSE, WHY_SIGN,
)
from simulator.kems.kernel_state import (
    S_ATT_O, S_ATT_P, S_CONTRE, S_SIGMA, S_VIS, ST_CALLER, ST_CALLS, ST_DIRTY, ST_ENDED, ST_OUTCOME, ST_WHY,
    ST_WRONG_CONTRES, after, holds_four, partner, schedule, team, trace, wake_all,
)
from simulator.kems.rules import (
    F_FALSE_CONTRE, F_FALSE_KEMS, F_KAPPA0, F_RHO, I_DOUBLE_SECOND, I_DOUBLE_TICKS, I_NEGATIVE, I_REACT_MAX,
    I_REACT_MIN, I_TARGET_PLAYER, I_WRONG_CONTRE, I_WRONG_ENDS, WRONG_CONTRE_PLUS1, WRONG_CONTRE_SHOW2,
)

# ------------------------------------------------------------------------------------------ M-signal
@njit(refcount=False, inline="always")
def signs(g, tick, P, ri, rf, model):
    """Manche.signs."""
    banned, next_sign, pend_due, sightings, h, rng = g[14], g[15], g[18], g[22], g[36], g[37]
    for hh in range(P):
        if next_sign[hh] != tick:
            continue
        tm = team(hh, P)
        q = partner(hh, P)
        v = model[hh, S_VIS]
        g[31][tm] += 1
        mask = 0
        if uniform(rng) < model[q, S_ATT_P] * v:
            mask |= 1 << q
            g[32][tm] += 1
            if pend_due[q, CALL_KEMS] == NEVER:
                schedule(g, tick, q, CALL_KEMS, hh, WHY_SIGN, ri)
        for o in range(P):
            if team(o, P) == tm:
                continue
            kappa = 1.0 - (1.0 - rf[F_KAPPA0]) * (1.0 - rf[F_RHO]) ** sightings[o, tm]
            if uniform(rng) < model[o, S_ATT_O] * v * kappa:
                mask |= 1 << o
                sightings[o, tm] += 1
                g[33][tm] += 1
                if uniform(rng) < model[o, S_CONTRE] and not banned[o] and pend_due[o, CALL_CONTRE] == NEVER:
                    schedule(g, tick, o, CALL_CONTRE, hh, WHY_SIGN, ri)
        trace(h, EV_SIGN, hh, mask, 0)
        next_sign[hh] = after(tick, model[hh, S_SIGMA], rng)


# ------------------------------------------------------------------------------------------ M-calls
@njit(refcount=False, inline="always")
def false_alarms(g, tick, P, ri, rf):
    """Manche.false_alarms."""
    banned, fk, fc, pend_due, rng = g[14], g[16], g[17], g[18], g[37]
    for p in range(P):
        if fk[p] == tick:
            if pend_due[p, CALL_KEMS] == NEVER:
                schedule(g, tick, p, CALL_KEMS, partner(p, P), WHY_FALSE, ri)
            fk[p] = after(tick, rf[F_FALSE_KEMS], rng)
        if fc[p] == tick:
            if not banned[p] and pend_due[p, CALL_CONTRE] == NEVER:
                k = below(rng, P - 2)
                target = -1
                for o in range(P):
                    if team(o, P) != team(p, P):
                        if k == 0:
                            target = o
                            break
                        k -= 1
                schedule(g, tick, p, CALL_CONTRE, target, WHY_FALSE, ri)
            fc[p] = after(tick, rf[F_FALSE_CONTRE], rng)


@njit(refcount=False)
def _end(st, outcome, caller, why):
    st[ST_ENDED] = 1
    st[ST_OUTCOME] = outcome
    st[ST_CALLER] = caller
    st[ST_WHY] = why


@njit(refcount=False)
def _penalise(points, offender, victim, T, negative):
    """Manche.penalise: ``victim`` -1 = every team but the offender."""
    if negative:
        points[offender] -= 1
        return
    for t in range(T):
        if t != offender and (victim < 0 or t == victim):
            points[t] += 1


@njit(refcount=False)
def _second_call(g, tick, p, q, ri, model):
    """Manche.second_call (KM8 ``second_call``)."""
    rng = g[37]
    window = tick + ri[I_DOUBLE_TICKS]
    t = tick
    while True:
        gap = geometric(rng, model[p, S_SIGMA])
        if gap >= NEVER or t + gap > window:
            return False
        t += gap
        if uniform(rng) < model[q, S_ATT_P] * model[p, S_VIS]:
            react = ri[I_REACT_MIN] + below(rng, ri[I_REACT_MAX] - ri[I_REACT_MIN] + 1)
            return t + react <= window


@njit(refcount=False)
def _call_kems(g, tick, p, why, P, ri, model):
    """Manche.call_kems (KM8, KM9)."""
    hands, loc, st, points, h = g[0], g[4], g[29], g[30], g[36]
    q = partner(p, P)
    tm = team(p, P)
    st[ST_CALLS] += 1
    if holds_four(hands, q):
        pts = 1
        if ri[I_DOUBLE_SECOND] == 0:
            if holds_four(hands, p):
                pts = 2
        elif holds_four(hands, p) and _second_call(g, tick, p, q, ri, model):
            pts = 2
        points[tm] += pts
        trace(h, EV_CALL, p, CALL_KEMS, pts)
        _end(st, OUT_DOUBLE if pts == 2 else OUT_KEMS, p, why)
        return
    _penalise(points, tm, -1, P // 2, ri[I_NEGATIVE] != 0)
    trace(h, EV_CALL, p, CALL_KEMS, 0)
    for k in range(4):
        loc[hands[q, k]] = q
    if ri[I_WRONG_ENDS]:
        _end(st, OUT_WRONG_KEMS, p, why)


@njit(refcount=False)
def _call_contre(g, tick, p, target, why, P, ri):
    """Manche.call_contre (KM10, KM11)."""
    hands, loc, banned, st, points, h = g[0], g[4], g[14], g[29], g[30], g[36]
    accused_team = team(target, P)
    only = ri[I_TARGET_PLAYER] != 0
    st[ST_CALLS] += 1
    tm = team(p, P)
    right = False
    for o in range(P):
        if (o == target or (not only and team(o, P) == accused_team)) and holds_four(hands, o):
            right = True
    if right:
        points[tm] += 1
        trace(h, EV_CALL, p, CALL_CONTRE, 1)
        _end(st, OUT_CONTRE, p, why)
        return
    banned[p] = 1
    st[ST_WRONG_CONTRES] += 1
    for o in range(P):
        if o == target or (not only and team(o, P) == accused_team):
            for k in range(4):
                loc[hands[o, k]] = o
    if ri[I_WRONG_CONTRE] == WRONG_CONTRE_SHOW2:
        for k in range(2):
            loc[hands[p, k]] = p
    elif ri[I_WRONG_CONTRE] == WRONG_CONTRE_PLUS1:
        _penalise(points, tm, accused_team, P // 2, ri[I_NEGATIVE] != 0)
    trace(h, EV_CALL, p, CALL_CONTRE, 0)


@njit(refcount=False, inline="always")
def calls(g, tick, P, ri, model):
    """Manche.calls: the calls due this tick in (time, kind, seat) order; the first that ends the manche wins."""
    banned, pend_due, pend_ts, pend_target, pend_why, st = g[14], g[18], g[19], g[20], g[21], g[29]
    while True:
        best_p = -1
        best_k = -1
        best_t = 2.0
        for kind in range(2):
            for p in range(P):
                if pend_due[p, kind] == tick:
                    t = pend_ts[p, kind]
                    if t < best_t or (t == best_t and (kind < best_k or (kind == best_k and p < best_p))):
                        best_p, best_k, best_t = p, kind, t
        if best_p < 0:
            return
        p, kind = best_p, best_k
        pend_due[p, kind] = NEVER
        st[ST_DIRTY] = 1  # a call may reveal hands (published at the end of the tick)
        wake_all(g, tick, P, ri, model)  # and a caller may infer again
        if kind == CALL_KEMS:
            _call_kems(g, tick, p, pend_why[p, kind], P, ri, model)
        elif not banned[p]:
            _call_contre(g, tick, p, pend_target[p, kind], pend_why[p, kind], P, ri)
        if st[ST_ENDED]:
            return
