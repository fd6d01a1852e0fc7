"""One entry point per Kamoul decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.contract.decisions`).

The built-in families answer through :mod:`strategies.kamoul.dispatch` (one function per decision, by kernel id,
inlined into the kernel); declaring the game refuses a registered kernel id that is not there
(``GamePlugin.__post_init__``). ``decide_<name>(seats, c)`` is what the numba engine calls, :func:`ask` what the
reference engine calls (``c``: the decision's context, :mod:`simulator.kamoul.vocabulary.contract`): both go to the built-ins for a built-in id and to the user's file otherwise, and check the answer against the
contract (:mod:`simulator.kamoul.vocabulary.contract`, :mod:`simulator.kamoul.vocabulary.answers`). Each decision receives only the
deciding player's information set (see ``simulator.kamoul.vocabulary.views``).
"""

from __future__ import annotations


import numpy as np

from simulator.core.contract.decisions import Contract, ReferenceDispatch, compiled_decision
from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary import answers
from simulator.kamoul.vocabulary.contract import ARG_TYPES, DECISIONS
from strategies.kamoul.dispatch import BUILTIN, CALL_TABLE, FAMILIES, HEURISTIC, RANDOM, SEARCH  # noqa: F401  (ids)

BUILTIN_IDS = tuple(FAMILIES)
BELIEF_SNAPPERS = np.array([sid in FAMILIES and bool(getattr(FAMILIES[sid], "SNAPS_ON_BELIEF", False))
                            for sid in range(max(FAMILIES) + 1)], dtype=np.bool_)
"""``bool[max id + 1]``: the built-in families whose snap is "no", with no random draw, when the player believes
no own card of the discard's rank (their ``SNAPS_ON_BELIEF``); the engine need not ask them then
(``simulator.kamoul.engines.beliefs``). A user's file is asked unless it declares the same (``KernelSeats.snaps_on_belief``)."""


@njit(inline="llvm")
def snaps_on_belief(sid):
    """Whether the seat of kernel id ``sid`` is a built-in family of :data:`BELIEF_SNAPPERS`."""
    return sid < BELIEF_SNAPPERS.shape[0] and BELIEF_SNAPPERS[sid]


CONTRACT = Contract(game="kamoul", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS,
                    describe=answers.describe, arg_types=ARG_TYPES, inline="llvm",
                    belief_snappers=tuple(sid for sid in FAMILIES if BELIEF_SNAPPERS[sid]))

decide_peeks = compiled_decision(CONTRACT, "peeks")
decide_turn = compiled_decision(CONTRACT, "turn")
decide_take_slot = compiled_decision(CONTRACT, "take_slot")
decide_keep = compiled_decision(CONTRACT, "keep")
decide_power = compiled_decision(CONTRACT, "power")
decide_king_swap = compiled_decision(CONTRACT, "king_swap")
decide_snap = compiled_decision(CONTRACT, "snap")
estimate = compiled_decision(CONTRACT, "estimate")
forget_prob = compiled_decision(CONTRACT, "forget")
memory_noise_prob = compiled_decision(CONTRACT, "memory_noise")
speed = compiled_decision(CONTRACT, "speed")

REFERENCE = ReferenceDispatch(CONTRACT)
ask = REFERENCE.ask
checked = REFERENCE.checked
