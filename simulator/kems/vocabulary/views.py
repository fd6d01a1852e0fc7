"""What a Kem's player may look at, as numba helpers over its information set.

A strategy never receives another player's hand, the stock or the hidden discard, nor any public event younger
than the perception lag (M-perception): ``seen``, ``loc``, ``pub`` and ``silence`` all come from the public state
of ``lag_ticks`` ago, with only the player's own exchanges since added. It gets:

* ``hand``: ``int64[4]``, its own four card ids (current);
* ``seen``: ``int64[4]``, the centre as it perceives it (``EMPTY`` for a free slot);
* ``loc``: ``int8[52]``, public knowledge of every card (a seat, ``LOC_TABLE``, ``LOC_DEAD``,
  ``LOC_UNKNOWN``; see :mod:`simulator.kems.vocabulary.codes`): what every exchange, sweep, re-deal and revealed hand
  showed to all; a card is in ``seen`` exactly when ``loc`` says ``LOC_TABLE``; and ``pub``, its rank counts
  (:func:`summarise`, layout ``PUB_*``);
* ``silence``: ``int64[P]``, ticks of open exchange since each player's last exchange (public);
* ``mem``: ``int64[4]``, the player's own memory between decisions (``mem[0]``: the rank it collects);
* ``work``: ``int64[64]`` scratch space (kernels do not allocate).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.kems.vocabulary.codes import EMPTY, LOC_TABLE, LOC_UNKNOWN

N_RANKS = 13
W_CNT, W_TAB, W_AVAIL, W_RIVAL = 0, 13, 26, 39   # offsets of four int64[13] rank tables in ``work``
PUB_UNKNOWN, PUB_TABLE, PUB_KNOWN = 0, 13, 26     # ``pub``: rank counts of unplaced cards, centre cards, then
PUB_N_KNOWN = PUB_KNOWN + 6 * N_RANKS             # per seat [p * 13 + r] cards known in p's hand; then per seat totals
PUB_SIZE = PUB_N_KNOWN + 6


@njit(refcount=False, inline="always")
def team(seat, players):
    return seat % (players // 2)


@njit(refcount=False)
def summarise(loc, players, pub):
    """Fill ``pub`` (``int64[PUB_SIZE]``) with the rank counts of public knowledge ``loc``: cards whose place is
    unknown, cards in the centre, and per seat the cards known to be in its hand (and how many)."""
    for i in range(PUB_SIZE):
        pub[i] = 0
    for c in range(52):
        where = loc[c]
        r = c % N_RANKS
        if where == LOC_UNKNOWN:
            pub[PUB_UNKNOWN + r] += 1
        elif where == LOC_TABLE:
            pub[PUB_TABLE + r] += 1
        elif 0 <= where < players:
            pub[PUB_KNOWN + where * N_RANKS + r] += 1
            pub[PUB_N_KNOWN + where] += 1


@njit(refcount=False)
def rank_tables(me, players, hand, seen, loc, pub, work):
    """Fill ``work`` with four rank tables: own count, count in the perceived centre, copies not known to be
    elsewhere (unknown or in the centre, own cards excluded) and the most copies any opponent is known to hold."""
    for r in range(N_RANKS):
        work[W_CNT + r] = 0
        work[W_TAB + r] = 0
        work[W_AVAIL + r] = pub[PUB_UNKNOWN + r] + pub[PUB_TABLE + r]
        work[W_RIVAL + r] = 0
    for k in range(4):
        c = hand[k]
        work[W_CNT + c % N_RANKS] += 1
        if loc[c] == LOC_UNKNOWN:
            work[W_AVAIL + c % N_RANKS] -= 1
        if seen[k] != EMPTY:
            work[W_TAB + seen[k] % N_RANKS] += 1
    my_team = team(me, players)
    for p in range(players):
        if team(p, players) == my_team:
            continue
        base = PUB_KNOWN + p * N_RANKS
        for r in range(N_RANKS):
            if pub[base + r] > work[W_RIVAL + r]:
                work[W_RIVAL + r] = pub[base + r]


@njit(refcount=False, inline="always")
def holds_four(hand):
    r = hand[0] % N_RANKS
    return hand[1] % N_RANKS == r and hand[2] % N_RANKS == r and hand[3] % N_RANKS == r
