"""The Kem's numba engine: arrays in, arrays out.

Contract: ``simulate(seed, start, stop, level_id, ri, rf, deck, sids, prm, model, n_blocks, caps, n_cols)``
plays games ``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks run in
``prange`` and returns per-block raw rows in the layout of :mod:`simulator.kems.records`. It follows
``simulator/kems/reference.py`` step for step and draws the same random numbers in the same order, so both
engines produce identical rows and trace hashes; each function names the reference method it mirrors. Unlike
the reference, which visits every tick, it jumps from one event tick to the next (moves, signs, false alarms,
calls, phase ends, the quiet sweep): nothing happens in the ticks between.

Inputs: ``ri``/``rf`` from :func:`simulator.kems.rules.rules_arrays`; ``deck`` ``int64[n]`` the deck's card ids
in id order; ``sids`` ``int64[P]`` strategy kernel ids, ``prm`` ``float64[P, K]`` their parameters, ``model``
``float64[P, 6]`` from :func:`simulator.kems.reference.seat_model`.

Per-block state ``g`` (see :func:`new_state`), reused from manche to manche: hands ``int64[P, 4]``, the centre
``int64[4]``, its history ring ``int64[4, H, 3]`` (visible from, card, by) with counts, ``loc`` ``int8[52]``,
stock and hidden discard ``int64[52]`` (top = last), per-seat timers and pending calls, and scalars ``st``.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.jit import njit
from simulator.core.rng import NEVER, below, exponential, geometric, next_u64, seed_state, uniform
from simulator.kems.codes import (
    CALL_CONTRE, CALL_KEMS, EMPTY, EV_CALL, EV_DEAL, EV_END, EV_FOUR, EV_REDEAL, EV_RESHUFFLE, EV_SIGN, EV_SWAP,
    EV_SWEEP, EV_TOP, EV_TURN_UP, FNV_PRIME, LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, OUT_CONTRE, OUT_DOUBLE,
    OUT_KEMS, OUT_WRONG_KEMS, PH_OPEN, PH_SWEEP, PH_TURN_UP, TRACE_SEED, WHY_FALSE, WHY_INFERENCE, WHY_SIGN,
)
from simulator.kems.records import GAME_FIXED, MANCHE_FIXED
from simulator.kems.rules import (
    I_ALL_PASS, I_DOUBLE_SECOND, I_DOUBLE_TICKS, I_LAG, I_MAX_TICKS, I_MULTI, I_NEGATIVE, I_QUIET, I_RACE,
    I_REACT_MAX, I_REACT_MIN, I_SIGN_CHANGE, I_SWEEP, I_TARGET, I_TARGET_PLAYER, I_TURN_UP, I_WRONG_CONTRE,
    I_WRONG_ENDS, F_FALSE_CONTRE, F_FALSE_KEMS, F_KAPPA0, F_RHO, F_SIGN_DELAY_P, RACE_SPEED, RACE_UNIFORM,
    WRONG_CONTRE_PLUS1, WRONG_CONTRE_SHOW2,
)
from strategies.kems import policy
from strategies.kems.views import PUB_SIZE, summarise

LEVEL_MANCHES, LEVEL_GAMES = 0, 1
MAX_MANCHES = 1000      # reference.MAX_MANCHES
H = 16                  # centre history ring per slot (enough for lag_ticks <= rules.MAX_LAG)
S_RATE, S_SIGMA, S_VIS, S_ATT_P, S_ATT_O, S_CONTRE = range(6)
(ST_OUTCOME, ST_CALLER, ST_WHY, ST_TICKS, ST_SWEEPS, ST_EXCH, ST_RESHUF, ST_REDEALS, ST_CALLS, ST_WRONG_CONTRES,
 ST_ENDED, ST_NSTOCK, ST_NDISCARD, ST_DEALER, ST_CHANGED, ST_VERSION, ST_PUB_VERSION, ST_NEXT_SIGN, ST_NEXT_FALSE,
 ST_NEXT_CALL, ST_OPEN_TICKS, N_ST) = range(22)
N_MANCHE_FIXED = len(MANCHE_FIXED)
N_GAME_FIXED = len(GAME_FIXED)


@njit
def new_state(P):
    """Allocate one block's manche state (the tuple ``g``)."""
    T = P // 2
    return (
        np.zeros((P, 4), dtype=np.int64),           # 0 hands
        np.zeros(4, dtype=np.int64),                # 1 table
        np.zeros((4, H, 3), dtype=np.int64),        # 2 history ring (visible from, card, by)
        np.zeros(4, dtype=np.int64),                # 3 history counts
        np.zeros(52, dtype=np.int8),                # 4 loc
        np.zeros(52, dtype=np.int64),               # 5 stock
        np.zeros(52, dtype=np.int64),               # 6 discard
        np.zeros((P, 4), dtype=np.int64),           # 7 mem
        np.zeros(64, dtype=np.int64),               # 8 work
        np.zeros((4, 2), dtype=np.int64),           # 9 out
        np.zeros(P, dtype=np.float64),              # 10 next_move
        np.zeros(P, dtype=np.int64),                # 11 last_swap
        np.zeros(P, dtype=np.int8),                 # 12 passed
        np.zeros(P, dtype=np.int8),                 # 13 holding
        np.zeros(P, dtype=np.int8),                 # 14 banned
        np.zeros(P, dtype=np.int64),                # 15 next_sign
        np.zeros(P, dtype=np.int64),                # 16 next_false_kems
        np.zeros(P, dtype=np.int64),                # 17 next_false_contre
        np.zeros((P, 2), dtype=np.int64),           # 18 pending due tick (NEVER = none)
        np.zeros((P, 2), dtype=np.float64),         # 19 pending time inside the tick
        np.zeros((P, 2), dtype=np.int64),           # 20 pending target
        np.zeros((P, 2), dtype=np.int64),           # 21 pending why
        np.zeros((P, T), dtype=np.int64),           # 22 sightings
        np.zeros(4, dtype=np.int64),                # 23 seen (perceived centre)
        np.zeros(P, dtype=np.int64),                # 24 silence
        np.zeros(P, dtype=np.float64),              # 25 movers' race times
        np.zeros(P, dtype=np.int64),                # 26 movers (seats, sorted by time)
        np.zeros((P, 4, 3), dtype=np.int64),        # 27 movers' pairs (hand slot, centre slot, expected card)
        np.zeros(P, dtype=np.int64),                # 28 movers' pair counts
        np.zeros(N_ST, dtype=np.int64),             # 29 st
        np.zeros(T, dtype=np.int64),                # 30 points
        np.zeros(T, dtype=np.int64),                # 31 signs
        np.zeros(T, dtype=np.int64),                # 32 seen_partner
        np.zeros(T, dtype=np.int64),                # 33 seen_opp
        np.zeros(P, dtype=np.int64),                # 34 seat exchanges
        np.zeros(P, dtype=np.int64),                # 35 four_tick
        np.zeros(1, dtype=np.uint64),               # 36 h
        np.zeros(4, dtype=np.uint64),               # 37 rng
        np.zeros(P, dtype=np.int8),                 # 38 hand changed this tick
        np.zeros(13, dtype=np.int64),               # 39 rank counts scratch
        np.zeros(P, dtype=np.int64),                # 40 cached proposal: the change stamp it was made at (-1 none)
        np.zeros((P, 4, 3), dtype=np.int64),        # 41 cached proposal (hand slot, centre slot, expected card)
        np.zeros(P, dtype=np.int64),                # 42 cached proposal pair counts
        np.zeros(PUB_SIZE, dtype=np.int64),         # 43 pub: rank counts of public knowledge (views.summarise)
        np.zeros(P, dtype=np.int64),                # 44 contre horizon: the public-change version it was made at
        np.zeros(P, dtype=np.int64),                # 45 contre horizon (open ticks; policy.contre_horizon)
        np.zeros((P, 4), dtype=np.uint64),          # 46 each player's own stream for its move times
        np.zeros(P, dtype=np.int8),                 # 47 idle: its moves change nothing until a public change
        np.zeros(P, dtype=np.int64),                # 48 idle until: the tick its contre horizon is reached
    )


