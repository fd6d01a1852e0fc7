"""The Kem's numba engine: arrays in, arrays out.

Contract: ``simulate(seed, start, stop, level_id, int_rules, float_rules, deck, seats, model, n_blocks, caps,
n_cols)``
plays games ``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks run in
``prange`` and returns per-block raw rows in the layout of :mod:`simulator.kems.vocabulary.records`. It follows
``simulator/kems/engines/reference.py`` step for step and draws the same random numbers in the same order, so both
engines produce identical rows and trace hashes; each function names the reference method it mirrors. Unlike
the reference, which visits every tick, it jumps from one event tick to the next (moves, signs, false alarms,
calls, phase ends, the quiet sweep): nothing happens in the ticks between.

Inputs: ``int_rules``/``float_rules`` from :func:`simulator.kems.vocabulary.rules.rules_arrays` (slots ``INT_RULE.<option>``,
``FLOAT_RULE.<option>``); ``deck`` ``int64[n]`` the deck's card ids in id order; ``seats`` the
:class:`~simulator.core.contract.user_table.KernelSeats` (kernel ids, parameters, the function table of strategies from
files and the fault record their illegal answers fill; every decision goes through :mod:`strategies.kems.policy`),
``model`` ``float64[P, 6]`` from
:func:`simulator.kems.engines.reference.seat_model`.

Per-block state ``manche``, a :class:`~simulator.kems.engines.kernel_state.MancheState` read and written by field name,
reused from manche to manche: hands, the centre, where each card is, stock and hidden discard, per-seat timers
and pending calls, the public record players perceive (M-perception, :mod:`simulator.kems.engines.kernel_view`), and
the scalars ``manche.st`` (``ST.<name>``). Signs and calls live in
:mod:`simulator.kems.engines.kernel_calls`.

Skipped work (same results): a deterministic strategy whose view has not changed (same view key) would
propose the same again, so its proposal is reused; an *idle* player (deterministic, nothing to take, no
inference due before its contre horizon) is not visited at all until it perceives a new public state
(``kernel_view.publish`` brings its wake-up tick forward) or reaches its horizon; :func:`_next_event` includes
those wake-up ticks.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.kernels.block_kernel import block_games, row_buffers
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import NEVER, exponential, geometric, next_u64, seed_state, shuffle, uniform
from simulator.kems.engines.kernel_calls import calls, false_alarms, signs
from simulator.kems.engines.kernel_state import (
    N_ST, REC, S_RATE, S_SIGMA, SCALARS, ST, after, catch_up, holds_four, new_state, schedule, trace, wake_all,
)
from simulator.kems.engines.kernel_view import (
    build_own_view, next_perceived, open_before, own_exchange, publish, reset_record, state_pub, view_key,
    visible_state,
)
from simulator.kems.vocabulary.codes import (
    CALL_CONTRE, EMPTY, EV_DEAL, EV_END, EV_FOUR, EV_REDEAL, EV_RESHUFFLE, EV_SWAP, EV_SWEEP, EV_TOP, EV_TURN_UP,
    LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, PH_OPEN, PH_SWEEP, PH_TURN_UP, TRACE_SEED, VISIBLE_BEFORE_DEAL,
    WHY_INFERENCE,
)
from simulator.kems.vocabulary.contract import InferContre, Propose
from simulator.kems.vocabulary.records import GAME, GAME_FIXED, MANCHE, MANCHE_FIXED
from simulator.kems.vocabulary.rules import FLOAT_RULE, INT_RULE, RACE
from strategies.kems import policy
from strategies.kems.policy import decide_infer_contre, decide_propose

LEVEL_MANCHES, LEVEL_GAMES = 0, 1
MAX_MANCHES = 1000      # reference.MAX_MANCHES
N_MANCHE_FIXED = len(MANCHE_FIXED)
N_GAME_FIXED = len(GAME_FIXED)
MANCHE_FROM_SCALARS = tuple((getattr(MANCHE, name), getattr(ST, name)) for name in MANCHE_FIXED if name in SCALARS)
"""``(column, scalar)``: the manche row's columns copied from the manche scalars of the same name."""


