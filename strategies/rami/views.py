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
from simulator.core.jit import njit
from simulator.rami.codes import END_VALUE


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
def usefulness(hand_me, c):
    """How many other cards of the hand could share a meld with ``c``: other suits of its rank, and cards of
    its suit one or two ranks away (wrapping K-A-2). A joker is always useful (99)."""
    if c == JOKER:
        return 99
    rank = c % N_RANKS
    suit = c // N_RANKS
    u = 0
    for s in range(N_SUITS):
        if s != suit and hand_me[s * N_RANKS + rank] > 0:
            u += 1
    for d in (1, 2, N_RANKS - 2, N_RANKS - 1):  # one or two ranks up or down
        if hand_me[suit * N_RANKS + (rank + d) % N_RANKS] > 0:
            u += 1
    return u


@njit(refcount=False)
def least_useful_card(hand_me, fits, avoid_fits):
    """``discard_rule`` 0: the card least useful to own melds, then the highest R13 value, then the lowest id.

    Jokers are kept unless only jokers are left; with ``avoid_fits`` a card fitting a table meld (``fits``)
    is avoided unless every card fits."""
    best = -1
    best_u = 1 << 30
    best_v = -1
    for pass_ in range(2):
        for c in range(JOKER):
            if hand_me[c] == 0 or (avoid_fits and pass_ == 0 and fits[c]):
                continue
            u = usefulness(hand_me, c)
            v = END_VALUE[c]
            if u < best_u or (u == best_u and v > best_v):
                best, best_u, best_v = c, u, v
        if best >= 0:
            return best
    return JOKER
