"""The steps of a Kamoul hand in numba (K2–K14): the deal, a turn's start, its actions, the powers, the snaps.

:mod:`simulator.kamoul.engines.turn_loop` plays them in the order of ``simulator.kamoul.engines.hand.Hand.play``,
drawing the same random numbers in the same order. Each reads the variant from ``rules`` (a record of
:data:`simulator.kamoul.vocabulary.rules.KERNEL_RULES`), the seats from ``seats`` and plays on one block's table
(``state``, a :data:`~simulator.kamoul.engines.kernel_state.HAND_TABLE` record) and scratch (``work``, read through
:func:`~simulator.kamoul.engines.kernel_state.scratch_of`). The reveal's scoring is
:mod:`simulator.kamoul.engines.score_kernel`, the study hooks :mod:`simulator.kamoul.engines.force_kernel`. Rule
numbers are cited where each rule is applied.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import IS_RED, N_RANKS
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, shuffle, uniform
from simulator.core.kernels.trace import fold as _trace
from simulator.kamoul.engines.beliefs import (
    askable, believe, everyone_believes, forget_all, only_owner_believes, swap_beliefs,
)
from simulator.kamoul.engines.force_kernel import clear_outputs
from simulator.kamoul.engines.kernel_state import ST, player_view, scratch_of
from simulator.kamoul.vocabulary.codes import (
    CLS_FALSE, EV_CALL, EV_CONTRE, EV_DEAL, EV_DISCARD, EV_DRAW, EV_FALSE_SHOWN, EV_FORGET, EV_KEEP,
    EV_MISREMEMBER, EV_PEEK, EV_PENALTY, EV_POWER, EV_REORDER, EV_RESHUFFLE, EV_SNAP_BAD, EV_SNAP_OK, EV_SWAP, EV_TAKE,
    EV_ULTIME, PENALTY_FALSE, PENALTY_OUT_OF_TURN, PENALTY_REORDER, PENALTY_SNAP, PENALTY_STUCK, POWER_KING, POWER_NONE, POWER_PEEK_OPP,
    POWER_PEEK_OWN, POWER_SWAP, RANK_POWER, SNAP_NONE, SNAP_OWN, STICK_MORE_PROB, TRACE_SEED, WRONG_RANKS,
    announcement_class, misremembered,
)
from simulator.kamoul.vocabulary.contract import Keep, KingSwap, Me, Peeks, Power, Snap, Table, TakeSlot
from simulator.kamoul.vocabulary.rules import AU_SCORE_30, FALSE_CALL, KING_POWER, RACE, STOCK_EMPTY, SWAP_SCOPE
from simulator.kamoul.vocabulary.views import card_value, nth_occupied, own_summary
from strategies.kamoul.policy import (
    decide_keep, decide_king_swap, decide_peeks, decide_power, decide_snap, decide_take_slot, estimate, forget_prob,
    memory_noise_prob, speed,
)

PILE_STOCK, PILE_DISCARD = 0, 1


@njit(refcount=False)
def count_cards(p, state):
    """How many cards ``p`` holds."""
    occ = state.occ
    n = 0
    for s in range(state.nslots[p]):
        n += occ[p, s]
    return n


@njit(refcount=False)
def hand_total(p, state):
    """The points ``p`` truly holds."""
    hand, occ = state.hand, state.occ
    total = 0
    for s in range(state.nslots[p]):
        if occ[p, s]:
            total += card_value(hand[p, s])
    return total


@njit(refcount=False)
def _is_false_now(p, rules, state, cum):
    """K12 ``false_call_mode=tamalou``: an announcement checked at once, and found false."""
    if rules.false_call_mode != FALSE_CALL.tamalou:
        return False
    total = hand_total(p, state)
    return announcement_class(total, cum[p], rules.au_score_30 == AU_SCORE_30.ge) == CLS_FALSE


# ------------------------------------------------------------------------------ piles and penalties (K13, K14)
@njit(refcount=False)
def _reshuffle(rules, state, rng, trace):
    """K14: the discard pile but its top card becomes the new stock."""
    scalars, stock, discard = state.scalars, state.stock, state.discard
    n_discard = scalars[ST.n_discard]
    if rules.on_stock_empty != STOCK_EMPTY.reshuffle or n_discard < 2:
        return False
    top = discard[n_discard - 1]
    n = n_discard - 1
    shuffle(discard, n, rng)
    for i in range(n):
        stock[i] = discard[i]
    scalars[ST.n_stock] = n
    discard[0] = top
    scalars[ST.n_discard] = 1
    _trace(trace, EV_RESHUFFLE, n, 0, 0)
    return True


@njit(refcount=False)
def _draw(rules, state, rng, trace):
    scalars = state.scalars
    if scalars[ST.n_stock] == 0 and not _reshuffle(rules, state, rng, trace):
        return -1
    scalars[ST.n_stock] -= 1
    return np.int64(state.stock[scalars[ST.n_stock]])


@njit(refcount=False)
def _place(p, card, state):
    """Put ``card`` face down and unseen into the first free position of ``p``'s layout; returns the position."""
    hand, occ, nslots = state.hand, state.occ, state.nslots
    s = 0
    while occ[p, s]:
        s += 1
    hand[p, s] = card
    occ[p, s] = 1
    state.faceup[p, s] = 0
    everyone_believes(state, p, s, -1)
    if s + 1 > nslots[p]:
        nslots[p] = s + 1
    return s


