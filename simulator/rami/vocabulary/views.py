"""What a Rami player may look at, as numba helpers over its information set.

A strategy never receives another player's hand, the stock or the order of the discard pile. It gets:

* ``hand_me``: ``int8[53]``, its own hand as a count vector (index 52 = jokers);
* public facts: the top discard, ``opened`` (``int8[P]``, who has opened), ``sizes`` (``int64[P]``, hand
  sizes), the table melds' lay-off moves listed for its own hand, ``fits`` (``int8[53]``, the card ids that
  would fit a table meld), its own turn number, the stock size, cumulative scores;
* numbers the engine computed from the hand alone with the meld solver (best opening points, whether a
  rami sec is possible, whether the discard could be laid).
"""

from __future__ import annotations

from simulator.core.cards import JOKER, N_RANKS, N_SUITS
from simulator.core.kernels.jit import njit
from simulator.rami.vocabulary.codes import END_VALUE


@njit(refcount=False)
def hand_size(hand_me):
    n = 0
    for c in range(JOKER + 1):
        n += hand_me[c]
    return n


@njit(refcount=False)
def nth_card(hand_me, k):
    """The card id of the ``k``-th card (0-based) of the hand in id order, copies counted."""
    for c in range(JOKER + 1):
        if k < hand_me[c]:
            return c
        k -= hand_me[c]
    return -1


@njit(refcount=False)
def usefulness(hand_me, c, same_rank=1, next_in_suit=1, two_away=1):
    """How much ``c`` could share a meld with the other cards of the hand: ``same_rank`` for each other suit of its
    rank held, ``next_in_suit`` for each card of its suit one rank away and ``two_away`` for each two ranks away
    (wrapping K-A-2). With the default weights, the number of such cards. A joker is always useful (99)."""
    if c == JOKER:
        return 99
    rank = c % N_RANKS
    suit = c // N_RANKS
    u = 0
    for s in range(N_SUITS):
        if s != suit and hand_me[s * N_RANKS + rank] > 0:
            u += same_rank
    for d in (1, N_RANKS - 1):  # one rank up or down
        if hand_me[suit * N_RANKS + (rank + d) % N_RANKS] > 0:
            u += next_in_suit
    for d in (2, N_RANKS - 2):  # two ranks up or down
        if hand_me[suit * N_RANKS + (rank + d) % N_RANKS] > 0:
            u += two_away
    return u


@njit(refcount=False)
def least_useful_card(hand_me, fits, avoid_fits, same_rank=1, next_in_suit=1, two_away=1):
    """The card least useful to own melds (:func:`usefulness` with these weights), then the highest R13 value, then
    the lowest id.

    Jokers are kept unless only jokers are left; with ``avoid_fits`` a card fitting a table meld (``fits``)
    is avoided unless every card fits."""
    best = -1
    best_u = 1 << 30
    best_v = -1
    for pass_ in range(2):
        for c in range(JOKER):
            if hand_me[c] == 0 or (avoid_fits and pass_ == 0 and fits[c]):
                continue
            u = usefulness(hand_me, c, same_rank, next_in_suit, two_away)
            v = END_VALUE[c]
            if u < best_u or (u == best_u and v > best_v):
                best, best_u, best_v = c, u, v
        if best >= 0:
            return best
    return JOKER


@njit(refcount=False)
def highest_loose_card(hand_me, fits, fitting_too):
    """The highest R13 value among the cards that share a meld with at most one other card of the hand (then the
    lowest id): what a loose card costs if an opponent goes out now. Cards that fit a table meld (``fits``) only
    when no other card is loose and ``fitting_too``; -1 when no card qualifies."""
    best = -1
    best_v = -1
    for pass_ in range(2 if fitting_too else 1):
        for c in range(JOKER):
            if hand_me[c] == 0 or (pass_ == 0 and fits[c]) or usefulness(hand_me, c) > 1:
                continue
            if END_VALUE[c] > best_v:
                best, best_v = c, END_VALUE[c]
        if best >= 0:
            return best
    return -1


@njit(refcount=False)
def opponent_near_out(me, opened, sizes, cards):
    """Whether a player other than ``me`` has opened and holds at most ``cards`` cards (never for ``cards`` 0)."""
    if cards <= 0:
        return False
    for p in range(sizes.shape[0]):
        if p != me and opened[p] != 0 and sizes[p] <= cards:
            return True
    return False
