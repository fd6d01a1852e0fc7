"""Every write to the players' memory of the table, and the snap index kept up to date with it.

``state.know[o, p, s]`` (``int16[P, P, S]``) is the card player ``o`` believes lies at position ``s`` of player
``p`` (``-1``: unknown). The kernel changes it only through these functions, which keep
``state.held[o, r]`` (``int16[P, N_RANKS]``): how many of its own positions ``o`` believes hold a card of rank
``r`` (``know[o, o, s] % N_RANKS == r``, whatever the position's occupancy or face). ``held[o]`` is made of
``know[o, o]`` alone, so it is part of player ``o``'s information set and of nobody else's.

A snap window (K6) asks each player in turn whether it snaps. A family that declares ``SNAPS_ON_BELIEF``
answers "no" without drawing a random number when it believes none of its own face-down cards has the rank
(``strategies.kamoul.policy.snaps_on_belief``), so when ``held[q, rank] == 0`` the engine skips asking it
(:func:`may_snap`): the same answers and the same draws, for one load instead of a scan of the layout. A
strategy file may declare the same (``strategy(snaps_on_belief=True)``): both engines then skip it alike. Without
``snap_others`` that is the whole question; with it a player may also snap a card it remembers elsewhere, and
every player is asked.
"""

from __future__ import annotations

from simulator.core.cards import N_RANKS
from simulator.core.jit import njit
from strategies.kamoul.policy import snaps_on_belief


@njit(refcount=False, inline="always")
def believe(state, o, p, s, card):
    """Player ``o`` now believes ``card`` (``-1``: nothing) lies at ``(p, s)``."""
    if o == p:
        old = state.know[o, p, s]
        if old >= 0:
            state.held[o, old % N_RANKS] -= 1
        if card >= 0:
            state.held[o, card % N_RANKS] += 1
    state.know[o, p, s] = card


@njit(refcount=False, inline="always")
def everyone_believes(state, p, s, card):
    """Every player now believes ``card`` (``-1``: nothing) lies at ``(p, s)``."""
    for o in range(state.know.shape[0]):
        believe(state, o, p, s, card)


@njit(refcount=False, inline="always")
def swap_beliefs(state, o, p1, s1, p2, s2):
    """Player ``o`` exchanges what it believes of ``(p1, s1)`` and ``(p2, s2)`` (it saw, or guessed, a swap)."""
    first = state.know[o, p1, s1]
    believe(state, o, p1, s1, state.know[o, p2, s2])
    believe(state, o, p2, s2, first)


@njit(refcount=False)
def forget_all(state):
    """Nobody believes anything (a new hand): ``know`` is reset where a position was used (``s < nslots[p]``,
    the others were never written) and the snap index emptied."""
    know, held, nslots = state.know, state.held, state.nslots
    P = nslots.shape[0]
    for o in range(P):
        for r in range(N_RANKS):
            held[o, r] = 0
        for p in range(P):
            for s in range(nslots[p]):
                know[o, p, s] = -1


@njit(refcount=False, inline="always")
def may_snap(q, rank, use_index, seats, state):
    """Whether asking ``q`` to snap on ``rank`` can get anything but "no": False only for a ``SNAPS_ON_BELIEF``
    seat (a built-in family's declaration, or a file's, ``seats.snaps_on_belief``) that believes no own card of
    ``rank``, and only with ``use_index`` (``snap_others`` off)."""
    return (not use_index or state.held[q, rank] > 0
            or not (snaps_on_belief(seats.sids[q]) or seats.snaps_on_belief[q]))
