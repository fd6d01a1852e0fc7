"""The Rami "Kracouil" numba engine: arrays in, arrays out.

Contract: ``simulate(seed, start, stop, level_id, ri, rf, sids, prm, n_blocks, caps, n_cols)`` plays games
``start <= i < stop`` (game ``i`` from the stream ``(seed, i)`` only) in ``n_blocks`` blocks run in ``prange``
and returns per-block raw rows in the layout of :mod:`simulator.rami.records`. It follows
``simulator/rami/reference.py`` (and its mixin ``table.py``) step for step and draws the same random numbers in
the same order, so both engines produce identical rows and trace hashes. Each function names the reference
method it mirrors; rule numbers are cited where a rule is applied.

Per-block state (the tuple ``g``, reused from round to round; see :func:`new_state`):

* ``hands`` ``int8[P, 53]`` count vectors, ``sizes`` ``int64[P]``, ``opened``/``laid`` ``int8[P]``,
  ``open_turn``/``own_turns``/``open_points`` ``int64[P]``;
* ``table`` ``int8[MAX_MELDS, 5]`` meld codes, ``owner`` ``int8[MAX_MELDS]``;
* ``stock``/``discard`` ``int16[54 * decks]`` piles (top = last), sizes in ``st``;
* ``st`` ``int64[N_ST]`` scalars (``ST_*``); ``h`` ``uint64[1]`` the trace hash; ``rng`` ``uint64[4]``;
* scratch: ``moves`` (legal lay-offs), ``moves2`` (R9 re-use test), ``jm`` (one card's lay-offs), ``one``,
  ``everything``, ``counts``, ``fits``, ``out_a`` (best opening), ``out_b`` (least-left / rami sec lay-downs),
  ``claimants``, ``deck``, ``drawn``.

The meld solver (:mod:`simulator.rami.melds`) is shared with the reference: ``best_opening_nb``,
``least_left_nb``, ``layoffs_nb`` on one :func:`~simulator.rami.melds.new_workspace` per block.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from simulator.core.jit import njit
from simulator.core.rng import below, seed_state, uniform
from simulator.core.trace import fold as _trace
from simulator.rami.codes import (
    DRAW_DISCARD, END_VALUE, EV_CLAIM, EV_DEAL, EV_DEALER, EV_DEALER_DRAW, EV_DISCARD, EV_DRAW, EV_END, EV_LAYOFF,
    EV_MELD, EV_OPEN, EV_RAMI_SEC, EV_RESHUFFLE, EV_SWAP, EV_TAKE, LAY_KEEP_JOKERS, LAY_NONE, MAX_MELDS, MAX_MOVES,
    N_IDS, OPEN_OPEN, OPEN_SEC, OUT_BLOCKED, OUT_CLAIM, OUT_NORMAL, OUT_RAMI_SEC, OUT_TURN_CAP, TRACE_SEED, meld_word,
    move_word,
)
from simulator.rami.melds import (
    EXTEND_LOW, MAX_OUT, RUN, SWAP_JOKER, best_opening_nb, layoffs_nb, least_left_nb, new_workspace, opening_value_nb,
)
from simulator.rami.melds_ref import R7_MIN_MELDS, R7_MIN_MELDS_SINGLE
from simulator.rami.records import GAME_FIXED, ROUND_FIXED
from simulator.rami.rules import FLOAT_INDEX, INT_INDEX
from strategies.rami.policy import (
    decide_claim, decide_discard, decide_draw, decide_lay, decide_layoff, decide_open, speed,
)

JOKER = 52
LEVEL_ROUNDS, LEVEL_GAMES = 0, 1
MAX_ROUNDS = 1000       # reference.MAX_ROUNDS (R15 guard)
MAX_STEPS = 400         # reference.MAX_STEPS

# rules arrays (rules.rules_arrays): integer options by name, choices as their index in rules.OPTIONS
I_N_DECKS = INT_INDEX["n_decks"]
I_HAND_CARDS = INT_INDEX["hand_cards"]
I_FIRST_DRAWS = INT_INDEX["first_player_draws"]
I_DISCARD_IN_TIERCE = INT_INDEX["discard_in_tierce"]
I_A_CARTE_CLAIMS = INT_INDEX["a_carte_claims"]          # R5: a one-card player may claim (R10)
I_OPENING_POINTS = INT_INDEX["opening_points"]
I_JOKER_VALUE = INT_INDEX["joker_opening_value"]        # 0 zero, 1 represented
I_INSIDE = INT_INDEX["franche_inside_longer_run"]
I_SINGLE_MELD = INT_INDEX["opening_single_meld"]        # R7: the opening may be one meld alone
I_JOKER_SWAP = INT_INDEX["joker_swap"]                  # 0 must_reuse, 1 free, 2 forbidden
I_PLAYABLE = INT_INDEX["playable_discard"]              # 0 snap, 1 forbidden, 2 ignored
I_ELIGIBILITY = INT_INDEX["claim_eligibility"]          # 0 opened, 1 anyone
I_RACE = INT_INDEX["race_policy"]                       # 0 speed_weighted, 1 uniform, 2 turn_order
I_FINAL_DISCARD = INT_INDEX["final_discard_required"]
I_SEC_BONUS = INT_INDEX["rami_sec_bonus"]
I_SEC_UNOPENED = INT_INDEX["rami_sec_unopened"]
I_SEC_LAYOFFS = INT_INDEX["rami_sec_layoffs"]            # R12: lay-offs on others' melds count (old reading)
I_UNOPENED_PENALTY = INT_INDEX["unopened_penalty"]
I_TARGET = INT_INDEX["target"]
I_MAX_TURNS = INT_INDEX["max_turns_per_round"]
F_NOTICE = FLOAT_INDEX["notice_prob"]
SWAP_MUST_REUSE, SWAP_FREE, SWAP_FORBIDDEN = 0, 1, 2
PD_SNAP, PD_FORBIDDEN, PD_IGNORED = 0, 1, 2
RACE_SPEED, RACE_UNIFORM, RACE_TURN_ORDER = 0, 1, 2

# ST_ON_OTHERS: Round.on_others_melds (this turn laid off / swapped on another player's meld, R12)
(ST_NSTOCK, ST_NDISCARD, ST_NTABLE, ST_TURNS, ST_CLAIMS, ST_RESHUFFLES, ST_WINNER, ST_OUTCOME, ST_JOKERS_LAID,
 ST_JOKERS_SWAPPED, ST_ON_OTHERS, N_ST) = range(12)
N_ROUND_FIXED = len(ROUND_FIXED)
N_GAME_FIXED = len(GAME_FIXED)


@njit
def new_state(P, decks):
    """Allocate one block's round state (the tuple ``g``; see the module docstring)."""
    S = 54 * decks
    return (
        np.zeros((P, N_IDS), dtype=np.int8),        # 0 hands
        np.zeros(P, dtype=np.int64),                # 1 sizes
        np.zeros(P, dtype=np.int8),                 # 2 opened
        np.zeros(P, dtype=np.int8),                 # 3 laid
        np.zeros(P, dtype=np.int64),                # 4 open_turn
        np.zeros(P, dtype=np.int64),                # 5 own_turns
        np.zeros((MAX_MELDS, 5), dtype=np.int8),    # 6 table
        np.zeros(MAX_MELDS, dtype=np.int8),         # 7 owner
        np.zeros(S, dtype=np.int16),                # 8 stock
        np.zeros(S, dtype=np.int16),                # 9 discard
        np.zeros(N_ST, dtype=np.int64),             # 10 st
        np.zeros((MAX_MOVES, 4), dtype=np.int16),   # 11 moves
        np.zeros((MAX_MOVES, 4), dtype=np.int16),   # 12 moves2
        np.zeros((MAX_MOVES, 4), dtype=np.int16),   # 13 jm
        np.zeros(N_IDS, dtype=np.int8),             # 14 one
        np.ones(N_IDS, dtype=np.int8),              # 15 everything
        np.zeros(N_IDS, dtype=np.int8),             # 16 counts
        np.zeros(N_IDS, dtype=np.int8),             # 17 fits
        np.zeros((MAX_OUT, 5), dtype=np.int8),      # 18 out_a
        np.zeros((MAX_OUT, 5), dtype=np.int8),      # 19 out_b
        np.zeros(1, dtype=np.uint64),               # 20 h
        np.zeros(4, dtype=np.uint64),               # 21 rng
        np.zeros(P, dtype=np.int64),                # 22 claimants
        np.zeros(S, dtype=np.int16),                # 23 deck (dealer draw)
        np.zeros(P, dtype=np.int64),                # 24 drawn / contenders scratch
        np.zeros(P, dtype=np.int64),                # 25 contenders
        np.zeros(P, dtype=np.int64),                # 26 points
        np.zeros(P, dtype=np.int64),                # 27 scores (cumulative)
        np.zeros(P, dtype=np.int64),                # 28 open_points
    )


