"""Rami "Kracouil" meld solver: the numba core and its Python API (rules R6, R7, R9, R12, R13).

Questions answered, exactly:

* :func:`best_opening` (R7): the most opening points a hand can lay in disjoint melds that include a
  tierce franche, whether that reaches the threshold (51), and which melds;
* :func:`opening` (R7): the same openings in other styles: the fewest cards reaching the threshold, the least
  left in hand, or the best keeping the jokers;
* :func:`least_left` (R13, R12): the lay-down that leaves the least card value in hand, with or without
  the tierce-franche requirement of a "rami sec";
* :func:`layoffs` (R8, R9): the single cards of a hand that extend a meld on the table, and joker swaps.

One combination is checked and valued by the plain-Python rulebook :mod:`simulator.rami.vocabulary.melds_ref`
(:func:`verify_combination`, :func:`opening_value`), which also holds the brute force the tests compare
this core against.

Arrays (the contract of the ``*_nb`` functions, usable from other numba kernels)
-------------------------------------------------------------------------------
* hand ``counts``: ``int8[53]``; ``counts[c]`` copies of card id ``c = suit*13 + rank`` (0–51),
  ``counts[52]`` jokers. With ``n`` decks a count is at most ``n`` (jokers ``2n``); at most
  :data:`MAX_HAND` cards in all.
* meld code: ``int8[5]``, a row of an ``out``/``table`` array:
  run ``(RUN, suit, start_rank, length, joker_slot)``, set ``(SET, rank, suit_mask, n_cards, joker_suit)``,
  ``joker_slot``/``joker_suit`` = -1 without a joker; a set's ``suit_mask`` includes the joker's suit.
* ``out``: ``int8[MAX_OUT, 5]`` meld codes written by the solvers.
* ``ws``: a :class:`Workspace` of scratch arrays from :func:`new_workspace`; one per thread, reused.
* lay-off moves: ``int16[k, 4]`` rows ``(hand_card, table_meld, action, declared)``.

Algorithm
---------
1. *Candidates.* From the count vector, list every valid meld as a set of natural cards plus 0 or 1 joker,
   once per distinct natural-card set: per suit the jokerless runs (circular intervals of 3–13 ranks), the
   runs where a joker fills an inside hole, and those where it extends a block of 2–12 at one end; per rank
   the sets of 3–4 suits, and of 2–3 suits plus a joker. Where one natural set admits several joker
   declarations (either end of a block; the two holes of an 11-card set; the start of a 13-card run) the
   one worth most toward an opening is kept. A card in no candidate is dead: it stays in hand.
2. *Search.* Depth-first over the multiset: the lowest card still in hand either goes into one of the
   candidates whose lowest natural card it is (in bucket order, the same candidate again allowed for
   several decks, never an earlier one: each choice of melds is met once) or all its copies stay in hand.
   Branch and bound on the lexicographic key ``(weight, cards laid)`` with the upper bound "every
   remaining live card laid at full value, plus one joker per two naturals".
   The weight is the opening points (R7) or the R13 value of the cards laid (least left = hand − laid);
   leaves without a tierce franche are rejected when one is required, and an opening's leaves with fewer
   melds than its minimum (R7: the tierce franche and at least one more combination, by default). The first best leaf in search order
   wins ties (deterministic). The result is exact; nothing is cut by a heuristic.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulator.core.cards import JOKER
from simulator.core.kernels.jit import njit
from simulator.rami.vocabulary.codes import OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST
from simulator.rami.vocabulary.melds_ref import (
    RANK_VALUE, RUN, SET, InvalidMeld, Meld, check_joker_opening_value, hand_list, hand_value, is_combination,
    opening_min_melds, opening_value, parse_meld, verify_combination,
)
from simulator.rami.vocabulary.screens import franche_possible, meldless

__all__ = [
    "RUN", "SET", "EXTEND_LOW", "EXTEND_HIGH", "ADD_TO_SET", "SWAP_JOKER", "Meld", "InvalidMeld", "Opening",
    "Laydown", "LayOff", "Workspace", "verify_combination", "is_combination", "parse_meld", "opening_value",
    "hand_value", "hand_counts", "remaining", "best_opening", "least_left", "layoffs", "new_workspace", "best_opening_nb",
    "least_left_nb", "layoffs_nb", "opening_value_nb", "opening_min_melds", "encode_meld", "decode_meld",
    "opening", "opening_nb", "smallest_opening_nb", "largest_opening_nb", "OPENING_STYLES",
]

EXTEND_LOW, EXTEND_HIGH, ADD_TO_SET, SWAP_JOKER = 0, 1, 2, 3
"""Lay-off actions: a card before the first card of a run, after its last, into a set, or in place of a joker."""
ACTION_NAMES = ("extend_low", "extend_high", "add_to_set", "swap_joker")

MAX_HAND = 162          # three full 54-card decks
MAX_CAND = 4096         # candidates of a hand holding every card (3 891), rounded up
MAX_FRAMES = 192        # search depth: ≤ 52 "keep" steps + ≤ 81 melds + a leaf
MAX_OUT = 96            # melds in one answer (≤ 81)
KEY = 256               # key = weight * KEY + cards laid (cards ≤ MAX_HAND < KEY)

# candidate table columns (int16): naturals in 0..12, then:
C_NNAT, C_JOKER, C_OPEN, C_LAID, C_FRANCHE, C_MIN, C_NATW, C_CODE = 13, 14, 15, 16, 17, 18, 19, 20
N_COLS = C_CODE + 5
# search frame columns (int32): card, next option, action taken, saved count
F_CARD, F_POS, F_ACT, F_SAVED = 0, 1, 2, 3
ACT_NONE, ACT_KEEP = -1, -2
MODE_OPEN, MODE_LEAST, MODE_SMALLEST, MODE_LARGEST = 0, 1, 2, 3
"""What :func:`_search` maximises: the opening points (R7), the R13 value laid (R13), and two openings that must
reach a threshold: the fewest cards laid (then the most points), the most R13 value laid (then the most cards)."""
KEY_SMALLEST = 4096     # smallest opening's key = (KEY - 1 - cards laid) * KEY_SMALLEST + points (points < 4096)
JOKER_OPEN_REPRESENTED = 11  # the most a joker adds to an opening when it is worth the card it stands for (an ace)

_RANK_VALUE = np.array(RANK_VALUE, dtype=np.int64)


class Workspace(NamedTuple):
    """Scratch arrays for one thread (see :func:`new_workspace`)."""

    cand: np.ndarray     # int16[MAX_CAND, N_COLS]  candidate melds
    order: np.ndarray    # int32[MAX_CAND]          candidates bucketed by lowest natural card
    bstart: np.ndarray   # int32[54]                bucket c is order[bstart[c]:bstart[c+1]]
    work: np.ndarray     # int16[53]                counts during the search
    live: np.ndarray     # int8[53]                 1 for a card in some candidate
    frames: np.ndarray   # int32[MAX_FRAMES, 4]     search stack
    chosen: np.ndarray   # int32[MAX_OUT]           melds on the current path
    best: np.ndarray     # int32[MAX_OUT]           melds of the best leaf


@njit
def new_workspace():
    """Allocate the scratch arrays the ``*_nb`` solvers need (≈ 220 KB); keep one per thread.

    Jitted, so a kernel can allocate one per block inside ``prange``; from Python it returns a :class:`Workspace`.
    """
    return Workspace(np.zeros((MAX_CAND, N_COLS), np.int16), np.zeros(MAX_CAND, np.int32), np.zeros(54, np.int32),
                     np.zeros(53, np.int16), np.zeros(53, np.int8), np.zeros((MAX_FRAMES, 4), np.int32),
                     np.zeros(MAX_OUT, np.int32), np.zeros(MAX_OUT, np.int32))


# ================================================================================================ candidates
@njit(refcount=False)
def _run_open_value(start, length, jslot, represented):
    """R7 value of a run: ace 1 in the first slot (before a two), 11 elsewhere (after a king)."""
    v = 0
    for i in range(length):
        r = (start + i) % 13
        x = _RANK_VALUE[r]
        if r == 0 and i == 0:
            x = 1
        if i != jslot or represented:
            v += x
    return v


@njit(refcount=False)
def _add_run(cand, n, suit, start, length, jslot, represented, franche_inside):
    k = 0
    natw = 0
    low = 99
    for i in range(length):
        if i == jslot:
            continue
        c = suit * 13 + (start + i) % 13
        cand[n, k] = c
        k += 1
        natw += _RANK_VALUE[c % 13]
        if c < low:
            low = c
    has_joker = 1 if jslot >= 0 else 0
    cand[n, C_NNAT] = k
    cand[n, C_JOKER] = has_joker
    cand[n, C_OPEN] = _run_open_value(start, length, jslot, represented)
    cand[n, C_LAID] = natw + 20 * has_joker
    franche = jslot < 0 or (franche_inside and (jslot >= 3 or length - 1 - jslot >= 3))
    cand[n, C_FRANCHE] = 1 if franche else 0
    cand[n, C_MIN] = low
    cand[n, C_NATW] = natw
    cand[n, C_CODE] = RUN
    cand[n, C_CODE + 1] = suit
    cand[n, C_CODE + 2] = start
    cand[n, C_CODE + 3] = length
    cand[n, C_CODE + 4] = jslot
    return n + 1


@njit(refcount=False)
def _add_set(cand, n, rank, suits, jsuit, represented):
    k = 0
    low = 99
    for s in range(4):
        if suits >> s & 1:
            c = s * 13 + rank
            cand[n, k] = c
            k += 1
            if c < low:
                low = c
    v = _RANK_VALUE[rank]
    has_joker = 1 if jsuit >= 0 else 0
    cand[n, C_NNAT] = k
    cand[n, C_JOKER] = has_joker
    cand[n, C_OPEN] = v * (k + (has_joker if represented else 0))
    cand[n, C_LAID] = v * k + 20 * has_joker
    cand[n, C_FRANCHE] = 0
    cand[n, C_MIN] = low
    cand[n, C_NATW] = v * k
    cand[n, C_CODE] = SET
    cand[n, C_CODE + 1] = rank
    cand[n, C_CODE + 2] = suits | ((1 << jsuit) if jsuit >= 0 else 0)
    cand[n, C_CODE + 3] = k + has_joker
    cand[n, C_CODE + 4] = jsuit
    return n + 1


@njit(refcount=False)
def _block(mask, start):
    """Length (0–13) of the run of present ranks in ``mask`` from ``start`` upward, wrapping."""
    b = 0
    while b < 13 and (mask >> ((start + b) % 13)) & 1:
        b += 1
    return b


@njit(refcount=False)
def build_candidates(counts, represented, franche_inside, cand):
    """Write every distinct valid meld the hand can form into ``cand`` (``int16[MAX_CAND, N_COLS]``); return how many.

    Each row: natural card ids in columns 0..12, then ``C_NNAT`` (count), ``C_JOKER`` (0/1), ``C_OPEN`` (R7
    points), ``C_LAID`` (R13 value of its cards), ``C_FRANCHE`` (tierce franche), ``C_MIN`` (lowest natural
    id), ``C_NATW`` (R13 value of its naturals), ``C_CODE..C_CODE+4`` (the meld code).
    """
    n = 0
    has_joker = counts[52] > 0
    for suit in range(4):
        mask = 0
        for r in range(13):
            if counts[suit * 13 + r] > 0:
                mask |= 1 << r
        if mask == 0:
            continue
        for st in range(13):
            if not (mask >> st) & 1:
                continue
            b = _block(mask, st)
            # jokerless runs: circular intervals from st; the 13-card run once, from the two (ace high)
            for length in range(3, min(b, 12) + 1):
                n = _add_run(cand, n, suit, st, length, -1, represented, franche_inside)
            if b == 13 and st == 1:
                n = _add_run(cand, n, suit, 1, 13, -1, represented, franche_inside)
            if not has_joker:
                continue
            # a block of k naturals from st and a joker at one end
            for k in range(2, min(b, 12) + 1):
                if k <= 11:
                    low = (st + 12) % 13
                    if _run_open_value(low, k + 1, 0, represented) > _run_open_value(st, k + 1, k, represented):
                        n = _add_run(cand, n, suit, low, k + 1, 0, represented, franche_inside)
                    else:
                        n = _add_run(cand, n, suit, st, k + 1, k, represented, franche_inside)
                elif st != 0:  # 13 cards: start anywhere but the ace, so the ace counts 11
                    n = _add_run(cand, n, suit, st, 13, 12, represented, franche_inside)
                else:
                    n = _add_run(cand, n, suit, 12, 13, 0, represented, franche_inside)
            # p naturals from st, the joker in the hole at st+p, q naturals after it (length 3..12)
            for p in range(1, min(b, 10) + 1):
                hole = (st + p) % 13
                rb = _block(mask, (hole + 1) % 13)
                for q in range(1, min(rb, 11 - p) + 1):
                    length = p + 1 + q
                    if length <= 11:
                        n = _add_run(cand, n, suit, st, length, p, represented, franche_inside)
                        continue
                    # 12 slots: the two missing ranks are both single gaps; either may be the joker
                    other = (st + 12) % 13
                    if hole > other:
                        continue  # the same naturals are met from the other start
                    st2 = (hole + 1) % 13
                    p2 = (other - st2) % 13
                    if _run_open_value(st2, 12, p2, represented) > _run_open_value(st, 12, p, represented):
                        n = _add_run(cand, n, suit, st2, 12, p2, represented, franche_inside)
                    else:
                        n = _add_run(cand, n, suit, st, 12, p, represented, franche_inside)
    for rank in range(13):
        mask = 0
        for s in range(4):
            if counts[s * 13 + rank] > 0:
                mask |= 1 << s
        for sub in range(3, 16):
            if sub & ~mask:
                continue
            k = (sub & 1) + (sub >> 1 & 1) + (sub >> 2 & 1) + (sub >> 3 & 1)
            if k >= 3:
                n = _add_set(cand, n, rank, sub, -1, represented)
            if has_joker and k <= 3 and k >= 2:
                js = 0
                while sub >> js & 1:
                    js += 1
                n = _add_set(cand, n, rank, sub, js, represented)
    return n


# ================================================================================================ search
@njit(refcount=False)
def _next_card(work, c):
    while c < 52 and work[c] == 0:
        c += 1
    return c


@njit(refcount=False)
def _search(counts, n_cand, mode, need_franche, represented, min_melds, threshold, ws):
    """Branch and bound over disjoint candidates (module docstring). Returns ``(weight, cards laid, n melds)``
    of the best choice; its candidate indexes are in ``ws.best[:n]``. Laying nothing scores ``(0, 0, 0)``.
    A leaf counts only with a tierce franche (``need_franche``) and at least ``min_melds`` melds (R7); in the
    modes :data:`MODE_SMALLEST` and :data:`MODE_LARGEST` only with at least ``threshold`` opening points too, and
    the weight returned is then the opening's points.

    Longer than the project's ~80 lines: the iterative search is one loop over an explicit stack of frames, its
    bound and counters in local variables of that loop (the solver's hot path, shared by both engines); it was
    left whole by the issue-11 refactor rather than split without a measurement."""
    cand, order, bstart, work, live, fr, chosen, best = ws
    for c in range(52):
        live[c] = 0
    for m in range(n_cand):
        for i in range(cand[m, C_NNAT]):
            live[cand[m, i]] = 1
    rem_w = 0
    rem_n = 0
    for c in range(52):
        work[c] = counts[c] if live[c] else 0
        rem_w += work[c] * _RANK_VALUE[c % 13]
        rem_n += work[c]
    work[52] = counts[52]
    w_col = C_OPEN if mode == MODE_OPEN or mode == MODE_SMALLEST else C_LAID
    joker_open = JOKER_OPEN_REPRESENTED if represented else 0
    joker_w = 20 if mode == MODE_LEAST or mode == MODE_LARGEST else joker_open
    constrained = mode == MODE_SMALLEST or mode == MODE_LARGEST
    # bucket the candidates by lowest natural card, each bucket by decreasing weight (good leaves first)
    for c in range(54):
        bstart[c] = 0
    for m in range(n_cand):
        bstart[cand[m, C_MIN] + 1] += 1
    for c in range(53):
        bstart[c + 1] += bstart[c]
    for m in range(n_cand):
        c = cand[m, C_MIN]
        order[bstart[c]] = m
        bstart[c] += 1
    for c in range(52, 0, -1):
        bstart[c] = bstart[c - 1]
    bstart[0] = 0
    for c in range(52):
        lo = bstart[c]
        for i in range(lo + 1, bstart[c + 1]):  # stable insertion sort, heaviest first
            m = order[i]
            j = i
            while j > lo and cand[order[j - 1], w_col] < cand[m, w_col]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = m

    best_key = 0
    best_n = 0
    best_points = 0
    best_cards = 0
    cur_w = 0
    cur_o = 0  # opening points of the melds chosen (the threshold of the constrained modes)
    cur_n = 0
    pure = 0
    nch = 0
    d = 0
    c0 = _next_card(work, 0)
    fr[0, F_CARD] = c0
    fr[0, F_POS] = bstart[c0]
    fr[0, F_ACT] = ACT_NONE
    while d >= 0:
        c = fr[d, F_CARD]
        a = fr[d, F_ACT]
        if a >= 0:  # undo the meld tried last at this frame
            for i in range(cand[a, C_NNAT]):
                work[cand[a, i]] += 1
            work[52] += cand[a, C_JOKER]
            cur_w -= cand[a, w_col]
            cur_o -= cand[a, C_OPEN]
            cur_n -= cand[a, C_NNAT] + cand[a, C_JOKER]
            rem_w += cand[a, C_NATW]
            rem_n += cand[a, C_NNAT]
            pure -= cand[a, C_FRANCHE]
            nch -= 1
            fr[d, F_ACT] = ACT_NONE
        elif a == ACT_KEEP:  # keeping card c was the last option: the frame is done
            k = fr[d, F_SAVED]
            work[c] = k
            rem_w += k * _RANK_VALUE[c % 13]
            rem_n += k
            fr[d, F_ACT] = ACT_NONE
            d -= 1
            continue
        if c >= 52:  # leaf: no natural card left to decide; jokers stay in hand
            if (pure > 0 or not need_franche) and nch >= min_melds and (not constrained or cur_o >= threshold):
                if mode == MODE_SMALLEST:
                    key = (KEY - 1 - cur_n) * KEY_SMALLEST + cur_w
                else:
                    key = cur_w * KEY + cur_n
                if key > best_key:
                    best_key = key
                    best_n = nch
                    best_points = cur_o
                    best_cards = cur_n
                    for i in range(nch):
                        best[i] = chosen[i]
            d -= 1
            continue
        end = bstart[c + 1]
        p = fr[d, F_POS]
        found = -1
        while p < end:
            m = order[p]
            p += 1
            ok = cand[m, C_JOKER] == 0 or work[52] > 0
            i = 0
            while ok and i < cand[m, C_NNAT]:
                if work[cand[m, i]] == 0:
                    ok = False
                i += 1
            if ok:
                found = m
                break
        if found >= 0:
            fr[d, F_POS] = p
            for i in range(cand[found, C_NNAT]):
                work[cand[found, i]] -= 1
            work[52] -= cand[found, C_JOKER]
            cur_w += cand[found, w_col]
            cur_o += cand[found, C_OPEN]
            cur_n += cand[found, C_NNAT] + cand[found, C_JOKER]
            rem_w -= cand[found, C_NATW]
            rem_n -= cand[found, C_NNAT]
            pure += cand[found, C_FRANCHE]
            chosen[nch] = found
            nch += 1
            fr[d, F_ACT] = found
            if work[c] > 0:
                child, child_pos = c, p - 1  # the same meld again (several decks), never an earlier one
            else:
                child = _next_card(work, c + 1)
                child_pos = bstart[child]
        else:  # keep every copy of c in hand
            fr[d, F_POS] = end
            k = work[c]
            fr[d, F_SAVED] = k
            rem_w -= k * _RANK_VALUE[c % 13]
            rem_n -= k
            work[c] = 0
            fr[d, F_ACT] = ACT_KEEP
            child = _next_card(work, c + 1)
            child_pos = bstart[child]
        jj = min(work[52], rem_n // 2)
        if constrained and cur_o + rem_w + jj * joker_open < threshold:  # an R7 value is at most its R13 value
            hope = False
        elif mode == MODE_SMALLEST:  # cards laid only grow deeper down
            hope = (KEY - 1 - cur_n) * KEY_SMALLEST + cur_w + rem_w + jj * joker_open > best_key
        else:
            hope = (cur_w + rem_w + jj * joker_w) * KEY + cur_n + rem_n + jj > best_key
        if hope:
            d += 1
            fr[d, F_CARD] = child
            fr[d, F_POS] = child_pos
            fr[d, F_ACT] = ACT_NONE
    if constrained:
        return best_points, best_cards, best_n
    return best_key // KEY, best_key % KEY, best_n


@njit(refcount=False)
def _write_out(ws, n, out):
    for i in range(n):
        m = ws.best[i]
        for j in range(5):
            out[i, j] = ws.cand[m, C_CODE + j]


@njit(refcount=False)
def best_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out):
    """R7 on a count vector ``int8[53]``: ``(can_open, points, n_melds)``, the melds written to ``out[:n_melds]``.

    ``points`` is the most opening points over disjoint melds that include a tierce franche and number at
    least ``min_melds`` (ties: most cards laid); 0 with no melds when the hand holds no such choice.
    ``can_open = n_melds > 0 and points >= threshold``. ``represented``: joker worth its declared card (else
    0); ``franche_inside``: the option ``franche_inside_longer_run``; ``min_melds``:
    :func:`~simulator.rami.vocabulary.melds_ref.opening_min_melds` of the option ``opening_single_meld`` (2 by the seed:
    "une tierce franche + une ou plusieurs combinaisons").
    """
    if not franche_possible(counts):  # no tierce franche, no opening: nothing to build or search
        return False, 0, 0
    n_cand = build_candidates(counts, represented, franche_inside, ws.cand)
    points, _, n = _search(counts, n_cand, MODE_OPEN, True, represented, min_melds, 0, ws)
    _write_out(ws, n, out)
    return n > 0 and points >= threshold, points, n


@njit(refcount=False)
def least_left_nb(counts, require_franche, franche_inside, ws, out):
    """R13 on a count vector ``int8[53]``: ``(value_left, cards_left, n_melds)``, the melds in ``out[:n_melds]``.

    The least R13 value left in hand (ace 11, joker 20) over disjoint melds, ties broken by fewest cards left.
    ``require_franche`` (R12 rami sec): a non-empty lay-down must include a tierce franche; without one
    nothing is laid.
    """
    laid, laid_n, n = 0, 0, 0
    if not meldless(counts):  # a hand of dead cards lays nothing: no candidates to build, nothing to search
        n_cand = build_candidates(counts, False, franche_inside, ws.cand)
        laid, laid_n, n = _search(counts, n_cand, MODE_LEAST, require_franche, False, 0, 0, ws)
    total = 20 * counts[52]
    total_n = counts[52]
    for c in range(52):
        total += counts[c] * _RANK_VALUE[c % 13]
        total_n += counts[c]
    _write_out(ws, n, out)
    return total - laid, total_n - laid_n, n


@njit(refcount=False)
def smallest_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out):
    """R7, the opening that keeps the most cards in hand: ``(can_open, points, n_melds)``, the melds in
    ``out[:n_melds]``: over the disjoint melds with a tierce franche, at least ``min_melds`` of them and at least
    ``threshold`` opening points, the fewest cards laid, ties broken by the most points. ``can_open`` is False,
    with no melds, when the hand holds no opening (exactly when :func:`best_opening_nb` cannot open). Arguments as
    :func:`best_opening_nb`'s."""
    n_cand = build_candidates(counts, represented, franche_inside, ws.cand)
    points, _, n = _search(counts, n_cand, MODE_SMALLEST, True, represented, min_melds, threshold, ws)
    _write_out(ws, n, out)
    return n > 0, points, n


@njit(refcount=False)
def largest_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out):
    """R7 with R13, the opening that leaves the least in hand: ``(can_open, points, n_melds)``, the melds in
    ``out[:n_melds]``: over the same openings as :func:`smallest_opening_nb`, the most R13 value laid (ace 11,
    joker 20; so the least left), ties broken by the most cards laid."""
    n_cand = build_candidates(counts, represented, franche_inside, ws.cand)
    points, _, n = _search(counts, n_cand, MODE_LARGEST, True, represented, min_melds, threshold, ws)
    _write_out(ws, n, out)
    return n > 0, points, n