@njit(refcount=False)
def _penalty(p, reason, rules, state, rng, trace):
    """K13: +1 face-down card, unseen (skipped when no card can be drawn)."""
    card = _draw(rules, state, rng, trace)
    if card < 0:
        return
    s = _place(p, card, state)
    state.scalars[ST.penalties] += 1
    _trace(trace, EV_PENALTY, p, s, reason)


@njit(refcount=False)
def _stuck(p, pile, rules, state, rng, trace):
    """K13 physical layer: 1 + Geom(0.8) extra cards come off the pile and are kept face down."""
    if rules.p_stick <= 0 or uniform(rng) >= rules.p_stick:
        return
    extra = 1
    while uniform(rng) < STICK_MORE_PROB:
        extra += 1
    scalars = state.scalars
    for _ in range(extra):
        if pile == PILE_STOCK:
            if scalars[ST.n_stock] == 0:
                break
            scalars[ST.n_stock] -= 1
            card = state.stock[scalars[ST.n_stock]]
        else:
            if scalars[ST.n_discard] == 0:
                break
            scalars[ST.n_discard] -= 1
            card = state.discard[scalars[ST.n_discard]]
        s = _place(p, card, state)
        scalars[ST.penalties] += 1
        _trace(trace, EV_PENALTY, p, s, PENALTY_STUCK)


@njit(refcount=False)
def _show_false(p, rules, state, rng, trace):
    """K12 ``false_call_mode=tamalou``: the layout is shown to all, +1 card, play goes on."""
    hand, occ = state.hand, state.occ
    for s in range(state.nslots[p]):
        if occ[p, s]:
            everyone_believes(state, p, s, hand[p, s])
    _trace(trace, EV_FALSE_SHOWN, p, 0, 0)
    _penalty(p, PENALTY_FALSE, rules, state, rng, trace)


@njit(inline="llvm")
def _discard_push(state, card):
    state.discard[state.scalars[ST.n_discard]] = card
    state.scalars[ST.n_discard] += 1


# ------------------------------------------------------------------------------ powers (K5)
@njit(refcount=False)
def _swap_cards(hand, p1, s1, p2, s2):
    tmp = hand[p1, s1]
    hand[p1, s1] = hand[p2, s2]
    hand[p2, s2] = tmp


@njit(refcount=False)
def _power_kind(rules, card):
    """K5: the power of a stock card discarded directly (``POWER_NONE`` for a red king with ``black_only``)."""
    kind = RANK_POWER[card % N_RANKS]
    suit = card // N_RANKS  # card codes are 0–51 (views.card_value)
    if kind == POWER_KING and rules.king_power == KING_POWER.black_only and (suit == 1 or suit == 2):
        return POWER_NONE
    return kind