@njit(refcount=False)
def _reshuffle(manche):
    """Manche.reshuffle (KM7)."""
    stock, discard, loc = manche.stock, manche.discard, manche.loc
    st, h, rng = manche.st, manche.trace_hash, manche.rng
    n = st[ST.n_discard]
    shuffle(discard, n, rng)
    for k in range(n):
        stock[k] = discard[k]
        loc[discard[k]] = LOC_UNKNOWN
    st[ST.n_stock] = n
    st[ST.n_discard] = 0
    st[ST.reshuffles] += 1
    trace(h, EV_RESHUFFLE, n, 0, 0)


@njit(refcount=False, inline="always")
def _draw(manche):
    """Manche.draw."""
    st = manche.st
    if st[ST.n_stock] == 0:
        _reshuffle(manche)
    st[ST.n_stock] -= 1
    return manche.stock[st[ST.n_stock]]


# ------------------------------------------------------------------------------------------ KM3, KM4, KM6
@njit(refcount=False, inline="always")
def _trace_hand(h, hands, p):
    """Manche.trace_hand."""
    for k in range(4):
        trace(h, EV_DEAL, p, k, hands[p, k])


@njit(refcount=False)
def _deal(manche, P, deck, n_deck):
    """Manche.deal (KM3)."""
    hands, loc, stock, discard = manche.hands, manche.loc, manche.stock, manche.discard
    st, h, rng, cnt = manche.st, manche.trace_hash, manche.rng, manche.rank_counts
    d = st[ST.dealer]
    for k in range(n_deck):
        stock[k] = deck[k]
    shuffle(stock, n_deck, rng)
    st[ST.n_stock] = n_deck
    for k in range(4):
        for i in range(1, P + 1):
            hands[(d + i) % P, k] = _draw(manche)
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
                discard[st[ST.n_discard]] = c
                st[ST.n_discard] += 1
            for k in range(4):
                hands[p, k] = _draw(manche)
            st[ST.redeals] += 1
            trace(h, EV_REDEAL, p, shown, 0)
            _trace_hand(h, hands, p)


@njit(refcount=False, inline="always")
def _turn_up(manche, tick):
    """Manche.turn_up (KM4, KM7)."""
    table, loc, h = manche.table, manche.loc, manche.trace_hash
    for s in range(4):
        if table[s] == EMPTY:
            c = _draw(manche)
            table[s] = c
            loc[c] = LOC_TABLE
            trace(h, EV_TURN_UP, s, c, 0)


@njit(refcount=False, inline="always")
def _top(manche, tick, P, model):
    """Manche.top: "Top", every player's first move time."""
    for p in range(P):
        manche.next_move[p] = tick + exponential(manche.move_streams[p], model[p, S_RATE])
        manche.passed[p] = 0
        manche.idle[p] = 0
    trace(manche.trace_hash, EV_TOP, tick, 0, 0)


@njit(refcount=False, inline="always")
def _sweep(manche, tick):
    """Manche.sweep (KM6)."""
    table, loc, discard, st = manche.table, manche.loc, manche.discard, manche.st
    for s in range(4):
        c = table[s]
        if c != EMPTY:
            discard[st[ST.n_discard]] = c
            st[ST.n_discard] += 1
            loc[c] = LOC_DEAD
        table[s] = EMPTY
    st[ST.sweeps] += 1
    st[ST.dirty] = 1
    trace(manche.trace_hash, EV_SWEEP, tick, 0, 0)