OPENING_STYLES = ("best", "smallest", "largest", "keep-jokers")
"""The openings the solver offers (R7), by code (``OPENING_*`` of :mod:`simulator.rami.vocabulary.codes`): the most points (:func:`best_opening_nb`), the fewest cards
(:func:`smallest_opening_nb`), the least left in hand (:func:`largest_opening_nb`), and the best that keeps every
joker in hand."""


@njit(refcount=False)
def opening_nb(style, counts, threshold, represented, franche_inside, min_melds, ws, out):
    """The opening of style ``style`` (one of :data:`OPENING_STYLES`' codes) of ``counts``: ``(can_open, points,
    n_melds)``, the melds in ``out[:n_melds]``, arguments as :func:`best_opening_nb`'s. ``counts`` is left as it
    was (the keep-jokers style sets its jokers to 0 while it searches)."""
    if style == OPENING_SMALLEST:
        return smallest_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out)
    if style == OPENING_LARGEST:
        return largest_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out)
    if style == OPENING_KEEP_JOKERS:
        jokers = counts[JOKER]
        counts[JOKER] = 0
        answer = best_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out)
        counts[JOKER] = jokers
        return answer
    return best_opening_nb(counts, threshold, represented, franche_inside, min_melds, ws, out)


@njit(refcount=False)
def opening_value_nb(code, represented):
    """R7 value of one meld code ``int8[5]`` (as :func:`~simulator.rami.vocabulary.melds_ref.opening_value` of its
    :func:`decode_meld`): a run's cards with the ace 1 only in the first slot, a set's naturals at their rank
    value; the joker 0, or its declared card's value when ``represented``."""
    if code[0] == RUN:
        return _run_open_value(np.int64(code[2]), np.int64(code[3]), np.int64(code[4]), represented)
    naturals = np.int64(code[3]) - (1 if code[4] >= 0 else 0)
    counted = np.int64(code[3]) if represented else naturals
    return _RANK_VALUE[code[1]] * counted