@njit(refcount=False)
def _power(p, card, rules, seats, state, work):
    """K5: the power of a stock card discarded directly (optional)."""
    scratch = scratch_of(work)
    rng, trace, tmp, out = scratch.rng, scratch.trace, scratch.tmp, scratch.out
    kind = _power_kind(rules, card)
    if kind == POWER_NONE:
        return
    hand = state.hand
    P = state.players
    know_me, occ, nslots, faceup = player_view(state, p)
    caller = state.scalars[ST.caller]
    locked = caller if (rules.caller_immune != 0 and caller >= 0) else -1
    used = decide_power(seats, Power(p, kind, know_me, occ, nslots, faceup, locked,
                                     rules.swap_scope == SWAP_SCOPE.own_vs_opponent, rng, tmp, out))
    if not used:
        return
    p1 = out[0]
    s1 = out[1]
    scalars = state.scalars
    if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
        believe(state, p, p1, s1, hand[p1, s1])
        scalars[ST.peeks] += 1
        _trace(trace, EV_POWER, p, kind, p1 * 256 + s1)
        return
    p2 = out[2]
    s2 = out[3]
    if kind == POWER_SWAP:
        _swap_cards(hand, p1, s1, p2, s2)
        swap_beliefs(state, p, p1, s1, p2, s2)
        for o in range(P):
            if o == p:
                continue
            if rules.swap_observed_prob >= 1.0 or uniform(rng) < rules.swap_observed_prob:
                swap_beliefs(state, o, p1, s1, p2, s2)
        scalars[ST.jq_swaps] += 1
        _trace(trace, EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)
        return
    c1 = np.int64(hand[p1, s1])
    c2 = np.int64(hand[p2, s2])
    believe(state, p, p1, s1, c1)
    believe(state, p, p2, s2, c2)
    swap = decide_king_swap(seats, KingSwap(p, know_me, occ, nslots, faceup, p1, c1, p2, c2, rng))
    _trace(trace, EV_POWER, p, kind, (p1 * 256 + s1) * 65536 + p2 * 256 + s2)
    if IS_RED[card]:
        scalars[ST.red_king_looks] += 1
    else:
        scalars[ST.black_king_looks] += 1
    if swap:
        scalars[ST.king_swaps] += 1
        _swap_cards(hand, p1, s1, p2, s2)
        for o in range(P):
            swap_beliefs(state, o, p1, s1, p2, s2)
        _trace(trace, EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)


# ------------------------------------------------------------------------------ memory and reordering (K13)
@njit(refcount=False)
def _memory_lapses(p, forget, noise, state, rng, trace):
    """Imperfect memory at the start of ``p``'s turn (``hand.Hand.memory_lapses``): each remembered face-down card
    is forgotten with probability ``forget``, else misremembered with ``noise`` (K13, §4 ``memory_noise``):
    ``know[p]`` then holds ``misremembered`` of it. The cards themselves never move."""
    know, faceup, nslots = state.know, state.faceup, state.nslots
    for q in range(state.players):
        for s in range(nslots[q]):
            old = np.int64(know[p, q, s])
            if old < 0 or faceup[q, s] != 0:
                continue
            if forget > 0 and uniform(rng) < forget:
                believe(state, p, q, s, -1)
                _trace(trace, EV_FORGET, p, q, s)
            elif noise > 0 and uniform(rng) < noise:
                wrong = misremembered(old, below(rng, WRONG_RANKS))
                believe(state, p, q, s, wrong)
                _trace(trace, EV_MISREMEMBER, p, q * 256 + s, old * 256 + wrong)


@njit(refcount=False)
def reorder(p, rules, state, rng, trace):
    """K13 physical layer: swap two own positions; +1 card if another player had seen either."""
    know = state.know
    P = state.players
    _, occ, nslots, _ = player_view(state, p)
    n = count_cards(p, state)
    a = below(rng, n)
    b = below(rng, n - 1)
    if b >= a:
        b += 1
    sa = nth_occupied(p, occ, nslots, a)
    sb = nth_occupied(p, occ, nslots, b)
    spied = False
    for o in range(P):
        if o != p and (know[o, p, sa] >= 0 or know[o, p, sb] >= 0):
            spied = True
    _swap_cards(state.hand, p, sa, p, sb)
    swap_beliefs(state, p, p, sa, p, sb)
    for o in range(P):
        if o != p:
            believe(state, o, p, sa, -1)
            believe(state, o, p, sb, -1)
    _trace(trace, EV_REORDER, p, sa, sb)
    if spied:
        _penalty(p, PENALTY_REORDER, rules, state, rng, trace)


# ------------------------------------------------------------------------------ snaps (K6, K7)
@njit(refcount=False)
def _race(n, rules, seats, claim_seat, rng):
    """K6, the race policy (rule 0.2) when a draw decides it: the index of the claimant who acts among ``n >= 2``
    under ``uniform`` or ``speed_weighted``. With one claimant, or ``turn_order``, the first acts without a draw
    (:func:`snap_window` does not call this then)."""
    if rules.race_policy == RACE.uniform:
        return below(rng, n)
    total = 0.0
    for i in range(n):
        total += speed(seats, Me(claim_seat[i]))
    u = uniform(rng) * total
    reached = 0.0
    for i in range(n):
        reached += speed(seats, Me(claim_seat[i]))
        if u < reached:
            return i
    return n - 1


