"""The Kem's kernel's per-block state and its small helpers (see :mod:`simulator.kems.kernels`).

``new_state(P)`` allocates the tuple ``g`` every kernel function works on; its fields are indexed by position
(the comments in :func:`new_state`), its scalars ``g[29]`` by the ``ST_*`` indices, the per-seat model
``float64[P, 6]`` by ``S_*``. Also here: the trace hash, seats and teams, scheduling a call, and bringing an
idle player's move times up to date (:func:`catch_up`). The public record players perceive (M-perception) is
kept by :mod:`simulator.kems.kernel_view`.
"""

from __future__ import annotations

import numpy as np

from simulator.core.jit import njit
from simulator.core.rng import NEVER, below, exponential, geometric, uniform
from simulator.core.trace import fold as trace  # noqa: F401  (the kernels' trace, re-exported)
from simulator.kems.rules import I_RACE, I_REACT_MAX, I_REACT_MIN, MAX_LAG, RACE_UNIFORM
from strategies.kems.views import PUB_SIZE

REC = MAX_LAG + 2       # M-perception: public states kept (the one visible lag_ticks ago and up to lag + 1 newer)
OWN = 32                # per seat, its last exchanges kept (those not yet in the visible state: <= 4 * MAX_LAG)
S_RATE, S_SIGMA, S_VIS, S_ATT_P, S_ATT_O, S_CONTRE = range(6)
(ST_OUTCOME, ST_CALLER, ST_WHY, ST_TICKS, ST_SWEEPS, ST_EXCH, ST_RESHUF, ST_REDEALS, ST_CALLS, ST_WRONG_CONTRES,
 ST_ENDED, ST_NSTOCK, ST_NDISCARD, ST_DEALER, ST_REC_N, ST_DIRTY, ST_NEXT_SIGN, ST_NEXT_FALSE, ST_NEXT_CALL,
 ST_OPEN_TICKS, N_ST) = range(21)

@njit
def new_state(P):
    """Allocate one block's manche state (the tuple ``g``)."""
    T = P // 2
    return (
        np.zeros((P, 4), dtype=np.int64),           # 0 hands
        np.zeros(4, dtype=np.int64),                # 1 table
        np.zeros((REC, 4), dtype=np.int64),         # 2 public record: the centre of each state (ring by state id)
        np.zeros(REC, dtype=np.int64),              # 3 public record: the tick each state is visible from
        np.zeros(52, dtype=np.int8),                # 4 loc
        np.zeros(52, dtype=np.int64),               # 5 stock
        np.zeros(52, dtype=np.int64),               # 6 discard
        np.zeros((P, 4), dtype=np.int64),           # 7 mem
        np.zeros(64, dtype=np.int64),               # 8 work
        np.zeros((4, 2), dtype=np.int64),           # 9 out
        np.zeros(P, dtype=np.float64),              # 10 next_move
        np.zeros(P, dtype=np.int64),                # 11 last_swap
        np.zeros(P, dtype=np.int8),                 # 12 passed
        np.zeros(P, dtype=np.int8),                 # 13 holding
        np.zeros(P, dtype=np.int8),                 # 14 banned
        np.zeros(P, dtype=np.int64),                # 15 next_sign
        np.zeros(P, dtype=np.int64),                # 16 next_false_kems
        np.zeros(P, dtype=np.int64),                # 17 next_false_contre
        np.zeros((P, 2), dtype=np.int64),           # 18 pending due tick (NEVER = none)
        np.zeros((P, 2), dtype=np.float64),         # 19 pending time inside the tick
        np.zeros((P, 2), dtype=np.int64),           # 20 pending target
        np.zeros((P, 2), dtype=np.int64),           # 21 pending why
        np.zeros((P, T), dtype=np.int64),           # 22 sightings
        np.zeros(4, dtype=np.int64),                # 23 view with own exchanges: the perceived centre
        np.zeros(P, dtype=np.int64),                # 24 silence
        np.zeros(P, dtype=np.float64),              # 25 movers' race times
        np.zeros(P, dtype=np.int64),                # 26 movers (seats, sorted by time)
        np.zeros((P, 4, 3), dtype=np.int64),        # 27 movers' pairs (hand slot, centre slot, expected card)
        np.zeros(P, dtype=np.int64),                # 28 movers' pair counts
        np.zeros(N_ST, dtype=np.int64),             # 29 st
        np.zeros(T, dtype=np.int64),                # 30 points
        np.zeros(T, dtype=np.int64),                # 31 signs
        np.zeros(T, dtype=np.int64),                # 32 seen_partner
        np.zeros(T, dtype=np.int64),                # 33 seen_opp
        np.zeros(P, dtype=np.int64),                # 34 seat exchanges
        np.zeros(P, dtype=np.int64),                # 35 four_tick
        np.zeros(1, dtype=np.uint64),               # 36 h
        np.zeros(4, dtype=np.uint64),               # 37 rng
        np.zeros(P, dtype=np.int8),                 # 38 hand changed this tick
        np.zeros(13, dtype=np.int64),               # 39 rank counts scratch
        np.zeros(P, dtype=np.int64),                # 40 cached proposal: the view (state id) it was made on (-1 none)
        np.zeros((P, 4, 3), dtype=np.int64),        # 41 cached proposal (hand slot, centre slot, expected card)
        np.zeros(P, dtype=np.int64),                # 42 cached proposal pair counts
        np.zeros(PUB_SIZE, dtype=np.int64),         # 43 view with own exchanges: rank counts of its loc
        np.zeros(P, dtype=np.int64),                # 44 contre horizon: the view (state id) it was made on (-1 none)
        np.zeros(P, dtype=np.int64),                # 45 contre horizon (open ticks; policy.contre_horizon)
        np.zeros((P, 4), dtype=np.uint64),          # 46 each player's own stream for its move times
        np.zeros(P, dtype=np.int8),                 # 47 idle: its moves change nothing until it perceives a change
        np.zeros(P, dtype=np.int64),                # 48 idle until: its next perceived change or its contre horizon
        np.zeros((REC, 52), dtype=np.int8),         # 49 public record: loc of each state
        np.zeros((REC, P), dtype=np.int64),         # 50 public record: last_swap of each state
        np.zeros((REC, 2), dtype=np.int64),         # 51 public record: open ticks before its tick, open from then on
        np.zeros((P, OWN), dtype=np.int64),         # 52 own exchanges (ring per seat): the tick visible from
        np.zeros((P, OWN, 3), dtype=np.int64),      # 53 own exchanges: centre slot, card taken, card given
        np.zeros(P, dtype=np.int64),                # 54 own exchanges: how many so far in the manche
        np.zeros(52, dtype=np.int8),                # 55 view with own exchanges: its loc
        np.zeros(REC, dtype=np.int64),              # 56 public record: each state's view key (the id of the
                                                    #    state whose loc, centre and last_swap it has)
        np.zeros((REC, PUB_SIZE), dtype=np.int64),  # 57 public record: rank counts of each state's loc
        np.zeros(REC, dtype=np.int8),               # 58 public record: whether 57 is filled for the state
    )


