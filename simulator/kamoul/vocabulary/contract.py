"""The Kamoul strategy contract: every decision a strategy answers, what it sees, and what it may answer.

A strategy from a user's file defines one function per entry of :data:`DECISIONS`, with the argument list of
``user_signature``; the engines build each call from their own state (``engine_args``, the order both engines and
the built-in families use) and pass the player's :class:`TableView` (:class:`TurnView` in a turn's decisions).
docs/strategies.md documents each decision.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision


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
    "me": _SEAT, "know_me": types.int16[:, ::1], "occ": _LAYOUT8, "nslots": types.int64[::1], "faceup": _LAYOUT8,
    "rng": types.uint64[::1], "out": types.int64[::1], "tmp": types.int64[::1], "n": types.int64,
    "top": types.int64, "can_call": _FLAG, "can_contre": _FLAG, "can_take": _FLAG, "cum_me": types.int64,
    "au_ge": _FLAG, "drawn": types.int64, "kind": types.int64, "locked": _SEAT, "own_vs_opp": _FLAG,
    "pa": _SEAT, "ca": types.int64, "pb": _SEAT, "cb": types.int64, "top_rank": types.int64, "allow_others": _FLAG,
    "own": types.UniTuple(types.int64, 6),
}
"""The numba type of each engine argument as the kernel passes it: a file's functions are compiled for these
(``simulator.core.contract.user_table.decision_signature``). ``rng``: the game's xoshiro256** state, ``uint64[4]``;
``out``: ``int64`` scratch the strategy writes its answer (slots, targets) to; ``tmp``: ``int64[>= 2 P S]`` scratch
of its own (the built-ins list the legal choices there, :mod:`simulator.kamoul.vocabulary.legal`)."""

_VIEW = "TableView(me, know_me, occ, nslots, faceup)"
_TURN_VIEW = "TurnView(me, know_me, occ, nslots, faceup, own)"  # with the engine's per-turn summary ``own``
_decision = partial(Decision, view_call=_VIEW)  # every decision passes the player's view as `view`
_turn_decision = partial(Decision, view_call=_TURN_VIEW)
DECISIONS: dict[str, Decision] = {
    "peeks": _decision(
        ("me", "n", "know_me", "occ", "nslots", "faceup", "rng", "tmp", "out"), f"prm, {_VIEW}, n, rng, out",
        "K2: how many own positions to look at (at most n), their positions written to out[:k]",
        check="legal_peeks(fault, me, a, n, occ, nslots, out)", fallback="0",
        legal="0 <= k <= n, out[:k] own positions holding a card",
        default="heuristic.peeks(prm, view.me, n, view.occ, view.nslots, out)"),
    "turn": _turn_decision(
        ("me", "know_me", "occ", "nslots", "faceup", "own", "top", "can_call", "can_contre", "can_take", "cum_me",
         "au_ge", "rng", "tmp"),
        f"prm, {_TURN_VIEW}, top, can_call, can_contre, can_take, cum_me, au_ge, rng",
        "K4/K8/K9: ACT_STOCK always; ACT_TAKE if can_take, ACT_CALL if can_call, ACT_CONTRE if can_contre",
        check="legal_turn(fault, me, a, can_call, can_contre, can_take)", fallback="ACT_STOCK",
        legal="ACT_STOCK; ACT_TAKE only if can_take, ACT_CALL only if can_call, ACT_CONTRE only if can_contre",
        default="heuristic.turn_on(prm, view.own, top, can_call, can_contre, can_take, cum_me, au_ge)"),
    "take_slot": _turn_decision(
        ("me", "know_me", "occ", "nslots", "faceup", "own", "rng", "tmp"), f"prm, {_TURN_VIEW}, rng",
        "K4(d): the own position (holding a card) the top discard replaces",
        check="legal_slot(fault, D_TAKE_SLOT, me, a, False, occ, nslots)", fallback="first_own(me, occ, nslots)",
        legal="an own position holding a card",
        default="heuristic.summary_worst(view.own, prm[H.unknown_value])[0]"),
    "keep": _turn_decision(
        ("me", "drawn", "kind", "know_me", "occ", "nslots", "faceup", "own", "rng", "tmp"),
        f"prm, {_TURN_VIEW}, drawn, rng",
        "K4(c): -1 to discard the drawn card, or the own position (holding a card) it replaces",
        check="legal_slot(fault, D_KEEP, me, a, True, occ, nslots)", fallback="-1",
        legal="-1, or an own position holding a card",
        default="heuristic.keep_on(prm, drawn, view.own)"),
    "power": _decision(
        ("me", "kind", "know_me", "occ", "nslots", "faceup", "locked", "own_vs_opp", "rng", "tmp", "out"),
        f"prm, {_VIEW}, kind, locked, own_vs_opp, rng, tmp, out",
        "K5: False to pass; True with out = (p1, s1) for a peek, (p1, s1, p2, s2) for a swap or king",
        kind="bool", check="not a or legal_power(fault, me, a, kind, locked, own_vs_opp, occ, nslots, faceup, out)",
        fallback="False",
        legal="False; or a look at a face-down card, own for a 7/8 (POWER_PEEK_OWN), an opponent's for a 9/10; "
              "or, for a J/Q swap or a king, two distinct face-down cards that are there, outside the locked "
              "(immune caller's) layout, one own and one opponent's when own_vs_opp",
        default="heuristic.power(prm, view.me, view.occ.shape[0], kind, view.know, view.occ, view.nslots, "
                "view.faceup, locked, rng, out)"),
    "king_swap": _decision(
        ("me", "know_me", "occ", "nslots", "faceup", "pa", "ca", "pb", "cb", "rng"), f"prm, {_VIEW}, pa, ca, pb, cb, rng",
        "K5 king: having seen card ca at player pa and cb at pb, True to swap them", kind="bool",
        legal="True or False", default="heuristic.king_swap(prm, view.me, pa, ca, pb, cb)"),
    "snap": _decision(
        ("me", "top_rank", "know_me", "occ", "nslots", "faceup", "allow_others", "locked", "rng", "tmp", "out"),
        f"prm, {_VIEW}, top_rank, allow_others, locked, rng, tmp, out",
        "K6: SNAP_NONE; SNAP_OWN with out = (k, slot_1..slot_k); SNAP_OTHER with out = (player, slot, own slot given)",
        check="a == SNAP_NONE or legal_snap(fault, me, a, allow_others, locked, occ, nslots, faceup, out)", fallback="SNAP_NONE",
        legal="SNAP_NONE; SNAP_OWN with 1 <= k and distinct own face-down positions; SNAP_OTHER (only if "
              "allow_others) with an opponent's face-down card outside the locked layout and an own position "
              "holding a card to give",
        default="heuristic.snap(prm, view.me, view.occ.shape[0], top_rank, view.know, view.occ, view.nslots, "
                "view.faceup, allow_others, locked, rng, out)"),
    "estimate": _decision(
        ("me", "know_me", "occ", "nslots", "faceup"), f"prm, {_VIEW}",
        "(float, int): the player's estimate of its own layout and how many own cards it has not seen",
        kind="estimate", legal="any (it is reported in the rows, not played)",
        default="own_estimate(view.me, view.know, view.occ, view.nslots, prm[H.unknown_value])"),
    "forget": _decision(
        (), "prm", "probability per own turn of forgetting each remembered card (K13)", kind="float",
        check="legal_rate(fault, D_FORGET, me, a)", fallback="0.0", legal="a probability in [0, 1]",
        default="prm[H.forget]"),
    "memory_noise": _decision(
        (), "prm", "probability per own turn of misremembering each remembered card (K13)", kind="float",
        check="legal_rate(fault, D_MEMORY_NOISE, me, a)", fallback="0.0", legal="a probability in [0, 1]",
        default="prm[H.memory_noise]"),
    "speed": _decision(
        (), "prm", "reaction rate in snap races (race_policy=speed_weighted), > 0", kind="float",
        check="legal_rate(fault, D_SPEED, me, a)", fallback="1.0", legal="a finite rate > 0",
        default="prm[H.speed]"),
}
