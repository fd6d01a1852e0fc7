"""A Rami player that never claims a discard out of turn (R10) and keeps its jokers in hand until it holds at most
``release_at`` cards (R8); every other decision is the built-in opening family's (``open-asap``'s parameters).

    cardsim tournament rami -n 400 --strategy examples/rami_patient.py:patient --strategy open-asap \\
        --out runs/patient

The decisions are numba functions, so it runs in the compiled engine (each compiled for its decision's signature
the first time, in seconds, then loaded from the cache until this file changes).
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from simulator.core.params import Param
from simulator.rami.vocabulary.codes import LAY_ALL, LAY_KEEP_JOKERS
from simulator.rami.vocabulary.views import hand_size
from strategies.rami import opening
from strategies.rami.opening import PARAM

PARAMS = opening.PARAMS.extended(
    Param("release_at", "int", 3, "lay jokers down only once the hand holds at most this many cards", 0, 14),
)
RELEASE_AT = len(opening.PARAMS.params)  # position of release_at in prm (after the opening family's parameters)


@njit
def draw(prm, view, top, can_take, take_points, own_turn, stock_n, rng):
    return opening.draw(prm, view.opened[view.me] != 0, can_take, take_points, own_turn, stock_n)


@njit
def open(prm, view, points, can_open, can_sec, own_turn, stock_n, rng):  # noqa: A001  (the decision's name)
    return opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)


@njit
def lay(prm, view, rng):
    return LAY_ALL if hand_size(view.hand) <= prm[RELEASE_AT] else LAY_KEEP_JOKERS


@njit
def layoff(prm, view, moves, n_moves, forced, rng):
    return opening.layoff(prm, moves, n_moves, forced)


@njit
def discard(prm, view, fits, forbid_fits, rng):
    return opening.discard(prm, view.hand, fits)


@njit
def claim(prm, view, card, rng):
    return False


@njit
def speed(prm):
    return prm[PARAM.speed]


PATIENT = strategy(
    game="rami", name="patient", params=PARAMS,
    doc="never claims out of turn; keeps its jokers until it holds at most release_at cards (open-asap otherwise)",
    draw=draw, open=open, lay=lay, layoff=layoff, discard=discard, claim=claim, speed=speed,
)
