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

Per-block state ``g`` (see :func:`simulator.kems.kernel_state.new_state`), reused from manche to manche: hands
``int64[P, 4]``, the centre ``int64[4]``, ``loc`` ``int8[52]``, stock and hidden discard ``int64[52]`` (top =
last), per-seat timers and pending calls, the public record players perceive (M-perception,
:mod:`simulator.kems.kernel_view`), and scalars ``st``. Signs and calls live in
:mod:`simulator.kems.kernel_calls`.

Skipped work (same results): a deterministic strategy whose view has not changed (same view key) would
propose the same again, so its proposal is reused; an *idle* player (deterministic, nothing to take, no
inference due before its contre horizon) is not visited at all until it perceives a new public state
(``kernel_view.publish`` brings its wake-up tick forward) or reaches its horizon; :func:`_next_event` includes
those wake-up ticks.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.block_kernel import block_games, row_buffers
from simulator.core.jit import njit
from simulator.core.rng import NEVER, below, exponential, geometric, next_u64, seed_state, uniform
from simulator.kems.codes import (
    CALL_CONTRE, EMPTY, EV_DEAL, EV_END, EV_FOUR, EV_REDEAL, EV_RESHUFFLE, EV_SWAP, EV_SWEEP, EV_TOP, EV_TURN_UP,
    LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, PH_OPEN, PH_SWEEP, PH_TURN_UP, TRACE_SEED, VISIBLE_BEFORE_DEAL,
    WHY_INFERENCE,
)
from simulator.kems.kernel_calls import calls, false_alarms, signs
from simulator.kems.kernel_state import (
    N_ST, REC, S_RATE, S_SIGMA, ST_CALLER, ST_DEALER, ST_DIRTY, ST_ENDED, ST_EXCH, ST_NDISCARD, ST_NEXT_CALL,
    ST_NEXT_FALSE, ST_NEXT_SIGN, ST_NSTOCK, ST_OPEN_TICKS, ST_OUTCOME, ST_REDEALS, ST_RESHUF, ST_SWEEPS, ST_TICKS,
    ST_WHY, ST_WRONG_CONTRES, ST_CALLS, after, catch_up, holds_four, new_state, schedule, trace, wake_all,
)
from simulator.kems.kernel_view import (
    build_own_view, next_perceived, open_before, own_exchange, publish, reset_record, state_pub, view_key,
    visible_state,
)
from simulator.kems.records import GAME_FIXED, MANCHE_FIXED
from simulator.kems.rules import (
    F_FALSE_CONTRE, F_FALSE_KEMS, F_SIGN_DELAY_P, I_ALL_PASS, I_LAG, I_MAX_TICKS, I_MULTI, I_QUIET, I_RACE,
    I_SIGN_CHANGE, I_SWEEP, I_TARGET, I_TURN_UP, RACE_SPEED, RACE_UNIFORM,
)
from strategies.kems import policy

LEVEL_MANCHES, LEVEL_GAMES = 0, 1
MAX_MANCHES = 1000      # reference.MAX_MANCHES
N_MANCHE_FIXED = len(MANCHE_FIXED)
N_GAME_FIXED = len(GAME_FIXED)


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
    trace(h, EV_RESHUFFLE, n, 0, 0)


@njit(refcount=False, inline="always")
def _draw(g):
    """Manche.draw."""
    st = g[29]
    if st[ST_NSTOCK] == 0:
        _reshuffle(g)
    st[ST_NSTOCK] -= 1
    return g[5][st[ST_NSTOCK]]


# ------------------------------------------------------------------------------------------ KM3, KM4, KM6
@njit(refcount=False, inline="always")
def _trace_hand(h, hands, p):
    """Manche.trace_hand."""
    for k in range(4):
        trace(h, EV_DEAL, p, k, hands[p, k])


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
        _trace_hand(h, hands, p)
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
            trace(h, EV_REDEAL, p, shown, 0)
            _trace_hand(h, hands, p)


