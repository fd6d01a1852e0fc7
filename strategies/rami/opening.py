"""The opening family: when to open, whether to hunt a rami sec, what to do with jokers and the discard.

Decisions (information set only, see :mod:`simulator.rami.vocabulary.views`):

* **open**: go out at once in a rami sec whenever the solver says the hand can (R12); otherwise, while
  *holding* for a rami sec (own turn ≤ ``hold_for_rami_sec_until_turn``, or stock larger than
  ``hold_for_rami_sec_until_stock``; 0 switches each off), do not open; else open when the best opening
  reaches ``min_open_points`` (and the rule's threshold, which the engine checks);
* **opening**: the solver's opening of style ``opening_style`` (the best, the smallest, the largest, or the best
  keeping the jokers) when the hand offers it, else the best;
* **lay** (opened): the least-left lay-down, with the jokers (``joker_policy`` 1) or keeping them in hand (0);
  with ``hold_melds`` k > 0 its melds stay in hand while laying them all would leave k cards or more (others
  cannot lay off on melds they do not see), and go down together when fewer would be left;
* **lay-offs**: natural cards first, then joker swaps, then (``joker_policy`` 1) jokers; a forced choice
  takes the first move listed;
* **draw**: ``take_discard`` 1 takes the discard whenever the engine says it can be laid this turn (an
  unopened player only when the opening it gives reaches ``min_open_points`` and it is not holding);
* **discard** (``discard_rule`` 0): the card least useful to its own melds, then the highest, avoiding
  cards that fit a table meld (they could be claimed, R10). A card's usefulness weighs the other cards that could
  share a meld with it: ``use_same_rank`` for each other suit of its rank, ``use_next_in_suit`` for each card of
  its suit one rank away, ``use_two_away`` for each two ranks away (open-asap: 1 each, a count). With
  ``shed_when_opponent_holds`` k > 0, while an opened opponent holds k cards or fewer it sheds points instead
  (R13): the highest card among those sharing a meld with at most one other card;
* **claim** (R10): always.
"""

from __future__ import annotations

from simulator.core.cards import JOKER
from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.params import Param, ParamSet
from simulator.rami.vocabulary.codes import (
    DECK_CARDS, DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, MAX_DECKS, MOVE, OPEN_NONE, OPEN_OPEN, OPEN_SEC,
    OPENING_BEST, OPENING_KEEP_JOKERS, OPENING_POINTS,
)
from simulator.rami.vocabulary.melds import SWAP_JOKER
from simulator.rami.vocabulary.views import highest_loose_card, least_useful_card, opponent_near_out

MAX_OPEN_POINTS = 150     # the highest opening a player may wait for
MAX_HOLD_TURN = 200       # the latest own turn a player may hold for a rami sec
MAX_HELD = 16             # hold_melds: more than the largest dealt hand (R2: 15, and one)
MAX_WEIGHT = 6            # the largest weight of a neighbour in a card's usefulness
PARAMS = ParamSet((
    Param("min_open_points", "int", OPENING_POINTS, "open only with a best opening of at least this many points", OPENING_POINTS, MAX_OPEN_POINTS),
    Param("hold_for_rami_sec_until_turn", "int", 0, "do not open before this own turn, hoping for a rami sec (0 = never hold)", 0, MAX_HOLD_TURN),
    Param("hold_for_rami_sec_until_stock", "int", 0, "do not open while the stock holds more than this many cards (0 = never hold)", 0, MAX_DECKS * DECK_CARDS),
    Param("joker_policy", "int", 1, "0 keep jokers in hand, 1 spend them in melds and lay-offs", 0, 1),
    Param("opening_style", "int", OPENING_BEST, "which opening to lay when it opens: 0 the best (most points), 1 the smallest (fewest cards), 2 the largest (least left in hand), 3 the best keeping the jokers (each when the hand offers it, else the best)", OPENING_BEST, OPENING_KEEP_JOKERS),
    Param("hold_melds", "int", 0, "after opening, 0 lays every new meld at once; k > 0 holds them in hand while laying them all would leave k cards or more", 0, MAX_HELD),
    Param("take_discard", "int", 1, "0 never take the discard, 1 when it can be laid this turn (completes a meld or the opening)", 0, 1),
    Param("discard_rule", "int", 0, "0 the highest card least useful to own melds, avoiding cards playable on the table", 0, 0),
    Param("use_same_rank", "int", 1, "discard: what each other suit of a card's rank held adds to its usefulness", 0, MAX_WEIGHT),
    Param("use_next_in_suit", "int", 1, "discard: what each card of its suit one rank away adds to its usefulness", 0, MAX_WEIGHT),
    Param("use_two_away", "int", 1, "discard: what each card of its suit two ranks away adds to its usefulness", 0, MAX_WEIGHT),
    Param("shed_when_opponent_holds", "int", 0, "discard the highest loose card (sharing a meld with at most one other) while an opened opponent holds this many cards or fewer (0 = never)", 0, MAX_HELD),
    Param("speed", "float", 1.0, "reaction rate in claim races (race_policy=speed_weighted)", 0.01, 100.0, ability=True),
), what="parameter")
PARAM = indices("OpeningParams", PARAMS.names())
"""Positions of the parameters in a seat's parameter array (``params[PARAM.min_open_points]``)."""