@njit(refcount=False)
def layoffs_nb(counts, table, n_table, out):
    """R8/R9 single-card moves from a hand ``int8[53]`` onto ``table[:n_table]`` (meld codes ``int8[*, 5]``).

    Writes rows ``(hand_card, meld, action, declared)`` into ``out`` (``int16[≥ 5*n_table, 4]``) and returns
    their number: a natural card or a joker before the first card or after the last of a run shorter than
    13 (``EXTEND_LOW``/``EXTEND_HIGH``; for a 12-card run both name the same missing card), a natural or a
    joker completing a 3-card set with its missing suit (``ADD_TO_SET``), and a natural card equal to the
    card a table joker stands for (``SWAP_JOKER``). A joker goes only on a meld without one (R6).
    ``declared`` is the card the laid card stands for (itself for a natural card).
    """
    k = 0
    has_joker = counts[52] > 0
    for t in range(n_table):
        if table[t, 0] == RUN:
            suit, st, length, jslot = table[t, 1], table[t, 2], table[t, 3], table[t, 4]
            if jslot >= 0:
                declared = suit * 13 + (st + jslot) % 13
                if counts[declared] > 0:
                    out[k, 0], out[k, 1], out[k, 2], out[k, 3] = declared, t, SWAP_JOKER, declared
                    k += 1
            if length >= 13:
                continue
            low = suit * 13 + (st + 12) % 13
            high = suit * 13 + (st + length) % 13
            if counts[low] > 0:
                out[k, 0], out[k, 1], out[k, 2], out[k, 3] = low, t, EXTEND_LOW, low
                k += 1
            if counts[high] > 0:
                out[k, 0], out[k, 1], out[k, 2], out[k, 3] = high, t, EXTEND_HIGH, high
                k += 1
            if has_joker and jslot < 0:
                out[k, 0], out[k, 1], out[k, 2], out[k, 3] = JOKER, t, EXTEND_LOW, low
                k += 1
                out[k, 0], out[k, 1], out[k, 2], out[k, 3] = JOKER, t, EXTEND_HIGH, high
                k += 1
        else:
            rank, mask, n_cards, jsuit = table[t, 1], table[t, 2], table[t, 3], table[t, 4]
            if jsuit >= 0:
                declared = jsuit * 13 + rank
                if counts[declared] > 0:
                    out[k, 0], out[k, 1], out[k, 2], out[k, 3] = declared, t, SWAP_JOKER, declared
                    k += 1
            if n_cards >= 4:
                continue
            for s in range(4):
                if mask >> s & 1:
                    continue
                c = s * 13 + rank
                if counts[c] > 0:
                    out[k, 0], out[k, 1], out[k, 2], out[k, 3] = c, t, ADD_TO_SET, c
                    k += 1
                if has_joker and jsuit < 0:
                    out[k, 0], out[k, 1], out[k, 2], out[k, 3] = JOKER, t, ADD_TO_SET, c
                    k += 1
    return k