@njit(refcount=False, inline="always")
def _turn_up(g, tick):
    """Manche.turn_up (KM4, KM7)."""
    table, loc, h = g[1], g[4], g[36]
    for s in range(4):
        if table[s] == EMPTY:
            c = _draw(g)
            table[s] = c
            loc[c] = LOC_TABLE
            trace(h, EV_TURN_UP, s, c, 0)


@njit(refcount=False, inline="always")
def _top(g, tick, P, model):
    """Manche.top: "Top", every player's first move time."""
    for p in range(P):
        g[10][p] = tick + exponential(g[46][p], model[p, S_RATE])
        g[12][p] = 0
        g[47][p] = 0
    trace(g[36], EV_TOP, tick, 0, 0)


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
        table[s] = EMPTY
    st[ST_SWEEPS] += 1
    st[ST_DIRTY] = 1
    trace(g[36], EV_SWEEP, tick, 0, 0)


# ------------------------------------------------------------------------------------------ KM5
@njit(refcount=False, inline="always")
def _moves(g, tick, P, ri, rf, sids, prm, model):
    """Manche.moves: one OPEN tick's moves; returns whether any exchange succeeded.

    Longer than 80 lines: the Kem's kernel keeps its positional state until the named form (branch i11-kems) is as fast: measured there at 0.81x this one on 1 thread (issue 11)."""
    hands, table, loc, mem, work, out = g[0], g[1], g[4], g[7], g[8], g[9]
    next_move, last_swap, passed, banned, pend_due = g[10], g[11], g[12], g[14], g[18]
    seen, silence, when, movers, pairs, npairs = g[23], g[24], g[25], g[26], g[27], g[28]
    st, h, rng, changed = g[29], g[36], g[37], g[38]
    cache_stamp, cache, cache_n = g[40], g[41], g[42]
    pub, hz_version, hz = g[43], g[44], g[45]
    idle, idle_until = g[47], g[48]
    view_loc, rec_last = g[55], g[50]
    lag = ri[I_LAG]
    n_movers = 0
    state = -1   # M-perception: the public state visible by tick - lag (the same for every mover)
    open_then = 0
    perceive_next = NEVER
    for p in range(P):
        if idle[p] or not (tick <= next_move[p] < tick + 1):
            continue
        if state < 0:
            state = visible_state(g, tick, lag)
            open_then = open_before(g, state, tick - lag)
            perceive_next = next_perceived(g, state, lag)  # when a newer state already published is perceived
        key = view_key(g, p, state)
        k_state = state % REC
        if key >= 0:   # p's view is the state itself: its rows are the inputs
            seen_v, loc_v, pub_v = g[2][k_state], g[49][k_state], g[57][k_state]
        else:          # the state and p's own exchanges since
            build_own_view(g, p, state, P)
            seen_v, loc_v, pub_v = seen, view_loc, pub
        until = NEVER  # while its view stays the same, the first tick at which p's inference might call
        if not banned[p] and pend_due[p, CALL_CONTRE] == NEVER:
            if key < 0 or hz_version[p] != key:
                if key >= 0:
                    state_pub(g, state, P)
                hz[p] = policy.contre_horizon(sids[p], prm[p], p, P, hands[p], loc_v, pub_v, rec_last[k_state], work)
                hz_version[p] = key
            until = tick + hz[p] - open_then if hz[p] < NEVER else NEVER
            if open_then >= hz[p]:  # before the horizon the reference's infer_contre surely says -1
                if key >= 0:
                    state_pub(g, state, P)
                for q in range(P):
                    silence[q] = open_then - rec_last[k_state, q]
                j = policy.infer_contre(sids[p], prm[p], p, P, hands[p], loc_v, pub_v, silence, work)
                if j >= 0:
                    schedule(g, tick, p, CALL_CONTRE, j, WHY_INFERENCE, ri)
        if key >= 0 and cache_stamp[p] == key:
            # a deterministic strategy on the same view as at its last proposal: it would propose the same
            # (the reference recomputes it)
            n = cache_n[p]
            for i in range(n):
                pairs[p, i, 0] = cache[p, i, 0]
                pairs[p, i, 1] = cache[p, i, 1]
                pairs[p, i, 2] = cache[p, i, 2]
        else:
            if key >= 0:
                state_pub(g, state, P)
            n = policy.propose(sids[p], prm[p], p, P, hands[p], seen_v, loc_v, pub_v, ri[I_MULTI] != 0, mem[p], work,
                               out, rng)
            if ri[I_MULTI] == 0 and n > 1:  # KM5
                n = 1
            for i in range(n):
                pairs[p, i, 0] = out[i, 0]
                pairs[p, i, 1] = out[i, 1]
                pairs[p, i, 2] = seen_v[out[i, 1]]
            cache_stamp[p] = -1
            if sids[p] != policy.RANDOM and key >= 0:
                cache_stamp[p] = key
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
        # a deterministic player with nothing to take and no inference due: its next moves change nothing until
        # it perceives a newer public state or reaches its contre horizon (set idle below)
        idle_until[p] = -1
        if n == 0 and until > tick and key >= 0 and cache_stamp[p] == key:
            idle_until[p] = min(until, perceive_next)
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
            table[slot] = given
            own_exchange(g, p, tick + 1, slot, taken, given)
            loc[taken] = p
            loc[given] = LOC_TABLE
            last_swap[p] = st[ST_OPEN_TICKS]
            st[ST_EXCH] += 1
            g[34][p] += 1
            success = True
            changed[p] = 1
            trace(h, EV_SWAP, p, taken, given)
    # with sweep_on_all_pass an exchange resets every pass, which the skipped moves of an idle player would
    # have set again at their own ticks: then everyone looks again from the next tick
    all_pass_reset = success and ri[I_ALL_PASS] != 0
    if success:
        st[ST_DIRTY] = 1
    for p in range(P):  # next move times, in seat order (the reference's mover list is in seat order)
        if not idle[p] and tick <= next_move[p] < tick + 1:
            next_move[p] = tick + 1 + exponential(g[46][p], model[p, S_RATE])
            if idle_until[p] > tick and not all_pass_reset:
                idle[p] = 1
    if all_pass_reset:
        wake_all(g, tick, P, ri, model)
    for p in range(P):
        if changed[p]:
            _update_four(g, tick, p, model, rf)
    return success