# ------------------------------------------------------------------------------------------ KM5
@njit(refcount=False, inline="always")
def _moves(manche, tick, P, int_rules, float_rules, seats, model):
    """Manche.moves: one OPEN tick's moves; returns whether any exchange succeeded.

    Longer than 80 lines: Manche.moves step for step (who moves this tick, each
    mover's view, its contre inference, its proposal from the cache or the strategy, the race, the exchanges),
    one loop over the movers whose dozen arrays every step shares."""
    hands, table, loc, mem, work, out = manche.hands, manche.table, manche.loc, manche.mem, manche.work, manche.out
    next_move, last_swap, passed = manche.next_move, manche.last_swap, manche.passed
    banned, pend_due = manche.banned, manche.pending_due
    seen, silence, when = manche.own_table, manche.silence, manche.mover_times
    movers, pairs, npairs = manche.movers, manche.mover_pairs, manche.mover_pair_counts
    st, h, rng, changed = manche.st, manche.trace_hash, manche.rng, manche.hand_changed
    cache_stamp, cache, cache_n = manche.cached_view, manche.cached_pairs, manche.cached_pair_counts
    pub, hz_version, hz = manche.own_rank_counts, manche.horizon_view, manche.contre_horizon
    idle, idle_until = manche.idle, manche.idle_until
    view_loc, rec_last = manche.own_loc, manche.rec_last_swap
    lag = int_rules[INT_RULE.lag_ticks]
    n_movers = 0
    state = -1   # M-perception: the public state visible by tick - lag (the same for every mover)
    open_then = 0
    perceive_next = NEVER
    for p in range(P):
        if idle[p] or not (tick <= next_move[p] < tick + 1):
            continue
        if state < 0:
            state = visible_state(manche, tick, lag)
            open_then = open_before(manche, state, tick - lag)
            perceive_next = next_perceived(manche, state, lag)  # when a newer state already published is perceived
        key = view_key(manche, p, state)
        k_state = state % REC
        if key >= 0:   # p's view is the state itself: its rows are the inputs
            seen_v, loc_v, pub_v = manche.rec_table[k_state], manche.rec_loc[k_state], manche.rec_rank_counts[k_state]
        else:          # the state and p's own exchanges since
            build_own_view(manche, p, state, P)
            seen_v, loc_v, pub_v = seen, view_loc, pub
        until = NEVER  # while its view stays the same, the first tick at which p's inference might call
        if not banned[p] and pend_due[p, CALL_CONTRE] == NEVER:
            if key < 0 or hz_version[p] != key:
                if key >= 0:
                    state_pub(manche, state, P)
                hz[p] = policy.contre_horizon(seats.sids[p], seats.prm[p], p, P, hands[p], loc_v, pub_v,
                                              rec_last[k_state], work)
                hz_version[p] = key
            until = tick + hz[p] - open_then if hz[p] < NEVER else NEVER
            if open_then >= hz[p]:  # before the horizon the reference's infer_contre surely says -1
                if key >= 0:
                    state_pub(manche, state, P)
                for q in range(P):
                    silence[q] = open_then - rec_last[k_state, q]
                j = decide_infer_contre(seats, InferContre(p, P, hands[p], loc_v, pub_v, silence, work))
                if j >= 0:
                    schedule(manche, tick, p, CALL_CONTRE, j, WHY_INFERENCE, int_rules)
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
                state_pub(manche, state, P)
            multi = int_rules[INT_RULE.multi_swap] != 0
            n = decide_propose(seats, Propose(p, P, hands[p], seen_v, loc_v, pub_v, multi, mem[p], work, out,
                                                   rng))
            if int_rules[INT_RULE.multi_swap] == 0 and n > 1:  # KM5
                n = 1
            for i in range(n):
                pairs[p, i, 0] = out[i, 0]
                pairs[p, i, 1] = out[i, 1]
                pairs[p, i, 2] = seen_v[out[i, 1]]
            cache_stamp[p] = -1
            if policy.reuses_proposals(seats.sids[p]) and key >= 0:
                cache_stamp[p] = key
                cache_n[p] = n
                for i in range(n):
                    cache[p, i, 0] = pairs[p, i, 0]
                    cache[p, i, 1] = pairs[p, i, 1]
                    cache[p, i, 2] = pairs[p, i, 2]
        if int_rules[INT_RULE.race_policy] == RACE.speed_weighted:
            w = next_move[p] - tick
        elif int_rules[INT_RULE.race_policy] == RACE.uniform:
            w = uniform(manche.move_streams[p])
        else:
            w = float((p - st[ST.dealer] - 1 + P) % P)
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
            own_exchange(manche, p, tick + 1, slot, taken, given)
            loc[taken] = p
            loc[given] = LOC_TABLE
            last_swap[p] = st[ST.open_ticks]
            st[ST.exchanges] += 1
            manche.seat_exchanges[p] += 1
            success = True
            changed[p] = 1
            trace(h, EV_SWAP, p, taken, given)
    # with sweep_on_all_pass an exchange resets every pass, which the skipped moves of an idle player would
    # have set again at their own ticks: then everyone looks again from the next tick
    all_pass_reset = success and int_rules[INT_RULE.sweep_on_all_pass] != 0
    if success:
        st[ST.dirty] = 1
    for p in range(P):  # next move times, in seat order (the reference's mover list is in seat order)
        if not idle[p] and tick <= next_move[p] < tick + 1:
            next_move[p] = tick + 1 + exponential(manche.move_streams[p], model[p, S_RATE])
            if idle_until[p] > tick and not all_pass_reset:
                idle[p] = 1
    if all_pass_reset:
        wake_all(manche, tick, P, int_rules, model)
    for p in range(P):
        if changed[p]:
            _update_four(manche, tick, p, model, float_rules)
    return success


