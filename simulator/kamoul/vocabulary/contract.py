"""The Kamoul strategy contract: every decision a strategy answers, what it sees, and what it may answer.

Each decision is declared once in :data:`DECISIONS`: its context (what the deciding player knows, a ``NamedTuple``
both engines build), how a user's function is asked (``ask_<name>``: the argument list a file's function declares,
with the player's :class:`TableView`, or :class:`TurnView` in a turn's decisions), the answer's kind, its check and
fallback. docs/strategies.md documents each decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision
from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary.answers import (
    D_FORGET, D_KEEP, D_MEMORY_NOISE, D_SPEED, D_TAKE_SLOT, first_own, legal_peeks, legal_power, legal_rate, legal_slot,
    legal_snap, legal_turn,
)
from simulator.kamoul.vocabulary.codes import ACT_STOCK, SNAP_NONE


class TableView(NamedTuple):
    """What the deciding player sees of the table (its information set); read it, never write it.

    ``me``: its seat; ``know``: ``int16[P, S]``, the card it believes lies at each (player, position), ``-1`` if
    unknown (its own memory: possibly stale after a blind swap it did not notice, or forgotten); ``occ``:
    ``int8[P, S]``, 1 where a position holds a card (public); ``nslots``: ``int64[P]``, one past each player's
    highest position used; ``faceup``: ``int8[P, S]``, 1 for a card lying face up (``discard_pick_face_up``).
    ``S`` is at least the cards in play (the numba engine passes its table's 104 columns): read positions below
    ``nslots[p]`` only.
    """

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray


class TurnView(NamedTuple):
    """:class:`TableView` and ``own``, for the decisions of a turn (``turn``, ``keep``, ``take_slot``): the summary
    of the player's own layout from its beliefs, made by the engine once per turn
    (``simulator.kamoul.vocabulary.views.own_summary``: six ``int64`` in ``views.OWN`` order: cards held, cards not seen, the
    points of those it believes it knows, the first position of the highest of those and its value, the first
    position not seen; ``-1`` for a position there is none of). ``heuristic.turn_on``, ``keep_on`` and
    ``views.summary_worst`` read it."""

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    own: tuple


_SEAT, _FLAG, _LAYOUT8 = types.int64, types.boolean, types.int8[:, ::1]
ARG_TYPES = {
    "me": _SEAT, "know": types.int16[:, ::1], "occ": _LAYOUT8, "nslots": types.int64[::1], "faceup": _LAYOUT8,
    "rng": types.uint64[::1], "out": types.int64[::1], "tmp": types.int64[::1], "n": types.int64,
    "top": types.int64, "can_call": _FLAG, "can_contre": _FLAG, "can_take": _FLAG, "cum_me": types.int64,
    "au_ge": _FLAG, "drawn": types.int64, "kind": types.int64, "locked": _SEAT, "own_vs_opp": _FLAG,
    "pa": _SEAT, "ca": types.int64, "pb": _SEAT, "cb": types.int64, "top_rank": types.int64, "allow_others": _FLAG,
    "own": types.UniTuple(types.int64, 6),
}
"""The numba type of each context field as the kernel passes it: a file's functions are compiled for these
(:meth:`simulator.core.contract.decisions.Decision.signature`). ``rng``: the game's xoshiro256** state,
``uint64[4]``; ``out``: ``int64`` scratch the strategy writes its answer (slots, targets) to; ``tmp``:
``int64[>= 2 P S]`` scratch of its own (the built-ins list the legal choices there,
:mod:`simulator.kamoul.vocabulary.legal`)."""


class Peeks(NamedTuple):
    """The deal (K2): it may look at up to ``n`` own cards, writing their positions to ``out``."""

    me: int
    n: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    rng: np.ndarray
    tmp: np.ndarray
    out: np.ndarray


class Turn(NamedTuple):
    """Its turn (K4/K8/K9): the top discard, what it may do (``can_call``; ``can_contre``: in the final round;
    ``can_take``), its cumulative score and whether a score can be called au score (``au_ge``)."""

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    own: tuple
    top: int
    can_call: bool
    can_contre: bool
    can_take: bool
    cum_me: int
    au_ge: bool
    rng: np.ndarray
    tmp: np.ndarray


class TakeSlot(NamedTuple):
    """It took the top discard (K4(d)): the own position it replaces."""

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    own: tuple
    rng: np.ndarray
    tmp: np.ndarray


class Keep(NamedTuple):
    """It drew ``drawn`` from the stock (K4(c)), whose power is ``kind``."""

    me: int
    drawn: int
    kind: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    own: tuple
    rng: np.ndarray
    tmp: np.ndarray


class Power(NamedTuple):
    """A power of ``kind`` to spend (K5); ``locked``: the immune caller's seat (or -1); ``own_vs_opp``: a swap must
    take one own card and one opponent's."""

    me: int
    kind: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    locked: int
    own_vs_opp: bool
    rng: np.ndarray
    tmp: np.ndarray
    out: np.ndarray


class KingSwap(NamedTuple):
    """A king's look (K5): card ``ca`` seen at player ``pa``, ``cb`` at ``pb``."""

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    pa: int
    ca: int
    pb: int
    cb: int
    rng: np.ndarray


class Snap(NamedTuple):
    """A snap window on a discard of rank ``top_rank`` (K6); ``allow_others``: snap_others; ``locked`` as in
    :class:`Power`."""

    me: int
    top_rank: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray
    allow_others: bool
    locked: int
    rng: np.ndarray
    tmp: np.ndarray
    out: np.ndarray


class Table(NamedTuple):
    """The table as the player sees it, nothing more (``estimate``)."""

    me: int
    know: np.ndarray
    occ: np.ndarray
    nslots: np.ndarray
    faceup: np.ndarray


class Me(NamedTuple):
    """The seat alone (``forget``, ``memory_noise``, ``speed``: abilities, not choices about the table)."""

    me: int


@njit(inline="llvm")
def _view(c):
    return TableView(c.me, c.know, c.occ, c.nslots, c.faceup)


@njit(inline="llvm")
def _turn_view(c):
    return TurnView(c.me, c.know, c.occ, c.nslots, c.faceup, c.own)


@njit(inline="llvm")
def ask_peeks(f, prm, c):
    return f(prm, _view(c), c.n, c.rng, c.out)


@njit(inline="llvm")
def ask_turn(f, prm, c):
    return f(prm, _turn_view(c), c.top, c.can_call, c.can_contre, c.can_take, c.cum_me, c.au_ge, c.rng)


@njit(inline="llvm")
def ask_take_slot(f, prm, c):
    return f(prm, _turn_view(c), c.rng)


@njit(inline="llvm")
def ask_keep(f, prm, c):
    return f(prm, _turn_view(c), c.drawn, c.rng)


@njit(inline="llvm")
def ask_power(f, prm, c):
    return f(prm, _view(c), c.kind, c.locked, c.own_vs_opp, c.rng, c.tmp, c.out)


@njit(inline="llvm")
def ask_king_swap(f, prm, c):
    return f(prm, _view(c), c.pa, c.ca, c.pb, c.cb, c.rng)


@njit(inline="llvm")
def ask_snap(f, prm, c):
    return f(prm, _view(c), c.top_rank, c.allow_others, c.locked, c.rng, c.tmp, c.out)


@njit(inline="llvm")
def ask_estimate(f, prm, c):
    return f(prm, _view(c))


@njit(inline="llvm")
def ask_trait(f, prm, c):
    return f(prm)


@njit(inline="llvm")
def check_peeks(fault, a, c):
    return legal_peeks(fault, c.me, a, c.n, c.occ, c.nslots, c.out)


@njit(inline="llvm")
def check_turn(fault, a, c):
    return legal_turn(fault, c.me, a, c.can_call, c.can_contre, c.can_take)


@njit(inline="llvm")
def check_take_slot(fault, a, c):
    return legal_slot(fault, D_TAKE_SLOT, c.me, a, False, c.occ, c.nslots)


@njit(inline="llvm")
def check_keep(fault, a, c):
    return legal_slot(fault, D_KEEP, c.me, a, True, c.occ, c.nslots)


@njit(inline="llvm")
def check_power(fault, a, c):
    return not a or legal_power(fault, c.me, a, c.kind, c.locked, c.own_vs_opp, c.occ, c.nslots, c.faceup, c.out)


@njit(inline="llvm")
def check_snap(fault, a, c):
    return a == SNAP_NONE or legal_snap(fault, c.me, a, c.allow_others, c.locked, c.occ, c.nslots, c.faceup, c.out)


@njit(inline="llvm")
def check_forget(fault, a, c):
    return legal_rate(fault, D_FORGET, c.me, a)


@njit(inline="llvm")
def check_memory_noise(fault, a, c):
    return legal_rate(fault, D_MEMORY_NOISE, c.me, a)


@njit(inline="llvm")
def check_speed(fault, a, c):
    return legal_rate(fault, D_SPEED, c.me, a)


@njit(inline="llvm")
def no_peek(c):
    return 0


@njit(inline="llvm")
def draw_from_stock(c):
    return ACT_STOCK


@njit(inline="llvm")
def first_own_position(c):
    return first_own(c.me, c.occ, c.nslots)


@njit(inline="llvm")
def discard_it(c):
    return -1


@njit(inline="llvm")
def pass_power(c):
    return False


@njit(inline="llvm")
def no_snap(c):
    return SNAP_NONE


@njit(inline="llvm")
def never(c):
    return 0.0


@njit(inline="llvm")
def unit_rate(c):
    return 1.0


DECISIONS: dict[str, Decision] = {
    "peeks": Decision(
        Peeks, ask_peeks,
        "K2: how many own positions to look at (at most n), their positions written to out[:k]",
        check=check_peeks, fallback=no_peek,
        legal="0 <= k <= n, out[:k] own positions holding a card",
        default="heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)"),
    "turn": Decision(
        Turn, ask_turn,
        "K4/K8/K9: ACT_STOCK always; ACT_TAKE if can_take, ACT_CALL if can_call, ACT_CONTRE if can_contre",
        check=check_turn, fallback=draw_from_stock,
        legal="ACT_STOCK; ACT_TAKE only if can_take, ACT_CALL only if can_call, ACT_CONTRE only if can_contre",
        default="heuristic.turn_on(prm, view.own, top, can_call, can_contre, can_take, cum_me, au_ge)"),
    "take_slot": Decision(
        TakeSlot, ask_take_slot,
        "K4(d): the own position (holding a card) the top discard replaces",
        check=check_take_slot, fallback=first_own_position,
        legal="an own position holding a card",
        default="heuristic.summary_worst(view.own, prm[H.unknown_value])[0]"),
    "keep": Decision(
        Keep, ask_keep,
        "K4(c): -1 to discard the drawn card, or the own position (holding a card) it replaces",
        check=check_keep, fallback=discard_it,
        legal="-1, or an own position holding a card",
        default="heuristic.keep_on(prm, drawn, view.own)"),
    "power": Decision(
        Power, ask_power,
        "K5: False to pass; True with out = (p1, s1) for a peek, (p1, s1, p2, s2) for a swap or king",
        kind="bool", check=check_power, fallback=pass_power,
        legal="False; or a look at a face-down card, own for a 7/8 (POWER_PEEK_OWN), an opponent's for a 9/10; "
              "or, for a J/Q swap or a king, two distinct face-down cards that are there, outside the locked "
              "(immune caller's) layout, one own and one opponent's when own_vs_opp",
        default="heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, "
                "view.faceup, locked, rng, out)"),
    "king_swap": Decision(
        KingSwap, ask_king_swap,
        "K5 king: having seen card ca at player pa and cb at pb, True to swap them", kind="bool",
        legal="True or False", default="heuristic.king_swap(prm, view.me, pa, ca, pb, cb)"),
    "snap": Decision(
        Snap, ask_snap,
        "K6: SNAP_NONE; SNAP_OWN with out = (k, slot_1..slot_k); SNAP_OTHER with out = (player, slot, own slot given)",
        check=check_snap, fallback=no_snap,
        legal="SNAP_NONE; SNAP_OWN with 1 <= k and distinct own face-down positions; SNAP_OTHER (only if "
              "allow_others) with an opponent's face-down card outside the locked layout and an own position "
              "holding a card to give",
        default="heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots, "
                "view.faceup, allow_others, locked, rng, out)"),
    "estimate": Decision(
        Table, ask_estimate,
        "(float, int): the player's estimate of its own layout and how many own cards it has not seen",
        kind="estimate", legal="any (it is reported in the rows, not played)",
        default="own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])"),
    "forget": Decision(
        Me, ask_trait, "probability per own turn of forgetting each remembered card (K13)", kind="float",
        check=check_forget, fallback=never, legal="a probability in [0, 1]", default="prm[H.forget]"),
    "memory_noise": Decision(
        Me, ask_trait, "probability per own turn of misremembering each remembered card (K13)", kind="float",
        check=check_memory_noise, fallback=never, legal="a probability in [0, 1]", default="prm[H.memory_noise]"),
    "speed": Decision(
        Me, ask_trait, "reaction rate in snap races (race_policy=speed_weighted), > 0", kind="float",
        check=check_speed, fallback=unit_rate, legal="a finite rate > 0", default="prm[H.speed]"),
}