@njit(inline="llvm")
def _flip_own(q, i, rank, rules, state, claim_out, rng, trace):
    """K6: claimant ``q`` flips the own cards of claim ``i``; a match goes to the discard, a wrong card is shown to
    all and costs a card (K13). Returns True when a card matched. Inlined into the snap window, as is
    :func:`_flip_other`: a snap is frequent, and a call would pass every array of the state."""
    hand, occ, scalars = state.hand, state.occ, state.scalars
    matched = False
    for j in range(claim_out[i, 0]):
        s = claim_out[i, 1 + j]
        c = hand[q, s]
        if c % N_RANKS == rank:
            hand[q, s] = -1
            occ[q, s] = 0
            everyone_believes(state, q, s, -1)
            _discard_push(state, c)
            scalars[ST.snaps] += 1
            matched = True
            _trace(trace, EV_SNAP_OK, q, s, c)
        else:
            everyone_believes(state, q, s, c)
            scalars[ST.wrong_snaps] += 1
            _trace(trace, EV_SNAP_BAD, q, s, c)
            _penalty(q, PENALTY_SNAP, rules, state, rng, trace)
    return matched


@njit(inline="llvm")
def _flip_other(q, i, rank, rules, state, claim_out, rng, trace):
    """K6 ``snap_others``: flip an opponent's card; if it matches, give them one of yours in its place."""
    hand, occ, faceup, know = state.hand, state.occ, state.faceup, state.know
    tp = claim_out[i, 0]
    ts = claim_out[i, 1]
    give = claim_out[i, 2]
    c = hand[tp, ts]
    if c % N_RANKS != rank:
        everyone_believes(state, tp, ts, c)
        state.scalars[ST.wrong_snaps] += 1
        _trace(trace, EV_SNAP_BAD, q, tp * 256 + ts, c)
        _penalty(q, PENALTY_SNAP, rules, state, rng, trace)
        return False
    _discard_push(state, c)
    hand[tp, ts] = hand[q, give]
    faceup[tp, ts] = faceup[q, give]
    for o in range(state.players):
        believe(state, o, tp, ts, know[o, q, give])
        believe(state, o, q, give, -1)
    hand[q, give] = -1
    occ[q, give] = 0
    faceup[q, give] = 0
    state.scalars[ST.snaps] += 1
    _trace(trace, EV_SNAP_OK, q, tp * 256 + ts, c * 256 + give)
    return True


@njit(inline="llvm")
def _collect_claims(p, rank, caller, locked, always, rules, seats, state, scratch):
    """K6: each player from ``p``'s left (``p`` last, the caller never) says whether it snaps; returns how many.
    A player the snap index says cannot claim is not asked (``simulator.kamoul.engines.beliefs.askable``): when nobody
    can, the window costs one test. Nine arguments: the window's facts and the block's arrays (inlined into the
    window)."""
    asked = askable(rank, caller, rules.snap_others == 0, always, state)
    if asked == 0:
        return 0
    P = seats.sids.shape[0]
    out = scratch.out
    n = 0
    for k in range(1, P + 1):
        q = p + k if p + k < P else p + k - P
        if not (asked >> q) & 1:
            continue
        know_me, occ, nslots, faceup = player_view(state, q)
        kind = decide_snap(seats, Snap(q, rank, know_me, occ, nslots, faceup, rules.snap_others != 0, locked,
                                       scratch.rng, scratch.tmp, out))
        if kind != SNAP_NONE:
            scratch.claim_seat[n] = q
            scratch.claim_kind[n] = kind
            used = out[0] + 1 if kind == SNAP_OWN else 3  # see decide_snap: (count, slots...) or (p, s, give)
            for j in range(used):
                scratch.claim_out[n, j] = out[j]
            n += 1
    return n


