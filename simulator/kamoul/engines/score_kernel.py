"""The reveal of a Kamoul hand in numba (K7, K10–K12): who wins, what everyone scores.

:func:`score` follows ``simulator.kamoul.engines.hand.Hand.score``. It reads the layouts of the
table (:data:`~simulator.kamoul.engines.kernel_state.HAND_TABLE`) and, in the block's
:class:`~simulator.kamoul.engines.kernel_state.Scratch` (``reveal``), the announcers (``reveal.announcers[0]`` the
caller, then the contres in order) and ``reveal.cum``; it writes ``reveal.points``/``cum_after`` and the outcome
and winner scalars. Its steps have one call site each and are inlined into :func:`score`, one call per hand.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.kamoul.engines.kernel_state import ST, scratch_of
from simulator.kamoul.vocabulary.codes import (
    AU_RESET_CUM, AU_SCORE_HIGH, AU_WIN_CUM, CALL_MAX, CARD_VALUE, CLS_AU, CLS_FALSE, CLS_NORMAL, DUTCH_FALSE_EXTRA,
    NORMAL_WIN_POINTS, OUT_AU_M31, OUT_AU_RESET, OUT_BEATEN, OUT_CONTRE_LOST, OUT_CONTRE_WON, OUT_FALSE, OUT_NO_CALL,
    OUT_NORMAL, OUT_ULTIME, ULTIME_POINTS, announcement_class,
)
from simulator.kamoul.vocabulary.rules import AU_SCORE_30, FALSE_CALL, LOSER_SCORES, ULTIME_OTHERS

NO_SEAT = -1
ABOVE_ANY_TOTAL = 1 << 30


@njit(inline="llvm")
def _totals(state, totals):
    """K1: each player's hand total at the reveal into ``totals``."""
    hand, occ, nslots = state.hand, state.occ, state.nslots
    for p in range(state.players):
        total = 0
        for s in range(nslots[p]):  # card codes are 0–51 (views.card_value); an empty position adds 0, no branch
            total += occ[p, s] * CARD_VALUE[hand[p, s]]
        totals[p] = total


@njit(inline="llvm")
def _classify_announcers(n_ann, caller, rules, reveal):
    """K10–K12: the class of each announcer; marks the false ones (an invalid contre is false only with
    ``contre_requires_valid``, K9). Returns how many are false."""
    announcers, classes, is_false, totals, cum = (reveal.announcers, reveal.classes, reveal.is_false,
                                                  reveal.totals, reveal.cum)
    for p in range(classes.shape[0]):
        classes[p] = -1
        is_false[p] = 0
    n_false = 0
    for i in range(n_ann):
        a = announcers[i]
        classes[a] = announcement_class(totals[a], cum[a], rules.au_score_30 == AU_SCORE_30.ge)
        if classes[a] == CLS_FALSE and (rules.contre_requires_valid != 0 or a == caller):
            is_false[a] = 1
            n_false += 1
    return n_false


@njit(refcount=False)
def _is_announcer(q, n_ann, announcers):
    for i in range(n_ann):
        if announcers[i] == q:
            return True
    return False


@njit(inline="llvm")
def _contest_order(n_ann, rules, reveal):
    """K10: the contenders in tie order into ``reveal.order``; returns how many. Implicit contenders
    (``implicit_contest``) lose every tie: first when ties go to the latest, last otherwise."""
    announcers, classes, totals, order = reveal.announcers, reveal.classes, reveal.totals, reveal.order
    n_order = 0
    silent_first = rules.contre_strictly_lower == 0
    for rnd in range(2):
        if rnd == (0 if silent_first else 1):
            if rules.implicit_contest != 0:
                for q in range(totals.shape[0]):
                    if not _is_announcer(q, n_ann, announcers) and totals[q] <= CALL_MAX:
                        order[n_order] = q
                        classes[q] = CLS_NORMAL
                        n_order += 1
        else:
            for i in range(n_ann):
                a = announcers[i]
                if classes[a] != CLS_FALSE:
                    order[n_order] = a
                    n_order += 1
    return n_order


@njit(inline="llvm")
def _contest_winner(n_order, rules, reveal):
    """K10: the best class, then the lowest total, then the latest (``contre_strictly_lower``: the earliest)
    contender. Returns ``(winner, its class)``."""
    classes, totals, order = reveal.classes, reveal.totals, reveal.order
    best = -1
    for i in range(n_order):
        if classes[order[i]] > best:
            best = classes[order[i]]
    low = ABOVE_ANY_TOTAL
    for i in range(n_order):
        if classes[order[i]] == best and totals[order[i]] < low:
            low = totals[order[i]]
    winner = NO_SEAT
    for i in range(n_order):
        a = order[i]
        if classes[a] == best and totals[a] == low:
            if rules.contre_strictly_lower == 0 or winner < 0:
                winner = a
    return winner, best


