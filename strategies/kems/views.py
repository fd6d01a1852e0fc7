"""What a Kem's player may look at, as numba helpers over its information set.

A strategy never receives another player's hand, the stock or the hidden discard. It gets:

* ``hand``: ``int64[4]``, its own four card ids;
* ``seen``: ``int64[4]``, the centre as it perceives it (``lag_ticks`` old; ``EMPTY`` for a free slot);
* ``loc``: ``int8[52]``, public knowledge of every card (a seat, ``LOC_TABLE``, ``LOC_DEAD``,
  ``LOC_UNKNOWN``; see :mod:`simulator.kems.codes`): what every exchange, sweep, re-deal and revealed hand
  showed to all;
* ``silence``: ``int64[P]``, ticks since each player's last exchange (public);
* ``mem``: ``int64[4]``, the player's own memory between decisions (``mem[0]``: the rank it collects);
* ``work``: ``int64[64]`` scratch space (kernels do not allocate).
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.kems.codes import EMPTY, LOC_TABLE, LOC_UNKNOWN

N_RANKS = 13
W_CNT, W_TAB, W_AVAIL, W_RIVAL = 0, 13, 26, 39   # offsets of four int64[13] rank tables in ``work``


@njit(refcount=False, inline="always")
def team(seat, players):
    return seat % (players // 2)


@njit(refcount=False)
def rank_tables(me, players, hand, seen, loc, work):
    """Fill ``work`` with four rank tables: own count, count in the perceived centre, copies not known to be
    elsewhere (unknown or in the centre, own cards excluded) and the most copies any opponent is known to hold."""
    for r in range(4 * N_RANKS):
        work[r] = 0
    for k in range(4):
        work[W_CNT + hand[k] % N_RANKS] += 1
    for k in range(4):
        if seen[k] != EMPTY:
            work[W_TAB + seen[k] % N_RANKS] += 1
    my_team = team(me, players)
    for r in range(N_RANKS):
        for s in range(4):
            c = s * N_RANKS + r
            where = loc[c]
            if where == me:
                continue
            mine = False
            for k in range(4):
                if hand[k] == c:
                    mine = True
            if mine:
                continue
            if where == LOC_UNKNOWN or where == LOC_TABLE:
                work[W_AVAIL + r] += 1
        for p in range(players):
            if team(p, players) == my_team:
                continue
            n = 0
            for s in range(4):
                if loc[s * N_RANKS + r] == p:
                    n += 1
            if n > work[W_RIVAL + r]:
                work[W_RIVAL + r] = n


@njit(refcount=False, inline="always")
def holds_four(hand):
    r = hand[0] % N_RANKS
    return hand[1] % N_RANKS == r and hand[2] % N_RANKS == r and hand[3] % N_RANKS == r
