"""Study 1's rollouts (``simulator.kamoul.engines.counterfactual``) and the ``call-table`` strategy: both engines give the
same samples, the samples come from real play, each branch does what it says (K8 call, K12 false call), an
imposed layout is the one asked for, and nothing depends on the thread count."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.contract.seats import default_params
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.counterfactual import (
    COLUMNS, Situation, advise_kernel, advise_reference, sample_kernel, sample_reference,
)
from simulator.kamoul.engines.engine import raw_kernel, rules_of
from simulator.kamoul.vocabulary.codes import ACT_CALL, OUT_FALSE, OUT_NO_CALL, OUT_ULTIME, RANK_CODES
from simulator.kamoul.vocabulary.records import H
from strategies.kamoul import STRATEGIES, call_table

C = {name: i for i, name in enumerate(COLUMNS)}
CASES = {
    "2p default": (["balanced"], {}),
    "3p mixed with call-table": (["call-table", "aggressive", "call-table:call_known_1=2,call_known_0=3"], {}),
    "3p misremembering": (["heuristic:memory_noise=0.3", "call-table:memory_noise=0.05", "balanced"], {}),
    "4p dutch physical": (["balanced", "cautious", "random", "call-table"],
                          {"false_call_mode": "dutch", "implicit_contest": "true", "p_stick": "0.05",
                           "p_out_of_turn": "0.02", "min_turns_before_call": "2"}),
}


def setup(case, players=None):
    strategies, options = CASES[case]
    players = players or (len(strategies) if len(strategies) > 1 else 2)
    spec = build_spec("kamoul", n=1, seed=0, players=players, strategies=strategies, options=options)
    return rules_of(spec), seats_of(spec)


@pytest.mark.parametrize("case", sorted(CASES))
def test_both_engines_sample_the_same_rollouts(case):
    rules, seats = setup(case)
    fast = sample_kernel(rules, seats, 5, 0, 25)
    ref = sample_reference(rules, seats, 5, 0, 25)
    assert fast.shape == ref.shape and fast.shape[0] > 25
    assert np.array_equal(fast, ref)


@pytest.mark.parametrize("known, unknown, turn, cum", [((2, 1, 12), 1, 4, 0), ((0,), 0, 1, 20), ((13, 13), 0, 2, 0),
                                                       ((9, 10, 11), 2, 3, -20)])
def test_both_engines_advise_on_the_same_rollouts(known, unknown, turn, cum):
    rules, seats = setup("4p dutch physical")
    situation = Situation(known, unknown, turn, cum)
    fast = advise_kernel(rules, seats, situation, 3, 0, 60)
    ref = advise_reference(rules, seats, situation, 3, 0, 60)
    assert fast.shape == ref.shape and np.array_equal(fast, ref)


def test_rollouts_do_not_depend_on_the_thread_count():
    rules, seats = setup("3p mixed with call-table")
    assert np.array_equal(sample_kernel(rules, seats, 9, 0, 80, threads=1), sample_kernel(rules, seats, 9, 0, 80, threads=3))
    situation = Situation((1, 2), 1, 2, 0)
    assert np.array_equal(advise_kernel(rules, seats, situation, 9, 0, 200, threads=1),
                          advise_kernel(rules, seats, situation, 9, 0, 200, threads=4))


def test_samples_are_decisions_of_real_play():
    """The manche of a sample is the run's own manche: where the strategy would not have called, playing on is
    exactly the hand as played, so its points are the run's points for that hand and seat."""
    spec = build_spec("kamoul", n=40, seed=5, players=3, level="manches", strategies=["balanced"])

    rows = sample_kernel(rules_of(spec), seats_of(spec), 5, 0, 40)
    hands = raw_kernel(spec, 0, 40)["hands"]
    points = {(int(h[H["game"]]), int(h[H["hand_in_manche"]])): h[len(H):len(H) + 3] for h in hands}
    assert len(rows) <= len(hands) and set(zip(rows[:, C["game"]], rows[:, C["hand"]])) <= set(points)
    kept = rows[rows[:, C["strategy_calls"]] == 0]
    assert len(kept) > 50
    for r in kept:
        assert r[C["play_points"]] == points[(r[C["game"]], r[C["hand"]])][r[C["focal"]]]


