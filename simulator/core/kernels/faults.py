"""A strategy's illegal answer, as the compiled engines record it and as the user reads it.

A kernel cannot raise a formatted error from inside a ``prange`` loop, so a game's answer checks write a *fault
record* (``int64[FAULT_WORDS]``) instead: ``[decision, seat, reason, answer, w0 .. w5]``, where ``decision`` is
1 + the decision's index in the game's contract (0: no fault), ``reason`` the game's code for the rule broken
and ``w*`` six words of context (reason :data:`RAISED`: the file's function raised). :func:`record` keeps the
first one. After the kernel, :func:`raise_fault` turns a record into :class:`StrategyError` (or
:class:`~simulator.core.errors.StrategyCodeError` for :data:`RAISED`), with the game's ``describe(fault, label)``.
"""

from __future__ import annotations

import numpy as np

from simulator.core.errors import SpecError, StrategyCodeError
from simulator.core.kernels.jit import njit

FAULT_WORDS = 10
F_DECISION, F_SEAT, F_REASON, F_ANSWER, F_CONTEXT = 0, 1, 2, 3, 4


class StrategyError(SpecError):
    """A strategy answered a decision illegally. ``str(err)`` is one line; the CLI exits 2."""

    def __init__(self, line: str):
        ValueError.__init__(self, line)
        self.field, self.value, self.allowed = "--strategy", None, ""


def new_fault() -> np.ndarray:
    """An empty fault record (no fault)."""
    return np.zeros(FAULT_WORDS, dtype=np.int64)


@njit(refcount=False)
def record(fault, decision, me, reason, answer, w0, w1, w2, w3, w4, w5):
    """Write a fault record into ``fault`` unless one is there already; returns False (the answer is illegal).

    Eleven parameters: the record's ten words, passed as scalars so that a check in a compiled kernel writes them
    without building an array."""
    if fault[F_DECISION] == 0:
        fault[F_DECISION] = decision
        fault[F_SEAT] = me
        fault[F_REASON] = reason
        fault[F_ANSWER] = answer
        fault[F_CONTEXT] = w0
        fault[F_CONTEXT + 1] = w1
        fault[F_CONTEXT + 2] = w2
        fault[F_CONTEXT + 3] = w3
        fault[F_CONTEXT + 4] = w4
        fault[FAULT_WORDS - 1] = w5
    return False


RAISED = -1
"""The reason of a fault record for a file's function that raised an exception in the compiled engine."""


@njit(refcount=False)
def record_raised(fault, decision, me):
    """Record that the function of ``decision`` (1 + its contract position) of seat ``me`` raised."""
    record(fault, decision, me, RAISED, 0, 0, 0, 0, 0, 0, 0)


def fault_line(fault: np.ndarray, label: str, decision_order, reasons: dict, answer_and_legal) -> str:
    """The one line for a fault record: strategy, seat, decision, answer, the rule broken and what was legal.
    ``decision_order``, ``reasons`` and ``answer_and_legal(decision, fault) -> (answer, legal)`` are the game's."""
    decision = decision_order[int(fault[F_DECISION]) - 1]
    if int(fault[F_REASON]) == RAISED:
        return (f"strategy {label!r} (seat {int(fault[F_SEAT])}): its {decision}() raised an exception in the "
                "compiled engine, which does not say which; `cardsim check-strategy` plays the file on the "
                "reference engine, which names it and its line")
    answer, legal = answer_and_legal(decision, fault)
    return (f"strategy {label!r} (seat {int(fault[F_SEAT])}) answered {decision} with {answer}, which "
            f"{reasons[int(fault[F_REASON])]}; legal: {legal}")


def raise_fault(fault: np.ndarray, labels, describe) -> None:
    """Raise :class:`StrategyError` for a recorded fault (``labels``: each seat's strategy label, a list or a
    dict by seat; ``describe(fault, label)``: the game's line); no-op without one."""
    if fault[F_DECISION] != 0:
        line = describe(fault, labels[int(fault[F_SEAT])])
        raise StrategyCodeError(line) if int(fault[F_REASON]) == RAISED else StrategyError(line)