# ================================================================================================ Python API
class Opening(NamedTuple):
    """Answer of :func:`best_opening`: the ``melds`` to lay (empty when the hand holds no tierce franche)."""

    can_open: bool
    points: int
    melds: list[Meld]


class Laydown(NamedTuple):
    """Answer of :func:`least_left`: the R13 ``value_left`` in hand after laying ``melds``."""

    value_left: int
    melds: list[Meld]


class LayOff(NamedTuple):
    """One lay-off: hand ``card`` onto table meld number ``meld`` by ``action``; the card stands for ``declared``."""

    card: int
    meld: int
    action: int
    declared: int


def hand_counts(hand) -> np.ndarray:
    """A hand as the ``int8[53]`` count vector: from card ids, names, a text ``"AH 2H JK"`` or a count vector."""
    counts = np.zeros(JOKER + 1, np.int8)
    if getattr(hand, "shape", None) == (JOKER + 1,):
        counts[:] = hand
    else:
        cards = hand_list(hand)
        if len(cards) > MAX_HAND:
            raise ValueError(f"hand: {len(cards)} cards is too many; allowed: at most {MAX_HAND}")
        for c in cards:
            if not 0 <= c <= JOKER:
                raise ValueError(f"hand: card id {c} is out of range; allowed: 0..52")
            counts[c] += 1
    if counts.min() < 0 or counts.sum() > MAX_HAND:
        raise ValueError(f"hand: counts must be ≥ 0 with at most {MAX_HAND} cards")
    return counts


