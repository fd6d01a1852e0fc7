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
"""

from __future__ import annotations

from simulator.core.jit import njit
from strategies.rami import opening, random_play

RANDOM, OPENING = 0, 1


@njit(refcount=False)
def decide_draw(sid, prm, me, hand_me, top, opened_me, can_take, take_points, own_turn, stock_n, rng):
    if sid == RANDOM:
        return random_play.draw(prm, can_take, rng)
    return opening.draw(prm, opened_me, can_take, take_points, own_turn, stock_n)


@njit(refcount=False)
def decide_open(sid, prm, me, hand_me, points, can_open, can_sec, own_turn, stock_n, opened, sizes, rng):
    if sid == RANDOM:
        return random_play.open_(prm, can_open, can_sec, rng)
    return opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)


@njit(refcount=False)
def decide_lay(sid, prm, me, hand_me, rng):
    if sid == RANDOM:
        return random_play.lay(prm, rng)
    return opening.lay(prm)


@njit(refcount=False)
def decide_layoff(sid, prm, me, hand_me, moves, n_moves, forced, rng):
    if sid == RANDOM:
        return random_play.layoff(prm, n_moves, forced, rng)
    return opening.layoff(prm, moves, n_moves, forced)


@njit(refcount=False)
def decide_discard(sid, prm, me, hand_me, fits, forbid_fits, opened, sizes, rng):
    if sid == RANDOM:
        return random_play.discard(prm, hand_me, fits, forbid_fits, rng)
    return opening.discard(prm, hand_me, fits)


@njit(refcount=False)
def decide_claim(sid, prm, me, hand_me, card, rng):
    if sid == RANDOM:
        return random_play.claim(prm, rng)
    return True


@njit(refcount=False)
def speed(sid, prm):
    return prm[random_play.P_SPEED] if sid == RANDOM else prm[opening.O_SPEED]
