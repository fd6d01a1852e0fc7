"""The Kem's kernel's per-block state and its small helpers (see :mod:`simulator.kems.engines.kernels`).

``new_state(P)`` allocates the :class:`MancheState` ``manche`` every kernel function works on, read and written by
field name; its scalars ``manche.st`` by the ``ST_*`` indices, the per-seat model
``float64[P, 6]`` by ``S_*``. Also here: the trace hash, seats and teams, scheduling a call, and bringing an
idle player's move times up to date (:func:`catch_up`). The public record players perceive (M-perception) is
kept by :mod:`simulator.kems.engines.kernel_view`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.kernels.rng import NEVER, below, exponential, geometric, uniform
from simulator.core.kernels.trace import fold as trace  # noqa: F401  (the kernels' trace, re-exported)
from simulator.kems.vocabulary.rules import INT_RULE, MAX_LAG, RACE
from simulator.kems.vocabulary.views import PUB_SIZE

REC = MAX_LAG + 2       # M-perception: public states kept (the one visible lag_ticks ago and up to lag + 1 newer)
OWN = 32                # per seat, its last exchanges kept (those not yet in the visible state: <= 4 * MAX_LAG)
S_RATE, S_SIGMA, S_VIS, S_ATT_P, S_ATT_O, S_CONTRE = range(6)
SCALARS = ("outcome", "caller", "why", "ticks", "sweeps", "exchanges", "reshuffles", "redeals", "calls",
           "wrong_contres", "ended", "n_stock", "n_discard", "dealer", "n_states", "dirty", "next_sign",
           "next_false", "next_call", "open_ticks")
ST = indices("MancheScalars", SCALARS)   # manche.st[ST.outcome]
N_ST = len(SCALARS)


class MancheState(NamedTuple):
    """One block's manche state (``manche`` in the kernels), reused from manche to manche; shapes with ``P`` seats,
    ``T = P // 2`` teams, ``REC`` public states kept and ``OWN`` own exchanges per seat."""

    hands:             np.ndarray  # int64[P, 4]      each seat's four cards (KM3)
    table:             np.ndarray  # int64[4]         the centre's face-up cards, EMPTY where taken (KM4)
    rec_table:         np.ndarray  # int64[REC, 4]    public record: the centre of each state (ring by state id)
    rec_visible:       np.ndarray  # int64[REC]       public record: the tick each state is visible from
    loc:               np.ndarray  # int8[52]         where each card is (LOC_*)
    stock:             np.ndarray  # int64[52]        the stock, top = last
    discard:           np.ndarray  # int64[52]        the hidden discard, top = last
    mem:               np.ndarray  # int64[P, 4]      the strategies' memory per hand slot (-1 none)
    work:              np.ndarray  # int64[64]        the strategies' scratch
    out:               np.ndarray  # int64[4, 2]      a proposal's (hand slot, centre slot) pairs
    next_move:         np.ndarray  # float64[P]       each seat's next move time (ticks, continuous)
    last_swap:         np.ndarray  # int64[P]         open ticks before each seat's last exchange
    passed:            np.ndarray  # int8[P]          the seat wants no centre card (KM6 sweep_on_all_pass)
    holding:           np.ndarray  # int8[P]          the seat holds four of a kind
    banned:            np.ndarray  # int8[P]          the seat may not call contre this manche (KM11)
    next_sign:         np.ndarray  # int64[P]         tick of the seat's next sign to its partner (NEVER = none)
    next_false_kems:   np.ndarray  # int64[P]         tick of the seat's next false Kem's alarm (M-calls f_p)
    next_false_contre: np.ndarray  # int64[P]         tick of the seat's next random contre (M-calls f_o)
    pending_due:       np.ndarray  # int64[P, 2]      pending calls (Kem's, contre): due tick (NEVER = none)
    pending_time:      np.ndarray  # float64[P, 2]    pending calls: time inside the tick
    pending_target:    np.ndarray  # int64[P, 2]      pending calls: the team or player named
    pending_why:       np.ndarray  # int64[P, 2]      pending calls: why (WHY_*)
    sightings:         np.ndarray  # int64[P, T]      signs each seat has seen of each team this game (KM13 learning)
    own_table:         np.ndarray  # int64[4]         view with own exchanges: the perceived centre
    silence:           np.ndarray  # int64[P]         open ticks since each seat's last exchange, as perceived
    mover_times:       np.ndarray  # float64[P]       this tick's movers' race times
    movers:            np.ndarray  # int64[P]         this tick's movers (seats, sorted by time)
    mover_pairs:       np.ndarray  # int64[P, 4, 3]   movers' pairs (hand slot, centre slot, expected card)
    mover_pair_counts: np.ndarray  # int64[P]         movers' pair counts
    st:                np.ndarray  # int64[N_ST]      the manche's scalars and counters, by ST_*
    points:            np.ndarray  # int64[T]         points per team
    signs:             np.ndarray  # int64[T]         signs made per team
    seen_partner:      np.ndarray  # int64[T]         signs seen by the partner, per team
    seen_opp:          np.ndarray  # int64[T]         signs seen by opponents, per team
    seat_exchanges:    np.ndarray  # int64[P]         exchanges per seat this manche
    four_tick:         np.ndarray  # int64[P]         tick each seat first held four of a kind (-1 never)
    trace_hash:        np.ndarray  # uint64[1]        the manche's trace hash
    rng:               np.ndarray  # uint64[4]        the manche's random stream
    hand_changed:      np.ndarray  # int8[P]          the seat's hand changed this tick
    rank_counts:       np.ndarray  # int64[13]        rank counts scratch
    cached_view:       np.ndarray  # int64[P]         cached proposal: the view (state id) it was made on (-1 none)
    cached_pairs:      np.ndarray  # int64[P, 4, 3]   cached proposal (hand slot, centre slot, expected card)
    cached_pair_counts:np.ndarray  # int64[P]         cached proposal pair counts
    own_rank_counts:   np.ndarray  # int64[PUB_SIZE]  view with own exchanges: rank counts of its loc
    horizon_view:      np.ndarray  # int64[P]         contre horizon: the view (state id) it was made on (-1 none)
    contre_horizon:    np.ndarray  # int64[P]         contre horizon (open ticks; policy.contre_horizon)
    move_streams:      np.ndarray  # uint64[P, 4]     each seat's own stream for its move times
    idle:              np.ndarray  # int8[P]          idle: its moves change nothing until it perceives a change
    idle_until:        np.ndarray  # int64[P]         idle until: its next perceived change or its contre horizon
    rec_loc:           np.ndarray  # int8[REC, 52]    public record: loc of each state
    rec_last_swap:     np.ndarray  # int64[REC, P]    public record: last_swap of each state
    rec_open:          np.ndarray  # int64[REC, 2]    public record: open ticks before its tick, open from then on
    own_visible:       np.ndarray  # int64[P, OWN]    own exchanges (ring per seat): the tick each is visible from
    own_exchanges:     np.ndarray  # int64[P, OWN, 3] own exchanges: centre slot, card taken, card given
    own_count:         np.ndarray  # int64[P]         own exchanges: how many so far in the manche
    own_loc:           np.ndarray  # int8[52]         view with own exchanges: its loc
    rec_key:           np.ndarray  # int64[REC]       public record: each state's view key (kernel_view)
    rec_rank_counts:   np.ndarray  # int64[REC, PUB_SIZE] public record: rank counts of each state's loc
    rec_ranks_filled:  np.ndarray  # int8[REC]        public record: whether rec_rank_counts is filled for the state


