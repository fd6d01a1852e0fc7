"""One entry point per Kamoul decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.decisions`).

``builtin_<name>(sid, prm, *engine_args)`` answers for the built-in families (inlined into the kernel).
``decide_<name>(seats, me, *rest)`` is what the numba engine calls, :func:`ask` what the reference engine calls:
both go to the built-ins for a built-in id and to the user's file otherwise, and check the answer against the
contract (:mod:`strategies.kamoul.contract`, :mod:`strategies.kamoul.answers`). Each decision receives only the
deciding player's information set (see ``strategies.kamoul.views``). Every family answers every decision: an
unknown id is an error, never a silent default. ``call-table`` is ``heuristic`` in every decision but the turn's.
"""

from __future__ import annotations

from simulator.core.decisions import Contract, ReferenceDispatch, compiled_decision
from simulator.core.jit import njit
from simulator.kamoul.codes import ACT_STOCK, DECK_MEAN_VALUE, SNAP_NONE
from strategies.kamoul import answers, call_table, heuristic, random_play
from strategies.kamoul.contract import ARG_TYPES, DECISIONS, TableView
from strategies.kamoul.call_table import CT
from strategies.kamoul.heuristic import H
from strategies.kamoul.random_play import RP
from strategies.kamoul.views import own_estimate

RANDOM, HEURISTIC, CALL_TABLE = 0, 1, 2
BUILTIN_IDS = (RANDOM, HEURISTIC, CALL_TABLE)


@njit(refcount=False, inline="always")
def builtin_peeks(sid, prm, me, n, know_me, occ, nslots, faceup, rng, tmp, out):
    if sid == RANDOM:
        return random_play.peeks(prm, me, n, occ, nslots, rng, tmp, out)
    return heuristic.peeks(prm, me, n, occ, nslots, out)


@njit(refcount=False, inline="always")
def builtin_turn(sid, prm, me, know_me, occ, nslots, faceup, top, can_call, can_contre, can_take, cum_me, au_ge, rng,
                 tmp):
    if sid == RANDOM:
        return random_play.turn(prm, me, can_call, can_contre, can_take, rng, tmp)
    if sid == CALL_TABLE:
        return call_table.turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng)
    return heuristic.turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng)


@njit(refcount=False, inline="always")
def builtin_take_slot(sid, prm, me, know_me, occ, nslots, faceup, rng, tmp):
    if sid == RANDOM:
        return random_play.take_slot(prm, me, occ, nslots, rng, tmp)
    return heuristic.take_slot(prm, me, know_me, occ, nslots)


@njit(refcount=False, inline="always")
def builtin_keep(sid, prm, me, drawn, kind, know_me, occ, nslots, faceup, rng, tmp):
    if sid == RANDOM:
        return random_play.keep(prm, me, occ, nslots, rng, tmp)
    return heuristic.keep_or_spend(prm, me, drawn, kind, know_me, occ, nslots, faceup, rng)


@njit(refcount=False, inline="always")
def builtin_power(sid, prm, me, kind, know_me, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out):
    if sid == RANDOM:
        return random_play.power(prm, me, kind, occ, nslots, faceup, locked, own_vs_opp, rng, tmp, out)
    return heuristic.power(prm, me, occ.shape[0], kind, know_me, occ, nslots, faceup, locked, rng, out)


@njit(refcount=False, inline="always")
def builtin_king_swap(sid, prm, me, know_me, occ, nslots, faceup, pa, ca, pb, cb, rng):
    if sid == RANDOM:
        return random_play.king_swap(prm, rng)
    return heuristic.king_swap(prm, me, pa, ca, pb, cb)


@njit(refcount=False, inline="always")
def builtin_snap(sid, prm, me, top_rank, know_me, occ, nslots, faceup, allow_others, locked, rng, tmp, out):
    if sid == RANDOM:
        return random_play.snap(prm, me, occ, nslots, faceup, allow_others, locked, rng, tmp, out)
    return heuristic.snap(prm, me, occ.shape[0], top_rank, know_me, occ, nslots, faceup, allow_others, locked, rng, out)


@njit(refcount=False, inline="always")
def builtin_estimate(sid, prm, me, know_me, occ, nslots, faceup):
    """``(float64, int64)``: the player's own estimate of its layout and how many of its cards it has not seen."""
    if sid == RANDOM:
        return own_estimate(me, know_me, occ, nslots, DECK_MEAN_VALUE)
    if sid == CALL_TABLE:
        return own_estimate(me, know_me, occ, nslots, prm[CT.unknown_value])
    return own_estimate(me, know_me, occ, nslots, prm[H.unknown_value])


# The three traits read each family's own parameter positions (CT for call-table, H for heuristic); the kernel ids
# reaching these functions are only the registry's, checked against BUILTIN_IDS when the game is declared.
@njit(refcount=False, inline="always")
def builtin_forget(sid, prm):
    if sid == RANDOM:
        return 0.0
    if sid == CALL_TABLE:
        return prm[CT.forget]
    return prm[H.forget]


@njit(refcount=False, inline="always")
def builtin_memory_noise(sid, prm):
    """Per own turn, the probability that each remembered card's rank is misremembered (K13, §4 ``memory_noise``)."""
    if sid == RANDOM:
        return 0.0
    if sid == CALL_TABLE:
        return prm[CT.memory_noise]
    return prm[H.memory_noise]


@njit(refcount=False, inline="always")
def builtin_speed(sid, prm):
    if sid == RANDOM:
        return prm[RP.speed]
    if sid == CALL_TABLE:
        return prm[CT.speed]
    return prm[H.speed]


BUILTIN = {name: globals()[f"builtin_{name}"] for name in DECISIONS}
CONTRACT = Contract(
    game="kamoul", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS, describe=answers.describe,
    view=TableView, arg_types=ARG_TYPES,
    env={"TableView": TableView, "legal_peeks": answers.legal_peeks, "legal_turn": answers.legal_turn,
         "legal_slot": answers.legal_slot, "legal_power": answers.legal_power, "legal_snap": answers.legal_snap,
         "legal_rate": answers.legal_rate, "first_own": answers.first_own, "ACT_STOCK": ACT_STOCK,
         "SNAP_NONE": SNAP_NONE, **{f"D_{n.upper()}": code for n, code in answers.D.items()}},
)

decide_peeks = compiled_decision(CONTRACT, "peeks")
decide_turn = compiled_decision(CONTRACT, "turn")
decide_take_slot = compiled_decision(CONTRACT, "take_slot")
decide_keep = compiled_decision(CONTRACT, "keep")
decide_power = compiled_decision(CONTRACT, "power")
decide_king_swap = compiled_decision(CONTRACT, "king_swap")
decide_snap = compiled_decision(CONTRACT, "snap")
estimate = compiled_decision(CONTRACT, "estimate")
forget_prob = compiled_decision(CONTRACT, "forget")
memory_noise_prob = compiled_decision(CONTRACT, "memory_noise")
speed = compiled_decision(CONTRACT, "speed")

REFERENCE = ReferenceDispatch(CONTRACT)
ask = REFERENCE.ask
checked = REFERENCE.checked
