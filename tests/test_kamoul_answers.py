"""The Kamoul contract's checks of a strategy's answer (simulator.kamoul.vocabulary.answers), reason by reason, and the line
that reports a fault: each illegal answer is refused with the rule it breaks, each legal one accepted (K2, K4,
K5, K6, K8, K9, K13)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.kernels.faults import F_DECISION
from simulator.kamoul.vocabulary import answers as A
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, SNAP_NONE,
    SNAP_OTHER, SNAP_OWN,
)


def table():
    """Two players, four positions each; P0's position 3 is empty, P1's position 1 is face up."""
    occ = np.ones((2, 4), dtype=np.int8)
    occ[0, 3] = 0
    faceup = np.zeros((2, 4), dtype=np.int8)
    faceup[1, 1] = 1
    return occ, np.array([4, 4], dtype=np.int64), faceup


def reason(check, *args):
    """The reason recorded by ``check`` (0 when it accepts the answer), checking the record agrees."""
    fault = A.new_fault()
    ok = check.py_func(fault, *args)
    assert ok == (fault[F_DECISION] == 0)
    return int(fault[A.F_REASON])


def out_of(*words):
    out = np.zeros(8, dtype=np.int64)
    out[:len(words)] = words
    return out


def test_k2_peeks_a_count_up_to_n_of_own_cards():
    occ, nslots, _ = table()
    assert reason(A.legal_peeks, 0, 2, 2, occ, nslots, out_of(0, 2)) == 0
    assert reason(A.legal_peeks, 0, 3, 2, occ, nslots, out_of(0, 1, 2)) == A.R_COUNT
    assert reason(A.legal_peeks, 0, -1, 2, occ, nslots, out_of()) == A.R_COUNT
    assert reason(A.legal_peeks, 0, 1, 2, occ, nslots, out_of(3)) == A.R_SLOT  # empty position
    assert reason(A.legal_peeks, 0, 1, 2, occ, nslots, out_of(4)) == A.R_SLOT  # beyond the layout


@pytest.mark.parametrize("act, can_call, can_contre, can_take, expected", [
    (ACT_STOCK, False, False, False, 0), (ACT_TAKE, False, False, True, 0), (ACT_TAKE, False, False, False, A.R_NOT_NOW),
    (ACT_CALL, True, False, False, 0), (ACT_CALL, False, True, True, A.R_NOT_NOW), (ACT_CONTRE, False, True, False, 0),
    (ACT_CONTRE, True, False, True, A.R_NOT_NOW), (7, True, True, True, A.R_ACTION), (-1, True, True, True, A.R_ACTION),
])
def test_k4_k8_k9_the_turn_is_one_of_the_actions_open_now(act, can_call, can_contre, can_take, expected):
    assert reason(A.legal_turn, 0, act, can_call, can_contre, can_take) == expected


def test_k4_a_kept_or_taken_card_replaces_an_own_card_and_only_a_drawn_one_may_be_discarded():
    occ, nslots, _ = table()
    assert reason(A.legal_slot, A.D_KEEP, 0, -1, True, occ, nslots) == 0
    assert reason(A.legal_slot, A.D_TAKE_SLOT, 0, -1, False, occ, nslots) == A.R_SLOT
    assert reason(A.legal_slot, A.D_KEEP, 0, 2, True, occ, nslots) == 0
    assert reason(A.legal_slot, A.D_KEEP, 0, 3, True, occ, nslots) == A.R_SLOT


def test_k5_powers_look_at_the_right_side_and_swap_two_distinct_face_down_cards_outside_the_locked_layout():
    occ, nslots, faceup = table()
    power = A.legal_power
    assert reason(power, 0, False, POWER_SWAP, -1, False, occ, nslots, faceup, out_of(9, 9, 9, 9)) == 0  # a pass
    assert reason(power, 0, True, POWER_PEEK_OWN, -1, False, occ, nslots, faceup, out_of(0, 1)) == 0
    assert reason(power, 0, True, POWER_PEEK_OWN, -1, False, occ, nslots, faceup, out_of(1, 0)) == A.R_PEEK_SIDE
    assert reason(power, 0, True, POWER_PEEK_OPP, -1, False, occ, nslots, faceup, out_of(0, 0)) == A.R_PEEK_SIDE
    assert reason(power, 0, True, POWER_PEEK_OPP, -1, False, occ, nslots, faceup, out_of(1, 7)) == A.R_TARGET
    assert reason(power, 0, True, POWER_SWAP, -1, False, occ, nslots, faceup, out_of(0, 0, 1, 0)) == 0
    assert reason(power, 0, True, POWER_SWAP, -1, False, occ, nslots, faceup, out_of(0, 0, 0, 1)) == 0
    assert reason(power, 0, True, POWER_SWAP, -1, True, occ, nslots, faceup, out_of(0, 0, 0, 1)) == A.R_SCOPE
    assert reason(power, 0, True, POWER_KING, -1, False, occ, nslots, faceup, out_of(0, 0, 0, 0)) == A.R_SAME
    assert reason(power, 0, True, POWER_KING, -1, False, occ, nslots, faceup, out_of(0, 0, 1, 1)) == A.R_FACE_UP
    assert reason(power, 0, True, POWER_SWAP, 1, False, occ, nslots, faceup, out_of(0, 0, 1, 2)) == A.R_LOCKED
    assert reason(power, 0, True, POWER_SWAP, -1, False, occ, nslots, faceup, out_of(0, 3, 1, 2)) == A.R_TARGET


def test_k6_snaps_flip_own_face_down_cards_once_or_an_opponents_card_giving_an_own_one():
    occ, nslots, faceup = table()
    snap = A.legal_snap
    assert reason(snap, 0, SNAP_NONE, False, -1, occ, nslots, faceup, out_of()) == 0
    assert reason(snap, 0, SNAP_OWN, False, -1, occ, nslots, faceup, out_of(2, 0, 2)) == 0
    assert reason(snap, 0, SNAP_OWN, False, -1, occ, nslots, faceup, out_of(0)) == A.R_COUNT
    assert reason(snap, 0, SNAP_OWN, False, -1, occ, nslots, faceup, out_of(2, 1, 1)) == A.R_DUPLICATE
    assert reason(snap, 0, SNAP_OWN, False, -1, occ, nslots, faceup, out_of(1, 3)) == A.R_TARGET
    assert reason(snap, 1, SNAP_OWN, False, -1, occ, nslots, faceup, out_of(1, 1)) == A.R_FACE_UP
    assert reason(snap, 0, SNAP_OTHER, True, -1, occ, nslots, faceup, out_of(1, 0, 2)) == 0
    assert reason(snap, 0, SNAP_OTHER, False, -1, occ, nslots, faceup, out_of(1, 0, 2)) == A.R_OTHERS_OFF
    assert reason(snap, 0, SNAP_OTHER, True, -1, occ, nslots, faceup, out_of(0, 0, 2)) == A.R_SELF
    assert reason(snap, 0, SNAP_OTHER, True, 1, occ, nslots, faceup, out_of(1, 0, 2)) == A.R_LOCKED
    assert reason(snap, 0, SNAP_OTHER, True, -1, occ, nslots, faceup, out_of(1, 1, 2)) == A.R_FACE_UP
    assert reason(snap, 0, SNAP_OTHER, True, -1, occ, nslots, faceup, out_of(1, 0, 3)) == A.R_GIVE
    assert reason(snap, 0, 5, True, -1, occ, nslots, faceup, out_of()) == A.R_SNAP_KIND


@pytest.mark.parametrize("decision, value, expected", [
    (A.D_FORGET, 0.0, 0), (A.D_FORGET, 1.0, 0), (A.D_FORGET, 1.01, A.R_PROBABILITY),
    (A.D_MEMORY_NOISE, float("nan"), A.R_PROBABILITY), (A.D_SPEED, 2.5, 0), (A.D_SPEED, 0.0, A.R_RATE),
    (A.D_SPEED, float("inf"), A.R_RATE), (A.D_SPEED, float("nan"), A.R_RATE),
])
def test_k13_memory_rates_are_probabilities_and_the_race_speed_a_positive_rate(decision, value, expected):
    assert reason(A.legal_rate, decision, 0, value) == expected


def test_only_the_first_fault_is_kept_and_its_line_names_the_strategy_the_decision_and_what_was_legal():
    occ, nslots, _ = table()
    fault = A.new_fault()
    A.legal_turn.py_func(fault, 1, ACT_CALL, False, False, True)
    A.legal_slot.py_func(fault, A.D_KEEP, 0, 3, True, occ, nslots)
    assert fault[F_DECISION] == A.D_TURN
    with pytest.raises(A.StrategyError) as err:
        A.raise_fault(fault, ["balanced", "mine:x=1"])
    assert str(err.value) == ("strategy 'mine:x=1' (seat 1) answered turn with 0, which is not allowed at this turn; "
                              "legal: 2 (draw from the stock), 3 (take the discard)")
    A.raise_fault(A.new_fault(), ["balanced"])  # no fault: no error
