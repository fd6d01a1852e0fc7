"""Every write to the players' memory of the table, and the snap index kept up to date with it.

``state.know[o, p, s]`` (``int16[P, P, S]``) is the card player ``o`` believes lies at position ``s`` of player
``p`` (``-1``: unknown). The kernel changes it only through these functions, which keep
``state.held[o, r]`` (``int16[P, N_RANKS]``): how many of its own positions ``o`` believes hold a card of rank
``r`` (``know[o, o, s] % N_RANKS == r``, whatever the position's occupancy or face). ``held[o]`` is made of
``know[o, o]`` alone, so it is part of player ``o``'s information set and of nobody else's.

A snap window (K6) asks each player in turn whether it snaps. A family that declares ``SNAPS_ON_BELIEF``
answers "no" without drawing a random number when it believes none of its own face-down cards has the rank
(``strategies.kamoul.policy.snaps_on_belief``), so when ``held[q, rank] == 0`` the engine skips asking it
(:func:`askable`): the same answers and the same draws, for one load instead of a scan of the layout. A
strategy file may declare the same (``strategy(snaps_on_belief=True)``): both engines then skip it alike. Without
``snap_others`` that is the whole question; with it a player may also snap a card it remembers elsewhere, and
every player is asked.

``state.holders[r]`` (``int64[N_RANKS]``) is the same index read by rank: bit ``o`` is set while
``held[o, r] > 0``. A window whose rank nobody can claim is then one test of a word (:func:`askable`), and a
claimed window visits only the players whose bit is set.
"""

from __future__ import annotations

from simulator.core.cards import N_RANKS
from simulator.core.kernels.jit import njit
from strategies.kamoul.policy import snaps_on_belief


@njit(inline="llvm")
def believe(state, o, p, s, card):
    """Player ``o`` now believes ``card`` (``-1``: nothing) lies at ``(p, s)``."""
    if o == p:
        old = state.know[o, p, s]
        if old >= 0:
            rank = old % N_RANKS
            state.held[o, rank] -= 1
            if state.held[o, rank] == 0:
                state.holders[rank] &= ~(1 << o)
        if card >= 0:
            rank = card % N_RANKS
            state.held[o, rank] += 1
            state.holders[rank] |= 1 << o
    state.know[o, p, s] = card


@njit(inline="llvm")
def everyone_believes(state, p, s, card):
    """Every player now believes ``card`` (``-1``: nothing) lies at ``(p, s)``: the owner through :func:`believe`
    (its snap index), the others by a plain write (no owner test per player)."""
    believe(state, p, p, s, card)
    for o in range(state.players):
        state.know[o, p, s] = card


@njit(inline="llvm")
def only_owner_believes(state, p, s, card):
    """``p`` now believes ``card`` lies at its own ``(p, s)`` and nobody else believes anything there (a card
    drawn from the stock and kept face down)."""
    believe(state, p, p, s, card)
    for o in range(state.players):
        state.know[o, p, s] = -1
    state.know[p, p, s] = card


@njit(inline="llvm")
def swap_beliefs(state, o, p1, s1, p2, s2):
    """Player ``o`` exchanges what it believes of ``(p1, s1)`` and ``(p2, s2)`` (it saw, or guessed, a swap)."""
    first = state.know[o, p1, s1]
    believe(state, o, p1, s1, state.know[o, p2, s2])
    believe(state, o, p2, s2, first)


@njit(inline="llvm")
def forget_all(state):
    """Nobody believes anything (a new hand): ``know`` is reset where a position was used (``s < nslots[p]``,
    the others were never written) and the snap index emptied."""
    know, held, nslots = state.know, state.held, state.nslots
    P = state.players
    for r in range(N_RANKS):
        state.holders[r] = 0
    for o in range(P):
        for r in range(N_RANKS):
            held[o, r] = 0
        for p in range(P):
            for s in range(nslots[p]):
                know[o, p, s] = -1


@njit(refcount=False)
def always_asked(seats):
    """``int64``: bit ``q`` set for each seat the snap index cannot skip (not ``SNAPS_ON_BELIEF``: ``random``, or
    a file that does not declare it). The same for every hand of a run."""
    mask = 0
    for q in range(seats.sids.shape[0]):
        if not (snaps_on_belief(seats.sids[q]) or seats.snaps_on_belief[q]):
            mask |= 1 << q
    return mask


@njit(inline="llvm")
def askable(rank, caller, use_index, always, state):
    """``int64``: bit ``q`` set for each player a snap window on ``rank`` must ask: every player but the caller
    (``-1``: none) without ``use_index``; with it, those the index says may claim (``holders[rank]``) and the
    ``always`` seats (:func:`always_asked`). 0: nobody can claim, the window is closed at once."""
    P = state.players
    everyone = (1 << P) - 1
    mask = (state.holders[rank] | always) if use_index else everyone
    if caller >= 0:
        mask &= ~(1 << caller)
    return mask
