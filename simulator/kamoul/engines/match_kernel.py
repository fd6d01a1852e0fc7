"""The Kamoul match structure in numba (K15–K16): hands make a manche, manches a partie, parties a TOP.

:func:`play_game` follows ``simulator.kamoul.engines.match.Game`` and writes each finished hand, manche, partie and TOP as
a raw row of :mod:`simulator.kamoul.vocabulary.records` into the block's :class:`~simulator.kamoul.engines.kernel_state.BlockRows`.
The hands themselves are :func:`simulator.kamoul.engines.turn_loop.play_hand`.

:func:`play_partie`, :func:`play_manche` and :func:`_write_hand` have one call site each and are inlined into
:func:`play_game`, and :func:`play_game` into :func:`play_block`, the one call each ``prange`` block makes: a numba
call that is not inlined passes every array of the :class:`Block` it is given (about forty, seven words or more
each), and at the ``hands`` level that would be paid once per hand for each of them.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import seed_state
from simulator.kamoul.engines.turn_loop import play_hand
from simulator.kamoul.engines.kernel_state import COUNTER, ST, scratch_of
from simulator.kamoul.vocabulary.codes import BEST_OF, DOUBLE_CREDIT, MANCHE_HIGH, MANCHE_LOW, WINS_NEEDED, ends_manche
from simulator.kamoul.vocabulary.records import (
    HAND, HAND_FIXED, LEVEL, MANCHE, MANCHE_FIXED, PARTIE, PARTIE_FIXED, TOP, TOP_FIXED,
)

N_HAND_FIXED, N_MANCHE_FIXED, N_PARTIE_FIXED, N_TOP_FIXED = (len(HAND_FIXED), len(MANCHE_FIXED), len(PARTIE_FIXED),
                                                             len(TOP_FIXED))
FAR = 1 << 40  # above any total


# ------------------------------------------------------------------------------ rows
@njit(refcount=False)
def _claim_row(counts, table, capacity):
    """The next row of ``table`` (``records.LEVEL``); ``-1`` past the block's capacity (the row is only counted,
    the block is played again bigger)."""
    r = counts[table]
    counts[table] += 1
    return r if r < capacity else -1


@njit(refcount=False)
def _write_seats(out, r, offset, first, second):
    """Per-seat columns: ``first[q]`` at ``offset + q``, then ``second[q]`` at ``offset + P + q``."""
    P = first.shape[0]
    for q in range(P):
        out[r, offset + q] = first[q]
        out[r, offset + P + q] = second[q]


@njit(inline="llvm")
def _write_hand(game, in_manche, dealer, block):
    """The ``hands`` row of the hand just played."""
    rows, scalars, counters = block.rows, block.table[0].scalars, block.tally.counters
    scratch = scratch_of(block.work[0])
    r = _claim_row(rows.counts, LEVEL.hands, rows.hands.shape[0])
    if r < 0:
        return
    contre_mask = 0
    for i in range(scalars[ST.contres]):
        contre_mask |= 1 << scratch.announcers[1 + i]
    out = rows.hands
    out[r, HAND.game] = game
    out[r, HAND.partie] = counters[COUNTER.partie]
    out[r, HAND.manche] = counters[COUNTER.manche]
    out[r, HAND.hand] = counters[COUNTER.hand]
    out[r, HAND.hand_in_manche] = in_manche
    out[r, HAND.dealer] = dealer
    out[r, HAND.winner] = scalars[ST.winner]
    out[r, HAND.outcome] = scalars[ST.outcome]
    out[r, HAND.caller] = scalars[ST.caller]
    out[r, HAND.call_turn] = scalars[ST.call_turn]
    out[r, HAND.call_true] = scalars[ST.call_true]
    out[r, HAND.call_unknown] = scalars[ST.call_unknown]
    out[r, HAND.contre_seats] = contre_mask
    out[r, HAND.turns] = scalars[ST.turns]
    out[r, HAND.snaps] = scalars[ST.snaps]
    out[r, HAND.wrong_snaps] = scalars[ST.wrong_snaps]
    out[r, HAND.penalty_cards] = scalars[ST.penalties]
    out[r, HAND.peeks] = scalars[ST.peeks]
    out[r, HAND.jq_swaps] = scalars[ST.jq_swaps]
    out[r, HAND.red_king_looks] = scalars[ST.red_king_looks]
    out[r, HAND.black_king_looks] = scalars[ST.black_king_looks]
    out[r, HAND.king_swaps] = scalars[ST.king_swaps]
    _write_seats(out, r, N_HAND_FIXED, scratch.points, scratch.cum_after)
    rows.estimates[r] = scratch.estimate[0]
    rows.traces[r] = scratch.trace[0]


@njit(refcount=False)
def _write_manche(game, hands, winners, credit, block):
    rows, counters, cum = block.rows, block.tally.counters, scratch_of(block.work[0]).cum
    r = _claim_row(rows.counts, LEVEL.manches, rows.manches.shape[0])
    if r < 0:
        return
    out = rows.manches
    out[r, MANCHE.game] = game
    out[r, MANCHE.partie] = counters[COUNTER.partie]
    out[r, MANCHE.manche] = counters[COUNTER.manche]
    out[r, MANCHE.hands] = hands
    out[r, MANCHE.winners] = winners
    out[r, MANCHE.winner] = _single(winners, cum.shape[0])
    out[r, MANCHE.credit] = credit
    for q in range(cum.shape[0]):
        out[r, N_MANCHE_FIXED + q] = cum[q]


@njit(refcount=False)
def _write_partie(game, manches, winners, block):
    rows, tally = block.rows, block.tally
    r = _claim_row(rows.counts, LEVEL.parties, rows.parties.shape[0])
    if r < 0:
        return
    out = rows.parties
    out[r, PARTIE.game] = game
    out[r, PARTIE.partie] = tally.counters[COUNTER.partie]
    out[r, PARTIE.manches] = manches
    out[r, PARTIE.winners] = winners
    out[r, PARTIE.winner] = _single(winners, tally.partie_wins.shape[0])
    _write_seats(out, r, N_PARTIE_FIXED, tally.partie_wins, tally.partie_totals)


@njit(refcount=False)
def _write_top(game, parties, winners, block):
    rows, tally = block.rows, block.tally
    r = _claim_row(rows.counts, LEVEL.tops, rows.tops.shape[0])
    if r < 0:
        return
    out = rows.tops
    out[r, TOP.game] = game
    out[r, TOP.parties] = parties
    out[r, TOP.winners] = winners
    out[r, TOP.winner] = _single(winners, tally.top_wins.shape[0])
    _write_seats(out, r, N_TOP_FIXED, tally.top_wins, tally.top_totals)


# ------------------------------------------------------------------------------ winners
@njit(refcount=False)
def _best(wins, totals):
    """K16: most wins, then lowest total, then shared: bit mask of the winners."""
    P = wins.shape[0]
    top = -1
    for q in range(P):
        if wins[q] > top:
            top = wins[q]
    low = FAR
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
    """The one seat of ``mask``, ``-1`` when shared."""
    seat = -1
    for q in range(P):
        if mask & (1 << q):
            if seat >= 0:
                return -1
            seat = q
    return seat


@njit(refcount=False)
def _manche_winners(cum, partie_totals):
    """K15: lowest cumulative wins; on a tie the goal average over the partie, then shared. A bit mask."""
    P = cum.shape[0]
    low = FAR
    for q in range(P):
        if cum[q] < low:
            low = cum[q]
    best = FAR
    for q in range(P):
        if cum[q] == low and partie_totals[q] + cum[q] < best:
            best = partie_totals[q] + cum[q]
    mask = 0
    for q in range(P):
        if cum[q] == low and partie_totals[q] + cum[q] == best:
            mask |= 1 << q
    return mask


@njit(refcount=False)
def _manche_credit(cum):
    """K15 special case: a -31 in the hand where another passes 31 counts ``DOUBLE_CREDIT`` manches."""
    has_low = False
    has_high = False
    for q in range(cum.shape[0]):
        if cum[q] <= MANCHE_LOW:
            has_low = True
        if cum[q] > MANCHE_HIGH:
            has_high = True
    return DOUBLE_CREDIT if (has_low and has_high) else 1


@njit(refcount=False)
def _reached(wins):
    """K16: someone has ``WINS_NEEDED`` wins."""
    for q in range(wins.shape[0]):
        if wins[q] >= WINS_NEEDED:
            return True
    return False


# ------------------------------------------------------------------------------ levels
@njit(inline="always")
def play_manche(game, level, rules, seats, block):
    """K15: hands until a cumulative passes 31 or reaches -31 (or the hand guard); writes the rows. Returns the
    winners' mask and credit (nothing at the hands level, which stops after one hand)."""
    scratch, counters = scratch_of(block.work[0]), block.tally.counters
    cum = scratch.cum
    P = cum.shape[0]
    for q in range(P):
        cum[q] = 0
    hands = 0
    while True:
        dealer = counters[COUNTER.dealer]
        play_hand(dealer, rules, seats, block.table[0], block.work[0])
        _write_hand(game, hands, dealer, block)
        counters[COUNTER.hand] += 1
        hands += 1
        counters[COUNTER.dealer] = (dealer + 1) % P  # K3: the deal rotates every hand
        ended = hands >= rules.max_hands_per_manche
        for q in range(P):
            cum[q] = scratch.cum_after[q]
            if ends_manche(cum[q]):
                ended = True
        if level == LEVEL.hands:
            return 0, 0
        if ended:
            break
    winners = _manche_winners(cum, block.tally.partie_totals)
    credit = _manche_credit(cum)
    _write_manche(game, hands, winners, credit, block)
    counters[COUNTER.manche] += 1
    return winners, credit