@njit(refcount=False, inline="always")
def _update_four(g, tick, p, model, rf):
    """Manche.update_four: a new holder starts signalling after d_s ~ Geom."""
    hands, holding, next_sign, four_tick, h, rng = g[0], g[13], g[15], g[35], g[36], g[37]
    four = holds_four(hands, p)
    if four and not holding[p]:
        holding[p] = 1
        if four_tick[p] < 0:
            four_tick[p] = tick
        trace(h, EV_FOUR, p, hands[p, 0] % 13, 0)
        delay = geometric(rng, rf[F_SIGN_DELAY_P])
        nxt = tick + delay + geometric(rng, model[p, S_SIGMA]) - 1
        next_sign[p] = NEVER if nxt >= NEVER else nxt
    elif not four and holding[p]:
        holding[p] = 0
        next_sign[p] = NEVER


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
    """Manche.play: one manche from the state's rng and dealer (``st[ST_DEALER]``); results in ``g``.

    Longer than 80 lines, nine parameters: the Kem's kernel keeps its positional state until the named form (branch i11-kems) is as fast: measured there at 0.81x this one on 1 thread (issue 11)."""
    T = P // 2
    table, loc, mem, st = g[1], g[4], g[7], g[29]
    lag = ri[I_LAG]
    for s in range(4):
        table[s] = EMPTY
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
    reset_record(g, VISIBLE_BEFORE_DEAL, P)
    h = g[36]
    h[0] = np.uint64(TRACE_SEED)
    rng = g[37]
    base = next_u64(rng)
    for p in range(P):
        seed_state(base, p, g[46][p])
    _deal(g, P, deck, n_deck)
    for p in range(P):
        g[16][p] = after(-1, rf[F_FALSE_KEMS], rng)
        g[17][p] = after(-1, rf[F_FALSE_CONTRE], rng)
    tick = 0
    _turn_up(g, tick)
    publish(g, tick, 0, P, lag, 1)  # the deal's shown cards and the centre
    phase = PH_TURN_UP
    phase_end = ri[I_TURN_UP]
    quiet = 0
    max_ticks = ri[I_MAX_TICKS]
    while True:
        if phase == PH_SWEEP and tick == phase_end:
            _turn_up(g, tick)
            phase = PH_TURN_UP
            phase_end = tick + ri[I_TURN_UP]
            publish(g, tick, 0, P, lag, 1)
        if phase == PH_TURN_UP and tick == phase_end:
            _top(g, tick, P, model)
            phase = PH_OPEN
            quiet = 0
            publish(g, tick, 1, P, lag, 0)  # only the clock: from now on the open-exchange ticks count (silence)
        if phase == PH_OPEN:
            for p in range(P):
                if g[47][p] and g[48][p] <= tick:  # it perceives a change or reaches its contre horizon: it looks again
                    catch_up(g, p, tick, ri, model)
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
                wake_all(g, tick, P, ri, model)
                phase = PH_SWEEP
                phase_end = tick + 1 + ri[I_SWEEP]
        if st[ST_NEXT_SIGN] <= tick:  # timers set during this tick are all for later ticks
            signs(g, tick, P, ri, rf, model)
        if st[ST_NEXT_FALSE] <= tick:
            false_alarms(g, tick, P, ri, rf)
        if st[ST_NEXT_CALL] <= tick:
            calls(g, tick, P, ri, model)
        if st[ST_DIRTY] and not st[ST_ENDED]:  # what changed in this tick is visible from the next
            publish(g, tick + 1, 1 if phase == PH_OPEN else 0, P, lag, 1)
            st[ST_DIRTY] = 0
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
    trace(h, EV_END, st[ST_OUTCOME], st[ST_CALLER], tick)


