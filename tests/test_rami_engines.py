"""The Rami numba kernel against the reference engine: identical rows and event traces, round for round.

``simulator.rami.engines.engine.raw_kernel`` and ``raw_reference`` take the rules, the seats, the seed, the game range
and the level. The seatings come from the strategy registry (every strategy, every family with drawn parameters)
plus three random players. The default variant is compared over 3,500 rounds per seating (level ``rounds``: one
round per game index), four non-default option sets over 1,700, the
issue-18 readings (``rami_sec_layoffs``, ``a_carte_claims``, ``opening_single_meld``) over 2,000 and two more
sets over fewer; whole games (R15) at the ``games`` level; every table size; thread and block independence.
"""

from __future__ import annotations

import numpy as np
import pytest

from registry import registry_seatings
from simulator.core.contract.game import seats_of
from simulator.core.errors import SpecError
from simulator.core.storage.spec import build_spec
from simulator.rami.engines.engine import raw_kernel, raw_reference
from simulator.rami.vocabulary.codes import OUT_CLAIM, OUT_NORMAL, OUT_RAMI_SEC
from simulator.rami.vocabulary.records import ROUND
from simulator.rami.vocabulary.rules import Rules
from strategies.rami import STRATEGIES

OPTION_SETS = {
    "default": {},
    "forbidden": {"playable_discard": "forbidden"},
    "anyone": {"joker_swap": "free", "claim_eligibility": "anyone", "notice_prob": 0.5, "race_policy": "uniform"},
    "final_discard": {"final_discard_required": True, "discard_in_tierce": False, "first_player_draws": True},
    "jokers_scoring": {"joker_swap": "forbidden", "joker_opening_value": "represented",
                       "franche_inside_longer_run": True, "race_policy": "turn_order", "rami_sec_bonus": -50,
                       "unopened_penalty": 100, "rami_sec_unopened": 150},
    "decks_hand": {"n_decks": 2, "hand_cards": 9, "opening_points": 30, "playable_discard": "ignored"},
    "short_rounds": {"max_turns_per_round": 50, "hand_cards": 15, "opening_points": 120},
    # issue 18: the readings before it, as options (R12 lay-offs count, R5 a-carte claims, R7 one-meld opening)
    "old_readings": {"rami_sec_layoffs": True, "a_carte_claims": True, "opening_single_meld": True},
    "a_carte_anyone": {"a_carte_claims": True, "claim_eligibility": "anyone", "opening_single_meld": True,
                       "joker_opening_value": "represented", "final_discard_required": True},
}
def registry_seats(table: list[str]) -> list:
    """The seats of ``table``, strategy texts with parameters (``opening:min_open_points=82,...``), as both engines
    take them."""
    return seats_of(build_spec("rami", n=1, seed=0, players=len(table), strategies=table))


SEATINGS = {"random": ["random", "random", "random"],
            **{name: registry_seats(table) for name, table in registry_seatings(STRATEGIES, "open-asap").items()}}
"""Three random players (claims and races at every discard), then tables of four from the registry: every registered
strategy, then each family with every parameter drawn in its declared range (``tests/registry.py``)."""
N_DEFAULT = 3_500
N_OPTIONS = 300
# four non-default option sets over 1,700 rounds per seating (three seatings since the registry's two tables; the
# suite's total stays what two seatings at 2,500 cost)
N_MAIN_OPTIONS = 1_700
MAIN_OPTION_SETS = ("forbidden", "anyone", "final_discard", "jokers_scoring")
N_ISSUE18 = 2_000
ISSUE18_SETS = ("old_readings", "a_carte_anyone")


def assert_same(rules, seats, seed, start, stop, level="rounds", threads=None):
    ref = raw_reference(rules, seats, seed, start, stop, level)
    fast = raw_kernel(rules, seats, seed, start, stop, level, threads)
    assert set(ref) == set(fast)
    for key in ref:
        assert ref[key].dtype == fast[key].dtype, key
        assert ref[key].shape == fast[key].shape, key
        if len(ref[key]):
            bad = np.flatnonzero((ref[key] != fast[key]).reshape(len(ref[key]), -1).any(axis=1))
            assert bad.size == 0, f"{key}: first differing row {bad[0]}: {ref[key][bad[0]]} vs {fast[key][bad[0]]}"
    return ref


