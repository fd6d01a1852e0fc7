"""The legal choices of each Kamoul decision, listed by the engine (rules K2, K4–K6, K8, K9).

Each function fills ``int64`` buffers with the choices open to player ``me`` now and returns how many there are,
always in the same order (the order the ``random`` strategy draws from, so a game replays from its seed). The
checks of :mod:`simulator.kamoul.vocabulary.answers`, which both engines apply to every answer, accept exactly the answers
built from these lists (``tests/test_kamoul_legal.py`` compares them on random positions):

* the turn's action: one of :func:`turn_actions`;
* the position a taken card replaces: one of :func:`own_cards`; a drawn card: one of :func:`keep_choices`;
* the initial peeks: up to ``n`` distinct entries of :func:`own_cards`;
* a 7/8 or 9/10 look: one of :func:`look_targets`; a J/Q swap or a king: two distinct entries of
  :func:`swap_targets` (one own, one opponent's under ``swap_scope=own_vs_opponent``);
* a snap: distinct own entries of :func:`snap_targets`, or one opponent's entry and one of :func:`own_cards` to
  give.

Arrays: ``occ``, ``faceup``: ``int8[P, S]`` (a card lies there; it lies face up); ``nslots``: ``int64[P]``;
``out``, ``out_p``, ``out_s``: ``int64[>= P * S]``, written from index 0. ``locked`` is the immune caller's seat
(``-1``: none).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary.codes import ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, POWER_PEEK_OWN

WHO_ALL, WHO_OWN, WHO_OPPONENTS = 0, 1, 2
"""Whose cards :func:`swap_targets` lists."""


@njit(inline="llvm")
def turn_actions(can_call, can_contre, can_take, out):
    """K4/K8/K9: KAMOUL if ``can_call``, CONTRE if ``can_contre``, the stock always, the discard if ``can_take``."""
    n = 0
    if can_call:
        out[n] = ACT_CALL
        n += 1
    if can_contre:
        out[n] = ACT_CONTRE
        n += 1
    out[n] = ACT_STOCK
    n += 1
    if can_take:
        out[n] = ACT_TAKE
        n += 1
    return n


@njit(inline="llvm")
def own_cards(me, occ, nslots, out):
    """K2/K4(d): the own positions holding a card, in position order."""
    n = 0
    for s in range(nslots[me]):
        if occ[me, s]:
            out[n] = s
            n += 1
    return n


@njit(inline="llvm")
def keep_choices(me, occ, nslots, out):
    """K4(c): ``-1`` (discard the drawn card), then each own position holding a card (the card it replaces)."""
    out[0] = -1
    return 1 + own_cards(me, occ, nslots, out[1:])


@njit(inline="llvm")
def look_targets(me, kind, occ, nslots, faceup, out_p, out_s):
    """K5 7/8 (``POWER_PEEK_OWN``): own face-down cards; 9/10 (``POWER_PEEK_OPP``): the opponents' face-down
    cards; player order, then position order (the swap targets of that side, no layout locked)."""
    who = WHO_OWN if kind == POWER_PEEK_OWN else WHO_OPPONENTS
    return swap_targets(me, who, occ, nslots, faceup, -1, out_p, out_s)


@njit(refcount=False)
def swappable(p, s, occ, faceup, locked):
    """A card a J/Q swap or a king may target: present, face down, not in the immune caller's layout."""
    return occ[p, s] != 0 and faceup[p, s] == 0 and p != locked


@njit(refcount=False)
def swap_targets(me, who, occ, nslots, faceup, locked, out_p, out_s):
    """K5 J/Q/K: the cards a swap may move (:func:`swappable`), ``who`` = :data:`WHO_ALL`, :data:`WHO_OWN` or
    :data:`WHO_OPPONENTS`; player order, then position order."""
    n = 0
    for p in range(occ.shape[0]):
        if (who == WHO_OWN and p != me) or (who == WHO_OPPONENTS and p == me):
            continue
        for s in range(nslots[p]):
            if swappable(p, s, occ, faceup, locked):
                out_p[n] = p
                out_s[n] = s
                n += 1
    return n


@njit(inline="llvm")
def snap_targets(me, occ, nslots, faceup, allow_others, locked, out_p, out_s):
    """K6: the face-down cards ``me`` may flip: its own, and with ``allow_others`` (``snap_others``) and an own
    card to give, the opponents' outside the locked layout; player order, then position order."""
    n = 0
    gives = False
    for s in range(nslots[me]):
        if occ[me, s]:
            gives = True
    for p in range(occ.shape[0]):
        if p != me and (not allow_others or not gives or p == locked):
            continue
        for s in range(nslots[p]):
            if occ[p, s] and faceup[p, s] == 0:
                out_p[n] = p
                out_s[n] = s
                n += 1
    return n
