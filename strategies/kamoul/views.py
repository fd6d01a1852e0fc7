"""What a Kamoul player may look at, as numba helpers over its information set.

A strategy never receives the hidden layout. It gets:

* ``know_me``: ``int16[P, S]``, the card this player believes lies at each (player, slot), ``-1`` if unknown
  (its own memory: possibly stale after a blind swap it did not notice, or forgotten);
* ``occ``: ``int8[P, S]``, which slots hold a card (the layout is on the table for all to see);
* ``faceup``: ``int8[P, S]``, cards lying face up (only with ``discard_pick_face_up``);
* ``nslots``: ``int64[P]``, one past the highest slot ever used by each player;
* public scalars: the top discard, the caller, cumulative scores.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.kamoul.codes import CARD_VALUE
from simulator.kamoul.legal import swappable  # noqa: F401  (a helper strategies from files import from here)


@njit(inline="always")
def card_value(card):
    return CARD_VALUE[card % 52]


@njit(refcount=False)
def own_estimate(me, know_me, occ, nslots, unknown_value):
    """``(float64 estimate, int64 unknown)``: believed value of the own layout, unknown cards at ``unknown_value``."""
    est = 0.0
    unknown = 0
    for s in range(nslots[me]):
        if occ[me, s]:
            c = know_me[me, s]
            if c < 0:
                unknown += 1
                est += unknown_value
            else:
                est += card_value(c)
    return est, unknown


@njit(refcount=False)
def worst_own_slot(me, know_me, occ, nslots, unknown_value):
    """``(slot, believed value)`` of the own card believed worst; ``(-1, -1.0)`` with an empty layout.

    An unknown card counts ``unknown_value``; on equal values a known card is preferred (its value is sure).
    """
    best = -1
    best_value = -1.0
    best_known = False
    for s in range(nslots[me]):
        if occ[me, s]:
            c = know_me[me, s]
            v = unknown_value if c < 0 else float(card_value(c))
            known = c >= 0
            if v > best_value or (v == best_value and known and not best_known):
                best, best_value, best_known = s, v, known
    return best, best_value


@njit(refcount=False)
def nth_occupied(me, occ, nslots, k):
    """Slot of the ``k``-th (0-based) occupied position of player ``me``."""
    for s in range(nslots[me]):
        if occ[me, s]:
            if k == 0:
                return s
            k -= 1
    return -1
