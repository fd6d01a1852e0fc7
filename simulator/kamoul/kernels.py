"""The Kamoul numba engine: arrays in, arrays out.

Contract: ``simulate(seed, start, stop, level_id, rules_i, rules_f, sids, prm, n_blocks, cap_rows)`` plays
games ``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks run in
``prange``, and returns per-block raw rows in the layout of :mod:`simulator.kamoul.records`. It follows
``reference.py`` step for step and draws the same random numbers in the same order, so both engines
produce identical rows and trace hashes. Rule numbers are cited where each rule is applied.

Per-game state (one set per block, reused from game to game):

* ``hand``   ``int16[P, S]``    hidden layout, ``-1`` = empty position (``S`` = cards in play)
* ``occ``    ``int8[P, S]``     1 where a position holds a card (public)
* ``faceup`` ``int8[P, S]``     1 for a card lying face up (``discard_pick_face_up``)
* ``know``   ``int16[P, P, S]`` ``know[o, p, s]``: card ``o`` believes is at ``(p, s)``, ``-1`` unknown
* ``nslots`` ``int64[P]``       one past the highest position used
* ``stock``, ``discard`` ``int16[S]`` piles (top = last), sizes in ``st``
* ``st``     ``int64[N_ST]``    scalar state (indexes ``ST_*``)
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.jit import njit
from simulator.core.cards import IS_RED
from simulator.core.rng import below, seed_state, uniform
from simulator.core.trace import fold as _trace
from simulator.kamoul.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, CARD_VALUE, CLS_AU, CLS_FALSE, CLS_NORMAL, EV_CALL, EV_CONTRE, EV_DEAL,
    EV_DISCARD, EV_DRAW, EV_END, EV_FALSE_SHOWN, EV_FORGET, EV_KEEP, EV_MISREMEMBER, EV_PEEK, EV_PENALTY, EV_POWER,
    EV_REORDER, EV_RESHUFFLE, EV_SNAP_BAD, EV_SNAP_OK, EV_SWAP, EV_TAKE, EV_ULTIME, FC_CARDS, FC_FIRST,
    FC_IMPOSE_FAILED, FC_KNOWN, FC_LAST, FC_LEN, FC_MODE, FC_NATURAL_CALL, FC_N_KNOWN, FC_N_UNKNOWN, FC_PLAYER,
    FC_REACHED, FC_SPEC, FC_SUPPRESS, FC_TOTAL, FC_TURN, FC_UNKNOWN, MODE_CALL, MODE_PLAY_ON, OUT_AU_M31,
    OUT_AU_RESET, OUT_BEATEN, OUT_CONTRE_LOST, OUT_CONTRE_WON, OUT_FALSE, OUT_NO_CALL, OUT_NORMAL, OUT_ULTIME,
    PENALTY_FALSE, PENALTY_OUT_OF_TURN, PENALTY_REORDER, PENALTY_SNAP, PENALTY_STUCK, POWER_KING, POWER_NONE,
    POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, RANK_CODE_RED_KING, RANK_POWER, SNAP_NONE, SNAP_OWN, TRACE_SEED,
    WRONG_RANKS, misremembered,
)
from simulator.kamoul.records import HAND_FIXED, MANCHE_FIXED, PARTIE_FIXED, TOP_FIXED
from simulator.kamoul.rules import (
    F_P_OUT_OF_TURN, F_P_REORDER, F_P_STICK, F_SWAP_OBSERVED, I_AU30, I_CALLER_IMMUNE, I_CONTRE_LOWER, I_CONTRE_VALID,
    I_FALSE_MODE, I_HAND_SIZE, I_IMPLICIT, I_KING_POWER, I_LOSER, I_MAX_HANDS, I_MAX_TURNS, I_MIN_TURNS, I_N_DECKS,
    I_PEEKS, I_PICK_FACE_UP, I_RACE, I_SNAP_CHAIN, I_SNAP_FINAL, I_SNAP_OTHERS, I_STOCK_EMPTY, I_SWAP_SCOPE,
    I_ULTIME_MIN, I_ULTIME_OTHERS,
)
from strategies.kamoul.policy import (
    decide_keep, decide_king_swap, decide_peeks, decide_power, decide_snap, decide_take_slot, decide_turn, estimate,
    forget_prob, memory_noise_prob, speed,
)

LEVEL_HANDS, LEVEL_MANCHES, LEVEL_PARTIES, LEVEL_TOPS = 0, 1, 2, 3
(ST_NSTOCK, ST_NDISCARD, ST_CALLER, ST_ULTIME, ST_PEN, ST_SNAPS, ST_WRONG, ST_CALL_TURN, ST_CALL_TRUE, ST_CALL_UNK,
 ST_OUTCOME, ST_WINNER, ST_TURNS, ST_CONTRES, ST_ABORTED, N_ST) = range(16)
FALSE_SUM, FALSE_TAMALOU, FALSE_DUTCH = 0, 1, 2
RACE_SPEED, RACE_UNIFORM, RACE_TURN_ORDER = 0, 1, 2
PILE_STOCK, PILE_DISCARD = 0, 1
N_HAND_COLS_FIXED = len(HAND_FIXED)
# column indexes as plain module constants (numba cannot read dicts): HC_GAME, MC_CREDIT, PC_WINNER, TC_PARTIES, …
for _prefix, _fixed in (("HC", HAND_FIXED), ("MC", MANCHE_FIXED), ("PC", PARTIE_FIXED), ("TC", TOP_FIXED)):
    for _i, _name in enumerate(_fixed):
        globals()[f"{_prefix}_{_name.upper()}"] = _i


@njit
def new_state(P, S):
    """Allocate one block's game state (see the module docstring for shapes)."""
    hand = np.full((P, S), -1, dtype=np.int16)
    occ = np.zeros((P, S), dtype=np.int8)
    faceup = np.zeros((P, S), dtype=np.int8)
    know = np.full((P, P, S), -1, dtype=np.int16)
    nslots = np.zeros(P, dtype=np.int64)
    stock = np.zeros(S, dtype=np.int16)
    discard = np.zeros(S, dtype=np.int16)
    st = np.zeros(N_ST, dtype=np.int64)
    return hand, occ, faceup, know, nslots, stock, discard, st


