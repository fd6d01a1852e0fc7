"""A Kamoul player that never says CONTRE and calls KAMOUL only on a fully known layout of at most ``call_at``
points; every other decision is the built-in heuristic's (``balanced``'s parameters).

    cardsim simulate kamoul -n 20000 --strategy examples/kamoul_never_contre.py:never-contre --strategy balanced \\
        --strategy balanced --strategy balanced --out runs/never-contre

The decisions are numba functions, so it runs in the compiled engine (each compiled for its decision's signature
the first time, in seconds, then loaded from the cache until this file changes).
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.core.params import Param, ParamSet
from simulator.kamoul.vocabulary.codes import ACT_CALL, ACT_STOCK, ACT_TAKE
from simulator.kamoul.vocabulary.views import card_value, own_estimate, worst_own_slot
from strategies.kamoul import heuristic
from strategies.kamoul.heuristic import H

PARAMS = heuristic.PARAMS.extended(
    Param("call_at", "float", 2.0, "call KAMOUL when every own card is known and they total at most this", 0.0, 30.0),
)
CALL_AT = len(heuristic.PARAMS.params)  # position of call_at in prm (after the heuristic's parameters)


@njit
def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    total, unknown = own_estimate(view.me, view.know, view.occ, view.nslots, 0.0)
    if can_call and unknown == 0 and total <= prm[CALL_AT]:
        return ACT_CALL
    slot, worst = worst_own_slot(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])
    if can_take and top >= 0 and slot >= 0 and card_value(top) <= prm[H.take_discard_max] and card_value(top) < worst:
        return ACT_TAKE
    return ACT_STOCK


@njit
def peeks(prm, view, n, rng, out):
    return heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)


@njit
def take_slot(prm, view, rng):
    return heuristic.take_slot(prm, view.me, view.know, view.occ, view.nslots)


@njit
def keep(prm, view, drawn, rng):
    return heuristic.keep(prm, view.me, drawn, view.know, view.occ, view.nslots)


@njit
def power(prm, view, kind, locked, own_vs_opp, rng, tmp, out):
    return heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, view.faceup,
                           locked, rng, out)


@njit
def king_swap(prm, view, pa, ca, pb, cb, rng):
    return heuristic.king_swap(prm, view.me, pa, ca, pb, cb)


@njit
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    return heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots, view.faceup,
                          allow_others, locked, rng, out)


@njit
def estimate(prm, view):
    return own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])


@njit
def forget(prm):
    return prm[H.forget]


@njit
def memory_noise(prm):
    return prm[H.memory_noise]


@njit
def speed(prm):
    return prm[H.speed]


NEVER_CONTRE = strategy(
    game="kamoul", name="never-contre", params=PARAMS,
    doc="never contres; calls only on a fully known layout of at most call_at points",
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
)
