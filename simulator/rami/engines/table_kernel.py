"""Table and meld-solver steps of the Rami kernel (R5–R12): the numba twin of :mod:`simulator.rami.engines.table`.

Each function names the ``TableOps`` method it mirrors and works on one block's
:class:`~simulator.rami.engines.kernel_state.RoundState` (``state``) and
:class:`~simulator.rami.engines.kernel_state.Scratch` (``scratch``) with the variant's
a record of :data:`~simulator.rami.vocabulary.rules.KERNEL_RULES` (``rules``). Meld codes and lay-off rows are read by field
(:data:`~simulator.rami.vocabulary.codes.MELD`, :data:`~simulator.rami.vocabulary.codes.MOVE`).
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import JOKER, N_RANKS
from simulator.core.kernels.jit import njit
from simulator.core.kernels.trace import fold
from simulator.rami.engines.kernel_state import SCALAR
from simulator.rami.vocabulary.codes import (
    END_VALUE, EV_LAYOFF, EV_MELD, EV_SWAP, KEPT_FOR_DISCARD, MAX_CARD_VALUE, MELD, MIN_MELD_CARDS, MOVE, N_IDS,
    meld_word, move_word,
)
from simulator.rami.vocabulary.legal import opening_choices
from simulator.rami.vocabulary.melds import (
    EXTEND_LOW, RUN, SWAP_JOKER, best_opening_nb, layoffs_nb, least_left_nb, opening_nb,
)
from simulator.rami.vocabulary.melds_ref import R7_MIN_MELDS, R7_MIN_MELDS_SINGLE
from simulator.rami.vocabulary.rules import JOKER_VALUE, SWAP
from simulator.rami.vocabulary.screens import dead_cards, franche_possible

N_SUITS_MASK = 4  # suits a set's mask holds


@njit(refcount=False)
def hand_value(hands, p):
    """R13: the value of ``p``'s hand (ace 11, J/Q/K 10, joker 20)."""
    v = 0
    for c in range(N_IDS):
        v += np.int64(hands[p, c]) * END_VALUE[c]
    return v


@njit(refcount=False)
def count_sum(counts):
    """Cards in a count vector."""
    n = 0
    for c in range(N_IDS):
        n += np.int64(counts[c])
    return n


@njit(refcount=False)
def copy_hand(hands, p, counts):
    """``counts[:] = hands[p]``."""
    for c in range(N_IDS):
        counts[c] = hands[p, c]


@njit(refcount=False)
def meld_card(code, i):
    """The ``i``-th physical card of meld ``code`` (decode_meld(...).hand_cards[i]), JOKER in the joker's slot."""
    if code[MELD.kind] == RUN:
        if i == code[MELD.joker]:
            return JOKER
        return np.int64(code[MELD.key]) * N_RANKS + (np.int64(code[MELD.low]) + i) % N_RANKS
    k = 0
    for s in range(N_SUITS_MASK):
        if (code[MELD.low] >> s) & 1:
            if k == i:
                if s == code[MELD.joker]:
                    return JOKER
                return s * N_RANKS + np.int64(code[MELD.key])
            k += 1
    return -1


@njit(refcount=False)
def holds(code, c):
    """``c in physical(code)``."""
    for i in range(code[MELD.n_cards]):
        if meld_card(code, i) == c:
            return True
    return False


@njit(refcount=False)
def is_franche(code, inside):
    """melds_ref.is_franche on a code (R7; ``inside``: ``franche_inside_longer_run``)."""
    if code[MELD.kind] != RUN:
        return False
    j = np.int64(code[MELD.joker])
    if j < 0:
        return True
    return inside and (j >= MIN_MELD_CARDS or np.int64(code[MELD.n_cards]) - 1 - j >= MIN_MELD_CARDS)


@njit(refcount=False)
def lay_meld(p, src, i, state):
    """TableOps.lay_meld: meld ``src[i]`` from ``p``'s hand to the table."""
    code = src[i]
    for k in range(code[MELD.n_cards]):
        c = meld_card(code, k)
        state.hands[p, c] -= 1
        state.sizes[p] -= 1
    scalars = state.scalars
    t = scalars[SCALAR.n_table]
    for k in range(5):
        state.table[t, k] = code[k]
    state.owner[t] = p
    scalars[SCALAR.n_table] = t + 1
    state.laid[p] = 1
    if code[MELD.joker] >= 0:
        scalars[SCALAR.jokers_laid] += 1
    fold(state.trace, EV_MELD, p, meld_word(state.table[t]), t)