def test_the_call_branch_calls_and_a_false_call_pays_the_table_k8_k12():
    rules, seats = setup("2p default", players=4)
    rows = sample_kernel(rules, seats, 2, 0, 300)
    normal_zone = (rows[:, C["cum"]] > -15) & (rows[:, C["cum"]] < 15)
    assert (rows[:, C["call_outcome"]] != OUT_NO_CALL).all()
    over = rows[normal_zone & (rows[:, C["total"]] > 5)]
    assert len(over) > 100 and np.isin(over[:, C["call_outcome"]], (OUT_FALSE, OUT_ULTIME)).all()  # K7 voids a call
    false = over[over[:, C["call_outcome"]] == OUT_FALSE]
    assert len(false) > 0.9 * len(over) and (false[:, C["call_others"]] == 0).all()
    assert (false[:, C["call_points"]] >= false[:, C["total"]]).all()
    valid = rows[rows[:, C["total"]] <= 5]
    contred = valid[:, C["call_outcome"]] == OUT_FALSE  # a contre-er's false announcement: it pays, not the caller
    assert len(valid) > 100 and (valid[contred, C["call_points"]] == 0).all() and contred.mean() < 0.5
    known = rows[rows[:, C["unknown"]] == 0]
    assert (known[:, C["known"]] == known[:, C["total"]]).all()  # swaps are observed by default: memory is right


def test_an_imposed_layout_is_the_one_asked_for():
    rules, seats = setup("2p default", players=3)
    situation = Situation((RANK_CODES.index("RK"), RANK_CODES.index("3"), RANK_CODES.index("Q")), 2, 3, 17)
    rows = advise_kernel(rules, seats, situation, 1, 0, 400)
    assert len(rows) > 100
    assert (rows[:, C["known"]] == 0 + 3 + 1).all() and (rows[:, C["unknown"]] == 2).all()
    assert (rows[:, C["cards"]] == 5).all() and (rows[:, C["turn"]] == 3).all() and (rows[:, C["cum"]] == 17).all()
    unseen = rows[:, C["total"]] - rows[:, C["known"]]
    assert unseen.min() >= 0 and unseen.max() <= 30 and len(set(unseen)) > 5
    # a third red king does not exist in one deck: no sample, in either engine
    impossible = Situation((12, 12, 12), 0, 1, 0)
    assert len(advise_kernel(rules, seats, impossible, 1, 0, 50)) == 0
    assert len(advise_reference(rules, seats, impossible, 1, 0, 50)) == 0


def _turn(prm, known_cards, unknown):
    P, S = 2, 52
    know = np.full((P, S), -1, dtype=np.int16)
    occ = np.zeros((P, S), dtype=np.int8)
    for s, card in enumerate(known_cards + [-1] * unknown):
        occ[0, s] = 1
        know[0, s] = card
    nslots = np.array([len(known_cards) + unknown, 0], dtype=np.int64)
    return call_table.turn(prm, 0, know, occ, nslots, -1, True, False, False, 0, False, np.zeros(4, np.uint64))


@pytest.mark.parametrize("cards, unknown, table, calls", [
    ([0, 1, 2], 0, {}, False),         # A 2 3 = 6 points > 5
    ([0, 1, 25], 0, {}, True),         # A 2 RK = 3
    ([3, 0], 0, {}, True),             # 4 A = 5: the default table calls at 5
    ([4, 0], 0, {}, False),            # 5 A = 6
    ([0, 25], 1, {}, False),           # one unseen card: never by default
    ([0, 25], 1, {"call_known_1": 1}, True),
    ([1, 25], 1, {"call_known_1": 1}, False),
    ([0], 3, {"call_known_3": 1}, True),
    ([0], 4, {"call_known_3": 1}, True),  # 3 or more unseen share the last column
    ([0, 1], 0, {"call_known_0": -1}, False),
])
def test_call_table_calls_on_its_table(cards, unknown, table, calls):
    values = {p.name: p.default for p in call_table.PARAMS.params} | table
    prm = np.array([float(values[n]) for n in call_table.PARAMS.names()])
    assert np.array_equal(prm, default_params(STRATEGIES["call-table"])) == (not table)
    assert (_turn(prm, cards, unknown) == ACT_CALL) == calls