@njit
def new_force():
    """``int64[FC_LEN]``: the ``force`` array of a hand played without intervention (see ``codes.FC_*``)."""
    force = np.zeros(FC_LEN, dtype=np.int64)
    reset_force(force)
    return force


@njit(refcount=False)
def reset_force(force):
    """Make ``force`` ask for no intervention."""
    for i in range(FC_LEN):
        force[i] = 0
    force[FC_PLAYER] = -1
    force[FC_N_KNOWN] = -1


@njit(inline="always")
def _value(card):
    return CARD_VALUE[card % 52]


@njit(refcount=False)
def _count(p, occ, nslots):
    n = 0
    for s in range(nslots[p]):
        n += occ[p, s]
    return n


@njit(refcount=False)
def _total(p, hand, occ, nslots):
    t = 0
    for s in range(nslots[p]):
        if occ[p, s]:
            t += _value(hand[p, s])
    return t


@njit(refcount=False)
def _shuffle(cards, n, rng):
    """Fisher-Yates with ``rng.below``; the xoshiro256** state is kept in locals (same draws, no memory
    round trip per draw: numba cannot prove that ``cards`` and ``rng`` do not alias)."""
    s0 = rng[0]
    s1 = rng[1]
    s2 = rng[2]
    s3 = rng[3]
    for i in range(n - 1, 0, -1):
        x = s1 * np.uint64(5)
        r = ((x << np.uint64(7)) | (x >> np.uint64(57))) * np.uint64(9)
        t = s1 << np.uint64(17)
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = (s3 << np.uint64(45)) | (s3 >> np.uint64(19))
        j = np.int64(((r >> np.uint64(32)) * np.uint64(i + 1)) >> np.uint64(32))
        tmp = cards[i]
        cards[i] = cards[j]
        cards[j] = tmp
    rng[0] = s0
    rng[1] = s1
    rng[2] = s2
    rng[3] = s3


@njit(refcount=False)
def _reshuffle(ri, stock, discard, st, rng, h):
    """K14: the discard pile but its top card becomes the new stock."""
    nd = st[ST_NDISCARD]
    if ri[I_STOCK_EMPTY] != 0 or nd < 2:
        return False
    top = discard[nd - 1]
    n = nd - 1
    _shuffle(discard, n, rng)
    for i in range(n):
        stock[i] = discard[i]
    st[ST_NSTOCK] = n
    discard[0] = top
    st[ST_NDISCARD] = 1
    _trace(h, EV_RESHUFFLE, n, 0, 0)
    return True


@njit(refcount=False)
def _draw(ri, stock, discard, st, rng, h):
    if st[ST_NSTOCK] == 0 and not _reshuffle(ri, stock, discard, st, rng, h):
        return -1
    st[ST_NSTOCK] -= 1
    return np.int64(stock[st[ST_NSTOCK]])


@njit(refcount=False)
def _place(p, card, hand, occ, faceup, know, nslots):
    s = 0
    while occ[p, s]:
        s += 1
    hand[p, s] = card
    occ[p, s] = 1
    faceup[p, s] = 0
    for o in range(know.shape[0]):
        know[o, p, s] = -1
    if s + 1 > nslots[p]:
        nslots[p] = s + 1
    return s


@njit(refcount=False)
def _penalty(p, reason, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h):
    """K13: +1 face-down card, unseen (skipped when no card can be drawn)."""
    card = _draw(ri, stock, discard, st, rng, h)
    if card < 0:
        return
    s = _place(p, card, hand, occ, faceup, know, nslots)
    st[ST_PEN] += 1
    _trace(h, EV_PENALTY, p, s, reason)


@njit(refcount=False)
def _stuck(p, pile, rf, hand, occ, faceup, know, nslots, stock, discard, st, rng, h):
    """K13 physical layer: 1 + Geom(0.8) extra cards come off the pile and are kept face down."""
    if rf[F_P_STICK] <= 0 or uniform(rng) >= rf[F_P_STICK]:
        return
    extra = 1
    while uniform(rng) < 0.2:
        extra += 1
    for _ in range(extra):
        if pile == PILE_STOCK:
            if st[ST_NSTOCK] == 0:
                break
            st[ST_NSTOCK] -= 1
            card = stock[st[ST_NSTOCK]]
        else:
            if st[ST_NDISCARD] == 0:
                break
            st[ST_NDISCARD] -= 1
            card = discard[st[ST_NDISCARD]]
        s = _place(p, card, hand, occ, faceup, know, nslots)
        st[ST_PEN] += 1
        _trace(h, EV_PENALTY, p, s, PENALTY_STUCK)


@njit(refcount=False)
def _classify(total, cum, ri):
    """K10/K11: valid normal KAMOUL (<= 5), valid au-score, or false."""
    if total <= 5:
        return CLS_NORMAL
    if cum >= 15 and total == cum:
        return CLS_AU
    if cum <= -15 and (total == 30 or (ri[I_AU30] == 1 and total >= 30)):
        return CLS_AU
    return CLS_FALSE


@njit(refcount=False)
def _show_false(p, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h):
    """K12 ``false_call_mode=tamalou``: the layout is shown to all, +1 card, play goes on."""
    for s in range(nslots[p]):
        if occ[p, s]:
            for o in range(know.shape[0]):
                know[o, p, s] = hand[p, s]
    _trace(h, EV_FALSE_SHOWN, p, 0, 0)
    _penalty(p, PENALTY_FALSE, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)


@njit(refcount=False)
def _swap_know(know, o, p1, s1, p2, s2):
    tmp = know[o, p1, s1]
    know[o, p1, s1] = know[o, p2, s2]
    know[o, p2, s2] = tmp


