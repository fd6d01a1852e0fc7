"""A Kamoul strategy file that plays ``balanced`` except for one decision, chosen by its ``bad`` parameter, which
it answers illegally: the contract tests run it to see each decision's check stop the run in both engines.

``bad`` is the 1-based position in :data:`simulator.kamoul.vocabulary.answers.DECISION_ORDER` (0: every answer legal). One
file for every decision keeps it to one compiled kernel (the parameter is data, not code).
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.core.params import Param
from simulator.kamoul.vocabulary.answers import (
    D_FORGET, D_KEEP, D_MEMORY_NOISE, D_PEEKS, D_POWER, D_SNAP, D_SPEED, D_TAKE_SLOT, D_TURN,
)
from simulator.kamoul.vocabulary.codes import ACT_TAKE
from simulator.kamoul.vocabulary.views import own_estimate
from strategies.kamoul import heuristic
from strategies.kamoul.heuristic import H

RAISES = 99  # bad=99: its first decision of a turn raises ZeroDivisionError (the file's own fault)
PARAMS = heuristic.PARAMS.extended(
    Param("bad", "int", 0, "the decision answered illegally (1-based in DECISION_ORDER; 0: none; RAISES: raises)", 0, RAISES),
)
BAD = len(heuristic.PARAMS.params)


@njit
def peeks(prm, view, n, rng, out):
    if prm[BAD] == D_PEEKS:
        return n + 1  # more positions than the rule allows
    return heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)


@njit
def turn(prm, view, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    if prm[BAD] == D_TURN:
        return 9  # no such action
    if prm[BAD] == RAISES:
        return 1 // int(prm[BAD] - prm[BAD])  # ZeroDivisionError
    if prm[BAD] == D_TAKE_SLOT and can_take:
        return ACT_TAKE  # take the discard, so that take_slot is asked
    return heuristic.turn(prm, view.me, view.know, view.occ, view.nslots, top, can_call, can_contre, can_take, cum_me,
                          au_ge, rng)


@njit
def take_slot(prm, view, rng):
    if prm[BAD] == D_TAKE_SLOT:
        return 99  # a position the layout does not have
    return heuristic.take_slot(prm, view.me, view.know, view.occ, view.nslots)


@njit
def keep(prm, view, drawn, rng):
    if prm[BAD] == D_KEEP:
        return 99
    return heuristic.keep(prm, view.me, drawn, view.know, view.occ, view.nslots)


@njit
def power(prm, view, kind, locked, own_vs_opp, rng, tmp, out):
    if prm[BAD] == D_POWER:
        out[0] = view.me
        out[1] = 99  # a card that is not there
        out[2] = view.me
        out[3] = 0
        return True
    return heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, view.faceup,
                           locked, rng, out)


@njit
def king_swap(prm, view, pa, ca, pb, cb, rng):
    return heuristic.king_swap(prm, view.me, pa, ca, pb, cb)


@njit
def snap(prm, view, top_rank, allow_others, locked, rng, tmp, out):
    if prm[BAD] == D_SNAP:
        return 7  # no snap kind
    return heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots, view.faceup,
                          allow_others, locked, rng, out)


@njit
def estimate(prm, view):
    return own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])


@njit
def forget(prm):
    return 1.5 if prm[BAD] == D_FORGET else prm[H.forget]


@njit
def memory_noise(prm):
    return -0.25 if prm[BAD] == D_MEMORY_NOISE else prm[H.memory_noise]


@njit
def speed(prm):
    return 0.0 if prm[BAD] == D_SPEED else prm[H.speed]


MISBEHAVING = strategy(
    game="kamoul", name="misbehaving", params=PARAMS, doc="balanced, but answers decision number `bad` illegally",
    peeks=peeks, turn=turn, take_slot=take_slot, keep=keep, power=power, king_swap=king_swap, snap=snap,
    estimate=estimate, forget=forget, memory_noise=memory_noise, speed=speed,
)