@njit(refcount=False, inline="always")
def _update_four(manche, tick, p, model, float_rules):
    """Manche.update_four: a new holder starts signalling after d_s ~ Geom."""
    hands, holding, next_sign = manche.hands, manche.holding, manche.next_sign
    four_tick, h, rng = manche.four_tick, manche.trace_hash, manche.rng
    four = holds_four(hands, p)
    if four and not holding[p]:
        holding[p] = 1
        if four_tick[p] < 0:
            four_tick[p] = tick
        trace(h, EV_FOUR, p, hands[p, 0] % 13, 0)
        delay = geometric(rng, float_rules[FLOAT_RULE.sign_delay_p])
        nxt = tick + delay + geometric(rng, model[p, S_SIGMA]) - 1
        next_sign[p] = NEVER if nxt >= NEVER else nxt
    elif not four and holding[p]:
        holding[p] = 0
        next_sign[p] = NEVER


# ------------------------------------------------------------------------------------------ the clock
@njit(refcount=False, inline="always")
def _next_event(manche, tick, P, phase, phase_end, quiet, int_rules):
    """The first tick ``>= tick`` at which anything can happen (the kernel's jump; the reference visits all).

    Also keeps in ``st`` the first tick of each kind of timer, so a visited tick only runs the steps due."""
    st = manche.st
    nt = int_rules[INT_RULE.max_ticks]
    if phase != PH_OPEN:
        if phase_end < nt:
            nt = phase_end
    else:
        s = tick + int_rules[INT_RULE.quiet_ticks] - quiet - 1
        if s < nt:
            nt = s
        next_move = manche.next_move
        for p in range(P):
            if manche.idle[p]:
                if manche.idle_until[p] < nt:
                    nt = manche.idle_until[p]
                continue
            m = next_move[p]
            if m < nt:
                nt = np.int64(np.floor(m))
    n_sign = NEVER
    n_false = NEVER
    n_call = NEVER
    for p in range(P):
        n_sign = min(n_sign, manche.next_sign[p])
        n_false = min(n_false, min(manche.next_false_kems[p], manche.next_false_contre[p]))
        n_call = min(n_call, min(manche.pending_due[p, 0], manche.pending_due[p, 1]))
    st[ST.next_sign] = n_sign
    st[ST.next_false] = n_false
    st[ST.next_call] = n_call
    nt = min(nt, min(n_sign, min(n_false, n_call)))
    return nt if nt > tick else tick