@njit(inline="llvm")
def snap_window(p, card, always, rules, seats, state, scratch):
    """K6: after a card lands on the discard, players may flip matching cards; K7 ULTIME. ``always``: the seats
    the snap index cannot skip (``beliefs.always_asked``)."""
    caller = state.scalars[ST.caller]
    if caller >= 0 and rules.snap_in_final_round == 0:
        return
    rank = card % N_RANKS
    locked = caller if (rules.caller_immune != 0 and caller >= 0) else -1
    while True:
        n = _collect_claims(p, rank, caller, locked, always, rules, seats, state, scratch)
        if n == 0:
            return
        first = n == 1 or rules.race_policy == RACE.turn_order  # K6: the first claimant acts, nothing is drawn
        i = 0 if first else _race(n, rules, seats, scratch.claim_seat, scratch.rng)
        q = scratch.claim_seat[i]
        before = count_cards(q, state)
        if scratch.claim_kind[i] == SNAP_OWN:
            matched = _flip_own(q, i, rank, rules, state, scratch.claim_out, scratch.rng, scratch.trace)
        else:
            matched = _flip_other(q, i, rank, rules, state, scratch.claim_out, scratch.rng, scratch.trace)
        if before >= rules.ultime_min_cards and count_cards(q, state) == 0:
            state.scalars[ST.ultime] = q
            _trace(scratch.trace, EV_ULTIME, q, 0, 0)
            return
        if not (rules.snap_chain != 0 and matched):
            return


# ------------------------------------------------------------------------------ the deal (K1–K3)
@njit(inline="llvm")
def clear_hand(state, estimate_out, force, trace):
    """Forget the previous hand: positions at or past ``nslots[p]`` were never used, only those are reset.
    Inlined into its one call site: a call would pass every array of the state, once per hand."""
    hand, occ, faceup, nslots, scalars = state.hand, state.occ, state.faceup, state.nslots, state.scalars
    forget_all(state)
    for p in range(state.players):
        for s in range(nslots[p]):
            hand[p, s] = -1
            occ[p, s] = 0
            faceup[p, s] = 0
    for i in range(scalars.shape[0]):
        scalars[i] = 0
    scalars[ST.caller] = -1
    scalars[ST.ultime] = -1
    scalars[ST.call_turn] = -1
    scalars[ST.call_true] = -1
    scalars[ST.call_unknown] = -1
    estimate_out[0] = np.nan
    clear_outputs(force)
    trace[0] = np.uint64(TRACE_SEED)


@njit(refcount=False)
def deal(dealer, rules, seats, state, work):
    """K1/K2: shuffle, deal one card at a time from the dealer's left, turn the top card; the initial peeks."""
    scratch = scratch_of(work)
    rng, trace, tmp, out = scratch.rng, scratch.trace, scratch.tmp, scratch.out
    hand, occ, stock = state.hand, state.occ, state.stock
    P = seats.sids.shape[0]
    n = 52 * rules.n_decks
    for deck in range(rules.n_decks):  # every deck holds the codes 0–51
        for c in range(52):
            stock[deck * 52 + c] = c
    shuffle(stock, n, rng)
    first = dealer + 1 if dealer + 1 < P else 0
    for row in range(rules.hand_size):
        p = first  # from the dealer's left, without a division per card
        for _ in range(P):
            n -= 1
            hand[p, row] = stock[n]
            occ[p, row] = 1
            p = p + 1 if p + 1 < P else 0
    for p in range(P):
        state.nslots[p] = rules.hand_size
    n -= 1
    state.discard[0] = stock[n]
    state.scalars[ST.n_discard] = 1
    state.scalars[ST.n_stock] = n
    _trace(trace, EV_DEAL, dealer, state.discard[0], 0)
    p = first
    for _ in range(P):  # K2: initial peeks, from the dealer's left
        know_me, seen_occ, nslots, faceup = player_view(state, p)
        chosen = decide_peeks(seats, Peeks(p, rules.initial_peeks, know_me, seen_occ, nslots, faceup, rng, tmp, out))
        for i in range(chosen):
            s = out[i]
            believe(state, p, p, s, hand[p, s])
            _trace(trace, EV_PEEK, p, s, hand[p, s])
        p = p + 1 if p + 1 < P else 0


# ------------------------------------------------------------------------------ a turn (K4, K8, K9)
@njit(inline="llvm")
def turn_start(p, rules, seats, state, scratch):
    """Before ``p`` acts: others may play out of turn (K13), an empty stock is reshuffled (K14), memory lapses.
    Returns False when the hand ends here (K14: nothing left to draw). Inlined, as are the turn's other steps:
    a call would pass every array of the state and scratch, each turn."""
    rng, trace = scratch.rng, scratch.trace
    P = seats.sids.shape[0]
    if rules.p_out_of_turn > 0:  # K13 physical layer
        for k in range(1, P):
            q = p + k if p + k < P else p + k - P
            if uniform(rng) < rules.p_out_of_turn:
                _penalty(q, PENALTY_OUT_OF_TURN, rules, state, rng, trace)
    if state.scalars[ST.n_stock] == 0 and not _reshuffle(rules, state, rng, trace):
        return False
    forget = forget_prob(seats, Me(p))
    noise = memory_noise_prob(seats, Me(p))
    if forget > 0 or noise > 0:
        _memory_lapses(p, forget, noise, state, rng, trace)
    return True


