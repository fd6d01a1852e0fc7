"""The engines' check of every Rami strategy answer (the contract's legal choices), and its one-line report.

Each check accepts exactly the answers :mod:`simulator.rami.vocabulary.legal` lists for that decision
(``tests/test_rami_legal.py``), with a compare or two instead of building the list.

``legal_<decision>(fault, me, answer, <what the answer is checked against>)`` returns True for a legal answer;
for an illegal one it writes a fault record (:mod:`simulator.core.kernels.faults`) into ``fault``, if none is recorded
yet, and returns False. The same functions run in both engines: compiled in the kernel's dispatch to a user's
strategy, and as plain Python (``.py_func``) in the reference engine for every seat. :func:`describe` turns a
record into the line the user reads. In a record, ``decision`` is 1 + the index in :data:`DECISION_ORDER`,
``reason`` one of ``R_*``, and the context words the legal answers as a bit mask (draw, open, open_with, lay), the number
of moves and ``forced`` (layoff), or ``forbid_fits`` (discard).
"""

from __future__ import annotations

import math

import numpy as np

from simulator.core.cards import JOKER, card_name
from simulator.core.kernels import faults
from simulator.core.kernels.faults import F_ANSWER, F_CONTEXT, F_REASON, record
from simulator.core.kernels.faults import StrategyError, new_fault  # noqa: F401  (re-exported with the contract)
from simulator.core.kernels.jit import njit
from simulator.rami.vocabulary.codes import (
    DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, LAY_NONE, OPEN_NONE, OPEN_OPEN, OPEN_SEC, OPENING_BEST,
    OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST,
)
from simulator.rami.vocabulary.legal import every_held_card_fits

DECISION_ORDER = ("draw", "open", "open_with", "lay", "hold", "layoff", "discard", "claim", "speed")
D = {name: i + 1 for i, name in enumerate(DECISION_ORDER)}
D_DRAW, D_OPEN, D_OPEN_WITH, D_LAY, D_HOLD, D_LAYOFF, D_DISCARD, D_CLAIM, D_SPEED = range(1, 10)

R_CHOICE, R_NOT_NOW, R_MOVE, R_MUST_LAY, R_NOT_HELD, R_FITS, R_RATE = range(1, 8)
REASONS = {
    R_CHOICE: "is no choice of this decision",
    R_NOT_NOW: "is not allowed now",
    R_MOVE: "is not the index of a listed move",
    R_MUST_LAY: "stops when a move is forced (R9: the joker taken back must be laid again)",
    R_NOT_HELD: "is not a card held in hand",
    R_FITS: "fits a table meld, which playable_discard=forbidden does not allow while another card does not",
    R_RATE: "is not a rate > 0",
}
CHOICE_NAMES = {
    "draw": {DRAW_STOCK: "draw from the stock", DRAW_DISCARD: "take the discard"},
    "open": {OPEN_NONE: "do not open", OPEN_OPEN: "open", OPEN_SEC: "go out in a rami sec"},
    "lay": {LAY_NONE: "lay nothing", LAY_ALL: "lay all", LAY_KEEP_JOKERS: "lay, keeping the jokers"},
    "open_with": {OPENING_BEST: "the best opening", OPENING_SMALLEST: "the smallest", OPENING_LARGEST: "the largest",
                OPENING_KEEP_JOKERS: "the best keeping the jokers"},
}


@njit(refcount=False)
def _choice(fault, decision, me, a, mask, n_choices):
    """``a`` one of ``n_choices`` codes, and allowed by bit ``a`` of ``mask``."""
    if a < 0 or a >= n_choices:
        return record(fault, decision, me, R_CHOICE, a, mask, 0, 0, 0, 0, 0)
    if not (mask >> a) & 1:
        return record(fault, decision, me, R_NOT_NOW, a, mask, 0, 0, 0, 0, 0)
    return True


@njit(refcount=False)
def legal_draw(fault, me, a, can_take):
    """R4/R5: the stock always, the discard when ``can_take``."""
    return _choice(fault, D_DRAW, me, a, (1 << DRAW_STOCK) | (int(can_take) << DRAW_DISCARD), 2)


