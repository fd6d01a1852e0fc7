"""The opening family: when to open, whether to hunt a rami sec, what to do with jokers and the discard.

Decisions (information set only, see :mod:`strategies.rami.views`):

* **open**: go out at once in a rami sec whenever the solver says the hand can (R12); otherwise, while
  *holding* for a rami sec (own turn ≤ ``hold_for_rami_sec_until_turn``, or stock larger than
  ``hold_for_rami_sec_until_stock``; 0 switches each off), do not open; else open when the best opening
  reaches ``min_open_points`` (and the rule's threshold, which the engine checks);
* **lay** (opened): the least-left lay-down, with the jokers (``joker_policy`` 1) or keeping them in hand (0);
* **lay-offs**: natural cards first, then joker swaps, then (``joker_policy`` 1) jokers; a forced choice
  takes the first move listed;
* **draw**: ``take_discard`` 1 takes the discard whenever the engine says it can be laid this turn (an
  unopened player only when the opening it gives reaches ``min_open_points`` and it is not holding);
* **discard** (``discard_rule`` 0): the card least useful to its own melds, then the highest, avoiding
  cards that fit a table meld (they could be claimed, R10);
* **claim** (R10): always.
"""

from __future__ import annotations

from simulator.core.cards import JOKER
from simulator.core.jit import njit
from simulator.core.params import Param, ParamSet
from simulator.rami.codes import DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, OPEN_NONE, OPEN_OPEN, OPEN_SEC
from simulator.rami.melds import SWAP_JOKER
from strategies.rami.views import least_useful_card

O_MIN_OPEN, O_HOLD_TURN, O_HOLD_STOCK, O_JOKER, O_TAKE, O_DISCARD, O_SPEED = range(7)
PARAMS = ParamSet((
    Param("min_open_points", "int", 51, "open only with a best opening of at least this many points", 51, 150),
    Param("hold_for_rami_sec_until_turn", "int", 0, "do not open before this own turn, hoping for a rami sec (0 = never hold)", 0, 200),
    Param("hold_for_rami_sec_until_stock", "int", 0, "do not open while the stock holds more than this many cards (0 = never hold)", 0, 162),
    Param("joker_policy", "int", 1, "0 keep jokers in hand, 1 spend them in melds and lay-offs", 0, 1),
    Param("take_discard", "int", 1, "0 never take the discard, 1 when it can be laid this turn (completes a meld or the opening)", 0, 1),
    Param("discard_rule", "int", 0, "0 the highest card least useful to own melds, avoiding cards playable on the table", 0, 0),
    Param("speed", "float", 1.0, "reaction rate in claim races (race_policy=speed_weighted)", 0.01, 100.0),
), what="parameter")


@njit(refcount=False, inline="always")
def holding(prm, own_turn, stock_n):
    t = prm[O_HOLD_TURN]
    s = prm[O_HOLD_STOCK]
    return (t > 0 and own_turn <= t) or (s > 0 and stock_n > s)


@njit(refcount=False, inline="always")
def draw(prm, opened_me, can_take, take_points, own_turn, stock_n):
    if not can_take or prm[O_TAKE] == 0:
        return DRAW_STOCK
    if opened_me:
        return DRAW_DISCARD
    if take_points >= prm[O_MIN_OPEN] and not holding(prm, own_turn, stock_n):
        return DRAW_DISCARD
    return DRAW_STOCK


@njit(refcount=False, inline="always")
def open_(prm, points, can_open, can_sec, own_turn, stock_n):
    if can_sec:
        return OPEN_SEC
    if holding(prm, own_turn, stock_n):
        return OPEN_NONE
    if can_open and points >= prm[O_MIN_OPEN]:
        return OPEN_OPEN
    return OPEN_NONE


@njit(refcount=False, inline="always")
def lay(prm):
    return LAY_ALL if prm[O_JOKER] == 1 else LAY_KEEP_JOKERS


@njit(refcount=False, inline="always")
def layoff(prm, moves, n_moves, forced):
    for i in range(n_moves):
        if moves[i, 0] != JOKER and moves[i, 2] != SWAP_JOKER:
            return i
    for i in range(n_moves):
        if moves[i, 2] == SWAP_JOKER:
            return i
    if forced or prm[O_JOKER] == 1:
        return 0 if n_moves > 0 else -1
    return -1


@njit(refcount=False, inline="always")
def discard(prm, hand_me, fits):
    return least_useful_card(hand_me, fits, True)
