"""One entry point per Rami decision, dispatching on the strategy's integer kernel id.

Built-in strategies are selected by id inside a cached kernel (a jitted strategy passed as an argument
would defeat numba's on-disk cache). The reference engine and the future kernel call these same functions,
so a strategy behaves identically in both; each receives only the deciding player's information set
(:mod:`strategies.rami.views`). Random strategies draw from the game's own stream ``rng``.

Decisions, in the order of a turn (R4):

* ``decide_draw`` → ``DRAW_STOCK`` / ``DRAW_DISCARD`` (the latter only when ``can_take``);
* ``decide_open`` (unopened) → ``OPEN_NONE`` / ``OPEN_OPEN`` (lay the best opening) / ``OPEN_SEC`` (go out);
* ``decide_lay`` (opened) → ``LAY_NONE`` / ``LAY_ALL`` / ``LAY_KEEP_JOKERS`` (the least-left lay-down);
* ``decide_layoff`` → an index into the legal ``moves`` or -1 to stop (never -1 when ``forced``);
* ``decide_discard`` → a card id held in hand;
* ``decide_claim`` (R10, out of turn) → whether to claim a playable discard;
* ``speed`` → the reaction rate in claim races.

Each entry point takes the deciding player's information set as separate arguments (up to twelve): they are
the strategy contract (what a strategy may look at, checked by the information-set tests), the same in both
engines; the first three are always ``sid`` (kernel id), ``params`` (the seat's parameter array, indexed by
each family's ``PARAM`` record) and ``me``.
"""

from __future__ import annotations

from simulator.core.jit import njit
from strategies.rami import opening, random_play

RANDOM, OPENING = 0, 1


@njit(refcount=False)
def decide_draw(sid, params, me, hand_me, top, opened_me, can_take, take_points, own_turn, stock_n, rng):
    if sid == RANDOM:
        return random_play.draw(params, can_take, rng)
    return opening.draw(params, opened_me, can_take, take_points, own_turn, stock_n)


@njit(refcount=False)
def decide_open(sid, params, me, hand_me, points, can_open, can_sec, own_turn, stock_n, opened, sizes, rng):
    if sid == RANDOM:
        return random_play.open_(params, can_open, can_sec, rng)
    return opening.open_(params, points, can_open, can_sec, own_turn, stock_n)


@njit(refcount=False)
def decide_lay(sid, params, me, hand_me, rng):
    if sid == RANDOM:
        return random_play.lay(params, rng)
    return opening.lay(params)


@njit(refcount=False)
def decide_layoff(sid, params, me, hand_me, moves, n_moves, forced, rng):
    if sid == RANDOM:
        return random_play.layoff(params, n_moves, forced, rng)
    return opening.layoff(params, moves, n_moves, forced)


@njit(refcount=False)
def decide_discard(sid, params, me, hand_me, fits, forbid_fits, opened, sizes, rng):
    if sid == RANDOM:
        return random_play.discard(params, hand_me, fits, forbid_fits, rng)
    return opening.discard(params, hand_me, fits)


@njit(refcount=False)
def decide_claim(sid, params, me, hand_me, card, rng):
    if sid == RANDOM:
        return random_play.claim(params, rng)
    return True


@njit(refcount=False)
def speed(sid, params):
    return params[random_play.PARAM.speed] if sid == RANDOM else params[opening.PARAM.speed]