# ------------------------------------------------------------------------------------------ helpers
@njit(refcount=False, inline="always")
def team(p, P):
    return p % (P // 2)


@njit(refcount=False, inline="always")
def partner(p, P):
    return (p + P // 2) % P


@njit(refcount=False)
def holds_four(hands, p):
    r = hands[p, 0] % 13
    return hands[p, 1] % 13 == r and hands[p, 2] % 13 == r and hands[p, 3] % 13 == r


@njit(refcount=False, inline="always")
def after(tick, p, rng):
    """Manche.after."""
    gap = geometric(rng, p)
    return NEVER if gap >= NEVER else tick + gap


@njit(refcount=False, inline="always")
def schedule(g, tick, p, kind, target, why, ri):
    """Manche.schedule."""
    rng = g[37]
    due = tick + ri[I_REACT_MIN] + below(rng, ri[I_REACT_MAX] - ri[I_REACT_MIN] + 1)
    g[18][p, kind] = due
    g[19][p, kind] = uniform(rng)
    g[20][p, kind] = target
    g[21][p, kind] = why


# ------------------------------------------------------------------------------------------ idle players
@njit(refcount=False, inline="always")
def catch_up(g, p, limit, ri, model):
    """Draw, from player ``p``'s own stream, the move times of its moves before tick ``limit`` that the kernel
    skipped (the reference made them and they changed nothing); ``p`` is no longer idle."""
    next_move, sub = g[10], g[46][p]
    while next_move[p] < limit:
        if ri[I_RACE] == RACE_UNIFORM:
            uniform(sub)
        next_move[p] = np.floor(next_move[p]) + 1 + exponential(sub, model[p, S_RATE])
    g[47][p] = 0


@njit(refcount=False, inline="always")
def wake_all(g, tick, P, ri, model):
    """Idle players look again from their next move after ``tick`` (a sweep, a call, or an exchange with
    ``sweep_on_all_pass``, whose reset of the passes their skipped moves would have answered)."""
    for p in range(P):
        if g[47][p]:
            catch_up(g, p, tick + 1, ri, model)
