"""``random``: a uniformly random legal choice at every decision.

Draw: the discard with probability 1/2 when it may be taken. Unopened: go out in a rami sec with
probability 1/2 when possible, else open with probability 1/2 when possible. Opened: one of the three
lay-down plans uniformly; each lay-off step uniform over the legal moves and "stop". Discard: a card of
the hand uniformly (copies counted) among the legal ones. Claims: with probability ``claim_prob``.
"""

from __future__ import annotations

from simulator.core.cards import JOKER
from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.kernels.rng import below, uniform
from simulator.core.params import Param, ParamSet
from simulator.rami.vocabulary.codes import DRAW_DISCARD, DRAW_STOCK, OPEN_NONE, OPEN_OPEN, OPEN_SEC

PARAMS = ParamSet((
    Param("claim_prob", "float", 0.5, "probability of claiming a playable discard (R10) when eligible", 0.0, 1.0),
    Param("speed", "float", 1.0, "reaction rate in claim races (race_policy=speed_weighted)", 0.01, 100.0, ability=True),
), what="parameter")
PARAM = indices("RandomParams", PARAMS.names())
"""Positions of the parameters in a seat's parameter array (``params[PARAM.claim_prob]``)."""


@njit(refcount=False, inline="always")
def draw(params, can_take, rng):
    if can_take and below(rng, 2) == 1:
        return DRAW_DISCARD
    return DRAW_STOCK


@njit(refcount=False, inline="always")
def open_(params, can_open, can_sec, rng):
    if can_sec and below(rng, 2) == 1:
        return OPEN_SEC
    if can_open and below(rng, 2) == 1:
        return OPEN_OPEN
    return OPEN_NONE


@njit(refcount=False, inline="always")
def lay(params, rng):
    return below(rng, 3)


@njit(refcount=False, inline="always")
def layoff(params, n_moves, forced, rng):
    if forced:
        return below(rng, n_moves)
    k = below(rng, n_moves + 1)
    return -1 if k == n_moves else k


@njit(refcount=False, inline="always")
def discard(params, hand_me, fits, forbid_fits, rng):
    total = 0
    legal = 0
    for c in range(JOKER + 1):
        total += hand_me[c]
        if not (forbid_fits and fits[c]):
            legal += hand_me[c]
    if legal == 0:  # every card fits: any card may go (R10 forbidden has no alternative)
        forbid_fits = False
        legal = total
    k = below(rng, legal)
    for c in range(JOKER + 1):
        if forbid_fits and fits[c]:
            continue
        if k < hand_me[c]:
            return c
        k -= hand_me[c]
    return -1


@njit(refcount=False, inline="always")
def claim(params, rng):
    return uniform(rng) < params[PARAM.claim_prob]
