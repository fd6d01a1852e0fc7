"""The numba kernel against the reference engine: identical rows and event traces, game for game.

Every registered strategy plays in some seating, each family also with all its parameters drawn in their declared
ranges (``tests/kamoul_helpers.registry_seatings``), and every rule option is set in some option set."""

from __future__ import annotations

import numpy as np
import pytest

from kamoul_helpers import registry_seatings
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import raw_kernel, raw_reference
from simulator.kamoul.vocabulary.records import H

OPTION_SETS = {
    "default": {},
    "snaps": {"snap_chain": "true", "snap_others": "true", "race_policy": "uniform"},
    "tamalou": {"false_call_mode": "tamalou", "swap_scope": "own_vs_opponent", "king_power": "black_only"},
    "dutch": {"false_call_mode": "dutch", "implicit_contest": "true", "contre_strictly_lower": "true",
              "loser_announcer_scores": "hand"},
    "physical": {"p_stick": "0.05", "p_out_of_turn": "0.02", "allow_reorder": "true", "p_reorder": "0.05",
                 "swap_observed_prob": "0.5"},
    "two_decks_misc": {"n_decks": "2", "discard_pick_face_up": "true", "on_stock_empty": "end_hand",
                       "ultime_min_cards": "1", "ultime_others_score": "zero", "contre_requires_valid": "false",
                       "au_score_30": "ge", "race_policy": "turn_order", "hand_size": "6", "initial_peeks": "3",
                       "min_turns_before_call": "2", "caller_immune": "false", "snap_in_final_round": "false"},
}
SEATINGS = registry_seatings()
"""Tables of four from the registry: every registered strategy, then each family with every parameter drawn in
its declared range (memory, powers, thresholds), so a new strategy is compared without a list to edit."""
N_HANDS = 7_000  # per option set and seating (10,000 until the contract tests pushed CI past 15 minutes)


def assert_same(spec, start, stop):
    ref = raw_reference(spec, start, stop)
    fast = raw_kernel(spec, start, stop)
    for key in ref:
        assert ref[key].shape == fast[key].shape, key
        if key == "estimates":
            assert np.array_equal(ref[key], fast[key], equal_nan=True), key
        elif len(ref[key]):
            bad = np.flatnonzero((ref[key] != fast[key]).reshape(len(ref[key]), -1).any(axis=1))
            assert bad.size == 0, f"{key}: first differing row {bad[:1]}: {ref[key][bad[0]]} vs {fast[key][bad[0]]}"
    return ref


@pytest.mark.slow
@pytest.mark.parametrize("seating", sorted(SEATINGS))
@pytest.mark.parametrize("option_set", sorted(OPTION_SETS))
def test_engines_agree_hand_for_hand(option_set, seating):
    spec = build_spec("kamoul", n=N_HANDS, seed=2024, strategies=SEATINGS[seating], options=OPTION_SETS[option_set])
    ref = assert_same(spec, 0, N_HANDS)
    assert len(ref["hands"]) == N_HANDS


@pytest.mark.parametrize("seating", sorted(SEATINGS))
@pytest.mark.parametrize("option_set", ["default", "dutch", "physical"])
def test_engines_agree_on_whole_tops(option_set, seating):
    """Manches, parties and TOPs (K15–K16) with au-score and goal-average paths: same rows in every table."""
    spec = build_spec("kamoul", n=6, seed=7, level="tops", strategies=SEATINGS[seating],
                      options=OPTION_SETS[option_set])
    ref = assert_same(spec, 0, 6)
    assert len(ref["tops"]) == 6 and len(ref["manches"]) >= 12


@pytest.mark.parametrize("players", [2, 3, 5, 6])
def test_engines_agree_at_every_table_size(players):
    spec = build_spec("kamoul", n=400, seed=11, players=players, strategies=["balanced"])
    assert_same(spec, 100, 500)


def test_kernel_is_independent_of_threads_and_blocks():
    spec = build_spec("kamoul", n=3000, seed=5, level="manches", strategies=["aggressive"])
    one = raw_kernel(spec, 0, 300, threads=1)
    two = raw_kernel(spec, 0, 300, threads=2)
    split = {k: np.concatenate([a, b]) for (k, a), b in zip(raw_kernel(spec, 0, 120, 1).items(),
                                                                raw_kernel(spec, 120, 300, 2).values())}
    for key in one:
        assert np.array_equal(one[key], two[key], equal_nan=True), key
        assert np.array_equal(one[key], split[key], equal_nan=True), key


def test_both_engines_count_the_powers_used_and_only_the_power_parameters_spend_a_jq_or_red_king():
    """K5: the hand row counts 7-10 looks, J/Q swaps, red and black king looks and king swaps, the same in both
    engines; a heuristic player keeps a drawn J/Q (1 point) or red king (0) unless jq_power / red_king_power."""
    users = build_spec("kamoul", n=1500, seed=5, players=2,
                       strategies=["heuristic:jq_power=1,red_king_power=1", "balanced"])
    hands = assert_same(users, 0, 1500)["hands"]
    used = {name: int(hands[:, H[name]].sum()) for name in ("peeks", "jq_swaps", "red_king_looks",
                                                            "black_king_looks", "king_swaps")}
    assert min(used.values()) > 0, used
    assert used["king_swaps"] <= used["red_king_looks"] + used["black_king_looks"]
    keepers = raw_kernel(build_spec("kamoul", n=1500, seed=5, players=2, strategies=["balanced"]), 0, 1500)["hands"]
    assert keepers[:, H["jq_swaps"]].sum() == 0 and keepers[:, H["red_king_looks"]].sum() == 0
    assert keepers[:, H["black_king_looks"]].sum() > 0


def test_a_family_the_dispatch_does_not_handle_is_refused_when_the_game_is_declared():
    """The kernels' dispatch has one branch per built-in kernel id; a registered family without one would silently
    play another family's moves, so declaring the game refuses it."""
    import dataclasses

    from simulator.core.contract.seats import StrategyDef
    from simulator.core.contract.registry import get_game

    kamoul = get_game("kamoul")
    ghost = StrategyDef("ghost", 7, kamoul.strategies["heuristic"].params, "no dispatch branch", "ghost")
    with pytest.raises(ValueError, match=r"ghost.*kernel ids the contract's dispatch does not handle"):
        dataclasses.replace(kamoul, strategies={**kamoul.strategies, "ghost": ghost})


def test_call_table_plays_the_heuristic_but_reads_its_own_positions_for_its_traits():
    """strategies/kamoul/dispatch.py: call-table's keep is the heuristic's, its traits read at its own positions."""
    from simulator.core.contract.decisions import python_twin
    from strategies.kamoul import call_table, policy
    from simulator.kamoul.vocabulary.contract import DECISIONS, Me

    assert set(policy.BUILTIN) == set(DECISIONS) and policy.BUILTIN_IDS == tuple(policy.FAMILIES)
    prm = np.arange(40, dtype=np.float64)
    assert python_twin(policy.BUILTIN["forget"])(policy.CALL_TABLE, prm, Me(0)) == prm[call_table.CT.forget]