# ------------------------------------------------------------------------------------------ games
@njit(refcount=False)
def play_game(game, level, seed, P, ri, rf, deck, sids, prm, model, g, counts, manche_rows, trace_rows, game_rows,
              totals):
    """Game.play: rows of one game appended at ``counts`` (rows beyond a table's capacity are counted, not kept).

    Longer than 80 lines, sixteen parameters: the Kem's kernel keeps its positional state until the named form (branch i11-kems) is as fast: measured there at 0.81x this one on 1 thread (issue 11)."""
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

    Block ``b`` plays :func:`~simulator.core.block_kernel.block_games` (the split changes no result: one random
    stream per game). ``caps``, ``n_cols``: ``int64[2]`` row capacity per block and columns, for manches and games.
    Returns :func:`~simulator.core.block_kernel.row_buffers` filled (``(manches, traces, games, counts)``); a block
    whose count exceeds its capacity kept only the first rows (the caller retries with more room).

    Thirteen parameters: the compiled entry point ``engine.raw_kernel`` calls with one chunk's plain values and
    arrays.
    """
    P = sids.shape[0]
    manches, traces, games, counts = row_buffers(n_blocks, caps, n_cols)
    for b in prange(n_blocks):
        g = new_state(P)
        totals = np.zeros(P // 2, dtype=np.int64)
        first, end = block_games(start, stop, n_blocks, b)
        for i in range(first, end):
            play_game(i, level, seed, P, ri, rf, deck, sids, prm, model, g, counts[b], manches[b], traces[b],
                      games[b], totals)
    return manches, traces, games, counts
