"""The built-in Rami families' answer to each decision, by kernel id: one function per decision of the contract
(:data:`simulator.rami.vocabulary.contract.DECISIONS`), ``(sid, prm, c)`` with ``c`` the decision's context.

Adding a family: its kernel id in :data:`FAMILIES` and its branch in each function below
(``tests/test_decisions.py`` holds every function to the families and to the contract). A seat's answer here is
not checked in the kernel: the reference engine checks every built-in answer in the agreement tests.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from strategies.rami import opening, random_play

RANDOM, OPENING = 0, 1
FAMILIES = {RANDOM: random_play, OPENING: opening}
"""The built-in families by kernel id (the registry's ``StrategyDef.kernel_id``)."""


@njit(refcount=False)
def draw(sid, prm, c):
    if sid == RANDOM:
        return random_play.draw(prm, c.can_take, c.rng)
    return opening.draw(prm, c.opened[c.me] != 0, c.can_take, c.take_points, c.own_turn, c.stock_n)


@njit(refcount=False)
def open(sid, prm, c):  # noqa: A001  (the decision's name)
    if sid == RANDOM:
        return random_play.open_(prm, c.can_open, c.can_sec, c.rng)
    return opening.open_(prm, c.points, c.can_open, c.can_sec, c.own_turn, c.stock_n)


@njit(refcount=False)
def open_with(sid, prm, c):
    if sid == RANDOM:
        return c.styles[0]  # the best opening: random draws nothing here (its games stay as they were)
    return opening.opening_choice(prm, c.styles, c.n_styles)


@njit(refcount=False)
def lay(sid, prm, c):
    if sid == RANDOM:
        return random_play.lay(prm, c.rng)
    return opening.lay(prm)


@njit(refcount=False)
def hold(sid, prm, c):
    if sid == RANDOM:
        return False  # every meld of its lay-down, drawing nothing
    return opening.hold(prm, c.left)


@njit(refcount=False)
def layoff(sid, prm, c):
    if sid == RANDOM:
        return random_play.layoff(prm, c.n_moves, c.forced, c.rng)
    return opening.layoff(prm, c.moves, c.n_moves, c.forced)


@njit(refcount=False)
def discard(sid, prm, c):
    if sid == RANDOM:
        return random_play.discard(prm, c.hand, c.fits, c.forbid_fits, c.rng)
    return opening.discard_seeing_sizes(prm, c.hand, c.fits, c.me, c.opened, c.sizes, c.forbid_fits)


@njit(refcount=False)
def claim(sid, prm, c):
    if sid == RANDOM:
        return random_play.claim(prm, c.rng)
    return opening.claim(prm)


@njit(refcount=False)
def speed(sid, prm, c):
    if sid == RANDOM:
        return prm[random_play.PARAM.speed]
    return prm[opening.PARAM.speed]


BUILTIN = {"draw": draw, "open": open, "open_with": open_with, "lay": lay, "hold": hold, "layoff": layoff,
           "discard": discard, "claim": claim, "speed": speed}
"""Each decision's dispatch, by its name in the contract."""