@njit(refcount=False)
def _power(p, card, P, ri, rf, sids, prm, hand, occ, faceup, know, nslots, st, rng, h, tmp, out):
    """K5: the power of a stock card discarded directly (optional)."""
    kind = RANK_POWER[card % 13]
    suit = (card % 52) // 13
    if kind == POWER_KING and ri[I_KING_POWER] == 1 and (suit == 1 or suit == 2):
        kind = POWER_NONE
    if kind == POWER_NONE:
        return
    caller = st[ST_CALLER]
    locked = caller if (ri[I_CALLER_IMMUNE] != 0 and caller >= 0) else -1
    used = decide_power(sids[p], prm[p], p, P, kind, know[p], occ, nslots, faceup, locked, ri[I_SWAP_SCOPE] == 1,
                        rng, tmp, out)
    if not used:
        return
    p1 = out[0]
    s1 = out[1]
    if kind == POWER_PEEK_OWN or kind == POWER_PEEK_OPP:
        know[p, p1, s1] = hand[p1, s1]
        _trace(h, EV_POWER, p, kind, p1 * 256 + s1)
        return
    p2 = out[2]
    s2 = out[3]
    if kind == POWER_SWAP:
        tmpc = hand[p1, s1]
        hand[p1, s1] = hand[p2, s2]
        hand[p2, s2] = tmpc
        _swap_know(know, p, p1, s1, p2, s2)
        for o in range(P):
            if o == p:
                continue
            if rf[F_SWAP_OBSERVED] >= 1.0 or uniform(rng) < rf[F_SWAP_OBSERVED]:
                _swap_know(know, o, p1, s1, p2, s2)
        _trace(h, EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)
        return
    c1 = np.int64(hand[p1, s1])
    c2 = np.int64(hand[p2, s2])
    know[p, p1, s1] = c1
    know[p, p2, s2] = c2
    swap = decide_king_swap(sids[p], prm[p], p, p1, c1, p2, c2, rng)
    _trace(h, EV_POWER, p, kind, (p1 * 256 + s1) * 65536 + p2 * 256 + s2)
    if swap:
        tmpc = hand[p1, s1]
        hand[p1, s1] = hand[p2, s2]
        hand[p2, s2] = tmpc
        for o in range(P):
            _swap_know(know, o, p1, s1, p2, s2)
        _trace(h, EV_SWAP, p, p1 * 256 + s1, p2 * 256 + s2)


@njit(refcount=False)
def _memory_lapses(p, P, f, m, know, faceup, nslots, rng, h):
    """Imperfect memory at the start of ``p``'s turn (``reference.Hand.memory_lapses``): each remembered face-down
    card is forgotten with probability ``f``, else misremembered with ``m`` (K13, §4 ``memory_noise``): ``know[p]``
    then holds ``misremembered`` of it. The cards themselves never move."""
    for q in range(P):
        for s in range(nslots[q]):
            old = np.int64(know[p, q, s])
            if old < 0 or faceup[q, s] != 0:
                continue
            if f > 0 and uniform(rng) < f:
                know[p, q, s] = -1
                _trace(h, EV_FORGET, p, q, s)
            elif m > 0 and uniform(rng) < m:
                wrong = misremembered(old, below(rng, WRONG_RANKS))
                know[p, q, s] = wrong
                _trace(h, EV_MISREMEMBER, p, q * 256 + s, old * 256 + wrong)


@njit(refcount=False)
def _reorder(p, P, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h):
    """K13 physical layer: swap two own positions; +1 card if another player had seen either."""
    n = _count(p, occ, nslots)
    a = below(rng, n)
    b = below(rng, n - 1)
    if b >= a:
        b += 1
    sa = -1
    sb = -1
    k = 0
    for s in range(nslots[p]):
        if occ[p, s]:
            if k == a:
                sa = s
            if k == b:
                sb = s
            k += 1
    spied = False
    for o in range(P):
        if o != p and (know[o, p, sa] >= 0 or know[o, p, sb] >= 0):
            spied = True
    tmpc = hand[p, sa]
    hand[p, sa] = hand[p, sb]
    hand[p, sb] = tmpc
    _swap_know(know, p, p, sa, p, sb)
    for o in range(P):
        if o != p:
            know[o, p, sa] = -1
            know[o, p, sb] = -1
    _trace(h, EV_REORDER, p, sa, sb)
    if spied:
        _penalty(p, PENALTY_REORDER, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)


@njit(refcount=False)
def _race(n, claim_q, ri, sids, prm, rng):
    """0.2: index of the claimant who acts."""
    if n == 1 or ri[I_RACE] == RACE_TURN_ORDER:
        return 0
    if ri[I_RACE] == RACE_UNIFORM:
        return below(rng, n)
    total = 0.0
    for i in range(n):
        total += speed(sids[claim_q[i]], prm[claim_q[i]])
    u = uniform(rng) * total
    acc = 0.0
    for i in range(n):
        acc += speed(sids[claim_q[i]], prm[claim_q[i]])
        if u < acc:
            return i
    return n - 1