@njit(refcount=False)
def call_kamoul(p, own_turn, rules, seats, state, work):
    """K8: KAMOUL; checked at once only with ``false_call_mode=tamalou`` (K12). Returns True when it stands."""
    scratch = scratch_of(work)
    rng, trace, cum = scratch.rng, scratch.trace, scratch.cum
    scalars = state.scalars
    know_me, occ, nslots, faceup = player_view(state, p)
    e, unknown = estimate(seats, Table(p, know_me, occ, nslots, faceup))
    _trace(trace, EV_CALL, p, own_turn, 0)
    if _is_false_now(p, rules, state, cum):
        _show_false(p, rules, state, rng, trace)
        return False
    scalars[ST.caller] = p
    scalars[ST.call_turn] = own_turn
    scalars[ST.call_true] = hand_total(p, state)
    scalars[ST.call_unknown] = unknown
    scratch.estimate[0] = e
    return True


@njit(refcount=False)
def call_contre(p, rules, state, work):
    """K9: CONTRE KAMOUL, an announcement (void at once if found false under ``tamalou``, K12). True if it stands."""
    scratch = scratch_of(work)
    _trace(scratch.trace, EV_CONTRE, p, 0, 0)
    if _is_false_now(p, rules, state, scratch.cum):
        _show_false(p, rules, state, scratch.rng, scratch.trace)
        return False
    return True


@njit(inline="llvm")
def turn_stock(p, own, rules, seats, state, work):
    """K4(c): draw from the stock, keep the card in a position or discard it (power optional, K5). Returns the
    card that lands on the discard. ``own``: ``p``'s summary (``views.own_summary``), made again if cards stuck."""
    scratch = scratch_of(work)
    hand, know, scalars, rng, trace = state.hand, state.know, state.scalars, scratch.rng, scratch.trace
    scalars[ST.n_stock] -= 1
    card = np.int64(state.stock[scalars[ST.n_stock]])
    _trace(trace, EV_DRAW, p, card, 0)
    if rules.p_stick > 0:
        _stuck(p, PILE_STOCK, rules, state, rng, trace)
        own = own_summary(p, know[p], state.occ, state.nslots)
    know_me, occ, nslots, faceup = player_view(state, p)
    slot = decide_keep(seats, Keep(p, card, _power_kind(rules, card), know_me, occ, nslots, faceup, own, rng,
                                   scratch.tmp))
    if slot >= 0:
        old = np.int64(hand[p, slot])
        hand[p, slot] = card
        state.faceup[p, slot] = 0
        only_owner_believes(state, p, slot, card)
        _discard_push(state, old)
        _trace(trace, EV_KEEP, p, slot, old)
        return old
    _discard_push(state, card)
    _trace(trace, EV_DISCARD, p, card, 0)
    if RANK_POWER[card % N_RANKS] != POWER_NONE:  # skip the call (and its arguments) for plain cards
        _power(p, card, rules, seats, state, work)
    return card


@njit(inline="llvm")
def turn_take(p, own, rules, seats, state, scratch):
    """K4(d): take the top discard into a position (compulsory); its identity stays public. Returns the card
    that lands on the discard. ``own``: ``p``'s summary (``views.own_summary``)."""
    hand, scalars = state.hand, state.scalars
    know_me, occ, nslots, faceup = player_view(state, p)
    slot = decide_take_slot(seats, TakeSlot(p, know_me, occ, nslots, faceup, own, scratch.rng, scratch.tmp))
    scalars[ST.n_discard] -= 1
    card = np.int64(state.discard[scalars[ST.n_discard]])
    if rules.p_stick > 0:
        _stuck(p, PILE_DISCARD, rules, state, scratch.rng, scratch.trace)
    old = np.int64(hand[p, slot])
    hand[p, slot] = card
    state.faceup[p, slot] = 1 if rules.discard_pick_face_up != 0 else 0
    everyone_believes(state, p, slot, card)
    _discard_push(state, old)
    _trace(scratch.trace, EV_TAKE, p, slot, card * 256 + old)
    return old
