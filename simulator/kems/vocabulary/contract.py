"""The Kem's strategy contract: every decision a strategy answers, what it sees, and what it may answer.

The real-time model (§3.2) decides *when* a player gets a chance: a move (Poisson times at its grab rate), a sign
(each tick with probability σ while it holds four of a kind), a sign seen (by attention and visibility). At each
chance the engine asks the player's strategy the decision below; what it answers is checked in both engines like
every game's answers (:mod:`simulator.kems.vocabulary.answers`, :mod:`simulator.kems.vocabulary.legal`). The rates themselves (grab
speed, σ, visibility, attention on the partner and the opponents) are the common parameters every Kem's
strategy declares first (:mod:`strategies.kems.common`), which the model reads.

A strategy from a user's file defines one function per entry of :data:`DECISIONS`, with the argument list of
``user_signature``; docs/strategies.md documents each decision.
"""

from __future__ import annotations

from functools import partial
from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision


class PlayerView(NamedTuple):
    """What the deciding player always knows; read it, never write it. What it perceives of the table
    (``lag_ticks`` old) comes with the decisions that use it.

    ``me``: its seat (partners sit opposite: seat ``(me + players // 2) % players``); ``players``: 4 or 6;
    ``hand``: ``int64[4]``, its four card ids (``suit * 13 + rank``)."""

    me: int
    players: int
    hand: np.ndarray


_FLAG, _COUNT = types.boolean, types.int64
ARG_TYPES = {
    "me": types.int64, "players": types.int64, "hand_me": types.int64[::1], "seen": types.int64[::1],
    "loc": types.int8[::1], "pub": types.int64[::1], "multi": _FLAG, "mem": types.int64[::1],
    "work": types.int64[::1], "out": types.int64[:, ::1], "rng": types.uint64[::1], "silence": types.int64[::1],
    "signer": _COUNT, "can_call": _FLAG,
}
"""The numba type of each engine argument as the kernel passes it: a file's functions are compiled for these
(``simulator.core.contract.user_table.decision_signature``). ``rng``: the game's xoshiro256** state, ``uint64[4]``."""

_VIEW = "PlayerView(me, players, hand_me)"
_SEEN = ("me", "players", "hand_me")
_decision = partial(Decision, view_call=_VIEW)  # every decision passes the player's view as `view`
DECISIONS: dict[str, Decision] = {
    "propose": _decision(
        (*_SEEN, "seen", "loc", "pub", "multi", "mem", "work", "out", "rng"),
        f"prm, {_VIEW}, seen, loc, pub, multi, mem, work, out, rng",
        "KM5, at each of its moves: how many exchanges it writes into out (int64[4, 2]: hand slot, centre slot), "
        "0 to pass; seen: int64[4], the centre as it perceives it (EMPTY = -1 for a free slot); loc: int8[52], "
        "public knowledge of each card; pub: int64[PUB_SIZE], its rank counts (simulator.kems.vocabulary.views); mem: "
        "int64[4], its own memory, -1 at each manche's start; work: int64[64], scratch space",
        check="legal_propose(fault, me, a, out, seen, multi)", fallback="0",
        legal="0 to 4 pairs (at most 1 without multi_swap), each a hand slot 0-3 and a centre slot 0-3 holding a "
              "card it sees, no slot twice",
        default="heuristic.propose(prm, view.me, view.players, view.hand, seen, loc, pub, multi, mem, work, out)"),
    "infer_contre": _decision(
        (*_SEEN, "loc", "pub", "silence", "work"), f"prm, {_VIEW}, loc, pub, silence, work",
        "KM10, at each of its moves while it may call contre: the opponent it accuses from what it perceives, "
        "or -1 (loc, pub: as for propose; silence: int64[P], ticks of open exchange since each player's last "
        "exchange)",
        check="legal_accuse(fault, me, a, players)", fallback="-1",
        legal="-1, or the seat of an opponent",
        default="heuristic.infer_contre(prm, view.me, view.players, view.hand, loc, pub, silence, work)"),
    "sign": _decision(
        (*_SEEN, "rng"), f"prm, {_VIEW}, rng",
        "M-signal, holding four of a kind, when the model gives it a chance to sign (each tick with probability "
        "sigma): True to make the team sign", kind="bool", legal="True or False", default="True"),
    "call": _decision(
        (*_SEEN, "signer", "rng"), f"prm, {_VIEW}, signer, rng",
        "KM8, when it sees its partner signer's sign and has no Kem's call pending: True to call Kem's (after "
        "the reaction delay)", kind="bool", legal="True or False", default="True"),
    "contre": _decision(
        (*_SEEN, "signer", "can_call", "rng"), f"prm, {_VIEW}, signer, can_call, rng",
        "KM10, when it sees opponent signer's sign: True to call contre on it (can_call: not banned by a wrong "
        "contre and no contre pending)", kind="bool", check="legal_contre(fault, me, a, can_call)",
        fallback="False", legal="True only if can_call",
        default="uniform(rng) < prm[P_CONTRE_PROB] and can_call"),
}