def encode_meld(meld: Meld) -> np.ndarray:
    """A :class:`Meld` as its ``int8[5]`` code."""
    if meld.kind == RUN:
        first = meld.cards[0]
        return np.array([RUN, first // 13, first % 13, len(meld.cards), meld.joker], np.int8)
    rank = meld.cards[0] % 13
    mask = 0
    for c in meld.cards:
        mask |= 1 << (c // 13)
    jsuit = meld.cards[meld.joker] // 13 if meld.joker >= 0 else -1
    return np.array([SET, rank, mask, len(meld.cards), jsuit], np.int8)


def decode_meld(code) -> Meld:
    """An ``int8[5]`` meld code as a :class:`Meld`."""
    kind, a, b, n, j = (int(x) for x in code)
    if kind == RUN:
        return Meld(RUN, tuple(a * 13 + (b + i) % 13 for i in range(n)), j)
    suits = [s for s in range(4) if b >> s & 1]
    return Meld(SET, tuple(s * 13 + a for s in suits), suits.index(j) if j >= 0 else -1)


_default_ws: Workspace | None = None


def _ws(ws: Workspace | None) -> Workspace:
    global _default_ws
    if ws is not None:
        return ws
    if _default_ws is None:
        _default_ws = new_workspace()
    return _default_ws


def remaining(hand, melds: list[Meld]) -> list[int]:
    """The card ids of ``hand`` left after laying ``melds`` (sorted, jokers last); ValueError if it lacks one."""
    rest = hand_counts(hand).astype(np.int64)
    for m in melds:
        for c in m.hand_cards:
            rest[c] -= 1
            if rest[c] < 0:
                raise ValueError(f"melds: {m} needs a card the hand does not hold")
    return [c for c in range(JOKER + 1) for _ in range(int(rest[c]))]


def best_opening(hand, threshold: int = 51, joker_opening_value=0, franche_inside_longer_run: bool = False,
                 opening_single_meld: bool = False, ws: Workspace | None = None) -> Opening:
    """R7: the best opening of ``hand`` (ids, names, text or count vector; see :func:`hand_counts`).

    Best = most points over disjoint melds including a tierce franche (and, by default, at least one more
    combination), then fewest cards left, then a fixed search order. ``can_open`` when such melds exist and
    reach ``threshold``. Options as in R7: ``joker_opening_value`` ∈ {0, "represented"},
    ``franche_inside_longer_run``, ``opening_single_meld``. Not thread-safe without your own ``ws``
    (:func:`new_workspace`).
    """
    counts = hand_counts(hand)
    represented = check_joker_opening_value(joker_opening_value) == 1
    out = np.zeros((MAX_OUT, 5), np.int8)
    can, points, n = best_opening_nb(counts, int(threshold), represented, bool(franche_inside_longer_run),
                                     opening_min_melds(opening_single_meld), _ws(ws), out)
    return Opening(bool(can), int(points), [decode_meld(out[i]) for i in range(n)])


def opening(hand, style: str = "best", threshold: int = 51, joker_opening_value=0,
            franche_inside_longer_run: bool = False, opening_single_meld: bool = False,
            ws: Workspace | None = None) -> Opening:
    """R7: the opening of ``hand`` in ``style`` (:data:`OPENING_STYLES`): ``best`` as :func:`best_opening`;
    ``smallest`` the fewest cards reaching ``threshold`` (then the most points); ``largest`` the least R13 value
    left in hand (then the fewest cards left); ``keep-jokers`` the best opening without the jokers. ``can_open``
    is False when that style has no opening reaching ``threshold`` (``smallest`` and ``largest`` then lay no melds;
    the others give their best melds, as :func:`best_opening` does). Other arguments as :func:`best_opening`'s."""
    if style not in OPENING_STYLES:
        raise ValueError(f"opening style {style!r}: expected one of {', '.join(OPENING_STYLES)}")
    counts = hand_counts(hand)
    represented = check_joker_opening_value(joker_opening_value) == 1
    out = np.zeros((MAX_OUT, 5), np.int8)
    can, points, n = opening_nb(OPENING_STYLES.index(style), counts, int(threshold), represented,
                                bool(franche_inside_longer_run), opening_min_melds(opening_single_meld), _ws(ws), out)
    return Opening(bool(can), int(points), [decode_meld(out[i]) for i in range(n)])


def least_left(hand, require_franche: bool = False, franche_inside_longer_run: bool = False,
               ws: Workspace | None = None) -> Laydown:
    """R13: the lay-down of ``hand`` that leaves the least card value in hand (ties: fewest cards left).

    ``require_franche`` (R12 rami sec): the melds must include a tierce franche; without one nothing is laid.
    ``value_left == 0`` exactly when the whole hand can be laid.
    """
    counts = hand_counts(hand)
    out = np.zeros((MAX_OUT, 5), np.int8)
    value, _, n = least_left_nb(counts, bool(require_franche), bool(franche_inside_longer_run), _ws(ws), out)
    return Laydown(int(value), [decode_meld(out[i]) for i in range(n)])


def layoffs(hand, table) -> list[LayOff]:
    """R8/R9: every single card of ``hand`` that can go onto a meld of ``table`` (see :func:`layoffs_nb`).

    ``table`` is a list of melds: :class:`Meld` objects, texts ``"5H 6H JK=7H"`` or card lists accepted by
    :func:`verify_combination`. ``LayOff.meld`` indexes ``table``.
    """
    counts = hand_counts(hand)
    melds = [m if isinstance(m, Meld) else (parse_meld(m) if isinstance(m, str) else verify_combination(m))
             for m in table]
    codes = np.zeros((max(len(melds), 1), 5), np.int8)
    for i, m in enumerate(melds):
        codes[i] = encode_meld(m)
    out = np.zeros((5 * len(melds) + 1, 4), np.int16)
    k = layoffs_nb(counts, codes, len(melds), out)
    return [LayOff(*(int(x) for x in out[i])) for i in range(k)]