# ------------------------------------------------------------------------------------------ helpers
@njit(refcount=False)
def _shuffle(cards, n, rng):
    """Round.shuffle: Fisher–Yates from the end, one ``below`` per position."""
    for i in range(n - 1, 0, -1):
        j = below(rng, i + 1)
        t = cards[i]
        cards[i] = cards[j]
        cards[j] = t


@njit(refcount=False)
def _full_deck(cards, decks):
    """Round.full_deck (R1): ids 0–51 and two jokers per deck; returns the number of cards."""
    k = 0
    for _ in range(decks):
        for c in range(52):
            cards[k] = c
            k += 1
        cards[k] = JOKER
        cards[k + 1] = JOKER
        k += 2
    return k


@njit(refcount=False)
def _hand_value(hands, p):
    v = 0
    for c in range(N_IDS):
        v += np.int64(hands[p, c]) * END_VALUE[c]
    return v


@njit(refcount=False)
def _count_sum(counts):
    n = 0
    for c in range(N_IDS):
        n += np.int64(counts[c])
    return n


@njit(refcount=False)
def _meld_card(code, i):
    """The ``i``-th physical card of meld ``code`` (decode_meld(...).hand_cards[i]), JOKER in the joker's slot."""
    if code[0] == RUN:
        if i == code[4]:
            return JOKER
        return np.int64(code[1]) * 13 + (np.int64(code[2]) + i) % 13
    k = 0
    for s in range(4):
        if (code[2] >> s) & 1:
            if k == i:
                if s == code[4]:
                    return JOKER
                return s * 13 + np.int64(code[1])
            k += 1
    return -1


