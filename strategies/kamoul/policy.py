"""One entry point per decision, dispatching on the strategy's integer kernel id.

Built-in strategies are selected by id inside the cached kernel (a jitted strategy passed as an argument
would defeat numba's on-disk cache). Both engines call these same functions, so a strategy behaves
identically in the reference engine and in the kernel; each function receives only the deciding
player's information set (see ``strategies.kamoul.views``), piece by piece (``know_me``, ``occ``, ``nslots``,
``faceup``, public scalars), hence their many arguments: no bundle can carry a hidden array to a strategy.
``call-table`` is ``heuristic`` in every decision but the turn's.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.kamoul.codes import DECK_MEAN_VALUE
from strategies.kamoul import call_table, heuristic, random_play
from strategies.kamoul.heuristic import H
from strategies.kamoul.random_play import RP
from strategies.kamoul.views import own_estimate

RANDOM, HEURISTIC, CALL_TABLE = 0, 1, 2


@njit(refcount=False, inline="always")
def decide_peeks(sid, prm, me, n, occ, nslots, rng, out):
    if sid == RANDOM:
        return random_play.peeks(prm, me, n, occ, nslots, rng, out)
    return heuristic.peeks(prm, me, n, occ, nslots, out)


@njit(refcount=False, inline="always")
def decide_turn(sid, prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    if sid == RANDOM:
        return random_play.turn(prm, me, can_call, can_contre, can_take, rng)
    if sid == CALL_TABLE:
        return call_table.turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng)
    return heuristic.turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng)


@njit(refcount=False, inline="always")
def decide_take_slot(sid, prm, me, know_me, occ, nslots, rng):
    if sid == RANDOM:
        return random_play.take_slot(prm, me, occ, nslots, rng)
    return heuristic.take_slot(prm, me, know_me, occ, nslots)


@njit(refcount=False, inline="always")
def decide_keep(sid, prm, me, drawn, know_me, occ, nslots, rng):
    if sid == RANDOM:
        return random_play.keep(prm, me, occ, nslots, rng)
    return heuristic.keep(prm, me, drawn, know_me, occ, nslots)


@njit(refcount=False, inline="always")
def decide_power(sid, prm, me, P, kind, know_me, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out):
    if sid == RANDOM:
        return random_play.power(prm, me, P, kind, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out)
    return heuristic.power(prm, me, P, kind, know_me, occ, nslots, faceup, locked, rng, out)


@njit(refcount=False, inline="always")
def decide_king_swap(sid, prm, me, pa, ca, pb, cb, rng):
    if sid == RANDOM:
        return random_play.king_swap(prm, rng)
    return heuristic.king_swap(prm, me, pa, ca, pb, cb)


@njit(refcount=False, inline="always")
def decide_snap(sid, prm, me, P, top_rank, know_me, occ, nslots, faceup, allow_others, locked, rng, tmp, out):
    if sid == RANDOM:
        return random_play.snap(prm, me, P, occ, nslots, faceup, allow_others, locked, rng, tmp, out)
    return heuristic.snap(prm, me, P, top_rank, know_me, occ, nslots, faceup, allow_others, locked, rng, out)


@njit(refcount=False, inline="always")
def estimate(sid, prm, me, know_me, occ, nslots):
    """``(float64, int64)``: the player's own estimate of its layout and how many of its cards it has not seen."""
    unknown_value = DECK_MEAN_VALUE if sid == RANDOM else prm[H.unknown_value]
    return own_estimate(me, know_me, occ, nslots, unknown_value)


@njit(refcount=False, inline="always")
def forget_prob(sid, prm):
    return 0.0 if sid == RANDOM else prm[H.forget]


@njit(refcount=False, inline="always")
def memory_noise_prob(sid, prm):
    """Per own turn, the probability that each remembered card's rank is misremembered (K13, §4 ``memory_noise``)."""
    return 0.0 if sid == RANDOM else prm[H.memory_noise]


@njit(refcount=False, inline="always")
def speed(sid, prm):
    return prm[RP.speed] if sid == RANDOM else prm[H.speed]
