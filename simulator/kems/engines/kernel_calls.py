"""The Kem's kernel's signs and calls (KM8–KM12, M-signal, M-calls); see :mod:`simulator.kems.engines.kernels`.

Each function mirrors the :class:`simulator.kems.engines.reference.Manche` method it names and draws the same random
numbers in the same order.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import NEVER, below, geometric, uniform
from simulator.kems.engines.kernel_state import (
    S_ATT_O, S_ATT_P, S_SIGMA, S_VIS, ST, after, holds_four, partner, schedule, team, trace, wake_all,
)
from simulator.kems.vocabulary.codes import (
    CALL_CONTRE, CALL_KEMS, EV_CALL, EV_SIGN, OUT_CONTRE, OUT_DOUBLE, OUT_KEMS, OUT_WRONG_KEMS, WHY_FALSE, WHY_SIGN,
)
from simulator.kems.vocabulary.contract import Call, Contre, Sign
from simulator.kems.vocabulary.rules import CONTRE_TARGET, DOUBLE_MODE, FLOAT_RULE, INT_RULE, WRONG_CONTRE
from strategies.kems.policy import decide_call, decide_contre, decide_sign

# ------------------------------------------------------------------------------------------ M-signal
@njit(refcount=False, inline="always")
def signs(manche, tick, P, int_rules, float_rules, seats, model):
    """Manche.signs: each chance to sign the model gives this tick, and the calls on the signs seen."""
    banned, next_sign, pend_due, hands = manche.banned, manche.next_sign, manche.pending_due, manche.hands
    sightings, h, rng = manche.sightings, manche.trace_hash, manche.rng
    for hh in range(P):
        if next_sign[hh] != tick:
            continue
        if not decide_sign(seats, Sign(hh, P, hands[hh], rng)):  # the chance passes; the next one as after a sign
            next_sign[hh] = after(tick, model[hh, S_SIGMA], rng)
            continue
        tm = team(hh, P)
        q = partner(hh, P)
        v = model[hh, S_VIS]
        manche.signs[tm] += 1
        mask = 0
        if uniform(rng) < model[q, S_ATT_P] * v:
            mask |= 1 << q
            manche.seen_partner[tm] += 1
            if pend_due[q, CALL_KEMS] == NEVER and decide_call(seats, Call(q, P, hands[q], hh, rng)):
                schedule(manche, tick, q, CALL_KEMS, hh, WHY_SIGN, int_rules)
        for o in range(P):
            if team(o, P) == tm:
                continue
            kappa0, rho = float_rules[FLOAT_RULE.kappa0], float_rules[FLOAT_RULE.rho]
            kappa = 1.0 - (1.0 - kappa0) * (1.0 - rho) ** sightings[o, tm]
            if uniform(rng) < model[o, S_ATT_O] * v * kappa:
                mask |= 1 << o
                sightings[o, tm] += 1
                manche.seen_opp[tm] += 1
                can_call = not banned[o] and pend_due[o, CALL_CONTRE] == NEVER
                if decide_contre(seats, Contre(o, P, hands[o], hh, can_call, rng)):
                    schedule(manche, tick, o, CALL_CONTRE, hh, WHY_SIGN, int_rules)
        trace(h, EV_SIGN, hh, mask, 0)
        next_sign[hh] = after(tick, model[hh, S_SIGMA], rng)


# ------------------------------------------------------------------------------------------ M-calls
@njit(refcount=False, inline="always")
def false_alarms(manche, tick, P, int_rules, float_rules):
    """Manche.false_alarms."""
    banned, fk, fc = manche.banned, manche.next_false_kems, manche.next_false_contre
    pend_due, rng = manche.pending_due, manche.rng
    for p in range(P):
        if fk[p] == tick:
            if pend_due[p, CALL_KEMS] == NEVER:
                schedule(manche, tick, p, CALL_KEMS, partner(p, P), WHY_FALSE, int_rules)
            fk[p] = after(tick, float_rules[FLOAT_RULE.false_kems_rate], rng)
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
                schedule(manche, tick, p, CALL_CONTRE, target, WHY_FALSE, int_rules)
            fc[p] = after(tick, float_rules[FLOAT_RULE.false_contre_rate], rng)


@njit(refcount=False)
def _end(st, outcome, caller, why):
    st[ST.ended] = 1
    st[ST.outcome] = outcome
    st[ST.caller] = caller
    st[ST.why] = why


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
def _second_call(manche, tick, p, q, int_rules, model):
    """Manche.second_call (KM8 ``second_call``)."""
    rng = manche.rng
    window = tick + int_rules[INT_RULE.double_ticks]
    t = tick
    while True:
        gap = geometric(rng, model[p, S_SIGMA])
        if gap >= NEVER or t + gap > window:
            return False
        t += gap
        if uniform(rng) < model[q, S_ATT_P] * model[p, S_VIS]:
            low, high = int_rules[INT_RULE.reaction_min], int_rules[INT_RULE.reaction_max]
            react = low + below(rng, high - low + 1)
            return t + react <= window


@njit(refcount=False)
def _call_kems(manche, tick, p, why, P, int_rules, model):
    """Manche.call_kems (KM8, KM9)."""
    hands, loc, st, points, h = manche.hands, manche.loc, manche.st, manche.points, manche.trace_hash
    q = partner(p, P)
    tm = team(p, P)
    st[ST.calls] += 1
    if holds_four(hands, q):
        pts = 1
        if int_rules[INT_RULE.double_mode] == DOUBLE_MODE.auto:
            if holds_four(hands, p):
                pts = 2
        elif holds_four(hands, p) and _second_call(manche, tick, p, q, int_rules, model):
            pts = 2
        points[tm] += pts
        trace(h, EV_CALL, p, CALL_KEMS, pts)
        _end(st, OUT_DOUBLE if pts == 2 else OUT_KEMS, p, why)
        return
    _penalise(points, tm, -1, P // 2, int_rules[INT_RULE.negative_points] != 0)
    trace(h, EV_CALL, p, CALL_KEMS, 0)
    for k in range(4):
        loc[hands[q, k]] = q
    if int_rules[INT_RULE.wrong_kems_ends]:
        _end(st, OUT_WRONG_KEMS, p, why)


@njit(refcount=False)
def _call_contre(manche, tick, p, target, why, P, int_rules):
    """Manche.call_contre (KM10, KM11)."""
    hands, loc, banned = manche.hands, manche.loc, manche.banned
    st, points, h = manche.st, manche.points, manche.trace_hash
    accused_team = team(target, P)
    only = int_rules[INT_RULE.contre_target] == CONTRE_TARGET.player
    st[ST.calls] += 1
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
    st[ST.wrong_contres] += 1
    for o in range(P):
        if o == target or (not only and team(o, P) == accused_team):
            for k in range(4):
                loc[hands[o, k]] = o
    if int_rules[INT_RULE.wrong_contre] == WRONG_CONTRE.ban_show2:
        for k in range(2):
            loc[hands[p, k]] = p
    elif int_rules[INT_RULE.wrong_contre] == WRONG_CONTRE.opponents_plus1:
        _penalise(points, tm, accused_team, P // 2, int_rules[INT_RULE.negative_points] != 0)
    trace(h, EV_CALL, p, CALL_CONTRE, 0)


@njit(refcount=False, inline="always")
def calls(manche, tick, P, int_rules, model):
    """Manche.calls: the calls due this tick in (time, kind, seat) order; the first that ends the manche wins."""
    banned, pend_due, pend_ts = manche.banned, manche.pending_due, manche.pending_time
    pend_target, pend_why, st = manche.pending_target, manche.pending_why, manche.st
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
        st[ST.dirty] = 1  # a call may reveal hands (published at the end of the tick)
        wake_all(manche, tick, P, int_rules, model)  # and a caller may infer again
        if kind == CALL_KEMS:
            _call_kems(manche, tick, p, pend_why[p, kind], P, int_rules, model)
        elif not banned[p]:
            _call_contre(manche, tick, p, pend_target[p, kind], pend_why[p, kind], P, int_rules)
        if st[ST.ended]:
            return
