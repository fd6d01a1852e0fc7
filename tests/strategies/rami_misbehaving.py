"""A Rami strategy file that plays ``open-asap`` except for one decision, chosen by its ``bad`` parameter, which
it answers illegally: the contract tests run it to see each decision's check stop the run in both engines.

``bad`` is the 1-based position in :data:`simulator.rami.vocabulary.answers.DECISION_ORDER` (0: every answer legal); one
file for every decision keeps it to one compiled kernel.
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.core.params import Param
from simulator.rami.vocabulary.answers import D_DISCARD, D_DRAW, D_LAY, D_LAYOFF, D_OPEN, D_OPEN_WITH, D_SPEED
from simulator.rami.vocabulary.codes import DRAW_DISCARD, OPEN_OPEN
from strategies.rami import opening
from strategies.rami.opening import PARAM

RAISES = 99  # bad=99: its first decision of a turn raises ZeroDivisionError (the file's own fault)
PARAMS = opening.PARAMS.extended(
    Param("bad", "int", 0, "the decision answered illegally (1-based in DECISION_ORDER; 0: none; RAISES: raises)", 0, RAISES),
)
BAD = len(opening.PARAMS.params)


@njit
def draw(prm, view, top, can_take, take_points, own_turn, stock_n, rng):
    if prm[BAD] == D_DRAW and not can_take:
        return DRAW_DISCARD  # the discard when R5 forbids it
    if prm[BAD] == RAISES:
        return 1 // int(prm[BAD] - prm[BAD])  # ZeroDivisionError
    return opening.draw(prm, view.opened[view.me] != 0, can_take, take_points, own_turn, stock_n)


@njit
def open(prm, view, points, can_open, can_sec, own_turn, stock_n, rng):
    if prm[BAD] == D_OPEN and not can_open:
        return OPEN_OPEN  # an opening the hand does not hold
    return opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)


@njit
def open_with(prm, view, styles, n_styles, rng):
    return 9 if prm[BAD] == D_OPEN_WITH else styles[0]  # no such opening


@njit
def lay(prm, view, rng):
    return 7 if prm[BAD] == D_LAY else opening.lay(prm)


@njit
def layoff(prm, view, moves, n_moves, forced, rng):
    if prm[BAD] == D_LAYOFF:
        return n_moves  # one past the listed moves
    return opening.layoff(prm, moves, n_moves, forced)


@njit
def discard(prm, view, fits, forbid_fits, rng):
    if prm[BAD] == D_DISCARD:
        for c in range(view.hand.shape[0]):
            if view.hand[c] == 0:
                return c  # a card it does not hold
    return opening.discard(prm, view.hand, fits)


@njit
def hold(prm, view, meld, left, rng):
    return opening.hold(prm, left)  # a bool: every answer is legal


@njit
def claim(prm, view, card, rng):
    return True


@njit
def speed(prm):
    return -1.0 if prm[BAD] == D_SPEED else prm[PARAM.speed]


MISBEHAVING = strategy(
    game="rami", name="misbehaving", params=PARAMS, doc="open-asap, but answers decision number `bad` illegally",
    draw=draw, open=open, open_with=open_with, lay=lay, hold=hold, layoff=layoff, discard=discard, claim=claim, speed=speed,
)
