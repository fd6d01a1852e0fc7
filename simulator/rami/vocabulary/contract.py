"""The Rami strategy contract: every decision a strategy answers, what it sees, and what it may answer.

Each decision is declared once in :data:`DECISIONS`: its context (what the deciding player knows, a ``NamedTuple``
both engines build), how a user's function is asked (``ask_<name>``: the argument list a file's function declares,
with the player's :class:`PlayerView`), the answer's kind, its check and fallback. docs/strategies.md documents each
decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision
from simulator.core.kernels.jit import njit
from simulator.rami.vocabulary.answers import (
    first_legal_discard, layoff_fallback, legal_discard, legal_draw, legal_lay, legal_layoff, legal_open, legal_open_with,
    legal_rate,
)
from simulator.rami.vocabulary.codes import DRAW_STOCK, LAY_NONE, OPEN_NONE


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
    "me": types.int64, "hand": types.int8[::1], "opened": types.int8[::1], "sizes": types.int64[::1],
    "rng": types.uint64[::1], "top": types.int64, "can_take": _FLAG, "take_points": _COUNT, "own_turn": _COUNT,
    "stock_n": _COUNT, "points": _COUNT, "can_open": _FLAG, "can_sec": _FLAG, "moves": types.int16[:, ::1],
    "n_moves": _COUNT, "forced": _FLAG, "fits": types.int8[::1], "forbid_fits": _FLAG, "card": types.int64,
    "styles": types.int64[::1], "n_styles": _COUNT, "meld": types.int8[::1], "left": _COUNT,
}
"""The numba type of each context field as the kernel passes it: a file's functions are compiled for these
(:meth:`simulator.core.contract.decisions.Decision.signature`). ``rng``: the game's xoshiro256** state,
``uint64[4]``."""


class Draw(NamedTuple):
    """Its turn begins (R4/R5): the top discard ``top``, whether it may take it (``can_take``: it can be laid this
    turn), the best opening it would give an unopened player (``take_points``), its turn count and the stock."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    top: int
    can_take: bool
    take_points: int
    own_turn: int
    stock_n: int
    rng: np.ndarray


class Open(NamedTuple):
    """Unopened, after drawing (R7/R12): the best opening's ``points``, whether it may open or go out sec."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    points: int
    can_open: bool
    can_sec: bool
    own_turn: int
    stock_n: int
    rng: np.ndarray


class OpenWith(NamedTuple):
    """Opening (R7): the opening styles the hand offers, ``styles[:n_styles]`` (``int64``)."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    styles: np.ndarray
    n_styles: int
    rng: np.ndarray


class Seen(NamedTuple):
    """What the deciding player sees and nothing more (``lay``, R8)."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    rng: np.ndarray


class Hold(NamedTuple):
    """One meld of the chosen lay-down (R8): its code ``meld`` (``int8[5]``) and the cards the hand would keep
    (``left``) if every meld went down."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    meld: np.ndarray
    left: int
    rng: np.ndarray


class Layoff(NamedTuple):
    """Lay-off moves open now (R8/R9): ``moves[:n_moves]`` (``int16[n, 4]``: card, meld, action, declared);
    ``forced``: a joker taken back must be laid again."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    moves: np.ndarray
    n_moves: int
    forced: bool
    rng: np.ndarray


class Discard(NamedTuple):
    """Its discard (R4/R10): ``fits`` (``int8[53]``, 1 for a card that would fit a table meld) and whether such a
    card is forbidden (``forbid_fits``)."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    fits: np.ndarray
    forbid_fits: bool
    rng: np.ndarray


class Claim(NamedTuple):
    """Out of turn (R10): the playable discard ``card``."""

    me: int
    hand: np.ndarray
    opened: np.ndarray
    sizes: np.ndarray
    card: int
    rng: np.ndarray


class Me(NamedTuple):
    """The seat alone (``speed``: an ability, not a choice about the table)."""

    me: int


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


@njit(refcount=False, inline="always")
def _view(c):
    return PlayerView(c.me, c.hand, c.opened, c.sizes)


@njit(refcount=False, inline="always")
def ask_draw(f, prm, c):
    return f(prm, _view(c), c.top, c.can_take, c.take_points, c.own_turn, c.stock_n, c.rng)


@njit(refcount=False, inline="always")
def ask_open(f, prm, c):
    return f(prm, _view(c), c.points, c.can_open, c.can_sec, c.own_turn, c.stock_n, c.rng)


@njit(refcount=False, inline="always")
def ask_open_with(f, prm, c):
    return f(prm, _view(c), c.styles, c.n_styles, c.rng)


@njit(refcount=False, inline="always")
def ask_lay(f, prm, c):
    return f(prm, _view(c), c.rng)


@njit(refcount=False, inline="always")
def ask_hold(f, prm, c):
    return f(prm, _view(c), c.meld, c.left, c.rng)


@njit(refcount=False, inline="always")
def ask_layoff(f, prm, c):
    return f(prm, _view(c), c.moves, c.n_moves, c.forced, c.rng)


@njit(refcount=False, inline="always")
def ask_discard(f, prm, c):
    return f(prm, _view(c), c.fits, c.forbid_fits, c.rng)


@njit(refcount=False, inline="always")
def ask_claim(f, prm, c):
    return f(prm, _view(c), c.card, c.rng)


@njit(refcount=False, inline="always")
def ask_speed(f, prm, c):
    return f(prm)


