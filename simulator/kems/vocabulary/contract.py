"""The Kem's strategy contract: every decision a strategy answers, what it sees, and what it may answer.

The real-time model (§3.2) decides *when* a player gets a chance: a move (Poisson times at its grab rate), a sign
(each tick with probability σ while it holds four of a kind), a sign seen (by attention and visibility). At each
chance the engine asks the player's strategy the decision below; what it answers is checked in both engines like
every game's answers (:mod:`simulator.kems.vocabulary.answers`, :mod:`simulator.kems.vocabulary.legal`). The rates themselves (grab
speed, σ, visibility, attention on the partner and the opponents) are the common parameters every Kem's
strategy declares first (:mod:`strategies.kems.common`), which the model reads.

Each decision is declared once in :data:`DECISIONS`: its context (what the deciding player knows, a ``NamedTuple``
both engines build), how a user's function is asked (``ask_<name>``: the argument list a file's function declares),
the answer's kind, its check and fallback. docs/strategies.md documents each decision.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import types

from simulator.core.contract.decisions import Decision
from simulator.core.kernels.jit import njit
from simulator.kems.vocabulary.answers import legal_accuse, legal_contre, legal_propose


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
    "me": types.int64, "players": types.int64, "hand": types.int64[::1], "seen": types.int64[::1],
    "loc": types.int8[::1], "pub": types.int64[::1], "multi": _FLAG, "mem": types.int64[::1],
    "work": types.int64[::1], "out": types.int64[:, ::1], "rng": types.uint64[::1], "silence": types.int64[::1],
    "signer": _COUNT, "can_call": _FLAG,
}
"""The numba type of each context field as the kernel passes it: a file's functions are compiled for these
(:meth:`simulator.core.contract.decisions.Decision.signature`). ``rng``: the game's xoshiro256** state,
``uint64[4]``."""


class Propose(NamedTuple):
    """At one of its moves (KM5): the centre as it perceives it (``seen``, ``int64[4]``, ``EMPTY`` = -1 for a
    free slot), public knowledge of each card (``loc``, ``int8[52]``), its rank counts (``pub``,
    ``int64[PUB_SIZE]``, :mod:`simulator.kems.vocabulary.views`), ``multi`` (``multi_swap``), its own memory
    (``mem``, ``int64[4]``, -1 at each manche's start), scratch (``work``, ``int64[64]``), where it writes its
    exchanges (``out``, ``int64[4, 2]``: hand slot, centre slot) and its random state ``rng``."""

    me: int
    players: int
    hand: np.ndarray
    seen: np.ndarray
    loc: np.ndarray
    pub: np.ndarray
    multi: bool
    mem: np.ndarray
    work: np.ndarray
    out: np.ndarray
    rng: np.ndarray


class InferContre(NamedTuple):
    """At one of its moves while it may call contre (KM10): ``loc`` and ``pub`` as in :class:`Propose`;
    ``silence``: ``int64[P]``, ticks of open exchange since each player's last exchange."""

    me: int
    players: int
    hand: np.ndarray
    loc: np.ndarray
    pub: np.ndarray
    silence: np.ndarray
    work: np.ndarray


class Sign(NamedTuple):
    """Holding four of a kind, a chance to sign (M-signal)."""

    me: int
    players: int
    hand: np.ndarray
    rng: np.ndarray


class Call(NamedTuple):
    """Its partner ``signer``'s sign seen, no Kem's call pending (KM8)."""

    me: int
    players: int
    hand: np.ndarray
    signer: int
    rng: np.ndarray


class Contre(NamedTuple):
    """Opponent ``signer``'s sign seen (KM10); ``can_call``: not banned by a wrong contre, no contre pending."""

    me: int
    players: int
    hand: np.ndarray
    signer: int
    can_call: bool
    rng: np.ndarray


@njit(refcount=False, inline="always")
def _view(c):
    return PlayerView(c.me, c.players, c.hand)


@njit(refcount=False, inline="always")
def ask_propose(f, prm, c):
    return f(prm, _view(c), c.seen, c.loc, c.pub, c.multi, c.mem, c.work, c.out, c.rng)


@njit(refcount=False, inline="always")
def ask_infer_contre(f, prm, c):
    return f(prm, _view(c), c.loc, c.pub, c.silence, c.work)


@njit(refcount=False, inline="always")
def ask_sign(f, prm, c):
    return f(prm, _view(c), c.rng)


@njit(refcount=False, inline="always")
def ask_call(f, prm, c):
    return f(prm, _view(c), c.signer, c.rng)


@njit(refcount=False, inline="always")
def ask_contre(f, prm, c):
    return f(prm, _view(c), c.signer, c.can_call, c.rng)


@njit(refcount=False, inline="always")
def check_propose(fault, a, c):
    return legal_propose(fault, c.me, a, c.out, c.seen, c.multi)


@njit(refcount=False, inline="always")
def check_infer_contre(fault, a, c):
    return legal_accuse(fault, c.me, a, c.players)


@njit(refcount=False, inline="always")
def check_contre(fault, a, c):
    return legal_contre(fault, c.me, a, c.can_call)


@njit(refcount=False, inline="always")
def no_exchange(c):
    return 0


@njit(refcount=False, inline="always")
def no_accusation(c):
    return -1


@njit(refcount=False, inline="always")
def no(c):
    return False


DECISIONS: dict[str, Decision] = {
    "propose": Decision(
        Propose, ask_propose,
        "KM5, at each of its moves: how many exchanges it writes into out (int64[4, 2]: hand slot, centre slot), "
        "0 to pass; seen: int64[4], the centre as it perceives it (EMPTY = -1 for a free slot); loc: int8[52], "
        "public knowledge of each card; pub: int64[PUB_SIZE], its rank counts (simulator.kems.vocabulary.views); mem: "
        "int64[4], its own memory, -1 at each manche's start; work: int64[64], scratch space",
        check=check_propose, fallback=no_exchange,
        legal="0 to 4 pairs (at most 1 without multi_swap), each a hand slot 0-3 and a centre slot 0-3 holding a "
              "card it sees, no slot twice",
        default="heuristic.propose(prm, view.me, view.players, view.hand, seen, loc, pub, multi, mem, work, out)"),
    "infer_contre": Decision(
        InferContre, ask_infer_contre,
        "KM10, at each of its moves while it may call contre: the opponent it accuses from what it perceives, "
        "or -1 (loc, pub: as for propose; silence: int64[P], ticks of open exchange since each player's last "
        "exchange)",
        check=check_infer_contre, fallback=no_accusation, legal="-1, or the seat of an opponent",
        default="heuristic.infer_contre(prm, view.me, view.players, view.hand, loc, pub, silence, work)"),
    "sign": Decision(
        Sign, ask_sign,
        "M-signal, holding four of a kind, when the model gives it a chance to sign (each tick with probability "
        "sigma): True to make the team sign", kind="bool", legal="True or False", default="True"),
    "call": Decision(
        Call, ask_call,
        "KM8, when it sees its partner signer's sign and has no Kem's call pending: True to call Kem's (after "
        "the reaction delay)", kind="bool", legal="True or False", default="True"),
    "contre": Decision(
        Contre, ask_contre,
        "KM10, when it sees opponent signer's sign: True to call contre on it (can_call: not banned by a wrong "
        "contre and no contre pending)", kind="bool", check=check_contre, fallback=no, legal="True only if can_call",
        default="uniform(rng) < prm[P_CONTRE_PROB] and can_call"),
}
