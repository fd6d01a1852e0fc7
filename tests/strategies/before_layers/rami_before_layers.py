"""rami-before-layers: a Rami "Kracouil" strategy, written by `cardsim new-strategy rami rami-before-layers`.

Every decision starts as the built-in `open-asap` (the opening family with its default parameters): change the
bodies you want to play differently, and the doc string below. Try it against `open-asap` with

    cardsim tournament rami --strategy rami_before_layers.py:rami-before-layers --strategy open-asap -n 2000 --out runs/rami-before-layers
    python -m pytest /tmp/before_layers/test_rami_before_layers.py

The rules are docs/rules/rami.md (R1-R15); the contract is docs/strategies.md. Each function gets `prm`
(float64[K], the parameters in PARAMS' order: prm[PARAM.<name>] for the opening family's, and your own after
them) and, except `speed`, `view`, what its player may know (read it, never write it):

    view.me      int          the deciding seat
    view.hand    int8[53]     its own hand as a count vector: card id suit * 13 + rank (rank 0 = ace), 52 = jokers
    view.opened  int8[P]      1 for each player who has opened (R7) or laid a rami sec (R12)
    view.sizes   int64[P]     the cards in each hand

Draw randomness only from `rng` (simulator.core.rng.uniform(rng), below(rng, n)) so that every game replays
from its seed. The engine checks every answer: an illegal one stops the run with a line naming it. The functions
are numba functions (@njit), so the strategy runs in the compiled engine: each is compiled for its decision's
signature (a few seconds on the first run, then loaded from the cache until this file changes); one that does not
compile for it is named in one line. Without @njit it would run on the (slower) reference engine.
"""

from numba import njit

from simulator.core.params import Param  # noqa: F401  (declare your own parameters with it)
from simulator.core.rng import below, uniform  # noqa: F401
from simulator.core.user_strategies import strategy
from simulator.rami.codes import (  # noqa: F401
    DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, LAY_NONE, MOVE, OPEN_NONE, OPEN_OPEN, OPEN_SEC, OPENING_BEST,
    OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST,
)
from strategies.rami import opening
from strategies.rami.opening import PARAM
from strategies.rami.views import hand_size, least_useful_card  # noqa: F401  (more helpers in views)

# the opening family's parameters, open-asap's defaults; add your own with
# PARAMS = opening.PARAMS.extended(Param("keep_jokers_until", "int", 5, "what it means", 0, 200)), read as
# prm[len(opening.PARAMS.params)]
PARAMS = opening.PARAMS


@njit
def draw(prm, view, top, can_take, take_points, own_turn, stock_n, rng):
    """R4/R5: DRAW_STOCK, or DRAW_DISCARD to take the top discard (top; take_points: the best opening it would give
    an unopened player)

    Legal: DRAW_STOCK; DRAW_DISCARD only if can_take (R5: the card can be laid this turn).
    """
    return opening.draw(prm, view.opened[view.me] != 0, can_take, take_points, own_turn, stock_n)


@njit
def open(prm, view, points, can_open, can_sec, own_turn, stock_n, rng):
    """R7/R12, unopened: OPEN_NONE, OPEN_OPEN (lay the best opening, worth points), or OPEN_SEC (go out at once in
    a rami sec)

    Legal: OPEN_NONE; OPEN_OPEN only if can_open; OPEN_SEC only if can_sec.
    """
    return opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)


@njit
def open_with(prm, view, styles, n_styles, rng):
    """R7, once it opens: which opening to lay, one of styles[:n_styles] (int64): OPENING_BEST (the most points,
    always first), OPENING_SMALLEST (the fewest cards), OPENING_LARGEST (the least left in hand),
    OPENING_KEEP_JOKERS (the best without the jokers), as the hand offers them

    Legal: one of styles[:n_styles].
    """
    return styles[0]


@njit
def lay(prm, view, rng):
    """R8, opened: LAY_NONE, LAY_ALL (the least-left lay-down of the hand) or LAY_KEEP_JOKERS (the same without the
    jokers)

    Legal: LAY_NONE, LAY_ALL or LAY_KEEP_JOKERS.
    """
    return opening.lay(prm)


@njit
def hold(prm, view, meld, left, rng):
    """R8, for each meld of the lay-down the lay plan chose: True to hold it in hand this turn (meld: int8[5], its
    code (kind, key, low, n_cards, joker; see simulator/rami/codes.py); left: the cards the hand would keep if
    every meld of the lay-down went down)

    Legal: True or False.
    """
    return opening.hold(prm, left)


@njit
def layoff(prm, view, moves, n_moves, forced, rng):
    """R8/R9: the index of one of the n_moves lay-off moves (moves[i] = card, meld, action, declared; int16[n, 4])
    or -1 to stop

    Legal: 0 <= k < n_moves, or -1 when not forced (forced: a joker taken back must be laid again, R9).
    """
    return opening.layoff(prm, moves, n_moves, forced)


@njit
def discard(prm, view, fits, forbid_fits, rng):
    """R4/R10: the card id to discard (fits: int8[53], 1 for a card that would fit a table meld)

    Legal: a card id held in hand; with forbid_fits (playable_discard=forbidden) not one that fits a table meld,
    unless every card held fits.
    """
    return opening.discard_seeing_sizes(prm, view.hand, fits, view.me, view.opened, view.sizes, forbid_fits)


@njit
def claim(prm, view, card, rng):
    """R10, out of turn: True to claim the playable discard card

    Legal: True or False.
    """
    return True


@njit
def speed(prm):
    """reaction rate in claim races (race_policy=speed_weighted), > 0

    Legal: a finite rate > 0.
    """
    return prm[PARAM.speed]


RAMI_BEFORE_LAYERS = strategy(
    game="rami", name="rami-before-layers", params=PARAMS, doc="open-asap, as written by cardsim new-strategy",
    draw=draw, open=open, open_with=open_with, lay=lay, hold=hold, layoff=layoff, discard=discard, claim=claim,
    speed=speed,
)