@njit(refcount=False)
def play_manche(manche, P, int_rules, float_rules, deck, n_deck, seats, model):
    """Manche.play: one manche from the state's rng and dealer (``st[ST.dealer]``); results in ``manche``.

    Longer than 80 lines, eight parameters (the block's state, the rules' two
    arrays, the deck and its size, the seats and their model): Manche.play's reset, deal and event loop, one block
    per phase as in the reference."""
    T = P // 2
    table, loc, mem, st = manche.table, manche.loc, manche.mem, manche.st
    lag = int_rules[INT_RULE.lag_ticks]
    for s in range(4):
        table[s] = EMPTY
    for c in range(52):
        loc[c] = LOC_UNKNOWN
    for p in range(P):
        for k in range(4):
            mem[p, k] = -1
        manche.next_move[p] = np.inf
        manche.last_swap[p] = 0
        manche.passed[p] = 0
        manche.holding[p] = 0
        manche.banned[p] = 0
        manche.next_sign[p] = NEVER
        manche.pending_due[p, 0] = NEVER
        manche.pending_due[p, 1] = NEVER
        manche.seat_exchanges[p] = 0
        manche.four_tick[p] = -1
        manche.cached_view[p] = -1
        manche.horizon_view[p] = -1
        manche.idle[p] = 0
    for t in range(T):
        manche.points[t] = 0
        manche.signs[t] = 0
        manche.seen_partner[t] = 0
        manche.seen_opp[t] = 0
    dealer = st[ST.dealer]
    for k in range(N_ST):
        st[k] = 0
    st[ST.dealer] = dealer
    st[ST.outcome] = OUT_CAP
    st[ST.caller] = -1
    st[ST.why] = -1
    reset_record(manche, VISIBLE_BEFORE_DEAL, P)
    h = manche.trace_hash
    h[0] = np.uint64(TRACE_SEED)
    rng = manche.rng
    base = next_u64(rng)
    for p in range(P):
        seed_state(base, p, manche.move_streams[p])
    _deal(manche, P, deck, n_deck)
    for p in range(P):
        manche.next_false_kems[p] = after(-1, float_rules[FLOAT_RULE.false_kems_rate], rng)
        manche.next_false_contre[p] = after(-1, float_rules[FLOAT_RULE.false_contre_rate], rng)
    tick = 0
    _turn_up(manche, tick)
    publish(manche, tick, 0, P, lag, 1)  # the deal's shown cards and the centre
    phase = PH_TURN_UP
    phase_end = int_rules[INT_RULE.turn_up_ticks]
    quiet = 0
    max_ticks = int_rules[INT_RULE.max_ticks]
    while True:
        if phase == PH_SWEEP and tick == phase_end:
            _turn_up(manche, tick)
            phase = PH_TURN_UP
            phase_end = tick + int_rules[INT_RULE.turn_up_ticks]
            publish(manche, tick, 0, P, lag, 1)
        if phase == PH_TURN_UP and tick == phase_end:
            _top(manche, tick, P, model)
            phase = PH_OPEN
            quiet = 0
            publish(manche, tick, 1, P, lag, 0)  # only the clock: from now on the open-exchange ticks count (silence)
        if phase == PH_OPEN:
            for p in range(P):
                # it perceives a change or reaches its contre horizon: it looks again
                if manche.idle[p] and manche.idle_until[p] <= tick:
                    catch_up(manche, p, tick, int_rules, model)
            if _moves(manche, tick, P, int_rules, float_rules, seats, model):
                quiet = 0
                for p in range(P):
                    manche.passed[p] = 0
            else:
                quiet += 1
            st[ST.open_ticks] += 1
            all_passed = int_rules[INT_RULE.sweep_on_all_pass] != 0
            if all_passed:
                for p in range(P):
                    if not manche.passed[p]:
                        all_passed = False
            if quiet >= int_rules[INT_RULE.quiet_ticks] or all_passed:
                _sweep(manche, tick)
                wake_all(manche, tick, P, int_rules, model)
                phase = PH_SWEEP
                phase_end = tick + 1 + int_rules[INT_RULE.sweep_ticks]
        if st[ST.next_sign] <= tick:  # timers set during this tick are all for later ticks
            signs(manche, tick, P, int_rules, float_rules, seats, model)
        if st[ST.next_false] <= tick:
            false_alarms(manche, tick, P, int_rules, float_rules)
        if st[ST.next_call] <= tick:
            calls(manche, tick, P, int_rules, model)
        if st[ST.dirty] and not st[ST.ended]:  # what changed in this tick is visible from the next
            publish(manche, tick + 1, 1 if phase == PH_OPEN else 0, P, lag, 1)
            st[ST.dirty] = 0
        tick += 1
        if st[ST.ended] or tick >= max_ticks:
            break
        nt = _next_event(manche, tick, P, phase, phase_end, quiet, int_rules)
        if nt >= max_ticks:
            tick = max_ticks
            break
        if phase == PH_OPEN:
            quiet += nt - tick
            st[ST.open_ticks] += nt - tick
        tick = nt
    st[ST.ticks] = tick
    trace(h, EV_END, st[ST.outcome], st[ST.caller], tick)


