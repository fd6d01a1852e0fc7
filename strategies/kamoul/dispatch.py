"""The built-in Kamoul families' answer to each decision, by kernel id: one function per decision of the contract
(:data:`simulator.kamoul.vocabulary.contract.DECISIONS`), ``(sid, prm, c)`` with ``c`` the decision's context.
They are inlined into the kernel by LLVM (``inline="llvm"``).

Adding a family: its kernel id in :data:`FAMILIES` and its branch in each function below
(``tests/test_decisions.py`` holds every function to the families and to the contract). ``call-table`` plays as
the heuristic but for its turn and the traits it reads at its own positions. A seat's answer here is not checked
in the kernel: the reference engine checks every built-in answer in the agreement tests.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary.codes import DECK_MEAN_VALUE
from simulator.kamoul.vocabulary.views import own_estimate, summary_worst
from strategies.kamoul import call_table, heuristic, random_play, search
from strategies.kamoul.call_table import CT
from strategies.kamoul.heuristic import H
from strategies.kamoul.random_play import RP

RANDOM, HEURISTIC, CALL_TABLE, SEARCH = 0, 1, 2, 3
FAMILIES = {RANDOM: random_play, HEURISTIC: heuristic, CALL_TABLE: call_table, SEARCH: search}
"""The built-in families by kernel id (the registry's ``StrategyDef.kernel_id``). ``search`` answers here as its
base player, the heuristic: the engines search its turns before asking (``simulator.kamoul.engines.search_seats``)."""


@njit(inline="llvm")
def peeks(sid, prm, c):
    if sid == RANDOM:
        return random_play.peeks(prm, c.me, c.n, c.occ, c.nslots, c.rng, c.tmp, c.out)
    return heuristic.peeks(prm, c.me, c.n, c.occ, c.nslots, c.out)


@njit(inline="llvm")
def turn(sid, prm, c):
    if sid == RANDOM:
        return random_play.turn(prm, c.me, c.can_call, c.can_contre, c.can_take, c.rng, c.tmp)
    if sid == CALL_TABLE:
        return call_table.turn_on(prm, c.own, c.top, c.can_call, c.can_contre, c.can_take, c.cum_me, c.au_ge)
    return heuristic.turn_on(prm, c.own, c.top, c.can_call, c.can_contre, c.can_take, c.cum_me, c.au_ge)


@njit(inline="llvm")
def take_slot(sid, prm, c):
    if sid == RANDOM:
        return random_play.take_slot(prm, c.me, c.occ, c.nslots, c.rng, c.tmp)
    return summary_worst(c.own, prm[H.unknown_value])[0]


@njit(inline="llvm")
def keep(sid, prm, c):
    if sid == RANDOM:
        return random_play.keep(prm, c.me, c.occ, c.nslots, c.rng, c.tmp)
    return heuristic.keep_or_spend(prm, c.me, c.drawn, c.kind, c.own, c.know, c.occ, c.nslots, c.faceup, c.rng)


@njit(inline="llvm")
def power(sid, prm, c):
    if sid == RANDOM:
        return random_play.power(prm, c.me, c.kind, c.occ, c.nslots, c.faceup, c.locked, c.own_vs_opp, c.rng, c.tmp,
                                 c.out)
    return heuristic.power(prm, c.me, c.occ.shape[0], c.kind, c.know, c.occ, c.nslots, c.faceup, c.locked, c.rng,
                           c.out)


@njit(inline="llvm")
def king_swap(sid, prm, c):
    if sid == RANDOM:
        return random_play.king_swap(prm, c.rng)
    return heuristic.king_swap(prm, c.me, c.pa, c.ca, c.pb, c.cb)


@njit(inline="llvm")
def snap(sid, prm, c):
    if sid == RANDOM:
        return random_play.snap(prm, c.me, c.occ, c.nslots, c.faceup, c.allow_others, c.locked, c.rng, c.tmp, c.out)
    return heuristic.snap(prm, c.me, c.occ.shape[0], c.top_rank, c.know, c.occ, c.nslots, c.faceup, c.allow_others,
                          c.locked, c.rng, c.out)


@njit(inline="llvm")
def estimate(sid, prm, c):
    if sid == RANDOM:
        return own_estimate(c.me, c.know, c.occ, c.nslots, DECK_MEAN_VALUE)
    if sid == CALL_TABLE:
        return own_estimate(c.me, c.know, c.occ, c.nslots, prm[CT.unknown_value])
    return own_estimate(c.me, c.know, c.occ, c.nslots, prm[H.unknown_value])


@njit(inline="llvm")
def forget(sid, prm, c):
    if sid == RANDOM:
        return 0.0  # random never forgets
    if sid == CALL_TABLE:
        return prm[CT.forget]
    return prm[H.forget]


@njit(inline="llvm")
def memory_noise(sid, prm, c):
    if sid == RANDOM:
        return 0.0
    if sid == CALL_TABLE:
        return prm[CT.memory_noise]
    return prm[H.memory_noise]


@njit(inline="llvm")
def speed(sid, prm, c):
    if sid == RANDOM:
        return prm[RP.speed]
    if sid == CALL_TABLE:
        return prm[CT.speed]
    return prm[H.speed]


BUILTIN = {"peeks": peeks, "turn": turn, "take_slot": take_slot, "keep": keep, "power": power,
           "king_swap": king_swap, "snap": snap, "estimate": estimate, "forget": forget,
           "memory_noise": memory_noise, "speed": speed}
"""Each decision's dispatch, by its name in the contract."""