# ------------------------------------------------------------------------------------------ helpers
@njit(inline="always")
def _trace(h, ev, a, b, c):
    """codes.trace_py in uint64."""
    word = (np.uint64(np.int64(ev) & 0xFF) | (np.uint64(np.int64(a) & 0xFF) << np.uint64(8))
            | (np.uint64(np.int64(b) & 0xFFFF) << np.uint64(16)) | (np.uint64(np.int64(c) & 0xFFFF) << np.uint64(32)))
    h[0] = (h[0] ^ word) * np.uint64(FNV_PRIME)


@njit(refcount=False, inline="always")
def _team(p, P):
    return p % (P // 2)


@njit(refcount=False, inline="always")
def _partner(p, P):
    return (p + P // 2) % P


@njit(refcount=False)
def _holds_four(hands, p):
    r = hands[p, 0] % 13
    return hands[p, 1] % 13 == r and hands[p, 2] % 13 == r and hands[p, 3] % 13 == r


@njit(refcount=False)
def _shuffle(cards, n, rng):
    """Manche.shuffle."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(refcount=False)
def _reshuffle(g):
    """Manche.reshuffle (KM7)."""
    stock, discard, loc, st, h, rng = g[5], g[6], g[4], g[29], g[36], g[37]
    n = st[ST_NDISCARD]
    _shuffle(discard, n, rng)
    for k in range(n):
        stock[k] = discard[k]
        loc[discard[k]] = LOC_UNKNOWN
    st[ST_NSTOCK] = n
    st[ST_NDISCARD] = 0
    st[ST_RESHUF] += 1
    _trace(h, EV_RESHUFFLE, n, 0, 0)


@njit(refcount=False, inline="always")
def _draw(g):
    """Manche.draw."""
    st = g[29]
    if st[ST_NSTOCK] == 0:
        _reshuffle(g)
    st[ST_NSTOCK] -= 1
    return g[5][st[ST_NSTOCK]]


@njit(refcount=False, inline="always")
def _put(g, slot, card, visible, by):
    """Manche.put."""
    g[1][slot] = card
    k = g[3][slot] % H
    hist = g[2]
    hist[slot, k, 0] = visible
    hist[slot, k, 1] = card
    hist[slot, k, 2] = by
    g[3][slot] += 1


@njit(refcount=False, inline="always")
def _perceived(g, tick, p, lag):
    """Manche.perceived into ``g[23]``."""
    hist, counts, seen = g[2], g[3], g[23]
    limit = tick - lag
    for s in range(4):
        seen[s] = EMPTY
        n = counts[s]
        first = n - H if n > H else 0
        for i in range(n - 1, first - 1, -1):  # the newest entry visible to p
            k = i % H
            if hist[s, k, 0] <= limit or hist[s, k, 2] == p:
                seen[s] = hist[s, k, 1]
                break


@njit(refcount=False, inline="always")
def _after(tick, p, rng):
    """Manche.after."""
    gap = geometric(rng, p)
    return NEVER if gap >= NEVER else tick + gap


@njit(refcount=False, inline="always")
def _schedule(g, tick, p, kind, target, why, ri):
    """Manche.schedule."""
    rng = g[37]
    due = tick + ri[I_REACT_MIN] + below(rng, ri[I_REACT_MAX] - ri[I_REACT_MIN] + 1)
    g[18][p, kind] = due
    g[19][p, kind] = uniform(rng)
    g[20][p, kind] = target
    g[21][p, kind] = why


# ------------------------------------------------------------------------------------------ KM3, KM4, KM6
@njit(refcount=False)
def _deal(g, P, deck, n_deck):
    """Manche.deal (KM3)."""
    hands, loc, stock, discard, st, h, rng, cnt = g[0], g[4], g[5], g[6], g[29], g[36], g[37], g[39]
    d = st[ST_DEALER]
    for k in range(n_deck):
        stock[k] = deck[k]
    _shuffle(stock, n_deck, rng)
    st[ST_NSTOCK] = n_deck
    for k in range(4):
        for i in range(1, P + 1):
            hands[(d + i) % P, k] = _draw(g)
    for p in range(P):
        _trace(h, EV_DEAL, p, hands[p, 0] | (hands[p, 1] << 6), hands[p, 2] | (hands[p, 3] << 6))
    for i in range(1, P + 1):
        p = (d + i) % P
        while True:
            for r in range(13):
                cnt[r] = 0
            for k in range(4):
                cnt[hands[p, k] % 13] += 1
            shown = -1
            for r in range(13):
                if cnt[r] >= 3:
                    shown = r
                    break
            if shown < 0:
                break
            for k in range(4):
                c = hands[p, k]
                if cnt[c % 13] >= 3:
                    loc[c] = LOC_DEAD
                discard[st[ST_NDISCARD]] = c
                st[ST_NDISCARD] += 1
            for k in range(4):
                hands[p, k] = _draw(g)
            st[ST_REDEALS] += 1
            _trace(h, EV_REDEAL, p, shown, 0)


@njit(refcount=False, inline="always")
def _turn_up(g, tick):
    """Manche.turn_up (KM4, KM7)."""
    table, loc, h = g[1], g[4], g[36]
    for s in range(4):
        if table[s] == EMPTY:
            c = _draw(g)
            _put(g, s, c, tick, -1)
            loc[c] = LOC_TABLE
            _trace(h, EV_TURN_UP, s, c, 0)
    g[29][ST_CHANGED] = tick
    g[29][ST_VERSION] += 1


@njit(refcount=False, inline="always")
def _top(g, tick, P, model):
    """Manche.top: "Top", every player's first move time."""
    rng = g[37]
    for p in range(P):
        g[10][p] = tick + exponential(g[46][p], model[p, S_RATE])
        g[12][p] = 0
        g[47][p] = 0
    _trace(g[36], EV_TOP, tick & 0xFF, tick >> 8, 0)


@njit(refcount=False, inline="always")
def _sweep(g, tick):
    """Manche.sweep (KM6)."""
    table, loc, discard, st = g[1], g[4], g[6], g[29]
    for s in range(4):
        c = table[s]
        if c != EMPTY:
            discard[st[ST_NDISCARD]] = c
            st[ST_NDISCARD] += 1
            loc[c] = LOC_DEAD
        _put(g, s, EMPTY, tick + 1, -1)
    st[ST_SWEEPS] += 1
    st[ST_CHANGED] = tick
    st[ST_VERSION] += 1
    _trace(g[36], EV_SWEEP, tick & 0xFF, tick >> 8, 0)


# ------------------------------------------------------------------------------------------ idle players
@njit(refcount=False, inline="always")
def _catch_up(g, p, limit, ri, model):
    """Draw, from player ``p``'s own stream, the move times of its moves before tick ``limit`` that the kernel
    skipped (the reference made them and they changed nothing); ``p`` is no longer idle."""
    next_move, sub = g[10], g[46][p]
    while next_move[p] < limit:
        if ri[I_RACE] == RACE_UNIFORM:
            uniform(sub)
        next_move[p] = np.floor(next_move[p]) + 1 + exponential(sub, model[p, S_RATE])
    g[47][p] = 0


@njit(refcount=False, inline="always")
def _wake_all(g, tick, P, ri, model):
    """Something public changed at ``tick``: idle players look again at their next move after it."""
    for p in range(P):
        if g[47][p]:
            _catch_up(g, p, tick + 1, ri, model)


# ------------------------------------------------------------------------------------------ KM5
@njit(refcount=False, inline="always")
def _moves(g, tick, P, ri, rf, sids, prm, model):
    """Manche.moves: one OPEN tick's moves; returns whether any exchange succeeded."""
    hands, table, loc, mem, work, out = g[0], g[1], g[4], g[7], g[8], g[9]
    next_move, last_swap, passed, banned, pend_due = g[10], g[11], g[12], g[14], g[18]
    seen, silence, when, movers, pairs, npairs = g[23], g[24], g[25], g[26], g[27], g[28]
    st, h, rng, changed = g[29], g[36], g[37], g[38]
    cache_stamp, cache, cache_n = g[40], g[41], g[42]
    n_movers = 0
    pub, hz_version, hz = g[43], g[44], g[45]
    idle, idle_until = g[47], g[48]
    for p in range(P):
        if idle[p] or not (tick <= next_move[p] < tick + 1):
            continue
        if st[ST_PUB_VERSION] != st[ST_VERSION]:
            summarise(loc, P, pub)
            st[ST_PUB_VERSION] = st[ST_VERSION]
        until = NEVER  # while nothing public changes, the first tick at which p's inference might call
        if not banned[p] and pend_due[p, CALL_CONTRE] == NEVER:
            if hz_version[p] != st[ST_VERSION]:
                hz[p] = policy.contre_horizon(sids[p], prm[p], p, P, hands[p], loc, pub, last_swap, work)
                hz_version[p] = st[ST_VERSION]
            until = tick + hz[p] - st[ST_OPEN_TICKS] if hz[p] < NEVER else NEVER
            if st[ST_OPEN_TICKS] >= hz[p]:  # before the horizon the reference's infer_contre surely says -1
                for q in range(P):
                    silence[q] = st[ST_OPEN_TICKS] - last_swap[q]
                j = policy.infer_contre(sids[p], prm[p], p, P, hands[p], loc, pub, silence, work)
                if j >= 0:
                    _schedule(g, tick, p, CALL_CONTRE, j, WHY_INFERENCE, ri)
        if cache_stamp[p] == st[ST_CHANGED]:
            # nothing public changed since a deterministic strategy last looked at an up-to-date view:
            # its proposal would be the same (the reference recomputes it)
            n = cache_n[p]
            for i in range(n):
                pairs[p, i, 0] = cache[p, i, 0]
                pairs[p, i, 1] = cache[p, i, 1]
                pairs[p, i, 2] = cache[p, i, 2]
        else:
            _perceived(g, tick, p, ri[I_LAG])
            n = policy.propose(sids[p], prm[p], p, P, hands[p], seen, loc, pub, ri[I_MULTI] != 0, mem[p], work, out, rng)
            if ri[I_MULTI] == 0 and n > 1:  # KM5
                n = 1
            for i in range(n):
                pairs[p, i, 0] = out[i, 0]
                pairs[p, i, 1] = out[i, 1]
                pairs[p, i, 2] = seen[out[i, 1]]
            cache_stamp[p] = -1
            if sids[p] != policy.RANDOM and st[ST_CHANGED] < tick - ri[I_LAG]:
                cache_stamp[p] = st[ST_CHANGED]
                cache_n[p] = n
                for i in range(n):
                    cache[p, i, 0] = pairs[p, i, 0]
                    cache[p, i, 1] = pairs[p, i, 1]
                    cache[p, i, 2] = pairs[p, i, 2]
        if ri[I_RACE] == RACE_SPEED:
            w = next_move[p] - tick
        elif ri[I_RACE] == RACE_UNIFORM:
            w = uniform(g[46][p])
        else:
            w = float((p - st[ST_DEALER] - 1 + P) % P)
        passed[p] = 1 if n == 0 else 0
        npairs[p] = n
        # a deterministic player with an up-to-date view, nothing to take and no inference due: its next moves
        # change nothing until something public changes or its contre horizon comes (set idle below)
        idle_until[p] = until if (n == 0 and until > tick and cache_stamp[p] == st[ST_CHANGED]) else -1
        # insertion by (time, seat): seats arrive in increasing order, so ties keep seat order
        k = n_movers
        while k > 0 and when[k - 1] > w:
            when[k] = when[k - 1]
            movers[k] = movers[k - 1]
            k -= 1
        when[k] = w
        movers[k] = p
        n_movers += 1
    if n_movers == 0:
        return False
    success = False
    for p in range(P):
        changed[p] = 0
    for m in range(n_movers):
        p = movers[m]
        for i in range(npairs[p]):
            hs = pairs[p, i, 0]
            slot = pairs[p, i, 1]
            if table[slot] != pairs[p, i, 2]:
                continue
            given = hands[p, hs]
            taken = table[slot]
            hands[p, hs] = taken
            _put(g, slot, given, tick + 1, p)
            loc[taken] = p
            loc[given] = LOC_TABLE
            last_swap[p] = st[ST_OPEN_TICKS]
            st[ST_EXCH] += 1
            g[34][p] += 1
            success = True
            changed[p] = 1
            _trace(h, EV_SWAP, p, taken, given)
    if success:
        st[ST_CHANGED] = tick
        st[ST_VERSION] += 1
    for p in range(P):  # next move times, in seat order (the reference's mover list is in seat order)
        if not idle[p] and tick <= next_move[p] < tick + 1:
            next_move[p] = tick + 1 + exponential(g[46][p], model[p, S_RATE])
            if idle_until[p] > tick and not success:
                idle[p] = 1
    if success:
        _wake_all(g, tick, P, ri, model)
    for p in range(P):
        if changed[p]:
            _update_four(g, tick, p, model, rf)
    return success


@njit(refcount=False, inline="always")
def _update_four(g, tick, p, model, rf):
    """Manche.update_four: a new holder starts signalling after d_s ~ Geom."""
    hands, holding, next_sign, four_tick, h, rng = g[0], g[13], g[15], g[35], g[36], g[37]
    four = _holds_four(hands, p)
    if four and not holding[p]:
        holding[p] = 1
        if four_tick[p] < 0:
            four_tick[p] = tick
        _trace(h, EV_FOUR, p, hands[p, 0] % 13, 0)
        delay = geometric(rng, rf[F_SIGN_DELAY_P])
        nxt = tick + delay + geometric(rng, model[p, S_SIGMA]) - 1
        next_sign[p] = NEVER if nxt >= NEVER else nxt
    elif not four and holding[p]:
        holding[p] = 0
        next_sign[p] = NEVER


# ------------------------------------------------------------------------------------------ M-signal
@njit(refcount=False, inline="always")
def _signs(g, tick, P, ri, rf, model):
    """Manche.signs."""
    banned, next_sign, pend_due, sightings, h, rng = g[14], g[15], g[18], g[22], g[36], g[37]
    for hh in range(P):
        if next_sign[hh] != tick:
            continue
        tm = _team(hh, P)
        q = _partner(hh, P)
        v = model[hh, S_VIS]
        g[31][tm] += 1
        mask = 0
        if uniform(rng) < model[q, S_ATT_P] * v:
            mask |= 1 << q
            g[32][tm] += 1
            if pend_due[q, CALL_KEMS] == NEVER:
                _schedule(g, tick, q, CALL_KEMS, hh, WHY_SIGN, ri)
        for o in range(P):
            if _team(o, P) == tm:
                continue
            kappa = 1.0 - (1.0 - rf[F_KAPPA0]) * (1.0 - rf[F_RHO]) ** sightings[o, tm]
            if uniform(rng) < model[o, S_ATT_O] * v * kappa:
                mask |= 1 << o
                sightings[o, tm] += 1
                g[33][tm] += 1
                if uniform(rng) < model[o, S_CONTRE] and not banned[o] and pend_due[o, CALL_CONTRE] == NEVER:
                    _schedule(g, tick, o, CALL_CONTRE, hh, WHY_SIGN, ri)
        _trace(h, EV_SIGN, hh, mask, 0)
        next_sign[hh] = _after(tick, model[hh, S_SIGMA], rng)


# ------------------------------------------------------------------------------------------ M-calls
@njit(refcount=False, inline="always")
def _false_alarms(g, tick, P, ri, rf):
    """Manche.false_alarms."""
    banned, fk, fc, pend_due, rng = g[14], g[16], g[17], g[18], g[37]
    for p in range(P):
        if fk[p] == tick:
            if pend_due[p, CALL_KEMS] == NEVER:
                _schedule(g, tick, p, CALL_KEMS, _partner(p, P), WHY_FALSE, ri)
            fk[p] = _after(tick, rf[F_FALSE_KEMS], rng)
        if fc[p] == tick:
            if not banned[p] and pend_due[p, CALL_CONTRE] == NEVER:
                k = below(rng, P - 2)
                target = -1
                for o in range(P):
                    if _team(o, P) != _team(p, P):
                        if k == 0:
                            target = o
                            break
                        k -= 1
                _schedule(g, tick, p, CALL_CONTRE, target, WHY_FALSE, ri)
            fc[p] = _after(tick, rf[F_FALSE_CONTRE], rng)


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
    q = _partner(p, P)
    tm = _team(p, P)
    st[ST_CALLS] += 1
    if _holds_four(hands, q):
        pts = 1
        if ri[I_DOUBLE_SECOND] == 0:
            if _holds_four(hands, p):
                pts = 2
        elif _holds_four(hands, p) and _second_call(g, tick, p, q, ri, model):
            pts = 2
        points[tm] += pts
        _trace(h, EV_CALL, p, CALL_KEMS, pts)
        _end(st, OUT_DOUBLE if pts == 2 else OUT_KEMS, p, why)
        return
    _penalise(points, tm, -1, P // 2, ri[I_NEGATIVE] != 0)
    _trace(h, EV_CALL, p, CALL_KEMS, 0)
    for k in range(4):
        loc[hands[q, k]] = q
    if ri[I_WRONG_ENDS]:
        _end(st, OUT_WRONG_KEMS, p, why)


@njit(refcount=False)
def _call_contre(g, tick, p, target, why, P, ri):
    """Manche.call_contre (KM10, KM11)."""
    hands, loc, banned, st, points, h = g[0], g[4], g[14], g[29], g[30], g[36]
    accused_team = _team(target, P)
    only = ri[I_TARGET_PLAYER] != 0
    st[ST_CALLS] += 1
    tm = _team(p, P)
    right = False
    for o in range(P):
        if (o == target or (not only and _team(o, P) == accused_team)) and _holds_four(hands, o):
            right = True
    if right:
        points[tm] += 1
        _trace(h, EV_CALL, p, CALL_CONTRE, 1)
        _end(st, OUT_CONTRE, p, why)
        return
    banned[p] = 1
    st[ST_WRONG_CONTRES] += 1
    for o in range(P):
        if o == target or (not only and _team(o, P) == accused_team):
            for k in range(4):
                loc[hands[o, k]] = o
    if ri[I_WRONG_CONTRE] == WRONG_CONTRE_SHOW2:
        for k in range(2):
            loc[hands[p, k]] = p
    elif ri[I_WRONG_CONTRE] == WRONG_CONTRE_PLUS1:
        _penalise(points, tm, accused_team, P // 2, ri[I_NEGATIVE] != 0)
    _trace(h, EV_CALL, p, CALL_CONTRE, 0)


@njit(refcount=False, inline="always")
def _calls(g, tick, P, ri, model):
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
        st[ST_CHANGED] = tick  # a call may reveal hands
        st[ST_VERSION] += 1
        _wake_all(g, tick, P, ri, model)
        if kind == CALL_KEMS:
            _call_kems(g, tick, p, pend_why[p, kind], P, ri, model)
        elif not banned[p]:
            _call_contre(g, tick, p, pend_target[p, kind], pend_why[p, kind], P, ri)
        if st[ST_ENDED]:
            return


# ------------------------------------------------------------------------------------------ the clock
@njit(refcount=False, inline="always")
def _next_event(g, tick, P, phase, phase_end, quiet, ri):
    """The first tick ``>= tick`` at which anything can happen (the kernel's jump; the reference visits all).

    Also keeps in ``st`` the first tick of each kind of timer, so a visited tick only runs the steps due."""
    st = g[29]
    nt = ri[I_MAX_TICKS]
    if phase != PH_OPEN:
        if phase_end < nt:
            nt = phase_end
    else:
        s = tick + ri[I_QUIET] - quiet - 1
        if s < nt:
            nt = s
        next_move = g[10]
        for p in range(P):
            if g[47][p]:
                if g[48][p] < nt:
                    nt = g[48][p]
                continue
            m = next_move[p]
            if m < nt:
                nt = np.int64(np.floor(m))
    n_sign = NEVER
    n_false = NEVER
    n_call = NEVER
    for p in range(P):
        n_sign = min(n_sign, g[15][p])
        n_false = min(n_false, min(g[16][p], g[17][p]))
        n_call = min(n_call, min(g[18][p, 0], g[18][p, 1]))
    st[ST_NEXT_SIGN] = n_sign
    st[ST_NEXT_FALSE] = n_false
    st[ST_NEXT_CALL] = n_call
    nt = min(nt, min(n_sign, min(n_false, n_call)))
    return nt if nt > tick else tick


@njit(refcount=False)
def play_manche(g, P, ri, rf, deck, n_deck, sids, prm, model):
    """Manche.play: one manche from the state's rng and dealer (``st[ST_DEALER]``); results in ``g``."""
    T = P // 2
    hands, table, counts, loc, mem, st = g[0], g[1], g[3], g[4], g[7], g[29]
    for s in range(4):
        table[s] = EMPTY
        counts[s] = 0
    for c in range(52):
        loc[c] = LOC_UNKNOWN
    for p in range(P):
        for k in range(4):
            mem[p, k] = -1
        g[10][p] = np.inf
        g[11][p] = 0
        g[12][p] = 0
        g[13][p] = 0
        g[14][p] = 0
        g[15][p] = NEVER
        g[18][p, 0] = NEVER
        g[18][p, 1] = NEVER
        g[34][p] = 0
        g[35][p] = -1
        g[40][p] = -1
        g[44][p] = -1
        g[47][p] = 0
    for t in range(T):
        g[30][t] = 0
        g[31][t] = 0
        g[32][t] = 0
        g[33][t] = 0
    dealer = st[ST_DEALER]
    for k in range(N_ST):
        st[k] = 0
    st[ST_DEALER] = dealer
    st[ST_OUTCOME] = OUT_CAP
    st[ST_CALLER] = -1
    st[ST_WHY] = -1
    st[ST_PUB_VERSION] = -1
    h = g[36]
    h[0] = np.uint64(TRACE_SEED)
    rng = g[37]
    base = next_u64(rng)
    for p in range(P):
        seed_state(base, p, g[46][p])
    _deal(g, P, deck, n_deck)
    for p in range(P):
        g[16][p] = _after(-1, rf[F_FALSE_KEMS], rng)
        g[17][p] = _after(-1, rf[F_FALSE_CONTRE], rng)
    tick = 0
    _turn_up(g, tick)
    phase = PH_TURN_UP
    phase_end = ri[I_TURN_UP]
    quiet = 0
    max_ticks = ri[I_MAX_TICKS]
    while True:
        if phase == PH_SWEEP and tick == phase_end:
            _turn_up(g, tick)
            phase = PH_TURN_UP
            phase_end = tick + ri[I_TURN_UP]
        if phase == PH_TURN_UP and tick == phase_end:
            _top(g, tick, P, model)
            phase = PH_OPEN
            quiet = 0
        if phase == PH_OPEN:
            for p in range(P):
                if g[47][p] and g[48][p] <= tick:  # its contre horizon: it looks again from this tick on
                    _catch_up(g, p, tick, ri, model)
            if _moves(g, tick, P, ri, rf, sids, prm, model):
                quiet = 0
                for p in range(P):
                    g[12][p] = 0
            else:
                quiet += 1
            st[ST_OPEN_TICKS] += 1
            all_passed = ri[I_ALL_PASS] != 0
            if all_passed:
                for p in range(P):
                    if not g[12][p]:
                        all_passed = False
            if quiet >= ri[I_QUIET] or all_passed:
                _sweep(g, tick)
                _wake_all(g, tick, P, ri, model)
                phase = PH_SWEEP
                phase_end = tick + 1 + ri[I_SWEEP]
        if st[ST_NEXT_SIGN] <= tick:  # timers set during this tick are all for later ticks
            _signs(g, tick, P, ri, rf, model)
        if st[ST_NEXT_FALSE] <= tick:
            _false_alarms(g, tick, P, ri, rf)
        if st[ST_NEXT_CALL] <= tick:
            _calls(g, tick, P, ri, model)
        tick += 1
        if st[ST_ENDED] or tick >= max_ticks:
            break
        nt = _next_event(g, tick, P, phase, phase_end, quiet, ri)
        if nt >= max_ticks:
            tick = max_ticks
            break
        if phase == PH_OPEN:
            quiet += nt - tick
            st[ST_OPEN_TICKS] += nt - tick
        tick = nt
    st[ST_TICKS] = tick
    _trace(h, EV_END, st[ST_OUTCOME], st[ST_CALLER] + 1, tick & 0xFFFF)


# ------------------------------------------------------------------------------------------ games
@njit(refcount=False)
def play_game(game, level, seed, P, ri, rf, deck, sids, prm, model, g, counts, manche_rows, trace_rows, game_rows,
              totals):
    """Game.play: rows of one game appended at ``counts`` (rows beyond a table's capacity are counted, not kept)."""
    T = P // 2
    st = g[29]
    seed_state(seed, game, g[37])
    first_dealer = game % P
    for t in range(T):
        totals[t] = 0
    sightings = g[22]
    for p in range(P):
        for t in range(T):
            sightings[p, t] = 0
    manches = 0
    while True:
        if ri[I_SIGN_CHANGE]:
            for p in range(P):
                for t in range(T):
                    sightings[p, t] = 0
        st[ST_DEALER] = (first_dealer + manches) % P
        play_manche(g, P, ri, rf, deck, deck.shape[0], sids, prm, model)
        for t in range(T):
            totals[t] += g[30][t]
        r = counts[0]
        if r < manche_rows.shape[0]:
            row = manche_rows[r]
            row[0] = game
            row[1] = manches
            row[2] = st[ST_DEALER]
            row[3] = st[ST_OUTCOME]
            row[4] = st[ST_CALLER]
            row[5] = st[ST_WHY]
            row[6] = st[ST_TICKS]
            row[7] = st[ST_SWEEPS]
            row[8] = st[ST_EXCH]
            row[9] = st[ST_RESHUF]
            row[10] = st[ST_REDEALS]
            row[11] = st[ST_CALLS]
            row[12] = st[ST_WRONG_CONTRES]
            c = N_MANCHE_FIXED
            for t in range(T):
                row[c + t] = g[30][t]
                row[c + T + t] = totals[t]
                row[c + 2 * T + t] = g[31][t]
                row[c + 3 * T + t] = g[32][t]
                row[c + 4 * T + t] = g[33][t]
            c += 5 * T
            for p in range(P):
                row[c + p] = g[34][p]
                row[c + P + p] = g[35][p]
            trace_rows[r] = g[36][0]
        counts[0] += 1
        manches += 1
        if level == LEVEL_MANCHES:
            return
        best = totals[0]
        for t in range(T):
            if totals[t] > best:
                best = totals[t]
        if best >= ri[I_TARGET] or manches >= MAX_MANCHES:
            break
    mask = 0
    n_best = 0
    single = -1
    for t in range(T):
        if totals[t] == best:
            mask |= 1 << t
            n_best += 1
            if single < 0:
                single = t
    r = counts[1]
    if r < game_rows.shape[0]:
        row = game_rows[r]
        row[0] = game
        row[1] = manches
        row[2] = first_dealer
        row[3] = mask
        row[4] = single if n_best == 1 else -1
        for t in range(T):
            row[N_GAME_FIXED + t] = totals[t]
    counts[1] += 1


@njit(parallel=True)
def simulate(seed, start, stop, level, ri, rf, deck, sids, prm, model, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` in ``n_blocks`` contiguous blocks (``prange``).

    Block ``b`` plays games ``[start + b * per, start + (b + 1) * per)`` (clipped), ``per = ceil((stop -
    start) / n_blocks)``; the split changes no result (one RNG stream per game). ``caps``: ``int64[2]`` row
    capacity per block for manches and games; ``n_cols``: ``int64[2]``. Returns ``(manches int64[B, cap0, c0],
    traces uint64[B, cap0], games int64[B, cap1, c1], counts int64[B, 2])``; a block whose count exceeds its
    capacity kept only the first rows (the caller retries with more room).
    """
    P = sids.shape[0]
    manches_all = np.empty((n_blocks, caps[0], n_cols[0]), dtype=np.int64)
    trace_all = np.empty((n_blocks, caps[0]), dtype=np.uint64)
    games_all = np.empty((n_blocks, caps[1], n_cols[1]), dtype=np.int64)
    counts_all = np.zeros((n_blocks, 2), dtype=np.int64)
    total = stop - start
    per = (total + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        lo = min(start + per * b, stop)
        hi = min(start + per * (b + 1), stop)
        g = new_state(P)
        totals = np.zeros(P // 2, dtype=np.int64)
        counts = counts_all[b]
        for i in range(lo, hi):
            play_game(i, level, seed, P, ri, rf, deck, sids, prm, model, g, counts, manches_all[b], trace_all[b],
                      games_all[b], totals)
    return manches_all, trace_all, games_all, counts_all
