"""The legal choices of each Rami decision, listed by the engine (rules R4, R5, R7–R10, R12).

Each function fills an ``int64`` buffer ``out`` with the choices open to the deciding player now and returns how
many there are, always in the same order. The checks of :mod:`simulator.rami.vocabulary.answers`, which both engines apply
to a strategy's answer, accept exactly the answers listed here (``tests/test_rami_legal.py`` compares them on
random positions), and a strategy may call them on any ``int64`` buffer of its own to choose among them:

* the draw (R4/R5): one of :func:`draw_choices`;
* an unopened player after drawing (R7/R12): one of :func:`open_choices`; once it opens, which opening: one of
  :func:`opening_choices` (the solver's styles the hand offers);
* an opened player's lay-down (R8): one of :func:`lay_choices`;
* a lay-off step (R8/R9): one of :func:`layoff_choices`, an index into the engine's ``moves`` or ``-1`` (stop);
* the discard (R4/R10): one of :func:`discard_choices`, a card id;
* a claim out of turn (R10): :func:`claim_choices`, ``0`` (pass) or ``1`` (claim).

Arrays: ``hand_me``, ``fits``: ``int8[53]`` (the player's hand as counts; 1 for a card that fits a table meld);
``out``: ``int64[>= 53]`` is enough for every list but :func:`layoff_choices`, which needs ``n_moves + 1``.
"""

from __future__ import annotations

from simulator.core.cards import JOKER
from simulator.core.kernels.jit import njit
from simulator.rami.vocabulary.codes import (
    DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, LAY_NONE, MELD, OPEN_NONE, OPEN_OPEN, OPEN_SEC, OPENING_BEST,
    OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST,
)
from simulator.rami.vocabulary.melds import MAX_HAND, opening_nb

STOP = -1
"""The lay-off answer that ends the player's lay-offs (not offered while a move is forced, R9)."""


@njit(refcount=False, inline="always")
def draw_choices(can_take, out):
    """R4/R5: the stock always, the discard when ``can_take`` (it can be laid this turn)."""
    out[0] = DRAW_STOCK
    if can_take:
        out[1] = DRAW_DISCARD
        return 2
    return 1


@njit(refcount=False, inline="always")
def open_choices(can_open, can_sec, out):
    """R7/R12: not opening always; the best opening when the hand reaches the threshold (``can_open``); going out
    at once in a rami sec when the hand allows it (``can_sec``)."""
    out[0] = OPEN_NONE
    n = 1
    if can_open:
        out[n] = OPEN_OPEN
        n += 1
    if can_sec:
        out[n] = OPEN_SEC
        n += 1
    return n


@njit(refcount=False)
def opening_choices(counts, threshold, represented, franche_inside, min_melds, keep_one, ws, melds, out):
    """R7, once an unopened player opens (its best opening reaches the threshold): the openings its hand
    ``counts`` offers, :data:`~simulator.rami.vocabulary.codes.OPENING_BEST` first, then the smallest and the largest, and the
    best keeping the jokers when the hand holds a joker and can open without it. With ``keep_one`` (R11
    ``final_discard_required``) an opening that lays every card is not offered. ``melds``: ``int8[MAX_OUT, 5]``
    scratch the solver writes; ``counts`` is left as it was.

    The best opening is itself an opening, so the smallest and the largest exist whenever it does, and the
    smallest lays no more cards than the best: the solver runs only for the jokerless opening (a joker in hand)
    and, under ``keep_one``, for the largest. Nine parameters: the hand, the four rule values the solver takes (as
    :func:`simulator.rami.vocabulary.melds.opening_nb`), R11's ``keep_one``, the solver's workspace and two buffers (a
    kernel allocates nothing)."""
    out[0] = OPENING_BEST
    out[1] = OPENING_SMALLEST
    n = 2
    limit = MAX_HAND + 1
    if keep_one:
        limit = 0
        for c in range(JOKER + 1):
            limit += counts[c]
    if not keep_one or _lays_fewer_than(OPENING_LARGEST, limit, counts, threshold, represented, franche_inside,
                                        min_melds, ws, melds):
        out[n] = OPENING_LARGEST
        n += 1
    if counts[JOKER] > 0 and _lays_fewer_than(OPENING_KEEP_JOKERS, limit, counts, threshold, represented,
                                              franche_inside, min_melds, ws, melds):
        out[n] = OPENING_KEEP_JOKERS
        n += 1
    return n


@njit(refcount=False)
def _lays_fewer_than(style, limit, counts, threshold, represented, franche_inside, min_melds, ws, melds):
    """Whether the opening of ``style`` exists and lays fewer than ``limit`` cards.

    Nine parameters: the style and its limit, then :func:`opening_choices`' solver arguments."""
    can, _, n_melds = opening_nb(style, counts, threshold, represented, franche_inside, min_melds, ws, melds)
    laid = 0
    for i in range(n_melds):
        laid += melds[i, MELD.n_cards]
    return can and laid < limit


@njit(refcount=False, inline="always")
def lay_choices(out):
    """R8, opened: lay nothing, the least-left lay-down, or the same keeping the jokers in hand."""
    out[0] = LAY_NONE
    out[1] = LAY_ALL
    out[2] = LAY_KEEP_JOKERS
    return 3


@njit(refcount=False, inline="always")
def layoff_choices(n_moves, forced, out):
    """R8/R9: each listed move ``0 .. n_moves - 1``, then :data:`STOP` unless a move is ``forced`` (a joker taken
    back must be laid again, or a taken card must be laid)."""
    for k in range(n_moves):
        out[k] = k
    if forced:
        return n_moves
    out[n_moves] = STOP
    return n_moves + 1


@njit(refcount=False, inline="always")
def every_held_card_fits(hand_me, fits):
    """Whether every card in ``hand_me`` fits a table meld (then ``playable_discard=forbidden`` forbids none)."""
    for c in range(JOKER + 1):
        if hand_me[c] > 0 and not fits[c]:
            return False
    return True


@njit(refcount=False, inline="always")
def discard_choices(hand_me, fits, forbid_fits, out):
    """R4/R10: each card id held, in id order; under ``forbid_fits`` (``playable_discard=forbidden``) not one that
    fits a table meld, unless every held card does."""
    forbid = forbid_fits and not every_held_card_fits(hand_me, fits)
    n = 0
    for c in range(JOKER + 1):
        if hand_me[c] > 0 and not (forbid and fits[c]):
            out[n] = c
            n += 1
    return n


@njit(refcount=False, inline="always")
def claim_choices(out):
    """R10, out of turn: pass (0) or claim (1) the playable discard; the engine asks only an eligible player."""
    out[0] = 0
    out[1] = 1
    return 2
