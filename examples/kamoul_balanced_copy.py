"""``balanced`` written as a user's strategy file: the built-in heuristic's functions behind the Kamoul contract.

Run it as ``--strategy examples/kamoul_balanced_copy.py:balanced-copy``; it plays exactly like the built-in
``balanced`` (same rows for the same seed) and runs in the compiled engine.
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.kamoul.vocabulary.views import own_estimate, summary_worst
from strategies.kamoul import heuristic
from strategies.kamoul.heuristic import H, PARAMS


@njit(inline="always")
def peeks(prm, view, n, rng, out):
    return heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)


@njit(inline="always")
def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    return heuristic.turn_on(prm, view.own, top, can_call, can_contre, can_take, cum_me, au_ge)


@njit(inline="always")
def take_slot(prm, view, rng):
    return summary_worst(view.own, prm[H.unknown_value])[0]


@njit(inline="always")
def keep(prm, view, drawn, rng):
    return heuristic.keep_on(prm, drawn, view.own)


@njit(inline="always")
def power(prm, view, kind, locked, own_vs_opp, rng, tmp, out):
    return heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, view.faceup,
                           locked, rng, out)


@njit(inline="always")
def king_swap(prm, view, pa, ca, pb, cb, rng):
    return heuristic.king_swap(prm, view.me, pa, ca, pb, cb)


@njit(inline="always")
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    return heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots, view.faceup,
                          allow_others, locked, rng, out)


@njit(inline="always")
def estimate(prm, view):
    return own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])


@njit(inline="always")
def forget(prm):
    return prm[H.forget]


@njit(inline="always")
def memory_noise(prm):
    return prm[H.memory_noise]


@njit(inline="always")
def speed(prm):
    return prm[H.speed]


BALANCED_COPY = strategy(
    game="kamoul", name="balanced-copy", params=PARAMS, doc="the built-in balanced, written as a strategy file",
    snaps_on_belief=True,  # its snap is "no", with no draw, when it believes no own card of the rank (as balanced's)
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
)
