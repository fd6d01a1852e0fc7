"""What a Kamoul player may look at, as numba helpers over its information set.

A strategy never receives the hidden layout. It gets:

* ``know_me``: ``int16[P, S]``, the card this player believes lies at each (player, slot), ``-1`` if unknown
  (its own memory: possibly stale after a blind swap it did not notice, or forgotten);
* ``occ``: ``int8[P, S]``, which slots hold a card (the layout is on the table for all to see);
* ``faceup``: ``int8[P, S]``, cards lying face up (only with ``discard_pick_face_up``);
* ``nslots``: ``int64[P]``, one past the highest slot ever used by each player (``S`` is at least the cards in
  play, 104 in the numba engine, whose table is sized for two decks: read the slots below ``nslots[p]`` only);
* public scalars: the top discard, the caller, cumulative scores.

The turn, keep and take decisions of the built-in families also get ``own``, the summary of the player's own
layout as it believes it (:func:`own_summary`, made of ``know_me[me]`` and ``occ[me]`` only): the engine makes it
once per turn, so that each decision reads six numbers instead of scanning the layout again.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.kamoul.vocabulary.codes import CARD_VALUE
from simulator.kamoul.vocabulary.legal import swappable  # noqa: F401  (a helper strategies from files import from here)


@njit(inline="llvm")
def card_value(card):
    """K1: the points of ``card``. Card codes are 0–51 in every variant (a second deck repeats the codes), so the
    table is read directly: the modulo it used to take was a multiply chain in every scan of a layout."""
    return CARD_VALUE[card]


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


OWN_FIELDS = ("cards", "unseen", "known_points", "worst_known", "worst_known_value", "first_unseen")
"""The summary of a player's own layout (:func:`own_summary`, a tuple of six ``int64`` indexed by :data:`OWN`): how
many cards it holds, how many of them it has not seen (no belief), the points of those it believes it knows, the
first position of the highest of those (``-1``: none) and its value, the first position it has not seen
(``-1``: none)."""
OWN = indices("OwnSummary", OWN_FIELDS)


@njit(inline="llvm")
def own_summary(me, know_me, occ, nslots):
    """``UniTuple(int64, 6)`` in :data:`OWN` order: the summary of ``me``'s own layout from its beliefs.

    Written without branches (selects and masks): whether a position is held and whether its card is known
    change from turn to turn, and mispredicted branches were most of this loop's time. An unknown card (``-1``)
    reads the value table's last entry, which the ``known`` mask then drops."""
    cards = 0
    unseen = 0
    points = 0
    worst = -1
    worst_value = -1
    first_unseen = -1
    for s in range(nslots[me]):
        held = occ[me, s] != 0
        c = know_me[me, s]
        known = held & (c >= 0)
        blind = held & (c < 0)
        v = card_value(c)
        cards += held
        unseen += blind
        points += v if known else 0
        higher = known & (v > worst_value)
        worst = s if higher else worst
        worst_value = v if higher else worst_value
        first_unseen = s if blind & (first_unseen < 0) else first_unseen
    return cards, unseen, points, worst, worst_value, first_unseen


@njit(inline="llvm")
def summary_estimate(own, unknown_value):
    """``(float64 estimate, int64 unseen)`` from a summary: the known points plus ``unknown_value`` per unseen card
    (what :func:`own_estimate` sums position by position; the same number when ``unknown_value`` is whole)."""
    return own[OWN.known_points] + own[OWN.unseen] * unknown_value, own[OWN.unseen]


@njit(inline="llvm")
def summary_worst(own, unknown_value):
    """:func:`worst_own_slot`'s answer from a summary: an unseen card (valued ``unknown_value``) when it is worth
    more than every known one, else the first known card of the highest value (a sure value wins a tie)."""
    if own[OWN.first_unseen] >= 0 and (own[OWN.worst_known] < 0 or unknown_value > own[OWN.worst_known_value]):
        return own[OWN.first_unseen], unknown_value
    if own[OWN.worst_known] >= 0:
        return own[OWN.worst_known], float(own[OWN.worst_known_value])
    return -1, -1.0