@njit(refcount=False)
def _holds(code, c):
    """``c in physical(code)``."""
    for i in range(code[3]):
        if _meld_card(code, i) == c:
            return True
    return False


@njit(refcount=False)
def _is_franche(code, inside):
    """melds_ref.is_franche on a code."""
    if code[0] != RUN:
        return False
    j = np.int64(code[4])
    if j < 0:
        return True
    return inside and (j >= 3 or np.int64(code[3]) - 1 - j >= 3)


@njit(refcount=False)
def _lay_meld(p, src, i, g):
    """TableOps.lay_meld: meld ``src[i]`` from ``p``'s hand to the table."""
    hands, sizes, laid, table, owner, st, h = g[0], g[1], g[3], g[6], g[7], g[10], g[20]
    code = src[i]
    for k in range(code[3]):
        c = _meld_card(code, k)
        hands[p, c] -= 1
        sizes[p] -= 1
    t = st[ST_NTABLE]
    for k in range(5):
        table[t, k] = code[k]
    owner[t] = p
    st[ST_NTABLE] = t + 1
    laid[p] = 1
    if code[4] >= 0:
        st[ST_JOKERS_LAID] += 1
    _trace(h, EV_MELD, p, meld_word(table[t]), t)


@njit(refcount=False)
def _apply_move(p, card, t, action, declared, g):
    """TableOps.apply_move: one lay-off (R8) or joker swap (R9) onto table meld ``t``."""
    hands, sizes, laid, table, owner, st, h = g[0], g[1], g[3], g[6], g[7], g[10], g[20]
    if owner[t] != p:
        st[ST_ON_OTHERS] = 1
    kind = np.int64(table[t, 0])
    b = np.int64(table[t, 2])
    n = np.int64(table[t, 3])
    j = np.int64(table[t, 4])
    if action == SWAP_JOKER:
        table[t, 4] = -1
        hands[p, card] -= 1
        hands[p, JOKER] += 1
    elif kind == RUN:
        if action == EXTEND_LOW:
            table[t, 2] = (b + 12) % 13
            table[t, 4] = 0 if card == JOKER else (j + 1 if j >= 0 else -1)
        else:
            table[t, 4] = n if card == JOKER else j
        table[t, 3] = n + 1
        hands[p, card] -= 1
        sizes[p] -= 1
    else:
        table[t, 2] = b | (1 << (declared // 13))
        table[t, 3] = n + 1
        if card == JOKER:
            table[t, 4] = declared // 13
        hands[p, card] -= 1
        sizes[p] -= 1
    laid[p] = 1
    if action == SWAP_JOKER:
        st[ST_JOKERS_SWAPPED] += 1
    elif card == JOKER:
        st[ST_JOKERS_LAID] += 1
    _trace(h, EV_SWAP if action == SWAP_JOKER else EV_LAYOFF, p, t, move_word(card, action, declared))


@njit(refcount=False)
def _fits(g):
    """TableOps.fits (R10) into ``g.fits``."""
    table, st, moves, everything, fits = g[6], g[10], g[11], g[15], g[17]
    for c in range(N_IDS):
        fits[c] = 0
    n = layoffs_nb(everything, table, st[ST_NTABLE], moves)
    for i in range(n):
        if moves[i, 2] != SWAP_JOKER:
            fits[moves[i, 0]] = 1


@njit(refcount=False)
def _card_moves(card, buf, g):
    """TableOps.card_moves: lay-offs of one card (no swap) written to ``buf``; returns their number."""
    table, st, one = g[6], g[10], g[14]
    for c in range(N_IDS):
        one[c] = 0
    one[card] = 1
    n = layoffs_nb(one, table, st[ST_NTABLE], buf)
    k = 0
    for i in range(n):
        if buf[i, 2] != SWAP_JOKER:
            if k != i:
                for x in range(4):
                    buf[k, x] = buf[i, x]
            k += 1
    return k


@njit(refcount=False)
def _joker_reusable_after(t, g):
    """TableOps.joker_reusable_after (R9 must_reuse)."""
    table, st, moves2, one = g[6], g[10], g[12], g[14]
    saved = table[t, 4]
    table[t, 4] = -1
    for c in range(N_IDS):
        one[c] = 0
    one[JOKER] = 1
    n = layoffs_nb(one, table, st[ST_NTABLE], moves2)
    table[t, 4] = saved
    return n > 0


@njit(refcount=False)
def _legal_moves(p, ri, g):
    """TableOps.legal_moves (R8/R9/R11) compacted into ``g.moves``; returns their number."""
    hands, sizes, table, st, moves = g[0], g[1], g[6], g[10], g[11]
    n = layoffs_nb(hands[p], table, st[ST_NTABLE], moves)
    fdr = ri[I_FINAL_DISCARD] != 0
    swap = ri[I_JOKER_SWAP]
    k = 0
    for i in range(n):
        if moves[i, 2] == SWAP_JOKER:
            if swap == SWAP_FORBIDDEN:
                continue
            if swap == SWAP_MUST_REUSE:
                if fdr and sizes[p] < 2:
                    continue
                if not _joker_reusable_after(np.int64(moves[i, 1]), g):
                    continue
        elif fdr and sizes[p] < 2:
            continue
        if k != i:
            for x in range(4):
                moves[k, x] = moves[i, x]
        k += 1
    return k


@njit(refcount=False)
def _opening_melds(counts, ri, ws, out):
    """TableOps.opening_melds (R7, R11): ``(can, points, n)`` with the melds in ``out``."""
    min_melds = R7_MIN_MELDS_SINGLE if ri[I_SINGLE_MELD] != 0 else R7_MIN_MELDS
    can, points, n = best_opening_nb(counts, ri[I_OPENING_POINTS], ri[I_JOKER_VALUE] == 1, ri[I_INSIDE] != 0,
                                     min_melds, ws, out)
    if ri[I_FINAL_DISCARD] != 0:
        used = 0
        for i in range(n):
            used += np.int64(out[i, 3])
        if used >= _count_sum(counts):
            can = False
    return can, np.int64(points), np.int64(n)


@njit(refcount=False)
def _opening_uses(out, n, c, ri):
    """TableOps.opening_uses (R5)."""
    any_holding = False
    for i in range(n):
        if _holds(out[i], c):
            any_holding = True
            break
    if not any_holding:
        return False
    if ri[I_DISCARD_IN_TIERCE] != 0:
        return True
    inside = ri[I_INSIDE] != 0
    for i in range(n):
        if _is_franche(out[i], inside) and not _holds(out[i], c):
            return True
    return False


@njit(refcount=False)
def _meld_with(counts, c, ri, ws, out):
    """TableOps.meld_with: index in ``out`` of the meld of the least-left lay-down of ``counts`` + ``c`` that
    holds ``c``, when that lay-down needs it; else -1. ``counts`` is left unchanged."""
    inside = ri[I_INSIDE] != 0
    without, _, _ = least_left_nb(counts, False, inside, ws, out)
    counts[c] += 1
    value, _, n = least_left_nb(counts, False, inside, ws, out)
    res = -1
    if value < without + END_VALUE[c]:
        total = _count_sum(counts)
        for i in range(n):
            if _holds(out[i], c):
                if ri[I_FINAL_DISCARD] != 0 and np.int64(out[i, 3]) >= total:
                    res = -1
                else:
                    res = i
                break
    counts[c] -= 1
    return res


@njit(refcount=False)
def _rami_sec_plan(p, ri, ws, g):
    """TableOps.rami_sec_plan (R12): ``(possible, n_melds, last discard or -1)``, the melds in ``g.out_b``."""
    hands, laid, counts, out = g[0], g[3], g[16], g[19]
    if laid[p]:
        return False, 0, -1
    inside = ri[I_INSIDE] != 0
    for c in range(N_IDS):
        counts[c] = hands[p, c]
    value, _, n = least_left_nb(counts, True, inside, ws, out)
    if value == 0 and n > 0 and ri[I_FINAL_DISCARD] == 0:
        return True, np.int64(n), -1
    if value > 20 or _count_sum(counts) < 4:
        return False, 0, -1
    for x in range(N_IDS):
        if counts[x] == 0:
            continue
        counts[x] -= 1
        value, _, n = least_left_nb(counts, True, inside, ws, out)
        counts[x] += 1
        if value == 0 and n > 0:
            return True, np.int64(n), np.int64(x)
    return False, 0, -1


# ------------------------------------------------------------------------------------------ R14, R4–R12
@njit(refcount=False)
def _reshuffle(g, rng):
    """Round.reshuffle (R14)."""
    stock, discard, st, h = g[8], g[9], g[10], g[20]
    nd = st[ST_NDISCARD]
    if nd < 2:
        return False
    top = discard[nd - 1]
    n = nd - 1
    for i in range(n):
        stock[i] = discard[i]
    _shuffle(stock, n, rng)
    st[ST_NSTOCK] = n
    discard[0] = top
    st[ST_NDISCARD] = 1
    st[ST_RESHUFFLES] += 1
    _trace(h, EV_RESHUFFLE, n, 0, 0)
    return True


@njit(refcount=False)
def _do_move(p, card, t, action, declared, ri, sids, prm, g, rng):
    """Round.do_move: a lay-off or swap; under R9 must_reuse the swapped joker is laid off at once."""
    _apply_move(p, card, t, action, declared, g)
    if action == SWAP_JOKER and ri[I_JOKER_SWAP] == SWAP_MUST_REUSE:
        hands, jm = g[0], g[13]
        n = _card_moves(JOKER, jm, g)
        k = decide_layoff(sids[p], prm[p], p, hands[p], jm, n, True, rng)
        _apply_move(p, np.int64(jm[k, 0]), np.int64(jm[k, 1]), np.int64(jm[k, 2]), np.int64(jm[k, 3]), g)


@njit(refcount=False)
def _layoff_phase(p, ri, sids, prm, g, rng):
    """Round.layoff_phase (R8/R9)."""
    hands, sizes, moves = g[0], g[1], g[11]
    for _ in range(MAX_STEPS):
        if sizes[p] == 0:
            return
        n = _legal_moves(p, ri, g)
        if n == 0:
            return
        k = decide_layoff(sids[p], prm[p], p, hands[p], moves, n, False, rng)
        if k < 0:
            return
        _do_move(p, np.int64(moves[k, 0]), np.int64(moves[k, 1]), np.int64(moves[k, 2]), np.int64(moves[k, 3]),
                 ri, sids, prm, g, rng)


@njit(refcount=False)
def _take_plan(p, ri, ws, g):
    """Round.take_plan (R5): ``(can_take, opening points)``."""
    hands, sizes, opened, own_turns, discard, st, jm, counts, out_a = g[0], g[1], g[2], g[5], g[9], g[10], g[13], g[16], g[18]
    nd = st[ST_NDISCARD]
    if nd == 0 or own_turns[p] < 2 or sizes[p] == 1:
        return False, 0
    c = np.int64(discard[nd - 1])
    for x in range(N_IDS):
        counts[x] = hands[p, x]
    if opened[p]:
        if _card_moves(c, jm, g) > 0:
            return True, 0
        return _meld_with(counts, c, ri, ws, out_a) >= 0, 0
    counts[c] += 1
    can, points, n = _opening_melds(counts, ri, ws, out_a)
    if not can:
        return False, points
    return _opening_uses(out_a, n, c, ri), points


@njit(refcount=False)
def _open_with(p, n, points, g):
    """Round.open_with (R7): the melds ``g.out_a[:n]`` go down together."""
    opened, open_turn, own_turns, out_a, h = g[2], g[4], g[5], g[18], g[20]
    _trace(h, EV_OPEN, p, points, n)
    for i in range(n):
        _lay_meld(p, out_a, i, g)
    opened[p] = 1
    open_turn[p] = own_turns[p]
    g[28][p] = points


@njit(refcount=False)
def _take_discard(p, ri, sids, prm, ws, g, rng):
    """Round.take_discard (R5): the top discard is taken and laid at once."""
    hands, sizes, opened, discard, st, jm, counts, out_a, h = g[0], g[1], g[2], g[9], g[10], g[13], g[16], g[18], g[20]
    st[ST_NDISCARD] -= 1
    c = np.int64(discard[st[ST_NDISCARD]])
    hands[p, c] += 1
    sizes[p] += 1
    _trace(h, EV_TAKE, p, c, 0)
    for x in range(N_IDS):
        counts[x] = hands[p, x]
    if not opened[p]:
        can, points, n = _opening_melds(counts, ri, ws, out_a)
        _open_with(p, n, points, g)
        return
    counts[c] -= 1
    i = _meld_with(counts, c, ri, ws, out_a)
    if i >= 0:
        _lay_meld(p, out_a, i, g)
        return
    n = _card_moves(c, jm, g)
    k = decide_layoff(sids[p], prm[p], p, hands[p], jm, n, True, rng)
    _apply_move(p, np.int64(jm[k, 0]), np.int64(jm[k, 1]), np.int64(jm[k, 2]), np.int64(jm[k, 3]), g)


@njit(refcount=False)
def _unopened_phase(p, ri, sids, prm, ws, g, rng):
    """Round.unopened_phase (R7/R12): the forced last discard of a rami sec, -1 (rami sec laying everything)
    or -2."""
    hands, sizes, opened, open_turn, own_turns, st, counts, out_b, h = (g[0], g[1], g[2], g[4], g[5], g[10], g[16],
                                                                       g[19], g[20])
    for x in range(N_IDS):
        counts[x] = hands[p, x]
    can_open, points, n = _opening_melds(counts, ri, ws, g[18])
    sec, n_sec, last = _rami_sec_plan(p, ri, ws, g)
    choice = decide_open(sids[p], prm[p], p, hands[p], points, can_open, sec, own_turns[p], st[ST_NSTOCK], opened,
                         sizes, rng)
    if choice == OPEN_SEC:
        sec_points = 0  # TableOps.melds_points (R12: 51 not needed, but recorded)
        for i in range(n_sec):
            sec_points += opening_value_nb(out_b[i], ri[I_JOKER_VALUE] == 1)
        _trace(h, EV_RAMI_SEC, p, sec_points, n_sec)
        for i in range(n_sec):
            _lay_meld(p, out_b, i, g)
        opened[p] = 1
        open_turn[p] = own_turns[p]
        g[28][p] = sec_points
        return last
    if choice == OPEN_OPEN:
        _open_with(p, n, points, g)
    return -2


@njit(refcount=False)
def _lay_phase(p, ri, sids, prm, ws, g, rng):
    """Round.lay_phase (R8, R11)."""
    hands, sizes, counts, out_b = g[0], g[1], g[16], g[19]
    plan = decide_lay(sids[p], prm[p], p, hands[p], rng)
    if plan == LAY_NONE:
        return
    for x in range(N_IDS):
        counts[x] = hands[p, x]
    if plan == LAY_KEEP_JOKERS:
        counts[JOKER] = 0
    _, _, n = least_left_nb(counts, False, ri[I_INSIDE] != 0, ws, out_b)
    if ri[I_FINAL_DISCARD] != 0:
        while n > 0:
            used = 0
            for i in range(n):
                used += np.int64(out_b[i, 3])
            if used >= sizes[p]:
                n -= 1
            else:
                break
    for i in range(n):
        _lay_meld(p, out_b, i, g)


@njit(refcount=False)
def _do_discard(p, card, g):
    hands, sizes, discard, st, h = g[0], g[1], g[9], g[10], g[20]
    hands[p, card] -= 1
    sizes[p] -= 1
    discard[st[ST_NDISCARD]] = card
    st[ST_NDISCARD] += 1
    _trace(h, EV_DISCARD, p, card, 0)


@njit(refcount=False)
def _race(n, ri, sids, prm, claimants, rng):
    """Round.race (R10)."""
    if n == 1 or ri[I_RACE] == RACE_TURN_ORDER:
        return claimants[0]
    if ri[I_RACE] == RACE_UNIFORM:
        return claimants[below(rng, n)]
    total = 0.0
    for i in range(n):
        total += speed(sids[claimants[i]], prm[claimants[i]])
    u = uniform(rng) * total
    acc = 0.0
    for i in range(n):
        acc += speed(sids[claimants[i]], prm[claimants[i]])
        if u < acc:
            return claimants[i]
    return claimants[n - 1]


@njit(refcount=False)
def _claim_window(p, card, P, ri, rf, sids, prm, g, rng):
    """Round.claim_window (R10 snap): True when a claimant went out."""
    if ri[I_PLAYABLE] != PD_SNAP:
        return False
    hands, sizes, opened, st, jm, fits, h, claimants = g[0], g[1], g[2], g[10], g[13], g[17], g[20], g[22]
    notice = rf[F_NOTICE]
    while True:
        n_moves = _card_moves(card, jm, g)
        if n_moves == 0:
            return False
        nc = 0
        for k in range(1, P):
            q = (p - k + P) % P
            if not (opened[q] or ri[I_ELIGIBILITY] == 1):
                continue
            if sizes[q] == 1 and ri[I_A_CARTE_CLAIMS] == 0:  # R5: à carte, never the discard
                continue
            if notice < 1.0 and uniform(rng) >= notice:
                continue
            if decide_claim(sids[q], prm[q], q, hands[q], card, rng):
                claimants[nc] = q
                nc += 1
        if nc == 0:
            return False
        q = _race(nc, ri, sids, prm, claimants, rng)
        st[ST_NDISCARD] -= 1
        hands[q, card] += 1
        sizes[q] += 1
        st[ST_CLAIMS] += 1
        _trace(h, EV_CLAIM, q, card, nc)
        k = decide_layoff(sids[q], prm[q], q, hands[q], jm, n_moves, True, rng)
        _apply_move(q, np.int64(jm[k, 0]), np.int64(jm[k, 1]), np.int64(jm[k, 2]), np.int64(jm[k, 3]), g)
        _fits(g)
        card = np.int64(decide_discard(sids[q], prm[q], q, hands[q], fits, False, opened, sizes, rng))
        _do_discard(q, card, g)
        if sizes[q] == 0:
            st[ST_WINNER] = q
            st[ST_OUTCOME] = OUT_CLAIM
            return True
        p = q


@njit(refcount=False)
def _going_out(p, laid_before, ri, g):
    """Round.going_out (R11; R12: nothing laid before, and no move on another's meld this turn unless
    ``rami_sec_layoffs``)."""
    st = g[10]
    sec = not laid_before and (ri[I_SEC_LAYOFFS] != 0 or st[ST_ON_OTHERS] == 0)
    st[ST_WINNER] = p
    st[ST_OUTCOME] = OUT_RAMI_SEC if sec else OUT_NORMAL
    return True


@njit(refcount=False)
def _turn(p, first_turn, P, ri, rf, sids, prm, ws, g, rng):
    """Round.turn (R3–R14): True when the round ended."""
    hands, sizes, opened, laid, own_turns, stock, discard, st, fits, h = (g[0], g[1], g[2], g[3], g[5], g[8], g[9],
                                                                         g[10], g[17], g[20])
    own_turns[p] += 1
    st[ST_TURNS] += 1
    laid_before = laid[p] != 0
    st[ST_ON_OTHERS] = 0
    if not (first_turn and ri[I_FIRST_DRAWS] == 0):
        if st[ST_NSTOCK] == 0:
            _reshuffle(g, rng)  # R14
        can_take, take_points = _take_plan(p, ri, ws, g)
        if st[ST_NSTOCK] == 0 and not can_take:
            st[ST_OUTCOME] = OUT_BLOCKED
            return True
        if st[ST_NSTOCK] == 0:
            src = DRAW_DISCARD
        else:
            nd = st[ST_NDISCARD]
            top = np.int64(discard[nd - 1]) if nd > 0 else -1
            src = decide_draw(sids[p], prm[p], p, hands[p], top, opened[p] != 0, can_take, take_points, own_turns[p],
                              st[ST_NSTOCK], rng)
        if src == DRAW_DISCARD:
            _take_discard(p, ri, sids, prm, ws, g, rng)
        else:
            st[ST_NSTOCK] -= 1
            card = np.int64(stock[st[ST_NSTOCK]])
            hands[p, card] += 1
            sizes[p] += 1
            _trace(h, EV_DRAW, p, card, 0)
    sec_discard = -2
    if not opened[p]:
        sec_discard = _unopened_phase(p, ri, sids, prm, ws, g, rng)
    if opened[p] and sec_discard == -2 and sizes[p] > 0:
        _lay_phase(p, ri, sids, prm, ws, g, rng)
        _layoff_phase(p, ri, sids, prm, g, rng)
    if sizes[p] == 0:
        return _going_out(p, laid_before, ri, g)
    if sec_discard >= 0:
        card = sec_discard
    else:
        _fits(g)
        card = np.int64(decide_discard(sids[p], prm[p], p, hands[p], fits, ri[I_PLAYABLE] == PD_FORBIDDEN, opened,
                                       sizes, rng))
    _do_discard(p, card, g)
    if sizes[p] == 0:
        return _going_out(p, laid_before, ri, g)
    return _claim_window(p, card, P, ri, rf, sids, prm, g, rng)


@njit(refcount=False)
def _deal(dealer, P, ri, g, rng):
    """Round.deal (R2): returns the first player."""
    hands, sizes, stock, discard, st, h = g[0], g[1], g[8], g[9], g[10], g[20]
    n = _full_deck(stock, ri[I_N_DECKS])
    _shuffle(stock, n, rng)
    first = (dealer + P - 1) % P
    for _ in range(ri[I_HAND_CARDS]):
        for k in range(P):
            n -= 1
            q = (first - k + P) % P
            hands[q, stock[n]] += 1
            sizes[q] += 1
    n -= 1
    hands[first, stock[n]] += 1
    sizes[first] += 1
    n -= 1
    discard[0] = stock[n]
    st[ST_NDISCARD] = 1
    st[ST_NSTOCK] = n
    _trace(h, EV_DEAL, dealer, np.int64(discard[0]), 0)
    return first


@njit(refcount=False)
def play_round(dealer, P, ri, rf, sids, prm, ws, g, rng):
    """Round.play (R2–R15 guard) and Round.score (R12/R13): points in ``g.points``; returns the first player."""
    hands, sizes, opened, laid, open_turn, own_turns, st, h, points = (g[0], g[1], g[2], g[3], g[4], g[5], g[10],
                                                                      g[20], g[26])
    for q in range(P):
        for c in range(N_IDS):
            hands[q, c] = 0
        sizes[q] = 0
        opened[q] = 0
        laid[q] = 0
        open_turn[q] = -1
        g[28][q] = -1
        own_turns[q] = 0
    for i in range(N_ST):
        st[i] = 0
    st[ST_WINNER] = -1
    st[ST_OUTCOME] = OUT_TURN_CAP
    first = _deal(dealer, P, ri, g, rng)
    p = first
    ended = False
    while not ended:
        if st[ST_TURNS] >= ri[I_MAX_TURNS]:
            st[ST_OUTCOME] = OUT_TURN_CAP
            break
        ended = _turn(p, st[ST_TURNS] == 0, P, ri, rf, sids, prm, ws, g, rng)
        p = (p + P - 1) % P
    w = st[ST_WINNER]
    outcome = st[ST_OUTCOME]
    for q in range(P):
        v = _hand_value(hands, q)
        if outcome == OUT_RAMI_SEC:
            points[q] = ri[I_SEC_UNOPENED] if not opened[q] else 2 * v
        elif outcome == OUT_NORMAL or outcome == OUT_CLAIM:
            points[q] = ri[I_UNOPENED_PENALTY] if (ri[I_UNOPENED_PENALTY] > 0 and not opened[q]) else v
        else:
            points[q] = v
    if outcome == OUT_RAMI_SEC:
        points[w] = ri[I_SEC_BONUS]
    elif outcome == OUT_NORMAL or outcome == OUT_CLAIM:
        points[w] = 0
    _trace(h, EV_END, outcome, w, 0)
    return first


@njit(refcount=False)
def _choose_dealer(P, ri, g, rng):
    """Game.choose_dealer (R2)."""
    h, deck, drawn, contenders = g[20], g[23], g[24], g[25]
    decks = ri[I_N_DECKS]
    n = _full_deck(deck, decks)
    _shuffle(deck, n, rng)
    nc = P
    for q in range(P):
        contenders[q] = q
    while True:
        for i in range(nc):
            q = contenders[i]
            while True:
                if n == 0:
                    n = _full_deck(deck, decks)
                    _shuffle(deck, n, rng)
                n -= 1
                c = np.int64(deck[n])
                _trace(h, EV_DEALER_DRAW, q, c, 0)
                if c != JOKER:
                    break
            drawn[q] = (c % 13 + 12) % 13  # ace high
        top = -1
        for i in range(nc):
            if drawn[contenders[i]] > top:
                top = drawn[contenders[i]]
        k = 0
        for i in range(nc):
            q = contenders[i]
            if drawn[q] == top:
                contenders[k] = q
                k += 1
        nc = k
        if nc == 1:
            _trace(h, EV_DEALER, contenders[0], 0, 0)
            return contenders[0]


@njit(refcount=False)
def play_game(game, level, seed, P, ri, rf, sids, prm, ws, g, counts, round_rows, trace_rows, game_rows):
    """Game.play (R2 dealer, R15 end): appends rows to the block's output arrays."""
    sizes, open_turn, st, h, rng, points, scores = g[1], g[4], g[10], g[20], g[21], g[26], g[27]
    seed_state(seed, game, rng)
    h[0] = np.uint64(TRACE_SEED)
    dealer = _choose_dealer(P, ri, g, rng)
    first_dealer = dealer
    for q in range(P):
        scores[q] = 0
    rounds = 0
    while True:
        if rounds > 0:
            h[0] = np.uint64(TRACE_SEED)
        first = play_round(dealer, P, ri, rf, sids, prm, ws, g, rng)
        for q in range(P):
            scores[q] += points[q]
        r = counts[0]
        if r < round_rows.shape[0]:
            row = round_rows[r]
            row[0] = game
            row[1] = rounds
            row[2] = dealer
            row[3] = first
            row[4] = st[ST_WINNER]
            row[5] = st[ST_OUTCOME]
            row[6] = st[ST_TURNS]
            row[7] = st[ST_CLAIMS]
            row[8] = st[ST_RESHUFFLES]
            row[9] = st[ST_NTABLE]
            row[10] = st[ST_JOKERS_LAID]
            row[11] = st[ST_JOKERS_SWAPPED]
            for q in range(P):
                row[N_ROUND_FIXED + q] = points[q]
                row[N_ROUND_FIXED + P + q] = scores[q]
                row[N_ROUND_FIXED + 2 * P + q] = open_turn[q]
                row[N_ROUND_FIXED + 3 * P + q] = sizes[q]
                row[N_ROUND_FIXED + 4 * P + q] = g[28][q]
            trace_rows[r] = h[0]
        counts[0] += 1
        rounds += 1
        dealer = (dealer + P - 1) % P
        if level == LEVEL_ROUNDS or rounds >= MAX_ROUNDS:
            break
        top = scores[0]
        for q in range(P):
            if scores[q] > top:
                top = scores[q]
        if top >= ri[I_TARGET]:
            break
    low = scores[0]
    for q in range(P):
        if scores[q] < low:
            low = scores[q]
    mask = 0
    n_low = 0
    single = -1
    for q in range(P):
        if scores[q] == low:
            mask |= 1 << q
            n_low += 1
            single = q
    r = counts[1]
    if r < game_rows.shape[0]:
        row = game_rows[r]
        row[0] = game
        row[1] = rounds
        row[2] = first_dealer
        row[3] = mask
        row[4] = single if n_low == 1 else -1
        for q in range(P):
            row[N_GAME_FIXED + q] = scores[q]
    counts[1] += 1


@njit(parallel=True)
def simulate(seed, start, stop, level, ri, rf, sids, prm, n_blocks, caps, n_cols):
    """Play games ``[start, stop)`` in ``n_blocks`` contiguous blocks (``prange``).

    Block ``b`` plays games ``[start + b * per, start + (b + 1) * per)`` (clipped), ``per = ceil((stop -
    start) / n_blocks)``; the split changes no result (one RNG stream per game). ``caps``: ``int64[2]`` row
    capacity per block for rounds and games; ``n_cols``: ``int64[2]``. Returns ``(rounds int64[B, cap0, c0],
    traces uint64[B, cap0], games int64[B, cap1, c1], counts int64[B, 2])``; a block whose count exceeds its
    capacity kept only the first rows (the caller retries with more room).
    """
    P = sids.shape[0]
    rounds_all = np.empty((n_blocks, caps[0], n_cols[0]), dtype=np.int64)
    trace_all = np.empty((n_blocks, caps[0]), dtype=np.uint64)
    games_all = np.empty((n_blocks, caps[1], n_cols[1]), dtype=np.int64)
    counts_all = np.zeros((n_blocks, 2), dtype=np.int64)
    total = stop - start
    per = (total + n_blocks - 1) // n_blocks
    for b in prange(n_blocks):
        lo = min(start + per * b, stop)
        hi = min(start + per * (b + 1), stop)
        g = new_state(P, ri[I_N_DECKS])
        ws = new_workspace()
        counts = counts_all[b]
        for i in range(lo, hi):
            play_game(i, level, seed, P, ri, rf, sids, prm, ws, g, counts, rounds_all[b], trace_all[b], games_all[b])
    return rounds_all, trace_all, games_all, counts_all
