"""The Rami strategy contract: every decision a strategy answers, what it sees, and what it may answer.

A strategy from a user's file defines one function per entry of :data:`DECISIONS`, with the argument list of
``user_signature``; the engines build each call from their own state (``engine_args``, the order both engines and
the built-in families use) and pass the player's :class:`PlayerView`. docs/strategies.md documents each decision.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision
from simulator.core.kernels.jit import njit


class PlayerView(NamedTuple):
    """What the deciding player sees of the table besides the decision's own arguments; read it, never write it.

    ``me``: its seat; ``hand``: ``int8[53]``, its hand as a count vector (card id ``suit * 13 + rank``, index 52
    the jokers); ``opened``: ``int8[P]``, 1 for each player who has opened (R7) or laid a rami sec (R12);
    ``sizes``: ``int64[P]``, the cards in each hand.
    """

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray


_FLAG, _COUNT = types.boolean, types.int64
ARG_TYPES = {
    "me": types.int64, "hand_me": types.int8[::1], "opened": types.int8[::1], "sizes": types.int64[::1],
    "rng": types.uint64[::1], "top": types.int64, "can_take": _FLAG, "take_points": _COUNT, "own_turn": _COUNT,
    "stock_n": _COUNT, "points": _COUNT, "can_open": _FLAG, "can_sec": _FLAG, "moves": types.int16[:, ::1],
    "n_moves": _COUNT, "forced": _FLAG, "fits": types.int8[::1], "forbid_fits": _FLAG, "card": types.int64,
    "styles": types.int64[::1], "n_styles": _COUNT, "meld": types.int8[::1], "left": _COUNT,
}
"""The numba type of each engine argument as the kernel passes it: a file's functions are compiled for these
(``simulator.core.contract.user_table.decision_signature``). ``rng``: the game's xoshiro256** state, ``uint64[4]``."""



@njit
def first_offered_opening(prm, view, styles, n_styles, rng):
    """``open_with`` of a strategy file that does not define it (files written before the decision existed): the
    best opening, offered first."""
    return styles[0]


@njit
def lay_every_meld(prm, view, meld, left, rng):
    """``hold`` of a strategy file that does not define it (files written before the decision existed): every
    meld of the lay-down goes to the table."""
    return False


_VIEW = "PlayerView(me, hand_me, opened, sizes)"
_SEEN = ("me", "hand_me", "opened", "sizes")
_decision = partial(Decision, view_call=_VIEW)  # every decision passes the player's view as `view`
DECISIONS: dict[str, Decision] = {
    "draw": _decision(
        (*_SEEN, "top", "can_take", "take_points", "own_turn", "stock_n", "rng"),
        f"prm, {_VIEW}, top, can_take, take_points, own_turn, stock_n, rng",
        "R4/R5: DRAW_STOCK, or DRAW_DISCARD to take the top discard (top; take_points: the best opening it would "
        "give an unopened player)",
        check="legal_draw(fault, me, a, can_take)", fallback="DRAW_STOCK",
        legal="DRAW_STOCK; DRAW_DISCARD only if can_take (R5: the card can be laid this turn)",
        default="opening.draw(prm, view.opened[view.me] != 0, can_take, take_points, own_turn, stock_n)"),
    "open": _decision(
        (*_SEEN, "points", "can_open", "can_sec", "own_turn", "stock_n", "rng"),
        f"prm, {_VIEW}, points, can_open, can_sec, own_turn, stock_n, rng",
        "R7/R12, unopened: OPEN_NONE, OPEN_OPEN (lay the best opening, worth points), or OPEN_SEC (go out at once "
        "in a rami sec)",
        check="legal_open(fault, me, a, can_open, can_sec)", fallback="OPEN_NONE",
        legal="OPEN_NONE; OPEN_OPEN only if can_open; OPEN_SEC only if can_sec",
        default="opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)"),
    "open_with": _decision(
        (*_SEEN, "styles", "n_styles", "rng"), f"prm, {_VIEW}, styles, n_styles, rng",
        "R7, once it opens: which opening to lay, one of styles[:n_styles] (int64): OPENING_BEST (the most points, "
        "always first), OPENING_SMALLEST (the fewest cards), OPENING_LARGEST (the least left in hand), "
        "OPENING_KEEP_JOKERS (the best without the jokers), as the hand offers them",
        check="legal_open_with(fault, me, a, styles, n_styles)", fallback="styles[0]",
        legal="one of styles[:n_styles]", default="styles[0]", optional=first_offered_opening),
    "lay": _decision(
        (*_SEEN, "rng"), f"prm, {_VIEW}, rng",
        "R8, opened: LAY_NONE, LAY_ALL (the least-left lay-down of the hand) or LAY_KEEP_JOKERS (the same without "
        "the jokers)",
        check="legal_lay(fault, me, a)", fallback="LAY_NONE",
        legal="LAY_NONE, LAY_ALL or LAY_KEEP_JOKERS", default="opening.lay(prm)"),
    "hold": _decision(
        (*_SEEN, "meld", "left", "rng"), f"prm, {_VIEW}, meld, left, rng",
        "R8, for each meld of the lay-down the lay plan chose: True to hold it in hand this turn (meld: int8[5], "
        "its code (kind, key, low, n_cards, joker; see simulator/rami/vocabulary/codes.py); left: the cards the hand would "
        "keep if every meld of the lay-down went down)", kind="bool", legal="True or False",
        default="opening.hold(prm, left)", optional=lay_every_meld),
    "layoff": _decision(
        (*_SEEN, "moves", "n_moves", "forced", "rng"), f"prm, {_VIEW}, moves, n_moves, forced, rng",
        "R8/R9: the index of one of the n_moves lay-off moves (moves[i] = card, meld, action, declared; "
        "int16[n, 4]) or -1 to stop",
        check="legal_layoff(fault, me, a, n_moves, forced)", fallback="layoff_fallback(forced)",
        legal="0 <= k < n_moves, or -1 when not forced (forced: a joker taken back must be laid again, R9)",
        default="opening.layoff(prm, moves, n_moves, forced)"),
    "discard": _decision(
        (*_SEEN, "fits", "forbid_fits", "rng"), f"prm, {_VIEW}, fits, forbid_fits, rng",
        "R4/R10: the card id to discard (fits: int8[53], 1 for a card that would fit a table meld)",
        check="legal_discard(fault, me, a, hand_me, fits, forbid_fits)",
        fallback="first_legal_discard(hand_me, fits, forbid_fits)",
        legal="a card id held in hand; with forbid_fits (playable_discard=forbidden) not one that fits a table "
              "meld, unless every card held fits",
        default="opening.discard_seeing_sizes(prm, view.hand, fits, view.me, view.opened, view.sizes, forbid_fits)"),
    "claim": _decision(
        (*_SEEN, "card", "rng"), f"prm, {_VIEW}, card, rng",
        "R10, out of turn: True to claim the playable discard card", kind="bool", legal="True or False",
        default="True"),
    "speed": _decision(
        (), "prm", "reaction rate in claim races (race_policy=speed_weighted), > 0", kind="float",
        check="legal_rate(fault, me, a)", fallback="1.0", legal="a finite rate > 0",
        default="prm[PARAM.speed]"),
}
