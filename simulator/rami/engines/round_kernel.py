"""One Rami round in numba (R2–R14, scored by R12/R13): the twin of ``simulator.rami.engines.reference.Round``.

Each function names the ``Round`` method it mirrors, follows it step for step and draws the same random numbers
in the same order. Arguments: ``rules`` (a record of :data:`~simulator.rami.vocabulary.rules.KERNEL_RULES`), ``seats``
(:class:`~simulator.core.contract.user_table.KernelSeats`), ``state`` / ``scratch`` (the block's
:class:`~simulator.rami.engines.kernel_state.RoundState` / :class:`~simulator.rami.engines.kernel_state.Scratch`; the random
stream is ``state.rng``). Table and solver steps are in :mod:`simulator.rami.engines.table_kernel`.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import DECK_SIZE, JOKER
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, shuffle, uniform
from simulator.core.kernels.trace import fold
from simulator.rami.engines.kernel_state import SCALAR
from simulator.rami.engines.table_kernel import (
    apply_move, card_moves, copy_hand, fits, hand_value, lay_meld, legal_moves, meld_with, opening_melds,
    opening_styles, opening_uses, rami_sec_plan, styled_opening,
)
from simulator.rami.vocabulary.codes import (
    A_CARTE, DRAW_DISCARD, EV_CLAIM, EV_DEAL, EV_DISCARD, EV_DRAW, EV_END, EV_OPEN, EV_RAMI_SEC, EV_RESHUFFLE, EV_TAKE,
    JOKERS_PER_DECK, LAY_KEEP_JOKERS, LAY_NONE, MAX_STEPS, MELD, MOVE, N_IDS, OPEN_OPEN, OPEN_SEC, OPENING_BEST,
    OUT_BLOCKED, OUT_CLAIM, OUT_NORMAL, OUT_RAMI_SEC, OUT_TURN_CAP, RAMI_SEC_HAND_FACTOR, TAKE_FROM_TURN,
)
from simulator.rami.vocabulary.contract import Claim, Discard, Draw, Hold, Layoff, Me, Open, OpenWith, Seen
from simulator.rami.vocabulary.melds import SWAP_JOKER, least_left_nb, opening_value_nb
from simulator.rami.vocabulary.rules import ELIGIBLE, JOKER_VALUE, PLAYABLE, RACE, SWAP
from strategies.rami.policy import (
    decide_claim, decide_discard, decide_draw, decide_hold, decide_lay, decide_layoff, decide_open, decide_open_with, speed,
)

NO_SEC = -2  # unopened_phase: no rami sec this turn (-1: a rami sec laying everything, >= 0: its last discard)


# ------------------------------------------------------------------------------------------ R1, R14
@njit(refcount=False)
def full_deck(cards, decks):
    """Round.full_deck (R1): ids 0–51 and two jokers per deck; returns the number of cards."""
    k = 0
    for _ in range(decks):
        for c in range(DECK_SIZE):
            cards[k] = c
            k += 1
        for _ in range(JOKERS_PER_DECK):
            cards[k] = JOKER
            k += 1
    return k


@njit(refcount=False)
def _reshuffle(state):
    """Round.reshuffle (R14)."""
    stock, discard, scalars = state.stock, state.discard, state.scalars
    nd = scalars[SCALAR.n_discard]
    if nd < 2:
        return False
    top = discard[nd - 1]
    n = nd - 1
    for i in range(n):
        stock[i] = discard[i]
    shuffle(stock, n, state.rng)
    scalars[SCALAR.n_stock] = n
    discard[0] = top
    scalars[SCALAR.n_discard] = 1
    scalars[SCALAR.reshuffles] += 1
    fold(state.trace, EV_RESHUFFLE, n, 0, 0)
    return True


# ------------------------------------------------------------------------------------------ R8/R9 lay-offs
@njit(refcount=False)
def _forced_layoff(p, moves, n, seats, state):
    """A lay-off the strategy must pick among the ``n`` rows of ``moves`` (a taken, claimed or swapped card)."""
    k = decide_layoff(seats, Layoff(p, state.hands[p], state.opened, state.sizes, moves, n, True, state.rng))
    apply_move(p, moves[k], state)


@njit(refcount=False)
def _do_move(p, move, rules, seats, state, scratch):
    """Round.do_move: a lay-off or swap; under R9 must_reuse the swapped joker is laid off at once."""
    action = move[MOVE.action]
    apply_move(p, move, state)
    if action == SWAP_JOKER and rules.joker_swap == SWAP.must_reuse:
        n = card_moves(JOKER, scratch.one_card, state, scratch)
        _forced_layoff(p, scratch.one_card, n, seats, state)


@njit(refcount=False)
def _layoff_phase(p, rules, seats, state, scratch):
    """Round.layoff_phase (R8/R9)."""
    moves = scratch.moves
    for _ in range(MAX_STEPS):
        if state.sizes[p] == 0:
            return
        n = legal_moves(p, rules, state, scratch)
        if n == 0:
            return
        k = decide_layoff(seats, Layoff(p, state.hands[p], state.opened, state.sizes, moves, n, False, state.rng))
        if k < 0:
            return
        _do_move(p, moves[k], rules, seats, state, scratch)


# ------------------------------------------------------------------------------------------ R5 the discard
@njit(refcount=False)
def _take_plan(p, rules, state, scratch):
    """Round.take_plan (R5): ``(can_take, opening points)``."""
    nd = state.scalars[SCALAR.n_discard]
    if nd == 0 or state.own_turns[p] < TAKE_FROM_TURN or state.sizes[p] == A_CARTE:
        return False, 0
    c = np.int64(state.discard[nd - 1])
    counts = scratch.counts
    copy_hand(state.hands, p, counts)
    if state.opened[p]:
        if card_moves(c, scratch.one_card, state, scratch) > 0:
            return True, 0
        return meld_with(counts, c, rules, scratch) >= 0, 0
    counts[c] += 1
    can, points, n = opening_melds(counts, rules, scratch)
    if not can:
        return False, points
    return opening_uses(scratch.opening, n, c, rules), points


@njit(refcount=False)
def _go_down(p, melds, n, points, event, state):
    """The melds ``melds[:n]`` go down together as ``p``'s opening (R7, ``event`` EV_OPEN) or rami sec (R12,
    EV_RAMI_SEC) worth ``points``; from now on ``p`` has opened."""
    fold(state.trace, event, p, points, n)
    for i in range(n):
        lay_meld(p, melds, i, state)
    state.opened[p] = 1
    state.open_turn[p] = state.own_turns[p]
    state.open_points[p] = points


@njit(refcount=False)
def _open_with(p, n, points, state, scratch):
    """Round.open_with (R7): the melds ``scratch.opening[:n]`` go down together."""
    _go_down(p, scratch.opening, n, points, EV_OPEN, state)


@njit(refcount=False)
def _take_discard(p, rules, seats, state, scratch):
    """Round.take_discard (R5): the top discard is taken and laid at once."""
    scalars, counts = state.scalars, scratch.counts
    scalars[SCALAR.n_discard] -= 1
    c = np.int64(state.discard[scalars[SCALAR.n_discard]])
    state.hands[p, c] += 1
    state.sizes[p] += 1
    fold(state.trace, EV_TAKE, p, c, 0)
    copy_hand(state.hands, p, counts)
    if not state.opened[p]:
        can, points, n = opening_melds(counts, rules, scratch)
        _open_with(p, n, points, state, scratch)
        return
    counts[c] -= 1
    i = meld_with(counts, c, rules, scratch)
    if i >= 0:
        lay_meld(p, scratch.opening, i, state)
        return
    n = card_moves(c, scratch.one_card, state, scratch)
    _forced_layoff(p, scratch.one_card, n, seats, state)


@njit(refcount=False)
def _draw(p, first_turn, rules, seats, state, scratch):
    """The draw of Round.turn (R3–R5, R14): False when nothing can be drawn (the round is blocked)."""
    scalars = state.scalars
    if first_turn and rules.first_player_draws == 0:
        return True  # R3: the first player does not draw
    if scalars[SCALAR.n_stock] == 0:
        _reshuffle(state)  # R14
    can_take, take_points = _take_plan(p, rules, state, scratch)
    if scalars[SCALAR.n_stock] == 0 and not can_take:
        return False
    if scalars[SCALAR.n_stock] == 0:
        src = DRAW_DISCARD
    else:
        nd = scalars[SCALAR.n_discard]
        top = np.int64(state.discard[nd - 1]) if nd > 0 else -1
        src = decide_draw(seats, Draw(p, state.hands[p], state.opened, state.sizes, top, can_take, take_points,
                                      state.own_turns[p], scalars[SCALAR.n_stock], state.rng))
    if src == DRAW_DISCARD:
        _take_discard(p, rules, seats, state, scratch)
    else:
        scalars[SCALAR.n_stock] -= 1
        card = np.int64(state.stock[scalars[SCALAR.n_stock]])
        state.hands[p, card] += 1
        state.sizes[p] += 1
        fold(state.trace, EV_DRAW, p, card, 0)
    return True


# ------------------------------------------------------------------------------------------ R7, R8, R12
@njit(refcount=False)
def _lay_rami_sec(p, n_sec, rules, state, scratch):
    """The rami sec of Round.unopened_phase (R12): the whole-hand lay-down ``scratch.laydown[:n_sec]``."""
    sec_points = 0  # TableOps.melds_points (R12: 51 not needed, but recorded)
    for i in range(n_sec):
        sec_points += opening_value_nb(scratch.laydown[i], rules.joker_opening_value == JOKER_VALUE.represented)
    _go_down(p, scratch.laydown, n_sec, sec_points, EV_RAMI_SEC, state)


@njit(refcount=False)
def _unopened_phase(p, rules, seats, state, scratch):
    """Round.unopened_phase (R7/R12): the forced last discard of a rami sec, -1 (rami sec laying everything)
    or ``NO_SEC``."""
    copy_hand(state.hands, p, scratch.counts)
    can_open, points, n = opening_melds(scratch.counts, rules, scratch)
    sec, n_sec, last = rami_sec_plan(p, rules, state, scratch)
    choice = decide_open(seats, Open(p, state.hands[p], state.opened, state.sizes, points, can_open, sec,
                                     state.own_turns[p], state.scalars[SCALAR.n_stock], state.rng))
    if choice == OPEN_SEC:
        _lay_rami_sec(p, n_sec, rules, state, scratch)
        return last
    if choice == OPEN_OPEN:
        copy_hand(state.hands, p, scratch.counts)  # the rami sec's plan changed the scratch counts
        n_styles = opening_styles(scratch.counts, rules, scratch)
        style = decide_open_with(seats, OpenWith(p, state.hands[p], state.opened, state.sizes, scratch.styles,
                                                 n_styles, state.rng))
        if style != OPENING_BEST:
            points, n = styled_opening(style, scratch.counts, rules, scratch)
        _open_with(p, n, points, state, scratch)
    return NO_SEC


@njit(refcount=False)
def _lay_phase(p, rules, seats, state, scratch):
    """Round.lay_phase (R8, R11): the lay plan, then each meld of its lay-down laid or held."""
    plan = decide_lay(seats, Seen(p, state.hands[p], state.opened, state.sizes, state.rng))
    if plan == LAY_NONE:
        return
    counts, out = scratch.counts, scratch.laydown
    copy_hand(state.hands, p, counts)
    if plan == LAY_KEEP_JOKERS:
        counts[JOKER] = 0
    _, _, n = least_left_nb(counts, False, rules.franche_inside_longer_run != 0, scratch.ws, out)
    used = 0
    for i in range(n):
        used += np.int64(out[i, MELD.n_cards])
    while rules.final_discard_required != 0 and n > 0 and used >= state.sizes[p]:
        n -= 1
        used -= np.int64(out[n, MELD.n_cards])
    left = state.sizes[p] - used
    for i in range(n):
        if not decide_hold(seats, Hold(p, state.hands[p], state.opened, state.sizes, out[i], left, state.rng)):
            lay_meld(p, out, i, state)


@njit(refcount=False)
def _do_discard(p, card, state):
    """Round.do_discard."""
    state.hands[p, card] -= 1
    state.sizes[p] -= 1
    state.discard[state.scalars[SCALAR.n_discard]] = card
    state.scalars[SCALAR.n_discard] += 1
    fold(state.trace, EV_DISCARD, p, card, 0)


# ------------------------------------------------------------------------------------------ R10 claims
@njit(refcount=False)
def _race(n, rules, seats, claimants, rng):
    """Round.race: the race policy (rule R10) among ``claimants[:n]``."""
    if n == 1 or rules.race_policy == RACE.turn_order:
        return claimants[0]
    if rules.race_policy == RACE.uniform:
        return claimants[below(rng, n)]
    total = 0.0
    for i in range(n):
        total += speed(seats, Me(claimants[i]))
    u = uniform(rng) * total
    reached = 0.0
    for i in range(n):
        reached += speed(seats, Me(claimants[i]))
        if u < reached:
            return claimants[i]
    return claimants[n - 1]


@njit(refcount=False)
def _claimants(p, card, rules, seats, state, claimants):
    """The asking loop of Round.claim_window (R10): players who claim ``card``, in turn order from ``p``'s
    next, into ``claimants``; returns their number."""
    players = state.sizes.shape[0]
    notice = rules.notice_prob
    nc = 0
    for k in range(1, players):
        q = (p - k + players) % players
        if not (state.opened[q] or rules.claim_eligibility == ELIGIBLE.anyone):
            continue
        if state.sizes[q] == A_CARTE and rules.a_carte_claims == 0:  # R5: à carte, never the discard
            continue
        if notice < 1.0 and uniform(state.rng) >= notice:
            continue
        if decide_claim(seats, Claim(q, state.hands[q], state.opened, state.sizes, card, state.rng)):
            claimants[nc] = q
            nc += 1
    return nc


@njit(refcount=False)
def _claim_window(p, card, rules, seats, state, scratch):
    """Round.claim_window (R10 snap): True when a claimant went out."""
    if rules.playable_discard != PLAYABLE.snap:
        return False
    scalars, moves, claimants = state.scalars, scratch.one_card, scratch.claimants
    while True:
        n_moves = card_moves(card, moves, state, scratch)
        if n_moves == 0:
            return False
        nc = _claimants(p, card, rules, seats, state, claimants)
        if nc == 0:
            return False
        q = _race(nc, rules, seats, claimants, state.rng)
        scalars[SCALAR.n_discard] -= 1
        state.hands[q, card] += 1
        state.sizes[q] += 1
        scalars[SCALAR.claims] += 1
        fold(state.trace, EV_CLAIM, q, card, nc)
        _forced_layoff(q, moves, n_moves, seats, state)
        fits(state, scratch)
        card = np.int64(decide_discard(seats, Discard(q, state.hands[q], state.opened, state.sizes, scratch.fits,
                                                      False, state.rng)))
        _do_discard(q, card, state)
        if state.sizes[q] == 0:
            scalars[SCALAR.winner] = q
            scalars[SCALAR.outcome] = OUT_CLAIM
            return True
        p = q


# ------------------------------------------------------------------------------------------ R4 a turn
@njit(refcount=False)
def _going_out(p, laid_before, rules, state):
    """Round.going_out (R11; R12: nothing laid before, and no move on another's meld this turn unless
    ``rami_sec_layoffs``)."""
    scalars = state.scalars
    sec = not laid_before and (rules.rami_sec_layoffs != 0 or scalars[SCALAR.on_others_melds] == 0)
    scalars[SCALAR.winner] = p
    scalars[SCALAR.outcome] = OUT_RAMI_SEC if sec else OUT_NORMAL
    return True


@njit(refcount=False)
def _turn(p, first_turn, rules, seats, state, scratch):
    """Round.turn (R3–R14): True when the round ended."""
    scalars, sizes = state.scalars, state.sizes
    state.own_turns[p] += 1
    scalars[SCALAR.turns] += 1
    laid_before = state.laid[p] != 0
    scalars[SCALAR.on_others_melds] = 0
    if not _draw(p, first_turn, rules, seats, state, scratch):
        scalars[SCALAR.outcome] = OUT_BLOCKED
        return True
    sec_discard = NO_SEC
    if not state.opened[p]:
        sec_discard = _unopened_phase(p, rules, seats, state, scratch)
    if state.opened[p] and sec_discard == NO_SEC and sizes[p] > 0:
        _lay_phase(p, rules, seats, state, scratch)
        _layoff_phase(p, rules, seats, state, scratch)
    if sizes[p] == 0:
        return _going_out(p, laid_before, rules, state)
    if sec_discard >= 0:
        card = sec_discard
    else:
        fits(state, scratch)
        card = np.int64(decide_discard(seats, Discard(p, state.hands[p], state.opened, sizes, scratch.fits,
                                                      rules.playable_discard == PLAYABLE.forbidden, state.rng)))
    _do_discard(p, card, state)
    if sizes[p] == 0:
        return _going_out(p, laid_before, rules, state)
    return _claim_window(p, card, rules, seats, state, scratch)


# ------------------------------------------------------------------------------------------ the round
@njit(refcount=False)
def _deal(dealer, rules, state):
    """Round.deal (R2): returns the first player."""
    players = state.sizes.shape[0]
    hands, sizes, stock, discard = state.hands, state.sizes, state.stock, state.discard
    n = full_deck(stock, rules.decks)
    shuffle(stock, n, state.rng)
    first = (dealer + players - 1) % players
    for _ in range(rules.hand_cards):
        for k in range(players):
            n -= 1
            q = (first - k + players) % players
            hands[q, stock[n]] += 1
            sizes[q] += 1
    n -= 1
    hands[first, stock[n]] += 1
    sizes[first] += 1
    n -= 1
    discard[0] = stock[n]
    state.scalars[SCALAR.n_discard] = 1
    state.scalars[SCALAR.n_stock] = n
    fold(state.trace, EV_DEAL, dealer, np.int64(discard[0]), 0)
    return first


@njit(refcount=False)
def _reset_round(state):
    """What ``Round.__init__`` starts from: empty hands, nobody opened, no counts, no winner."""
    for q in range(state.sizes.shape[0]):
        for c in range(N_IDS):
            state.hands[q, c] = 0
        state.sizes[q] = 0
        state.opened[q] = 0
        state.laid[q] = 0
        state.open_turn[q] = -1
        state.open_points[q] = -1
        state.own_turns[q] = 0
    for i in range(len(SCALAR)):
        state.scalars[i] = 0
    state.scalars[SCALAR.winner] = -1
    state.scalars[SCALAR.outcome] = OUT_TURN_CAP


@njit(refcount=False)
def _score(rules, state):
    """Round.score (R12/R13; the R15 guard and a blocked round: everyone scores their hand) into
    ``state.points``."""
    w, outcome = state.scalars[SCALAR.winner], state.scalars[SCALAR.outcome]
    points, opened = state.points, state.opened
    for q in range(points.shape[0]):
        v = hand_value(state.hands, q)
        if outcome == OUT_RAMI_SEC:
            points[q] = rules.rami_sec_unopened if not opened[q] else RAMI_SEC_HAND_FACTOR * v
        elif outcome == OUT_NORMAL or outcome == OUT_CLAIM:
            points[q] = rules.unopened_penalty if (rules.unopened_penalty > 0 and not opened[q]) else v
        else:
            points[q] = v
    if outcome == OUT_RAMI_SEC:
        points[w] = rules.rami_sec_bonus
    elif outcome == OUT_NORMAL or outcome == OUT_CLAIM:
        points[w] = 0


@njit(refcount=False)
def play_round(dealer, rules, seats, state, scratch):
    """Round.play (R2–R15 guard) and Round.score (R12/R13): points in ``state.points``; returns the first
    player."""
    players = state.sizes.shape[0]
    scalars = state.scalars
    _reset_round(state)
    first = _deal(dealer, rules, state)
    p = first
    ended = False
    while not ended:
        if scalars[SCALAR.turns] >= rules.max_turns_per_round:
            scalars[SCALAR.outcome] = OUT_TURN_CAP
            break
        ended = _turn(p, scalars[SCALAR.turns] == 0, rules, seats, state, scratch)
        p = (p + players - 1) % players
    _score(rules, state)
    fold(state.trace, EV_END, scalars[SCALAR.outcome], scalars[SCALAR.winner], 0)
    return first
