"""The engine's legal lists (simulator/kamoul/vocabulary/legal.py) against the engines' checks (simulator/kamoul/vocabulary/answers.py).

On random positions, every candidate answer (in range or not) is accepted by the check exactly when it is built
from the lists: rules K2, K4(c)/(d), K4/K8/K9, K5 and K6. ``random`` draws from these lists, so its answers are
legal by construction; the agreement tests play it in both engines.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simulator.core.contract.decisions import python_twin
from simulator.core.kernels.faults import new_fault
from simulator.kamoul.vocabulary import answers, legal
from simulator.kamoul.vocabulary.codes import (
    POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP, SNAP_OTHER, SNAP_OWN,
)

L = {name: python_twin(getattr(legal, name)) for name in
     ("turn_actions", "own_cards", "keep_choices", "look_targets", "swap_targets", "snap_targets")}
A = {name: python_twin(getattr(answers, name)) for name in
     ("legal_turn", "legal_slot", "legal_peeks", "legal_power", "legal_snap")}


def positions(count: int, seed: int = 5):
    """``count`` random positions: ``(me, occ int8[P, S], faceup int8[P, S], nslots int64[P], locked)``."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        P, S = int(rng.integers(2, 6)), int(rng.integers(1, 7))
        occ = (rng.random((P, S)) < 0.7).astype(np.int8)
        nslots = np.array([S - int(rng.integers(0, 2)) for _ in range(P)], dtype=np.int64)
        for p in range(P):
            occ[p, nslots[p]:] = 0
        faceup = (occ * (rng.random((P, S)) < 0.2)).astype(np.int8)
        yield int(rng.integers(0, P)), occ, faceup, nslots, int(rng.integers(-1, P))


def listed(fill, *args, pairs=False):
    size = 2 * 64
    a, b = np.full(size, -9, np.int64), np.full(size, -9, np.int64)
    n = fill(*args, a, b) if pairs else fill(*args, a)
    return {(int(a[i]), int(b[i])) for i in range(n)} if pairs else [int(x) for x in a[:n]]


def accepts(check, *args) -> bool:
    return bool(check(new_fault(), *args))


def cells(occ):
    P, S = occ.shape
    return list(itertools.product(range(-1, P + 1), range(-1, S + 2)))


@pytest.mark.parametrize("can_call, can_contre, can_take", list(itertools.product([False, True], repeat=3)))
def test_k4_k8_k9_the_turn_accepts_exactly_the_listed_actions(can_call, can_contre, can_take):
    actions = listed(L["turn_actions"], can_call, can_contre, can_take)
    assert len(actions) == len(set(actions))
    for act in range(-2, 7):
        assert accepts(A["legal_turn"], 0, act, can_call, can_contre, can_take) == (act in actions), act


def test_k2_k4_positions_a_card_replaces_and_the_peeks_are_the_listed_own_cards():
    for me, occ, faceup, nslots, locked in positions(150):
        own = listed(L["own_cards"], me, occ, nslots)
        keep = listed(L["keep_choices"], me, occ, nslots)
        assert keep == [-1, *own] and own == [s for s in range(nslots[me]) if occ[me, s]]
        for slot in range(-2, occ.shape[1] + 2):
            assert accepts(A["legal_slot"], answers.D_TAKE_SLOT, me, slot, False, occ, nslots) == (slot in own)
            assert accepts(A["legal_slot"], answers.D_KEEP, me, slot, True, occ, nslots) == (slot in keep)
            out = np.array([slot, -1], np.int64)
            assert accepts(A["legal_peeks"], me, 1, 2, occ, nslots, out) == (slot in own)
        assert not accepts(A["legal_peeks"], me, 3, 2, occ, nslots, np.zeros(3, np.int64))  # more than n


def test_k5_looks_accept_exactly_the_listed_face_down_cards_of_the_right_side():
    for me, occ, faceup, nslots, locked in positions(150):
        for kind in (POWER_PEEK_OWN, POWER_PEEK_OPP):
            targets = listed(L["look_targets"], me, kind, occ, nslots, faceup, pairs=True)
            for p, s in cells(occ):
                out = np.array([p, s, 0, 0], np.int64)
                assert accepts(A["legal_power"], me, True, kind, locked, False, occ, nslots, faceup, out) == (
                    (p, s) in targets), (kind, p, s)


@pytest.mark.parametrize("own_vs_opp", [False, True])
def test_k5_swaps_and_kings_accept_exactly_two_distinct_listed_cards(own_vs_opp):
    for me, occ, faceup, nslots, locked in positions(40):
        targets = listed(L["swap_targets"], me, legal.WHO_ALL, occ, nslots, faceup, locked, pairs=True)
        own = listed(L["swap_targets"], me, legal.WHO_OWN, occ, nslots, faceup, locked, pairs=True)
        opponents = listed(L["swap_targets"], me, legal.WHO_OPPONENTS, occ, nslots, faceup, locked, pairs=True)
        assert own | opponents == targets and not own & opponents
        for kind in (POWER_SWAP, POWER_KING):
            for first, second in itertools.product(cells(occ), repeat=2):
                out = np.array([*first, *second], np.int64)
                expected = (first in targets and second in targets and first != second
                            and (not own_vs_opp or (first in own) != (second in own)))
                assert accepts(A["legal_power"], me, True, kind, locked, own_vs_opp, occ, nslots, faceup,
                               out) == expected, (kind, first, second)


@pytest.mark.parametrize("allow_others", [False, True])
def test_k6_snaps_accept_exactly_the_listed_cards_and_an_own_card_to_give(allow_others):
    for me, occ, faceup, nslots, locked in positions(60):
        targets = listed(L["snap_targets"], me, occ, nslots, faceup, allow_others, locked, pairs=True)
        own = listed(L["own_cards"], me, occ, nslots)
        for p, s in cells(occ):
            out = np.array([1, s, -1, -1], np.int64)
            if p == me:
                assert accepts(A["legal_snap"], me, SNAP_OWN, allow_others, locked, occ, nslots, faceup, out) == (
                    (me, s) in targets)
            for give in range(-1, occ.shape[1] + 1):
                out = np.array([p, s, give, -1], np.int64)
                expected = p != me and (p, s) in targets and give in own
                assert accepts(A["legal_snap"], me, SNAP_OTHER, allow_others, locked, occ, nslots, faceup,
                               out) == expected, (p, s, give)
        # a multi-card own snap: distinct listed own cards
        mine = sorted(s for p, s in targets if p == me)
        if len(mine) >= 2:
            out = np.array([2, mine[0], mine[1], -1], np.int64)
            assert accepts(A["legal_snap"], me, SNAP_OWN, allow_others, locked, occ, nslots, faceup, out)
            out = np.array([2, mine[0], mine[0], -1], np.int64)
            assert not accepts(A["legal_snap"], me, SNAP_OWN, allow_others, locked, occ, nslots, faceup, out)