@njit(refcount=False)
def legal_open(fault, me, a, can_open, can_sec):
    """R7/R12: not opening always; opening when ``can_open``; a rami sec when ``can_sec``."""
    mask = (1 << OPEN_NONE) | (int(can_open) << OPEN_OPEN) | (int(can_sec) << OPEN_SEC)
    return _choice(fault, D_OPEN, me, a, mask, 3)


@njit(refcount=False)
def legal_open_with(fault, me, a, styles, n_styles):
    """R7: one of the openings offered, ``styles[:n_styles]``."""
    mask = 0
    for i in range(n_styles):
        mask |= 1 << styles[i]
    return _choice(fault, D_OPEN_WITH, me, a, mask, 4)


@njit(refcount=False)
def legal_lay(fault, me, a):
    """R8: one of the three lay-down plans."""
    return _choice(fault, D_LAY, me, a, (1 << LAY_NONE) | (1 << LAY_ALL) | (1 << LAY_KEEP_JOKERS), 3)


@njit(refcount=False)
def legal_layoff(fault, me, a, n_moves, forced):
    """R8/R9: a listed move, or -1 (stop) unless ``forced``."""
    if a == -1 and not forced:
        return True
    if a == -1:
        return record(fault, D_LAYOFF, me, R_MUST_LAY, a, n_moves, 1, 0, 0, 0, 0)
    if a < 0 or a >= n_moves:
        return record(fault, D_LAYOFF, me, R_MOVE, a, n_moves, int(forced), 0, 0, 0, 0)
    return True


@njit(refcount=False)
def layoff_fallback(forced):
    return 0 if forced else -1


@njit(refcount=False)
def legal_discard(fault, me, a, hand_me, fits, forbid_fits):
    """R4/R10: a card held; under ``forbid_fits`` not one fitting a table meld unless every held card fits."""
    if a < 0 or a > JOKER or hand_me[a] <= 0:
        return record(fault, D_DISCARD, me, R_NOT_HELD, a, int(forbid_fits), 0, 0, 0, 0, 0)
    if forbid_fits and fits[a] and not every_held_card_fits(hand_me, fits):
        return record(fault, D_DISCARD, me, R_FITS, a, int(forbid_fits), 0, 0, 0, 0, 0)
    return True


@njit(refcount=False)
def first_legal_discard(hand_me, fits, forbid_fits):
    """The fallback discard: the first legal card id."""
    every_fits = every_held_card_fits(hand_me, fits)
    for c in range(JOKER + 1):
        if hand_me[c] > 0 and not (forbid_fits and fits[c] and not every_fits):
            return c
    return JOKER


@njit(refcount=False)
def legal_rate(fault, me, a):
    """The claim race's reaction rate: finite and > 0."""
    if not (a > 0.0 and a < math.inf):
        return record(fault, D_SPEED, me, R_RATE, int(a * 1000) if a == a and abs(a) < 1e15 else 0,
                      0, 0, 0, 0, 0, 0)
    return True


def _answer_and_legal(decision: str, fault: np.ndarray) -> tuple[str, str]:
    answer, w = int(fault[F_ANSWER]), [int(x) for x in fault[F_CONTEXT:]]
    if decision in CHOICE_NAMES:
        names = CHOICE_NAMES[decision]
        return f"{answer}", ", ".join(f"{code} ({what})" for code, what in names.items() if (w[0] >> code) & 1)
    if decision == "layoff":
        return f"{answer}", f"a move index in [0, {w[0] - 1}]" + ("" if w[1] else " or -1 (stop)")
    if decision == "discard":
        shown = card_name(answer) if 0 <= answer <= JOKER else "no card"
        return f"{answer} ({shown})", "a card id held in hand" + (
            ", not one fitting a table meld while another does not" if w[0] else "")
    return f"{answer / 1000:g}", "a finite rate > 0"


def describe(fault: np.ndarray, label: str) -> str:
    """The one line for a Rami fault record (:func:`simulator.core.kernels.faults.fault_line`)."""
    return faults.fault_line(fault, label, DECISION_ORDER, REASONS, _answer_and_legal)


def raise_fault(fault: np.ndarray, labels) -> None:
    """Raise :class:`StrategyError` for a recorded Rami fault (``labels``: each seat's strategy label, a list or
    a dict by seat); no-op without one."""
    faults.raise_fault(fault, labels, describe)