# ------------------------------------------------------------------------------------------ games
@njit(refcount=False, inline="always")
def play_game(game, level, seed, P, int_rules, float_rules, deck, seats, model, manche, counts, manche_rows, trace_rows,
              game_rows, totals):
    """Game.play: rows of one game appended at ``counts`` (rows beyond a table's capacity are counted, not kept).

    Longer than 80 lines, fifteen parameters (what play_manche takes, the game's
    index, level and seed, the block's four row buffers and the running totals): Game.play, and its manche and
    game rows written by column name."""
    T = P // 2
    st = manche.st
    seed_state(seed, game, manche.rng)
    first_dealer = game % P
    for t in range(T):
        totals[t] = 0
    sightings = manche.sightings
    for p in range(P):
        for t in range(T):
            sightings[p, t] = 0
    manches = 0
    while True:
        if int_rules[INT_RULE.signs_change_each_manche]:
            for p in range(P):
                for t in range(T):
                    sightings[p, t] = 0
        st[ST.dealer] = (first_dealer + manches) % P
        play_manche(manche, P, int_rules, float_rules, deck, deck.shape[0], seats, model)
        for t in range(T):
            totals[t] += manche.points[t]
        r = counts[0]
        if r < manche_rows.shape[0]:
            row = manche_rows[r]
            row[MANCHE.game] = game
            row[MANCHE.manche] = manches
            for column, scalar in MANCHE_FROM_SCALARS:
                row[column] = st[scalar]
            c = N_MANCHE_FIXED
            for t in range(T):
                row[c + t] = manche.points[t]
                row[c + T + t] = totals[t]
                row[c + 2 * T + t] = manche.signs[t]
                row[c + 3 * T + t] = manche.seen_partner[t]
                row[c + 4 * T + t] = manche.seen_opp[t]
            c += 5 * T
            for p in range(P):
                row[c + p] = manche.seat_exchanges[p]
                row[c + P + p] = manche.four_tick[p]
            trace_rows[r] = manche.trace_hash[0]
        counts[0] += 1
        manches += 1
        if level == LEVEL_MANCHES:
            return
        best = totals[0]
        for t in range(T):
            if totals[t] > best:
                best = totals[t]
        if best >= int_rules[INT_RULE.target] or manches >= MAX_MANCHES:
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
        row[GAME.game] = game
        row[GAME.manches] = manches
        row[GAME.first_dealer] = first_dealer
        row[GAME.winners] = mask
        row[GAME.winner] = single if n_best == 1 else -1
        for t in range(T):
            row[N_GAME_FIXED + t] = totals[t]
    counts[1] += 1


@njit(refcount=False)
def play_block(first, end, level, seed, P, int_rules, float_rules, deck, seats, model, manche, counts, manche_rows,
               trace_rows, game_rows, totals):
    """Games ``[first, end)`` into the block's buffers: the one call a ``prange`` block makes. Sixteen parameters:
    :func:`play_game`'s, with the block's range for its index. The loop is here, not in the parallel loop's body,
    so that :func:`play_game` (inlined) is not a call per game passing every array of the block, and counting each
    one with atomics: numba compiles the parallel body with reference counting."""
    for game in range(first, end):
        play_game(game, level, seed, P, int_rules, float_rules, deck, seats, model, manche, counts, manche_rows,
                  trace_rows, game_rows, totals)


@njit(parallel=True)
def simulate(seed, start, stop, level, int_rules, float_rules, deck, seats, model, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` in ``n_blocks`` contiguous blocks (``prange``).

    Block ``b`` plays :func:`~simulator.core.kernels.block_kernel.block_games` (the split changes no result: one random
    stream per game). ``caps``, ``n_cols``: ``int64[2]`` row capacity per block and columns, for manches and games.
    Returns :func:`~simulator.core.kernels.block_kernel.row_buffers` filled (``(manches, traces, games, counts)``); a block
    whose count exceeds its capacity kept only the first rows (the caller retries with more room).

    Twelve parameters: the compiled entry point ``engine.raw_kernel`` calls with one chunk's plain values and
    arrays.
    """
    P = seats.sids.shape[0]
    manches, traces, games, counts = row_buffers(n_blocks, caps, n_cols)
    for b in prange(n_blocks):
        manche = new_state(P)
        totals = np.zeros(P // 2, dtype=np.int64)
        first, end = block_games(start, stop, n_blocks, b)
        play_block(first, end, level, seed, P, int_rules, float_rules, deck, seats, model, manche, counts[b],
                   manches[b], traces[b], games[b], totals)
    return manches, traces, games, counts