@njit(refcount=False, inline="always")
def holding(params, own_turn, stock_n):
    t = params[PARAM.hold_for_rami_sec_until_turn]
    s = params[PARAM.hold_for_rami_sec_until_stock]
    return (t > 0 and own_turn <= t) or (s > 0 and stock_n > s)


@njit(refcount=False, inline="always")
def draw(params, opened_me, can_take, take_points, own_turn, stock_n):
    if not can_take or params[PARAM.take_discard] == 0:
        return DRAW_STOCK
    if opened_me:
        return DRAW_DISCARD
    if take_points >= params[PARAM.min_open_points] and not holding(params, own_turn, stock_n):
        return DRAW_DISCARD
    return DRAW_STOCK


@njit(refcount=False, inline="always")
def open_(params, points, can_open, can_sec, own_turn, stock_n):
    if can_sec:
        return OPEN_SEC
    if holding(params, own_turn, stock_n):
        return OPEN_NONE
    if can_open and points >= params[PARAM.min_open_points]:
        return OPEN_OPEN
    return OPEN_NONE


@njit(refcount=False, inline="always")
def opening_choice(params, styles, n_styles):
    """R7: the opening of style ``opening_style`` when the hand offers it, else the best (offered first)."""
    wanted = params[PARAM.opening_style]
    for i in range(n_styles):
        if styles[i] == wanted:
            return styles[i]
    return styles[0]


@njit(refcount=False, inline="always")
def lay(params):
    return LAY_ALL if params[PARAM.joker_policy] == 1 else LAY_KEEP_JOKERS


@njit(refcount=False, inline="always")
def hold(params, left):
    """R8: hold each new meld while the whole lay-down would leave ``hold_melds`` cards or more (0: never)."""
    k = params[PARAM.hold_melds]
    return k > 0 and left >= k


@njit(refcount=False, inline="always")
def layoff(params, moves, n_moves, forced):
    for i in range(n_moves):
        if moves[i, MOVE.card] != JOKER and moves[i, MOVE.action] != SWAP_JOKER:
            return i
    for i in range(n_moves):
        if moves[i, MOVE.action] == SWAP_JOKER:
            return i
    if forced or params[PARAM.joker_policy] == 1:
        return 0 if n_moves > 0 else -1
    return -1


@njit(refcount=False, inline="always")
def discard(params, hand_me, fits):
    """The least useful card, by the family's usefulness weights (files written before the weights call this)."""
    return least_useful_card(hand_me, fits, True, int(params[PARAM.use_same_rank]),
                             int(params[PARAM.use_next_in_suit]), int(params[PARAM.use_two_away]))


@njit(refcount=False, inline="always")
def discard_seeing_sizes(params, hand_me, fits, me, opened, sizes, forbid_fits):
    """:func:`discard`, or the highest loose card while an opened opponent is near going out
    (``shed_when_opponent_holds``; ``opened`` ``int8[P]``, ``sizes`` ``int64[P]``, the public facts it reads). A
    loose card that fits a table meld goes only when no other is loose, and never under ``forbid_fits``
    (``playable_discard=forbidden``, R10): then :func:`discard` chooses."""
    if opponent_near_out(me, opened, sizes, params[PARAM.shed_when_opponent_holds]):
        c = highest_loose_card(hand_me, fits, not forbid_fits)
        if c >= 0:
            return c
    return discard(params, hand_me, fits)


@njit(refcount=False, inline="always")
def claim(params):
    """R10: claim every playable discard offered (the engine asks only when the claim is allowed)."""
    return True