@njit(inline="always")
def play_partie(game, level, rules, seats, block):
    """K16: first to 2 manches, at most 3; then most manches, goal average, shared. Returns the winners' mask."""
    tally = block.tally
    P = tally.partie_wins.shape[0]
    for q in range(P):
        tally.partie_wins[q] = 0
        tally.partie_totals[q] = 0
    played = 0
    while True:
        winners, credit = play_manche(game, level, rules, seats, block)
        if level <= LEVEL.manches:
            return 0
        for q in range(P):
            tally.partie_totals[q] += scratch_of(block.work[0]).cum[q]
            if winners & (1 << q):
                tally.partie_wins[q] += credit
        played += 1
        if played == BEST_OF or _reached(tally.partie_wins):
            break
    winners = _best(tally.partie_wins, tally.partie_totals)
    _write_partie(game, played, winners, block)
    tally.counters[COUNTER.partie] += 1
    return winners


@njit(inline="always")
def play_game(game, level, seed, rules, seats, block):
    """Game ``game`` at ``level`` (``records.LEVEL``) from the stream ``(seed, game)``; appends its rows."""
    tally = block.tally
    P = seats.sids.shape[0]
    seed_state(seed, game, scratch_of(block.work[0]).rng)
    for i in range(tally.counters.shape[0]):
        tally.counters[i] = 0
    tally.counters[COUNTER.dealer] = (game + P - 1) % P  # K3: game i starts with seat i mod P
    for q in range(P):
        tally.top_wins[q] = 0
        tally.top_totals[q] = 0
    played = 0
    while True:  # K16: first to 2 parties, at most 3; then most parties, goal average over the TOP, shared
        winners = play_partie(game, level, rules, seats, block)
        if level <= LEVEL.parties:
            return
        for q in range(P):
            tally.top_totals[q] += tally.partie_totals[q]
            if winners & (1 << q):
                tally.top_wins[q] += 1
        played += 1
        if played == BEST_OF or _reached(tally.top_wins):
            break
    _write_top(game, played, _best(tally.top_wins, tally.top_totals), block)


@njit(refcount=False)
def play_block(first, end, level, seed, rules, seats, block):
    """Games ``[first, end)`` at ``level`` (``records.LEVEL``) into ``block``: the one call a ``prange`` block makes.
    The loop over the games is here, not in the parallel loop's body, so that :func:`play_game` is not a call per
    game from code compiled with reference counting (numba compiles the parallel body so), counting each array of
    the :class:`Block` with atomics. The game, partie and manche levels are inlined into numba's IR here (small
    bodies, typed once more): each function numba compiles on its own links and emits the machine code of all it
    calls, so a level compiled on its own would emit the whole hand once more (docs/architecture.md, "Where the
    compile goes")."""
    for game in range(first, end):
        play_game(game, level, seed, rules, seats, block)
