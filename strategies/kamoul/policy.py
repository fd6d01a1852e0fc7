"""One entry point per Kamoul decision: the built-in families' dispatch on the kernel id, and the contract that
sends a user's seat to its file (:mod:`simulator.core.contract.decisions`).

``builtin_<name>(sid, prm, *engine_args)`` answers for the built-in families (inlined into the kernel); it is
generated from :data:`FAMILIES`, each family module's ``ANSWERS`` (one expression per decision, in the engine's
arguments; a family with ``INHERITS`` takes that family's where it has none). A family that misses a decision is
refused when this module is imported, and declaring the game refuses a registered kernel id that is not here
(``GamePlugin.__post_init__``): a new family is one module, one line here and its registry entries.
``decide_<name>(seats, me, *rest)`` is what the numba engine calls, :func:`ask` what the reference engine calls:
both go to the built-ins for a built-in id and to the user's file otherwise, and check the answer against the
contract (:mod:`simulator.kamoul.vocabulary.contract`, :mod:`simulator.kamoul.vocabulary.answers`). Each decision receives only the
deciding player's information set (see ``simulator.kamoul.vocabulary.views``).
"""

from __future__ import annotations


import numpy as np

from simulator.core.contract.decisions import Contract, ReferenceDispatch, builtin_dispatch, compiled_decision
from simulator.core.kernels.jit import njit
from simulator.kamoul.vocabulary import answers
from simulator.kamoul.vocabulary.codes import ACT_STOCK, SNAP_NONE
from simulator.kamoul.vocabulary.contract import ARG_TYPES, DECISIONS, TableView, TurnView
from strategies.kamoul import call_table, heuristic, random_play

RANDOM, HEURISTIC, CALL_TABLE = 0, 1, 2
FAMILIES = {RANDOM: random_play, HEURISTIC: heuristic, CALL_TABLE: call_table}
"""The built-in families by kernel id (the registry's ``StrategyDef.kernel_id``)."""
BUILTIN_IDS = tuple(FAMILIES)


def _declares_belief_snaps(family) -> bool:
    """The family's ``SNAPS_ON_BELIEF``, or that of the family whose snap it inherits."""
    if "snap" not in family.ANSWERS and hasattr(family, "INHERITS"):
        return _declares_belief_snaps(family.INHERITS)
    return bool(getattr(family, "SNAPS_ON_BELIEF", False))


BELIEF_SNAPPERS = np.array([sid in FAMILIES and _declares_belief_snaps(FAMILIES[sid])
                            for sid in range(max(FAMILIES) + 1)], dtype=np.bool_)
"""``bool[max id + 1]``: the built-in families whose snap is "no", with no random draw, when the player believes
no own card of the discard's rank (their ``SNAPS_ON_BELIEF``); the engine need not ask them then
(``simulator.kamoul.engines.beliefs``). A user's file is asked unless it declares the same (``KernelSeats.snaps_on_belief``)."""


@njit(inline="llvm")
def snaps_on_belief(sid):
    """Whether the seat of kernel id ``sid`` is a built-in family of :data:`BELIEF_SNAPPERS`."""
    return sid < BELIEF_SNAPPERS.shape[0] and BELIEF_SNAPPERS[sid]


BUILTIN = builtin_dispatch("kamoul", FAMILIES, DECISIONS, inline="llvm")
CONTRACT = Contract(
    game="kamoul", decisions=DECISIONS, builtin=BUILTIN, builtin_ids=BUILTIN_IDS, describe=answers.describe,
    view=TableView, arg_types=ARG_TYPES, belief_snappers=tuple(sid for sid in FAMILIES if BELIEF_SNAPPERS[sid]),
    env={"TableView": TableView, "TurnView": TurnView, "legal_peeks": answers.legal_peeks,
         "legal_turn": answers.legal_turn,
         "legal_slot": answers.legal_slot, "legal_power": answers.legal_power, "legal_snap": answers.legal_snap,
         "legal_rate": answers.legal_rate, "first_own": answers.first_own, "ACT_STOCK": ACT_STOCK,
         "SNAP_NONE": SNAP_NONE, **{f"D_{n.upper()}": code for n, code in answers.D.items()}},
    families=FAMILIES, inline="llvm",
)

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