@pytest.mark.slow
@pytest.mark.parametrize("seating", sorted(SEATINGS))
def test_engines_agree_round_for_round_default_variant(seating):
    ref = assert_same(Rules(), SEATINGS[seating], 2024, 0, N_DEFAULT)
    assert len(ref["rounds"]) == N_DEFAULT and len(ref["games"]) == N_DEFAULT
    rounds = ref["rounds"]
    outcomes = np.bincount(rounds[:, ROUND.outcome], minlength=4)
    assert outcomes[OUT_NORMAL] > 0 and outcomes[OUT_RAMI_SEC] > 0  # R11 and R12 ends both compared
    assert (rounds[:, ROUND.reshuffles] > 0).any()  # R14 reshuffles compared
    if seating == "random":
        assert (rounds[:, ROUND.claims] > 0).sum() > 1000  # R10 claims, notice/race draws compared


@pytest.mark.slow
@pytest.mark.parametrize("seating", sorted(SEATINGS))
@pytest.mark.parametrize("option_set", sorted(k for k in OPTION_SETS if k != "default"))
def test_engines_agree_under_every_option_set(option_set, seating):
    rules = Rules.from_options(OPTION_SETS[option_set])
    n = N_MAIN_OPTIONS if option_set in MAIN_OPTION_SETS else N_ISSUE18 if option_set in ISSUE18_SETS else N_OPTIONS
    ref = assert_same(rules, SEATINGS[seating], 77, 1000, 1000 + n)
    assert len(ref["rounds"]) == n
    outcomes = np.bincount(ref["rounds"][:, ROUND.outcome], minlength=5)
    if not rules.a_carte_claims:  # R5 "à carte": nobody goes out on a claim
        assert outcomes[OUT_CLAIM] == 0, outcomes
    elif seating == "random":
        assert outcomes[OUT_CLAIM] > 0, outcomes
    if option_set == "old_readings":
        assert outcomes[OUT_RAMI_SEC] > 0


@pytest.mark.parametrize("option_set", ["default", "anyone", "final_discard", "jokers_scoring"])
def test_engines_agree_on_whole_games(option_set):
    """Several rounds per game (R15 target, dealer rotation, cumulative totals, winners mask); two random
    players at target 1000 need more than the first guess of 16 round rows per game (overflow retry)."""
    rules = Rules.from_options(dict(OPTION_SETS[option_set], target=400))
    ref = assert_same(rules, ["random", "open-asap", "joker-keeper"], 5, 0, 12, level="games")
    assert len(ref["games"]) == 12 and len(ref["rounds"]) > 24
    ref = assert_same(Rules(), ["random", "random"], 6, 0, 3, level="games")
    assert (np.bincount(ref["rounds"][:, ROUND.game]) > 16).all()  # over the first guess: the retry path ran


@pytest.mark.parametrize("players", [2, 4, 5, 6, 8])
def test_engines_agree_at_every_table_size(players):
    seats = (["random", "open-asap", "rami-sec-hunter", "joker-keeper"] * 2)[:players]
    assert_same(Rules(), seats, 11, 0, 150)


def test_kernel_is_independent_of_threads_and_blocks():
    rules = Rules(target=300)
    seats = ["random", "open-asap", "random"]
    one = raw_kernel(rules, seats, 5, 0, 40, "games", threads=1)
    two = raw_kernel(rules, seats, 5, 0, 40, "games", threads=2)
    lo, hi = raw_kernel(rules, seats, 5, 0, 17, "games", 1), raw_kernel(rules, seats, 5, 17, 40, "games", 2)
    for key in one:
        assert np.array_equal(one[key], two[key]), key
        assert np.array_equal(one[key], np.concatenate([lo[key], hi[key]])), key


def test_kernel_refuses_cumulative_opening_like_the_reference():
    with pytest.raises(SpecError):
        raw_kernel(Rules(opening_cumulative=True), ["random", "random"], 1, 0, 1)
    with pytest.raises(SpecError):  # not enough cards to deal: refused before the kernel runs
        raw_kernel(Rules(n_decks=1, hand_cards=15), ["random"] * 4, 1, 0, 1)


def test_kernel_rows_make_the_typed_tables():
    from simulator.rami.engines.engine import to_frames
    from simulator.rami.vocabulary.records import column_names

    raw = raw_kernel(Rules(target=300), ["random", "open-asap"], 3, 0, 5, "games")
    frames = to_frames(raw, 2, ["random", "open-asap"], "games")
    assert frames["rounds"].columns[: len(column_names("rounds", 2))] == column_names("rounds", 2)
    assert frames["rounds"]["trace"].to_list() == raw["traces"].tolist()
    assert len(frames["games"]) == 5