@njit(refcount=False)
def _grow_meld(meld, card, action, declared):
    """The table meld ``meld`` (``int8[5]``, in place) after ``card`` was laid off on it (R8)."""
    low = np.int64(meld[MELD.low])
    n = np.int64(meld[MELD.n_cards])
    j = np.int64(meld[MELD.joker])
    if meld[MELD.kind] == RUN:
        if action == EXTEND_LOW:
            meld[MELD.low] = (low + N_RANKS - 1) % N_RANKS
            meld[MELD.joker] = 0 if card == JOKER else (j + 1 if j >= 0 else -1)
        else:
            meld[MELD.joker] = n if card == JOKER else j
    else:
        meld[MELD.low] = low | (1 << (declared // N_RANKS))
        if card == JOKER:
            meld[MELD.joker] = declared // N_RANKS
    meld[MELD.n_cards] = n + 1


@njit(refcount=False)
def apply_move(p, move, state):
    """TableOps.apply_move: one lay-off (R8) or joker swap (R9), ``move`` an ``int16[4]`` row (:data:`MOVE`)."""
    card, t = np.int64(move[MOVE.card]), np.int64(move[MOVE.meld])
    action, declared = np.int64(move[MOVE.action]), np.int64(move[MOVE.declared])
    scalars = state.scalars
    if state.owner[t] != p:
        scalars[SCALAR.on_others_melds] = 1
    if action == SWAP_JOKER:
        state.table[t, MELD.joker] = -1
        state.hands[p, card] -= 1
        state.hands[p, JOKER] += 1
    else:
        _grow_meld(state.table[t], card, action, declared)
        state.hands[p, card] -= 1
        state.sizes[p] -= 1
    state.laid[p] = 1
    if action == SWAP_JOKER:
        scalars[SCALAR.jokers_swapped] += 1
    elif card == JOKER:
        scalars[SCALAR.jokers_laid] += 1
    fold(state.trace, EV_SWAP if action == SWAP_JOKER else EV_LAYOFF, p, t, move_word(card, action, declared))


@njit(refcount=False)
def fits(state, scratch):
    """TableOps.fits (R10) into ``scratch.fits``."""
    moves, fit = scratch.moves, scratch.fits
    for c in range(N_IDS):
        fit[c] = 0
    n = layoffs_nb(scratch.everything, state.table, state.scalars[SCALAR.n_table], moves)
    for i in range(n):
        if moves[i, MOVE.action] != SWAP_JOKER:
            fit[moves[i, MOVE.card]] = 1


@njit(refcount=False)
def _keep_row(buf, i, k):
    """Compaction of lay-off rows: row ``i`` kept as row ``k``; returns the next free row."""
    if k != i:
        for x in range(4):
            buf[k, x] = buf[i, x]
    return k + 1


@njit(refcount=False)
def card_moves(card, buf, state, scratch):
    """TableOps.card_moves: lay-offs of one card (no swap) written to ``buf``; returns their number."""
    single = scratch.single
    for c in range(N_IDS):
        single[c] = 0
    single[card] = 1
    n = layoffs_nb(single, state.table, state.scalars[SCALAR.n_table], buf)
    k = 0
    for i in range(n):
        if buf[i, MOVE.action] != SWAP_JOKER:
            k = _keep_row(buf, i, k)
    return k


@njit(refcount=False)
def joker_reusable_after(t, state, scratch):
    """TableOps.joker_reusable_after (R9 must_reuse)."""
    table, single = state.table, scratch.single
    saved = table[t, MELD.joker]
    table[t, MELD.joker] = -1
    for c in range(N_IDS):
        single[c] = 0
    single[JOKER] = 1
    n = layoffs_nb(single, table, state.scalars[SCALAR.n_table], scratch.reuse_moves)
    table[t, MELD.joker] = saved
    return n > 0


@njit(refcount=False)
def _move_allowed(p, move, rules, state, scratch):
    """One row of TableOps.legal_moves: the R9 ``joker_swap`` option and the R11 kept card."""
    keep_last = rules.final_discard_required != 0 and state.sizes[p] <= KEPT_FOR_DISCARD
    if move[MOVE.action] != SWAP_JOKER:
        return not keep_last
    if rules.joker_swap == SWAP.forbidden:
        return False
    if rules.joker_swap == SWAP.must_reuse:
        return not keep_last and joker_reusable_after(np.int64(move[MOVE.meld]), state, scratch)
    return True


@njit(refcount=False)
def legal_moves(p, rules, state, scratch):
    """TableOps.legal_moves (R8/R9/R11) compacted into ``scratch.moves``; returns their number."""
    moves = scratch.moves
    n = layoffs_nb(state.hands[p], state.table, state.scalars[SCALAR.n_table], moves)
    k = 0
    for i in range(n):
        if _move_allowed(p, moves[i], rules, state, scratch):
            k = _keep_row(moves, i, k)
    return k


@njit(refcount=False, inline="always")
def _min_melds(rules):
    """R7: the melds an opening holds at least (``opening_single_meld``)."""
    return R7_MIN_MELDS_SINGLE if rules.opening_single_meld != 0 else R7_MIN_MELDS


@njit(refcount=False)
def opening_melds(counts, rules, scratch):
    """TableOps.opening_melds (R7, R11): ``(can, points, n)`` with the melds in ``scratch.opening``."""
    out = scratch.opening
    can, points, n = best_opening_nb(counts, rules.opening_points, rules.joker_opening_value == JOKER_VALUE.represented,
                                     rules.franche_inside_longer_run != 0, _min_melds(rules), scratch.ws, out)
    if rules.final_discard_required != 0:
        used = 0
        for i in range(n):
            used += np.int64(out[i, MELD.n_cards])
        if used >= count_sum(counts):
            can = False
    return can, np.int64(points), np.int64(n)


@njit(refcount=False)
def opening_styles(counts, rules, scratch):
    """TableOps.opening_styles (R7, R11): how many openings ``counts`` offers once its player opens, their
    ``OPENING_*`` codes in ``scratch.styles``."""
    return opening_choices(counts, rules.opening_points, rules.joker_opening_value == JOKER_VALUE.represented,
                           rules.franche_inside_longer_run != 0, _min_melds(rules), rules.final_discard_required != 0,
                           scratch.ws, scratch.laydown, scratch.styles)


@njit(refcount=False)
def styled_opening(style, counts, rules, scratch):
    """TableOps.styled_opening (R7): ``(points, n)`` of the opening of ``style``, its melds in ``scratch.opening``."""
    _, points, n = opening_nb(style, counts, rules.opening_points,
                              rules.joker_opening_value == JOKER_VALUE.represented,
                              rules.franche_inside_longer_run != 0, _min_melds(rules), scratch.ws, scratch.opening)
    return np.int64(points), np.int64(n)


@njit(refcount=False)
def opening_uses(out, n, c, rules):
    """TableOps.opening_uses (R5)."""
    any_holding = False
    for i in range(n):
        if holds(out[i], c):
            any_holding = True
            break
    if not any_holding:
        return False
    if rules.discard_in_tierce != 0:
        return True
    inside = rules.franche_inside_longer_run != 0
    for i in range(n):
        if is_franche(out[i], inside) and not holds(out[i], c):
            return True
    return False


@njit(refcount=False)
def meld_with(counts, c, rules, scratch):
    """TableOps.meld_with: index in ``scratch.opening`` of the meld of the least-left lay-down of ``counts`` +
    ``c`` that holds ``c``, when that lay-down needs it; else -1. ``counts`` is left unchanged."""
    inside = rules.franche_inside_longer_run != 0
    ws, out = scratch.ws, scratch.opening
    without, _, _ = least_left_nb(counts, False, inside, ws, out)
    counts[c] += 1
    value, _, n = least_left_nb(counts, False, inside, ws, out)
    res = -1
    if value < without + END_VALUE[c]:
        total = count_sum(counts)
        for i in range(n):
            if holds(out[i], c):
                if rules.final_discard_required != 0 and np.int64(out[i, MELD.n_cards]) >= total:
                    res = -1
                else:
                    res = i
                break
    counts[c] -= 1
    return res


@njit(refcount=False)
def rami_sec_plan(p, rules, state, scratch):
    """TableOps.rami_sec_plan (R12): ``(possible, n_melds, last discard or -1)``, the melds in
    ``scratch.laydown``."""
    if state.laid[p]:
        return False, 0, -1
    inside = rules.franche_inside_longer_run != 0
    counts, ws, out = scratch.counts, scratch.ws, scratch.laydown
    copy_hand(state.hands, p, counts)
    if not franche_possible(counts):
        return False, 0, -1
    dead, kept = dead_cards(counts)
    if dead >= 2:  # at least two cards stay in hand whatever is laid
        return False, 0, -1
    if dead == 1:  # only the dead card can be the one kept: the first card of the search below that can succeed
        if count_sum(counts) < MIN_MELD_CARDS + KEPT_FOR_DISCARD:
            return False, 0, -1
        n = _laid_without(counts, kept, inside, ws, out)
        if n > 0:
            return True, n, np.int64(kept)
        return False, 0, -1
    value, _, n = least_left_nb(counts, True, inside, ws, out)
    if value == 0 and n > 0 and rules.final_discard_required == 0:
        return True, np.int64(n), -1
    # leaving one card x needs value(x) <= the highest card value left, and a meld besides the discard
    if value > MAX_CARD_VALUE or count_sum(counts) < MIN_MELD_CARDS + KEPT_FOR_DISCARD:
        return False, 0, -1
    for x in range(N_IDS):
        if counts[x] == 0:
            continue
        n = _laid_without(counts, x, inside, ws, out)
        if n > 0:
            return True, n, np.int64(x)
    return False, 0, -1


@njit(refcount=False)
def _laid_without(counts, x, inside, ws, out):
    """R12: how many melds, with a tierce franche, lay every card of ``counts`` but one ``x`` (written to ``out``);
    0 when no lay-down does. ``counts`` is left unchanged."""
    counts[x] -= 1
    value, _, n = least_left_nb(counts, True, inside, ws, out)
    counts[x] += 1
    return np.int64(n) if value == 0 and n > 0 else np.int64(0)