@njit(refcount=False, inline="always")
def check_draw(fault, a, c):
    return legal_draw(fault, c.me, a, c.can_take)


@njit(refcount=False, inline="always")
def check_open(fault, a, c):
    return legal_open(fault, c.me, a, c.can_open, c.can_sec)


@njit(refcount=False, inline="always")
def check_open_with(fault, a, c):
    return legal_open_with(fault, c.me, a, c.styles, c.n_styles)


@njit(refcount=False, inline="always")
def check_lay(fault, a, c):
    return legal_lay(fault, c.me, a)


@njit(refcount=False, inline="always")
def check_layoff(fault, a, c):
    return legal_layoff(fault, c.me, a, c.n_moves, c.forced)


@njit(refcount=False, inline="always")
def check_discard(fault, a, c):
    return legal_discard(fault, c.me, a, c.hand, c.fits, c.forbid_fits)


@njit(refcount=False, inline="always")
def check_speed(fault, a, c):
    return legal_rate(fault, c.me, a)


@njit(refcount=False, inline="always")
def draw_stock(c):
    return DRAW_STOCK


@njit(refcount=False, inline="always")
def open_none(c):
    return OPEN_NONE


@njit(refcount=False, inline="always")
def best_opening(c):
    return c.styles[0]


@njit(refcount=False, inline="always")
def lay_none(c):
    return LAY_NONE


@njit(refcount=False, inline="always")
def stop_or_first_move(c):
    return layoff_fallback(c.forced)


@njit(refcount=False, inline="always")
def first_discard(c):
    return first_legal_discard(c.hand, c.fits, c.forbid_fits)


@njit(refcount=False, inline="always")
def unit_rate(c):
    return 1.0


DECISIONS: dict[str, Decision] = {
    "draw": Decision(
        Draw, ask_draw,
        "R4/R5: DRAW_STOCK, or DRAW_DISCARD to take the top discard (top; take_points: the best opening it would "
        "give an unopened player)",
        check=check_draw, fallback=draw_stock,
        legal="DRAW_STOCK; DRAW_DISCARD only if can_take (R5: the card can be laid this turn)",
        default="opening.draw(prm, view.opened[view.me] != 0, can_take, take_points, own_turn, stock_n)"),
    "open": Decision(
        Open, ask_open,
        "R7/R12, unopened: OPEN_NONE, OPEN_OPEN (lay the best opening, worth points), or OPEN_SEC (go out at once "
        "in a rami sec)",
        check=check_open, fallback=open_none,
        legal="OPEN_NONE; OPEN_OPEN only if can_open; OPEN_SEC only if can_sec",
        default="opening.open_(prm, points, can_open, can_sec, own_turn, stock_n)"),
    "open_with": Decision(
        OpenWith, ask_open_with,
        "R7, once it opens: which opening to lay, one of styles[:n_styles] (int64): OPENING_BEST (the most points, "
        "always first), OPENING_SMALLEST (the fewest cards), OPENING_LARGEST (the least left in hand), "
        "OPENING_KEEP_JOKERS (the best without the jokers), as the hand offers them",
        check=check_open_with, fallback=best_opening,
        legal="one of styles[:n_styles]", default="styles[0]", optional=first_offered_opening),
    "lay": Decision(
        Seen, ask_lay,
        "R8, opened: LAY_NONE, LAY_ALL (the least-left lay-down of the hand) or LAY_KEEP_JOKERS (the same without "
        "the jokers)",
        check=check_lay, fallback=lay_none,
        legal="LAY_NONE, LAY_ALL or LAY_KEEP_JOKERS", default="opening.lay(prm)"),
    "hold": Decision(
        Hold, ask_hold,
        "R8, for each meld of the lay-down the lay plan chose: True to hold it in hand this turn (meld: int8[5], "
        "its code (kind, key, low, n_cards, joker; see simulator/rami/vocabulary/codes.py); left: the cards the hand would "
        "keep if every meld of the lay-down went down)", kind="bool", legal="True or False",
        default="opening.hold(prm, left)", optional=lay_every_meld),
    "layoff": Decision(
        Layoff, ask_layoff,
        "R8/R9: the index of one of the n_moves lay-off moves (moves[i] = card, meld, action, declared; "
        "int16[n, 4]) or -1 to stop",
        check=check_layoff, fallback=stop_or_first_move,
        legal="0 <= k < n_moves, or -1 when not forced (forced: a joker taken back must be laid again, R9)",
        default="opening.layoff(prm, moves, n_moves, forced)"),
    "discard": Decision(
        Discard, ask_discard,
        "R4/R10: the card id to discard (fits: int8[53], 1 for a card that would fit a table meld)",
        check=check_discard, fallback=first_discard,
        legal="a card id held in hand; with forbid_fits (playable_discard=forbidden) not one that fits a table "
              "meld, unless every card held fits",
        default="opening.discard_seeing_sizes(prm, view.hand, fits, view.me, view.opened, view.sizes, forbid_fits)"),
    "claim": Decision(
        Claim, ask_claim,
        "R10, out of turn: True to claim the playable discard card", kind="bool", legal="True or False",
        default="True"),
    "speed": Decision(
        Me, ask_speed, "reaction rate in claim races (race_policy=speed_weighted), > 0", kind="float",
        check=check_speed, fallback=unit_rate, legal="a finite rate > 0",
        default="prm[PARAM.speed]"),
}