@njit(refcount=False)
def _contest_outcome(winner, best, new_cum, n_false, n_ann, caller, announcers):
    """K7–K12: the outcome code of a contested reveal."""
    if n_false > 0:
        return OUT_FALSE
    if best == CLS_AU:
        return OUT_AU_RESET if new_cum == AU_RESET_CUM else OUT_AU_M31
    if winner == caller:
        return OUT_CONTRE_LOST if n_ann > 1 else OUT_NORMAL
    for i in range(1, n_ann):
        if announcers[i] == winner:
            return OUT_CONTRE_WON
    return OUT_BEATEN


@njit(inline="llvm")
def _score_contest(caller, rules, state, reveal):
    """K10–K12: a call stands at the reveal. Fills ``points`` and the outcome and winner; returns ``(seat, cum)``
    of an au-score winner whose cumulative is set rather than added to (``(NO_SEAT, 0)`` otherwise)."""
    scalars, points, totals, is_false = state.scalars, reveal.points, reveal.totals, reveal.is_false
    n_ann = 1 + scalars[ST.contres]
    n_false = _classify_announcers(n_ann, caller, rules, reveal)
    if n_false > 0 and rules.false_call_mode == FALSE_CALL.sum:  # K12 (seed): the false ones pay for the table
        table = 0
        for p in range(points.shape[0]):
            table += totals[p]
        for p in range(points.shape[0]):
            points[p] = table if is_false[p] else 0
        scalars[ST.outcome] = OUT_FALSE
        return NO_SEAT, 0
    for p in range(points.shape[0]):
        if is_false[p]:
            points[p] = totals[p] + (DUTCH_FALSE_EXTRA if rules.false_call_mode == FALSE_CALL.dutch else 0)
    n_order = _contest_order(n_ann, rules, reveal)
    if n_order == 0:
        scalars[ST.outcome] = OUT_FALSE
        return NO_SEAT, 0
    winner, best = _contest_winner(n_order, rules, reveal)
    for i in range(n_ann):
        a = reveal.announcers[i]
        if a != winner and not is_false[a] and reveal.classes[a] != CLS_FALSE:
            points[a] = 0 if rules.loser_announcer_scores == LOSER_SCORES.zero else totals[a]
    new_seat, new_cum = NO_SEAT, 0
    if best == CLS_NORMAL:
        points[winner] = NORMAL_WIN_POINTS
    else:  # K11 au-score: the cumulative is set
        new_seat = winner
        new_cum = AU_RESET_CUM if reveal.cum[winner] >= AU_SCORE_HIGH else AU_WIN_CUM
    scalars[ST.winner] = winner
    scalars[ST.outcome] = _contest_outcome(winner, best, new_cum, n_false, n_ann, caller, reveal.announcers)
    return new_seat, new_cum


@njit(refcount=False)
def score(rules, state, work):
    """K7, K10–K12: the points of the hand into ``reveal.points``/``cum_after``; the outcome and winner. ``work``:
    the block's scratch record (``reveal`` below: its :class:`~simulator.kamoul.engines.kernel_state.Scratch`)."""
    reveal = scratch_of(work)
    scalars, points, totals, cum = state.scalars, reveal.points, reveal.totals, reveal.cum
    P = points.shape[0]
    _totals(state, totals)
    for p in range(P):
        points[p] = totals[p]
    ultime = scalars[ST.ultime]
    caller = scalars[ST.caller]
    scalars[ST.winner] = NO_SEAT
    new_seat, new_cum = NO_SEAT, 0
    if ultime >= 0:  # K7
        for p in range(P):
            points[p] = 0 if rules.ultime_others_score == ULTIME_OTHERS.zero else totals[p]
        points[ultime] = ULTIME_POINTS
        scalars[ST.outcome] = OUT_ULTIME
        scalars[ST.winner] = ultime
    elif caller < 0 or scalars[ST.aborted] != 0:  # K14: no call, or the turn cap / empty stock voids it
        scalars[ST.outcome] = OUT_NO_CALL
    else:
        new_seat, new_cum = _score_contest(caller, rules, state, reveal)
    for p in range(P):
        after = new_cum if p == new_seat else cum[p] + points[p]
        points[p] = after - cum[p]
        reveal.cum_after[p] = after