@njit
def new_state(P):
    """Allocate one block's :class:`MancheState`."""
    T = P // 2
    return MancheState(
        hands=np.zeros((P, 4), dtype=np.int64),
        table=np.zeros(4, dtype=np.int64),
        rec_table=np.zeros((REC, 4), dtype=np.int64),
        rec_visible=np.zeros(REC, dtype=np.int64),
        loc=np.zeros(52, dtype=np.int8),
        stock=np.zeros(52, dtype=np.int64),
        discard=np.zeros(52, dtype=np.int64),
        mem=np.zeros((P, 4), dtype=np.int64),
        work=np.zeros(64, dtype=np.int64),
        out=np.zeros((4, 2), dtype=np.int64),
        next_move=np.zeros(P, dtype=np.float64),
        last_swap=np.zeros(P, dtype=np.int64),
        passed=np.zeros(P, dtype=np.int8),
        holding=np.zeros(P, dtype=np.int8),
        banned=np.zeros(P, dtype=np.int8),
        next_sign=np.zeros(P, dtype=np.int64),
        next_false_kems=np.zeros(P, dtype=np.int64),
        next_false_contre=np.zeros(P, dtype=np.int64),
        pending_due=np.zeros((P, 2), dtype=np.int64),
        pending_time=np.zeros((P, 2), dtype=np.float64),
        pending_target=np.zeros((P, 2), dtype=np.int64),
        pending_why=np.zeros((P, 2), dtype=np.int64),
        sightings=np.zeros((P, T), dtype=np.int64),
        own_table=np.zeros(4, dtype=np.int64),
        silence=np.zeros(P, dtype=np.int64),
        mover_times=np.zeros(P, dtype=np.float64),
        movers=np.zeros(P, dtype=np.int64),
        mover_pairs=np.zeros((P, 4, 3), dtype=np.int64),
        mover_pair_counts=np.zeros(P, dtype=np.int64),
        st=np.zeros(N_ST, dtype=np.int64),
        points=np.zeros(T, dtype=np.int64),
        signs=np.zeros(T, dtype=np.int64),
        seen_partner=np.zeros(T, dtype=np.int64),
        seen_opp=np.zeros(T, dtype=np.int64),
        seat_exchanges=np.zeros(P, dtype=np.int64),
        four_tick=np.zeros(P, dtype=np.int64),
        trace_hash=np.zeros(1, dtype=np.uint64),
        rng=np.zeros(4, dtype=np.uint64),
        hand_changed=np.zeros(P, dtype=np.int8),
        rank_counts=np.zeros(13, dtype=np.int64),
        cached_view=np.zeros(P, dtype=np.int64),
        cached_pairs=np.zeros((P, 4, 3), dtype=np.int64),
        cached_pair_counts=np.zeros(P, dtype=np.int64),
        own_rank_counts=np.zeros(PUB_SIZE, dtype=np.int64),
        horizon_view=np.zeros(P, dtype=np.int64),
        contre_horizon=np.zeros(P, dtype=np.int64),
        move_streams=np.zeros((P, 4), dtype=np.uint64),
        idle=np.zeros(P, dtype=np.int8),
        idle_until=np.zeros(P, dtype=np.int64),
        rec_loc=np.zeros((REC, 52), dtype=np.int8),
        rec_last_swap=np.zeros((REC, P), dtype=np.int64),
        rec_open=np.zeros((REC, 2), dtype=np.int64),
        own_visible=np.zeros((P, OWN), dtype=np.int64),
        own_exchanges=np.zeros((P, OWN, 3), dtype=np.int64),
        own_count=np.zeros(P, dtype=np.int64),
        own_loc=np.zeros(52, dtype=np.int8),
        rec_key=np.zeros(REC, dtype=np.int64),
        rec_rank_counts=np.zeros((REC, PUB_SIZE), dtype=np.int64),
        rec_ranks_filled=np.zeros(REC, dtype=np.int8),
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
def schedule(manche, tick, p, kind, target, why, int_rules):
    """Manche.schedule."""
    rng = manche.rng
    low, high = int_rules[INT_RULE.reaction_min], int_rules[INT_RULE.reaction_max]
    due = tick + low + below(rng, high - low + 1)
    manche.pending_due[p, kind] = due
    manche.pending_time[p, kind] = uniform(rng)
    manche.pending_target[p, kind] = target
    manche.pending_why[p, kind] = why


# ------------------------------------------------------------------------------------------ idle players
@njit(refcount=False, inline="always")
def catch_up(manche, p, limit, int_rules, model):
    """Draw, from player ``p``'s own stream, the move times of its moves before tick ``limit`` that the kernel
    skipped (the reference made them and they changed nothing); ``p`` is no longer idle."""
    next_move, sub = manche.next_move, manche.move_streams[p]
    while next_move[p] < limit:
        if int_rules[INT_RULE.race_policy] == RACE.uniform:
            uniform(sub)
        next_move[p] = np.floor(next_move[p]) + 1 + exponential(sub, model[p, S_RATE])
    manche.idle[p] = 0


@njit(refcount=False, inline="always")
def wake_all(manche, tick, P, int_rules, model):
    """Idle players look again from their next move after ``tick`` (a sweep, a call, or an exchange with
    ``sweep_on_all_pass``, whose reset of the passes their skipped moves would have answered)."""
    for p in range(P):
        if manche.idle[p]:
            catch_up(manche, p, tick + 1, int_rules, model)
