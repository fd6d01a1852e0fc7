"""The engines' check of every Kem's strategy answer (the contract's legal choices), and its one-line report.

Each check accepts exactly the answers :mod:`simulator.kems.vocabulary.legal` lists for that decision
(``tests/test_kems_contract.py``). ``legal_<what>(fault, me, answer, <what it is checked against>)`` returns True
for a legal answer; for an illegal one it writes a fault record (:mod:`simulator.core.kernels.faults`) into ``fault``, if
none is recorded yet, and returns False. The same functions run compiled in the kernel's dispatch to a user's
strategy and as plain Python in the reference engine for every seat. In a record, ``decision`` is 1 + the index
in :data:`DECISION_ORDER`, ``reason`` one of ``R_*``; the context words are, for ``propose``, the pair's index,
hand slot and centre slot and ``multi``; for ``infer_contre``, the player count.
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels import faults
from simulator.core.kernels.faults import (  # noqa: F401  (re-exported with the contract)
    StrategyError, new_fault, record,
)
from simulator.core.kernels.jit import njit
from simulator.kems.vocabulary.codes import EMPTY
from simulator.kems.vocabulary.legal import CENTRE_SLOTS, HAND_SLOTS, max_exchanges
from simulator.kems.vocabulary.views import team

DECISION_ORDER = ("propose", "infer_contre", "sign", "call", "contre")
D = {name: i + 1 for i, name in enumerate(DECISION_ORDER)}
D_PROPOSE, D_INFER_CONTRE, D_SIGN, D_CALL, D_CONTRE = range(1, 6)

R_COUNT, R_HAND_SLOT, R_CENTRE_SLOT, R_EMPTY, R_TWICE, R_NOT_OPPONENT, R_CANNOT_CALL = range(1, 8)
REASONS = {
    R_COUNT: "is not a number of exchanges allowed",
    R_HAND_SLOT: "writes a pair whose hand slot is not 0-3",
    R_CENTRE_SLOT: "writes a pair whose centre slot is not 0-3",
    R_EMPTY: "writes a pair for a centre slot with no card it sees",
    R_TWICE: "uses a hand slot or a centre slot twice",
    R_NOT_OPPONENT: "is not -1 or an opponent's seat",
    R_CANNOT_CALL: "calls contre while it cannot (banned by a wrong contre, or a contre already pending)",
}


@njit(refcount=False)
def legal_propose(fault, me, a, out, seen, multi):
    """KM5: ``0 <= a <= max_exchanges(multi)`` pairs ``out[:a]``, each a hand slot and a centre slot holding a
    card the player sees, no slot twice."""
    if a < 0 or a > max_exchanges(multi):
        return record(fault, D_PROPOSE, me, R_COUNT, a, -1, 0, 0, int(multi), 0, 0)
    for i in range(a):
        hand_slot, slot = out[i, 0], out[i, 1]
        reason = 0
        if hand_slot < 0 or hand_slot >= HAND_SLOTS:
            reason = R_HAND_SLOT
        elif slot < 0 or slot >= CENTRE_SLOTS:
            reason = R_CENTRE_SLOT
        elif seen[slot] == EMPTY:
            reason = R_EMPTY
        else:
            for j in range(i):
                if out[j, 0] == hand_slot or out[j, 1] == slot:
                    reason = R_TWICE
        if reason:
            return record(fault, D_PROPOSE, me, reason, a, i, hand_slot, slot, int(multi), 0, 0)
    return True


@njit(refcount=False)
def legal_accuse(fault, me, a, players):
    """KM10: -1, or a seat of another team."""
    if a == -1 or (0 <= a < players and team(a, players) != team(me, players)):
        return True
    return record(fault, D_INFER_CONTRE, me, R_NOT_OPPONENT, a, players, 0, 0, 0, 0, 0)


@njit(refcount=False)
def legal_contre(fault, me, a, can_call):
    """KM10 on a sign seen: True only when the player can call."""
    if a and not can_call:
        return record(fault, D_CONTRE, me, R_CANNOT_CALL, 1, 0, 0, 0, 0, 0, 0)
    return True


def _answer_and_legal(decision: str, fault: np.ndarray) -> tuple[str, str]:
    answer, w = int(fault[faults.F_ANSWER]), [int(x) for x in fault[faults.F_CONTEXT:]]
    if decision == "propose":
        most = HAND_SLOTS if w[3] else 1
        shown = f"{answer}" if w[0] < 0 else f"{answer} (pair {w[0]}: hand slot {w[1]}, centre slot {w[2]})"
        return shown, (f"0 to {most} pairs, each a hand slot 0-3 and a centre slot 0-3 holding a card it sees, "
                       "no slot twice")
    if decision == "infer_contre":
        return f"{answer}", "-1 or an opponent's seat (another team's)"
    return "True", "False"


def describe(fault: np.ndarray, label: str) -> str:
    """The one line for a Kem's fault record (:func:`simulator.core.kernels.faults.fault_line`)."""
    return faults.fault_line(fault, label, DECISION_ORDER, REASONS, _answer_and_legal)


def raise_fault(fault: np.ndarray, labels) -> None:
    """Raise :class:`StrategyError` for a recorded Kem's fault (``labels``: each seat's label, a list or a dict by
    seat); no-op without one."""
    faults.raise_fault(fault, labels, describe)