@njit(refcount=False, inline="always")
def _snap_window(p, card, P, ri, sids, prm, hand, occ, faceup, know, nslots, stock, discard, st, rng, h, tmp, out,
                 claim_q, claim_kind, claim_out):
    """K6: after a card lands on the discard, players may flip matching cards; K7 ULTIME."""
    caller = st[ST_CALLER]
    if caller >= 0 and ri[I_SNAP_FINAL] == 0:
        return
    rank = card % 13
    locked = caller if (ri[I_CALLER_IMMUNE] != 0 and caller >= 0) else -1
    while True:
        n = 0
        for k in range(1, P + 1):
            q = p + k if p + k < P else p + k - P
            if q == caller:
                continue
            kind = decide_snap(sids[q], prm[q], q, P, rank, know[q], occ, nslots, faceup, ri[I_SNAP_OTHERS] != 0,
                               locked, rng, tmp, out)
            if kind != SNAP_NONE:
                claim_q[n] = q
                claim_kind[n] = kind
                used = out[0] + 1 if kind == SNAP_OWN else 3  # see decide_snap: (count, slots...) or (p, s, give)
                for j in range(used):
                    claim_out[n, j] = out[j]
                n += 1
        if n == 0:
            return
        i = _race(n, claim_q, ri, sids, prm, rng)
        q = claim_q[i]
        before = _count(q, occ, nslots)
        matched = False
        if claim_kind[i] == SNAP_OWN:
            for j in range(claim_out[i, 0]):
                s = claim_out[i, 1 + j]
                c = hand[q, s]
                if c % 13 == rank:
                    hand[q, s] = -1
                    occ[q, s] = 0
                    for o in range(P):
                        know[o, q, s] = -1
                    discard[st[ST_NDISCARD]] = c
                    st[ST_NDISCARD] += 1
                    st[ST_SNAPS] += 1
                    matched = True
                    _trace(h, EV_SNAP_OK, q, s, c)
                else:
                    for o in range(P):
                        know[o, q, s] = c
                    st[ST_WRONG] += 1
                    _trace(h, EV_SNAP_BAD, q, s, c)
                    _penalty(q, PENALTY_SNAP, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
        else:
            tp = claim_out[i, 0]
            ts = claim_out[i, 1]
            give = claim_out[i, 2]
            c = hand[tp, ts]
            if c % 13 != rank:
                for o in range(P):
                    know[o, tp, ts] = c
                st[ST_WRONG] += 1
                _trace(h, EV_SNAP_BAD, q, tp * 256 + ts, c)
                _penalty(q, PENALTY_SNAP, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
            else:
                discard[st[ST_NDISCARD]] = c
                st[ST_NDISCARD] += 1
                hand[tp, ts] = hand[q, give]
                faceup[tp, ts] = faceup[q, give]
                for o in range(P):
                    know[o, tp, ts] = know[o, q, give]
                    know[o, q, give] = -1
                hand[q, give] = -1
                occ[q, give] = 0
                faceup[q, give] = 0
                st[ST_SNAPS] += 1
                matched = True
                _trace(h, EV_SNAP_OK, q, tp * 256 + ts, c * 256 + give)
        if before >= ri[I_ULTIME_MIN] and _count(q, occ, nslots) == 0:
            st[ST_ULTIME] = q
            _trace(h, EV_ULTIME, q, 0, 0)
            return
        if not (ri[I_SNAP_CHAIN] != 0 and matched):
            return


@njit(refcount=False)
def _score(P, ri, cum, hand, occ, nslots, st, contres, points, cum_after, totals, cls, is_false, order):
    """K7, K10–K12: points of the hand; fills ``points``/``cum_after`` and ``st`` outcome and winner."""
    for p in range(P):
        totals[p] = _total(p, hand, occ, nslots)
        points[p] = totals[p]
    newcum = -1000
    newcum_seat = -1
    ultime = st[ST_ULTIME]
    caller = st[ST_CALLER]
    st[ST_WINNER] = -1
    if ultime >= 0:
        for p in range(P):
            points[p] = 0 if ri[I_ULTIME_OTHERS] == 1 else totals[p]
        points[ultime] = -15
        st[ST_OUTCOME] = OUT_ULTIME
        st[ST_WINNER] = ultime
    elif caller < 0 or st[ST_ABORTED] != 0:
        st[ST_OUTCOME] = OUT_NO_CALL
    else:
        n_ann = 1 + st[ST_CONTRES]
        # announcers: caller then contres (contres[0] == caller is laid out by the caller of _score)
        nfalse = 0
        for p in range(P):
            cls[p] = -1
            is_false[p] = 0
        for i in range(n_ann):
            a = contres[i]
            cls[a] = _classify(totals[a], cum[a], ri)
            if cls[a] == CLS_FALSE and (ri[I_CONTRE_VALID] != 0 or a == caller):
                is_false[a] = 1
                nfalse += 1
        if nfalse > 0 and ri[I_FALSE_MODE] == FALSE_SUM:
            s = 0
            for p in range(P):
                s += totals[p]
            for p in range(P):
                points[p] = s if is_false[p] else 0
            st[ST_OUTCOME] = OUT_FALSE
        else:
            for p in range(P):
                if is_false[p]:
                    points[p] = totals[p] + (10 if ri[I_FALSE_MODE] == FALSE_DUTCH else 0)
            # K10: implicit contenders lose every tie: first when ties go to the latest, last otherwise
            n_order = 0
            silent_first = ri[I_CONTRE_LOWER] == 0
            for rnd in range(2):
                if rnd == (0 if silent_first else 1):
                    if ri[I_IMPLICIT] != 0:
                        for q in range(P):
                            announced = False
                            for i in range(n_ann):
                                if contres[i] == q:
                                    announced = True
                            if not announced and totals[q] <= 5:
                                order[n_order] = q
                                cls[q] = CLS_NORMAL
                                n_order += 1
                else:
                    for i in range(n_ann):
                        a = contres[i]
                        if cls[a] != CLS_FALSE:
                            order[n_order] = a
                            n_order += 1
            if n_order == 0:
                st[ST_OUTCOME] = OUT_FALSE
            else:
                best = -1
                for i in range(n_order):
                    if cls[order[i]] > best:
                        best = cls[order[i]]
                low = 1 << 30
                for i in range(n_order):
                    if cls[order[i]] == best and totals[order[i]] < low:
                        low = totals[order[i]]
                winner = -1
                for i in range(n_order):
                    a = order[i]
                    if cls[a] == best and totals[a] == low:
                        if ri[I_CONTRE_LOWER] != 0:
                            if winner < 0:
                                winner = a
                        else:
                            winner = a
                for i in range(n_ann):
                    a = contres[i]
                    if a != winner and not is_false[a] and cls[a] != CLS_FALSE:
                        points[a] = 0 if ri[I_LOSER] == 0 else totals[a]
                if best == CLS_NORMAL:
                    points[winner] = -5
                elif cum[winner] >= 15:
                    newcum = 0
                    newcum_seat = winner
                else:
                    newcum = -31
                    newcum_seat = winner
                st[ST_WINNER] = winner
                is_contre = False
                for i in range(1, n_ann):
                    if contres[i] == winner:
                        is_contre = True
                if nfalse > 0:
                    st[ST_OUTCOME] = OUT_FALSE
                elif best == CLS_AU:
                    st[ST_OUTCOME] = OUT_AU_RESET if newcum == 0 else OUT_AU_M31
                elif winner == caller:
                    st[ST_OUTCOME] = OUT_CONTRE_LOST if n_ann > 1 else OUT_NORMAL
                elif is_contre:
                    st[ST_OUTCOME] = OUT_CONTRE_WON
                else:
                    st[ST_OUTCOME] = OUT_BEATEN
    for p in range(P):
        after = newcum if p == newcum_seat else cum[p] + points[p]
        points[p] = after - cum[p]
        cum_after[p] = after


# ------------------------------------------------------------------------------ counterfactual rollouts (Study 1)
@njit(refcount=False)
def _matches(card, code):
    """Card ``card`` fits the rank code ``code`` (``codes.RANK_CODES``: a rank, or a red or black king)."""
    c = card % 52
    if code < 12:
        return c % 13 == code
    return c % 13 == 12 and IS_RED[c] == (code == RANK_CODE_RED_KING)


@njit(refcount=False)
def _impose(force, f, P, hand, occ, faceup, know, nslots, stock, st, rng):
    """Give player ``f`` the layout of ``force``: its cards go back on the stock; each imposed known card is a
    uniformly chosen stock card of that rank code, known to ``f`` only; then ``FC_N_UNKNOWN`` cards from the stock
    top, seen by nobody; then the stock is shuffled. Returns False (nothing shuffled) when the stock lacks a card."""
    n = st[ST_NSTOCK]
    for s in range(nslots[f]):
        if occ[f, s]:
            stock[n] = hand[f, s]
            n += 1
        hand[f, s] = -1
        occ[f, s] = 0
        faceup[f, s] = 0
        for o in range(P):
            know[o, f, s] = -1
    n_known = force[FC_N_KNOWN]
    for k in range(n_known):
        code = force[FC_SPEC + k]
        m = 0
        for i in range(n):
            m += _matches(stock[i], code)
        if m == 0:
            st[ST_NSTOCK] = n
            return False
        j = below(rng, m)
        i = 0
        while True:
            if _matches(stock[i], code):
                if j == 0:
                    break
                j -= 1
            i += 1
        card = stock[i]
        for q in range(i, n - 1):
            stock[q] = stock[q + 1]
        n -= 1
        hand[f, k] = card
        occ[f, k] = 1
        know[f, f, k] = card
    if n <= force[FC_N_UNKNOWN]:
        st[ST_NSTOCK] = n
        return False
    for u in range(force[FC_N_UNKNOWN]):
        n -= 1
        hand[f, n_known + u] = stock[n]
        occ[f, n_known + u] = 1
    if nslots[f] < n_known + force[FC_N_UNKNOWN]:
        nslots[f] = n_known + force[FC_N_UNKNOWN]
    _shuffle(stock, n, rng)
    st[ST_NSTOCK] = n
    return True


@njit(refcount=False)
def _record_focal(force, f, hand, occ, know, nslots, natural_act):
    """The focal player's belief and true total at the forced decision (outputs of ``force``)."""
    known = 0
    unknown = 0
    cards = 0
    for s in range(nslots[f]):
        if occ[f, s]:
            cards += 1
            if know[f, f, s] >= 0:
                known += _value(know[f, f, s])
            else:
                unknown += 1
    force[FC_REACHED] = 1
    force[FC_KNOWN] = known
    force[FC_UNKNOWN] = unknown
    force[FC_CARDS] = cards
    force[FC_TOTAL] = _total(f, hand, occ, nslots)
    force[FC_NATURAL_CALL] = 1 if natural_act == ACT_CALL else 0


@njit(refcount=False)
def play_hand(dealer, cum, P, ri, rf, sids, prm, rng, state, work, h, tmp, out, claim_q, claim_kind, claim_out,
              points, cum_after, est_out, force):
    """One hand (K2–K14). Fills ``points``/``cum_after`` (``int64[P]``); returns nothing, facts in ``st``.

    ``force`` (``int64[codes.FC_LEN]``, ``new_force()`` for ordinary play) can make the focal player call
    or play on at one own turn, and impose its layout there (``simulator.kamoul.counterfactual``)."""
    hand, occ, faceup, know, nslots, stock, discard, st = state
    # positions at or past nslots[p] were never used: reset only the previous hand's slots
    for p in range(P):
        for s in range(nslots[p]):
            hand[p, s] = -1
            occ[p, s] = 0
            faceup[p, s] = 0
            for o in range(P):
                know[o, p, s] = -1
    for i in range(N_ST):
        st[i] = 0
    st[ST_CALLER] = -1
    st[ST_ULTIME] = -1
    st[ST_CALL_TURN] = -1
    st[ST_CALL_TRUE] = -1
    st[ST_CALL_UNK] = -1
    est_out[0] = np.nan
    for i in range(FC_REACHED, FC_IMPOSE_FAILED + 1):
        force[i] = 0
    force[FC_FIRST] = -1
    force[FC_LAST] = -1
    h[0] = np.uint64(TRACE_SEED)
    own_turns = work[0:P]
    contres = work[P:2 * P + 1]
    totals = work[2 * P + 1:3 * P + 1]
    cls = work[3 * P + 1:4 * P + 1]
    is_false = work[4 * P + 1:5 * P + 1]
    order = work[5 * P + 1:6 * P + 1]
    # K1/K2: shuffle, deal one card at a time from the dealer's left, turn the top card
    n = 52 * ri[I_N_DECKS]
    for i in range(n):
        stock[i] = i % 52
    _shuffle(stock, n, rng)
    for row in range(ri[I_HAND_SIZE]):
        for k in range(1, P + 1):
            p = (dealer + k) % P
            n -= 1
            hand[p, row] = stock[n]
            occ[p, row] = 1
    for p in range(P):
        nslots[p] = ri[I_HAND_SIZE]
    n -= 1
    discard[0] = stock[n]
    st[ST_NDISCARD] = 1
    st[ST_NSTOCK] = n
    _trace(h, EV_DEAL, dealer, discard[0], 0)
    for k in range(1, P + 1):  # K2: initial peeks
        p = (dealer + k) % P
        chosen = decide_peeks(sids[p], prm[p], p, ri[I_PEEKS], occ, nslots, rng, out)
        for i in range(chosen):
            s = out[i]
            know[p, p, s] = hand[p, s]
            _trace(h, EV_PEEK, p, s, hand[p, s])
    for p in range(P):
        own_turns[p] = 0
    n_contres = 0
    final_left = 0
    current = (dealer + 1) % P  # K3
    turns = 0
    while True:
        if st[ST_CALLER] >= 0 and final_left == 0:
            break  # K8: reveal
        if turns >= ri[I_MAX_TURNS]:
            st[ST_ABORTED] = 1
            break  # K14 guard: a pending call is void
        p = current
        if rf[F_P_OUT_OF_TURN] > 0:  # K13 physical layer
            for k in range(1, P):
                q = p + k if p + k < P else p + k - P
                if uniform(rng) < rf[F_P_OUT_OF_TURN]:
                    _penalty(q, PENALTY_OUT_OF_TURN, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
        if st[ST_NSTOCK] == 0 and not _reshuffle(ri, stock, discard, st, rng, h):
            st[ST_ABORTED] = 1
            break  # K14
        f = forget_prob(sids[p], prm[p])
        m = memory_noise_prob(sids[p], prm[p])
        if f > 0 or m > 0:
            _memory_lapses(p, P, f, m, know, faceup, nslots, rng, h)
        turns += 1
        own_turns[p] += 1
        in_final = st[ST_CALLER] >= 0
        can_call = (not in_final) and own_turns[p] - 1 >= ri[I_MIN_TURNS]
        can_contre = in_final
        forced = False
        if p == force[FC_PLAYER]:
            if can_call:
                if force[FC_FIRST] < 0:
                    force[FC_FIRST] = own_turns[p]
                force[FC_LAST] = own_turns[p]
            forced = can_call and own_turns[p] == force[FC_TURN]
            if forced and force[FC_N_KNOWN] >= 0 and not _impose(force, p, P, hand, occ, faceup, know, nslots, stock,
                                                                  st, rng):
                force[FC_IMPOSE_FAILED] = 1
                st[ST_ABORTED] = 1
                break
            if force[FC_SUPPRESS] != 0 and own_turns[p] < force[FC_TURN]:
                can_call = False
        nd = st[ST_NDISCARD]
        can_take = False
        if nd > 0:
            for s in range(nslots[p]):
                if occ[p, s]:
                    can_take = True
                    break
        top = np.int64(discard[nd - 1]) if nd > 0 else np.int64(-1)
        snap_card = np.int64(-1)
        while True:  # one call site (decide_turn is inlined): a forced decision may ask a second time
            act = decide_turn(sids[p], prm[p], p, know[p], occ, nslots, top, can_call, can_contre, can_take, cum[p],
                              ri[I_AU30] == 1, rng)
            if not forced:
                break
            forced = False
            _record_focal(force, p, hand, occ, know, nslots, act)
            if force[FC_MODE] == MODE_CALL:
                act = ACT_CALL
            elif force[FC_MODE] == MODE_PLAY_ON and act == ACT_CALL:
                can_call = False
                continue
            break
        if act == ACT_CALL:  # K8
            e, unk = estimate(sids[p], prm[p], p, know[p], occ, nslots)
            _trace(h, EV_CALL, p, own_turns[p], 0)
            if ri[I_FALSE_MODE] == FALSE_TAMALOU and _classify(_total(p, hand, occ, nslots), cum[p], ri) == CLS_FALSE:
                _show_false(p, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
            else:
                st[ST_CALLER] = p
                st[ST_CALL_TURN] = own_turns[p]
                st[ST_CALL_TRUE] = _total(p, hand, occ, nslots)
                st[ST_CALL_UNK] = unk
                est_out[0] = e
                final_left = P - 1
        elif act == ACT_CONTRE:  # K9
            _trace(h, EV_CONTRE, p, 0, 0)
            if ri[I_FALSE_MODE] == FALSE_TAMALOU and _classify(_total(p, hand, occ, nslots), cum[p], ri) == CLS_FALSE:
                _show_false(p, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
            else:
                contres[1 + n_contres] = p
                n_contres += 1
        elif act == ACT_STOCK:  # K4(c)
            st[ST_NSTOCK] -= 1
            card = np.int64(stock[st[ST_NSTOCK]])
            _trace(h, EV_DRAW, p, card, 0)
            if rf[F_P_STICK] > 0:
                _stuck(p, PILE_STOCK, rf, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
            slot = decide_keep(sids[p], prm[p], p, card, know[p], occ, nslots, rng)
            if slot >= 0:
                old = np.int64(hand[p, slot])
                hand[p, slot] = card
                faceup[p, slot] = 0
                for o in range(P):
                    know[o, p, slot] = -1
                know[p, p, slot] = card
                discard[st[ST_NDISCARD]] = old
                st[ST_NDISCARD] += 1
                _trace(h, EV_KEEP, p, slot, old)
                snap_card = old
            else:
                discard[st[ST_NDISCARD]] = card
                st[ST_NDISCARD] += 1
                _trace(h, EV_DISCARD, p, card, 0)
                if RANK_POWER[card % 13] != POWER_NONE:  # skip the call (and its arguments) for plain cards
                    _power(p, card, P, ri, rf, sids, prm, hand, occ, faceup, know, nslots, st, rng, h, tmp, out)
                snap_card = card
        else:  # K4(d)
            slot = decide_take_slot(sids[p], prm[p], p, know[p], occ, nslots, rng)
            st[ST_NDISCARD] -= 1
            card = np.int64(discard[st[ST_NDISCARD]])
            if rf[F_P_STICK] > 0:
                _stuck(p, PILE_DISCARD, rf, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
            old = np.int64(hand[p, slot])
            hand[p, slot] = card
            faceup[p, slot] = 1 if ri[I_PICK_FACE_UP] != 0 else 0
            for o in range(P):
                know[o, p, slot] = card
            discard[st[ST_NDISCARD]] = old
            st[ST_NDISCARD] += 1
            _trace(h, EV_TAKE, p, slot, card * 256 + old)
            snap_card = old
        # one call site for the three ways a card lands on the discard, so that the window is inlined once
        if snap_card >= 0 and st[ST_ULTIME] < 0:
            _snap_window(p, snap_card, P, ri, sids, prm, hand, occ, faceup, know, nslots, stock, discard, st, rng, h,
                         tmp, out, claim_q, claim_kind, claim_out)
        if st[ST_ULTIME] >= 0:
            break  # K7
        if rf[F_P_REORDER] > 0 and _count(p, occ, nslots) >= 2 and uniform(rng) < rf[F_P_REORDER]:
            _reorder(p, P, ri, hand, occ, faceup, know, nslots, stock, discard, st, rng, h)
        if in_final:
            final_left -= 1
        current = p + 1 if p + 1 < P else 0
    st[ST_TURNS] = turns
    st[ST_CONTRES] = n_contres
    contres[0] = st[ST_CALLER]
    _score(P, ri, cum, hand, occ, nslots, st, contres, points, cum_after, totals, cls, is_false, order)
    _trace(h, EV_END, st[ST_OUTCOME], st[ST_WINNER], 0)


# ------------------------------------------------------------------------------ K15–K16 match structure
@njit(refcount=False)
def _write_hand(rows, est_rows, trace_rows, r, game, partie, manche, hand_no, in_manche, dealer, P, st, points,
                cum_after, est, h, contre_mask):
    if r >= rows.shape[0]:
        return
    rows[r, HC_GAME] = game
    rows[r, HC_PARTIE] = partie
    rows[r, HC_MANCHE] = manche
    rows[r, HC_HAND] = hand_no
    rows[r, HC_HAND_IN_MANCHE] = in_manche
    rows[r, HC_DEALER] = dealer
    rows[r, HC_WINNER] = st[ST_WINNER]
    rows[r, HC_OUTCOME] = st[ST_OUTCOME]
    rows[r, HC_CALLER] = st[ST_CALLER]
    rows[r, HC_CALL_TURN] = st[ST_CALL_TURN]
    rows[r, HC_CALL_TRUE] = st[ST_CALL_TRUE]
    rows[r, HC_CALL_UNKNOWN] = st[ST_CALL_UNK]
    rows[r, HC_CONTRE_SEATS] = contre_mask
    rows[r, HC_TURNS] = st[ST_TURNS]
    rows[r, HC_SNAPS] = st[ST_SNAPS]
    rows[r, HC_WRONG_SNAPS] = st[ST_WRONG]
    rows[r, HC_PENALTY_CARDS] = st[ST_PEN]
    for p in range(P):
        rows[r, N_HAND_COLS_FIXED + p] = points[p]
        rows[r, N_HAND_COLS_FIXED + P + p] = cum_after[p]
    est_rows[r] = est
    trace_rows[r] = h


@njit(refcount=False)
def _best(wins, totals, P):
    """Most wins, then lowest total, then shared: bit mask of the winners."""
    top = -1
    for q in range(P):
        if wins[q] > top:
            top = wins[q]
    low = 1 << 40
    for q in range(P):
        if wins[q] == top and totals[q] < low:
            low = totals[q]
    mask = 0
    for q in range(P):
        if wins[q] == top and totals[q] == low:
            mask |= 1 << q
    return mask


@njit(refcount=False)
def _single(mask, P):
    seat = -1
    for q in range(P):
        if mask & (1 << q):
            if seat >= 0:
                return -1
            seat = q
    return seat


@njit(refcount=False)
def play_game(game, level, seed, P, ri, rf, sids, prm, state, bufs, counts, outs):
    """Game ``game`` at ``level`` (K15–K16); appends rows to the block's output arrays ``outs``."""
    hands_rows, est_rows, trace_rows, manche_rows, partie_rows, top_rows = outs
    rng, work, h, tmp, out, claim_q, claim_kind, claim_out, points, cum, cum_after, est, ctr, acc, force = bufs
    seed_state(seed, game, rng)
    for i in range(4):
        ctr[i] = 0  # 0 dealer, 1 hand_no, 2 manche_no, 3 partie_no
    ctr[0] = (game + P - 1) % P  # K3: game i starts with seat i mod P
    for i in range(acc.shape[0]):
        acc[i] = 0
    top_wins = acc[0:P]
    top_totals = acc[P:2 * P]
    partie_wins = acc[2 * P:3 * P]
    partie_totals = acc[3 * P:4 * P]
    n_parties = 1 if level < LEVEL_TOPS else 3
    parties_played = 0
    for _partie in range(n_parties):
        partie = ctr[3]
        for q in range(P):
            partie_wins[q] = 0
            partie_totals[q] = 0
        n_manches = 1 if level < LEVEL_PARTIES else 3
        manches_played = 0
        for _m in range(n_manches):
            for q in range(P):
                cum[q] = 0
            in_manche = 0
            while True:
                dealer = ctr[0]
                play_hand(dealer, cum, P, ri, rf, sids, prm, rng, state, work, h, tmp, out, claim_q, claim_kind,
                          claim_out, points, cum_after, est, force)
                st = state[7]
                mask = 0
                for i in range(st[ST_CONTRES]):
                    mask |= 1 << work[P + 1 + i]
                _write_hand(hands_rows, est_rows, trace_rows, counts[0], game, partie, ctr[2], ctr[1], in_manche,
                            dealer, P, st, points, cum_after, est[0], h[0], mask)
                counts[0] += 1
                ctr[1] += 1
                in_manche += 1
                ctr[0] = (dealer + 1) % P
                for q in range(P):
                    cum[q] = cum_after[q]
                if level == LEVEL_HANDS:
                    return
                ended = in_manche >= ri[I_MAX_HANDS]
                for q in range(P):
                    if cum[q] > 31 or cum[q] <= -31:
                        ended = True
                if ended:
                    break
            # K15: lowest cumulative wins; goal average over the partie, then shared; the -31/+31 special case
            low = 1 << 40
            for q in range(P):
                if cum[q] < low:
                    low = cum[q]
            n_low = 0
            for q in range(P):
                if cum[q] == low:
                    n_low += 1
            mask = 0
            if n_low > 1:
                best = 1 << 40
                for q in range(P):
                    if cum[q] == low and partie_totals[q] + cum[q] < best:
                        best = partie_totals[q] + cum[q]
                for q in range(P):
                    if cum[q] == low and partie_totals[q] + cum[q] == best:
                        mask |= 1 << q
            else:
                for q in range(P):
                    if cum[q] == low:
                        mask |= 1 << q
            has_low = False
            has_high = False
            for q in range(P):
                if cum[q] <= -31:
                    has_low = True
                if cum[q] > 31:
                    has_high = True
            credit = 2 if (has_low and has_high) else 1
            r = counts[1]
            if r < manche_rows.shape[0]:
                manche_rows[r, MC_GAME] = game
                manche_rows[r, MC_PARTIE] = partie
                manche_rows[r, MC_MANCHE] = ctr[2]
                manche_rows[r, MC_HANDS] = in_manche
                manche_rows[r, MC_WINNERS] = mask
                manche_rows[r, MC_WINNER] = _single(mask, P)
                manche_rows[r, MC_CREDIT] = credit
                for q in range(P):
                    manche_rows[r, len(MANCHE_FIXED) + q] = cum[q]
            counts[1] += 1
            ctr[2] += 1
            for q in range(P):
                partie_totals[q] += cum[q]
                if mask & (1 << q):
                    partie_wins[q] += credit
            manches_played += 1
            if level == LEVEL_MANCHES:
                return
            done = manches_played == 3
            for q in range(P):
                if partie_wins[q] >= 2:
                    done = True
            if done:
                break
        mask = _best(partie_wins, partie_totals, P)
        r = counts[2]
        if r < partie_rows.shape[0]:
            partie_rows[r, PC_GAME] = game
            partie_rows[r, PC_PARTIE] = partie
            partie_rows[r, PC_MANCHES] = manches_played
            partie_rows[r, PC_WINNERS] = mask
            partie_rows[r, PC_WINNER] = _single(mask, P)
            for q in range(P):
                partie_rows[r, len(PARTIE_FIXED) + q] = partie_wins[q]
                partie_rows[r, len(PARTIE_FIXED) + P + q] = partie_totals[q]
        counts[2] += 1
        ctr[3] += 1
        if level == LEVEL_PARTIES:
            return
        for q in range(P):
            top_totals[q] += partie_totals[q]
            if mask & (1 << q):
                top_wins[q] += 1
        parties_played += 1
        done = parties_played == 3
        for q in range(P):
            if top_wins[q] >= 2:
                done = True
        if done:
            break
    mask = _best(top_wins, top_totals, P)
    r = counts[3]
    if r < top_rows.shape[0]:
        top_rows[r, TC_GAME] = game
        top_rows[r, TC_PARTIES] = parties_played
        top_rows[r, TC_WINNERS] = mask
        top_rows[r, TC_WINNER] = _single(mask, P)
        for q in range(P):
            top_rows[r, len(TOP_FIXED) + q] = top_wins[q]
            top_rows[r, len(TOP_FIXED) + P + q] = top_totals[q]
    counts[3] += 1


@njit
def new_buffers(P, S):
    """One block's scratch buffers, in the order ``play_game`` unpacks them."""
    return (
        np.zeros(4, dtype=np.uint64),            # rng
        np.zeros(8 * P + 8, dtype=np.int64),     # work
        np.zeros(1, dtype=np.uint64),            # trace hash
        np.zeros(2 * P * S + 8, dtype=np.int64),  # tmp
        np.zeros(S + 8, dtype=np.int64),         # out
        np.zeros(P, dtype=np.int64),             # claim_q
        np.zeros(P, dtype=np.int64),             # claim_kind
        np.zeros((P, S + 8), dtype=np.int64),    # claim_out
        np.zeros(P, dtype=np.int64),             # points
        np.zeros(P, dtype=np.int64),             # cum
        np.zeros(P, dtype=np.int64),             # cum_after
        np.zeros(1, dtype=np.float64),           # estimate
        np.zeros(4, dtype=np.int64),             # counters
        np.zeros(4 * P, dtype=np.int64),         # match accumulators (wins and totals per partie and top)
        new_force(),                             # no intervention (counterfactual rollouts only)
    )


@njit(parallel=True)
def simulate(seed, start, stop, level, ri, rf, sids, prm, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` in ``n_blocks`` contiguous blocks (``prange``).

    Block ``b`` plays games ``[start + b * per, start + (b + 1) * per)`` (clipped to ``stop``), with
    ``per = ceil((stop - start) / n_blocks)``; the split does not change any result (each game has its own
    RNG stream). ``caps``: ``int64[4]`` row capacity per block for hands, manches, parties, tops; ``n_cols``:
    ``int64[4]``. Returns ``(hands int64[B, cap0, c0], estimates float64[B, cap0], traces uint64[B, cap0],
    manches int64[B, cap1, c1], parties int64[B, cap2, c2], tops int64[B, cap3, c3], counts int64[B, 4])``;
    rows past a block's count are uninitialised; a block whose count exceeds its capacity kept only the
    first ``cap`` rows (the caller retries bigger). With ``cap0 == per`` at the hands level every block but
    the last is full, so ``hands.reshape(-1, c0)[:stop - start]`` is the game-ordered table without a copy.
    """
    P = sids.shape[0]
    S = 52 * ri[I_N_DECKS]
    hands_all = np.empty((n_blocks, caps[0], n_cols[0]), dtype=np.int64)
    est_all = np.empty((n_blocks, caps[0]), dtype=np.float64)
    trace_all = np.empty((n_blocks, caps[0]), dtype=np.uint64)
    manche_all = np.empty((n_blocks, caps[1], n_cols[1]), dtype=np.int64)
    partie_all = np.empty((n_blocks, caps[2], n_cols[2]), dtype=np.int64)
    top_all = np.empty((n_blocks, caps[3], n_cols[3]), dtype=np.int64)
    counts_all = np.zeros((n_blocks, 4), dtype=np.int64)
    total = stop - start
    per = (total + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        lo = min(start + per * b, stop)
        hi = min(start + per * (b + 1), stop)
        state = new_state(P, S)
        bufs = new_buffers(P, S)
        outs = (hands_all[b], est_all[b], trace_all[b], manche_all[b], partie_all[b], top_all[b])
        counts = counts_all[b]
        for g in range(lo, hi):
            play_game(g, level, seed, P, ri, rf, sids, prm, state, bufs, counts, outs)
    return hands_all, est_all, trace_all, manche_all, partie_all, top_all, counts_all
