"""One entry point per Kem's decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.contract.decisions`).

The built-in families answer through :mod:`strategies.kems.dispatch` (one function per decision, by kernel id).
``decide_<name>(seats, c)`` is what the numba engine calls, :func:`ask` what the reference engine calls (``c``: the
decision's context, :mod:`simulator.kems.vocabulary.contract`):
both go to the built-ins for a built-in id and to the user's file otherwise, and check the answer against the
contract (:mod:`simulator.kems.vocabulary.contract`, :mod:`simulator.kems.vocabulary.answers`). Each decision receives only the
deciding player's information set (:mod:`simulator.kems.vocabulary.views`).

Decisions, each asked when the real-time model gives the player a chance (§3.2):

* ``propose`` (a move) → how many exchange pairs it writes into ``out`` (``int64[4, 2]``: hand slot, centre slot);
* ``infer_contre`` (a move, while it may call contre) → the opponent it accuses from public knowledge, or -1;
* ``sign`` (holding four of a kind, a chance to sign) → whether it signs;
* ``call`` (its partner's sign seen) → whether it calls Kem's;
* ``contre`` (an opponent's sign seen) → whether it calls contre.

:func:`contre_horizon` is no decision but a promise of the built-in families the kernel uses to skip work: the
open-exchange tick count before which ``infer_contre`` surely returns -1 while public knowledge stays the same.
A user's seat makes no such promise (0: always asked), nor is its proposal reused on an unchanged view.
"""

from __future__ import annotations

from simulator.core.contract.decisions import Contract, ReferenceDispatch, compiled_decision
from simulator.core.contract.seats import USER_KERNEL_BASE
from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import NEVER
from simulator.kems.vocabulary import answers
from simulator.kems.vocabulary.contract import ARG_TYPES, DECISIONS
from strategies.kems import heuristic
from strategies.kems.dispatch import BUILTIN, FAMILIES, HEURISTIC, RANDOM

BUILTIN_IDS = tuple(FAMILIES)
CONTRACT = Contract(game="kems", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS,
                    describe=answers.describe, arg_types=ARG_TYPES, inline="numba")

decide_propose = compiled_decision(CONTRACT, "propose")
decide_infer_contre = compiled_decision(CONTRACT, "infer_contre")
decide_sign = compiled_decision(CONTRACT, "sign")
decide_call = compiled_decision(CONTRACT, "call")
decide_contre = compiled_decision(CONTRACT, "contre")

REFERENCE = ReferenceDispatch(CONTRACT)
ask = REFERENCE.ask
checked = REFERENCE.checked


@njit(refcount=False)
def contre_horizon(sid, prm, me, players, hand, loc, pub, last_swap, work):
    """The built-ins' contre horizon (see the module docstring); 0 for a user's seat."""
    if sid >= USER_KERNEL_BASE:
        return 0
    if sid == RANDOM:
        return NEVER
    return heuristic.contre_horizon(prm, me, players, hand, loc, pub, last_swap, work)


@njit(refcount=False, inline="always")
def reuses_proposals(sid):
    """Whether the kernel may reuse a seat's proposal on an unchanged view (a deterministic built-in family)."""
    return sid == HEURISTIC
