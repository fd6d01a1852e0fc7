"""The Rami strategy contract: strategies from users' files play in both engines, and every illegal answer is
stopped in both with the same one line (R4, R5, R7, R8, R9, R10, R12); the checks reason by reason."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import cli
from simulator.core.contract.game import seats_of
from simulator.core.storage.spec import build_spec
import simulator.games  # noqa: F401
from simulator.rami.engines.engine import raw_kernel, raw_reference
from simulator.rami.vocabulary import answers as A
from simulator.rami.vocabulary.answers import D
from simulator.rami.vocabulary.codes import (
    DRAW_DISCARD, DRAW_STOCK, LAY_ALL, LAY_KEEP_JOKERS, LAY_NONE, OPEN_NONE, OPEN_OPEN, OPEN_SEC,
)
from simulator.rami.vocabulary.rules import Rules
from contract_checks import assert_both_engines_name_the_raise, assert_both_engines_stop_with_one_line

ROOT = Path(__file__).resolve().parents[1]
MISBEHAVING = f"{ROOT}/tests/strategies/rami_misbehaving.py:misbehaving"
# one seating for every compiled test here: the file's `bad` is data, so each decision's fault runs on the same
# functions
SEATING = [MISBEHAVING, "open-asap", "random", "joker-keeper"]
pytestmark = pytest.mark.xdist_group("rami-contract")


def seats_for(strategies, **options):
    spec = build_spec("rami", n=1, seed=5, players=len(strategies), strategies=strategies, options=options)
    return Rules.from_options(dict(spec.options)), seats_of(spec)


@pytest.mark.slow
@pytest.mark.rule("R4")
def test_a_file_strategy_plays_the_built_in_rows_in_both_engines():
    rules, seats = seats_for(SEATING)
    fast = raw_kernel(rules, seats, 5, 0, 300, "rounds")
    ref = raw_reference(rules, seats, 5, 0, 300, "rounds")
    builtin = raw_kernel(rules, seats_for(["open-asap", *SEATING[1:]])[1], 5, 0, 300, "rounds")
    for key in fast:  # bad=0: open-asap, answer for answer
        assert np.array_equal(fast[key], ref[key]), key
        assert np.array_equal(fast[key], builtin[key]), key


ILLEGAL = [
    ("draw", r"draw with 1, which is not allowed now; legal: 0 \(draw from the stock\)$"),
    ("open", r"open with 1, which is not allowed now; legal: 0 \(do not open\)"),
    ("lay", r"lay with 7, which is no choice of this decision; legal: 0 \(lay nothing\), 1 \(lay all\), "
            r"2 \(lay, keeping the jokers\)"),
    ("layoff", r"layoff with (\d+), which is not the index of a listed move; legal: a move index in \[0, \d+\]"),
    ("discard", r"discard with \d+ \(\w+\), which is not a card held in hand; legal: a card id held in hand"),
    ("speed", r"speed with -1, which is not a rate > 0; legal: a finite rate > 0"),
    ("open_with", r"open_with with 9, which is no choice of this decision; legal: 0 \(the best opening\)"),
]


@pytest.mark.rule("R10")
@pytest.mark.parametrize("decision, says", ILLEGAL, ids=[case[0] for case in ILLEGAL])
def test_an_illegal_answer_stops_both_engines_with_the_same_one_line(decision, says):
    rules, seats = seats_for([f"{MISBEHAVING}:bad={D[decision]}", *SEATING[1:]])
    assert_both_engines_stop_with_one_line(lambda: raw_kernel(rules, seats, 5, 0, 200, "rounds"),
                                           lambda: raw_reference(rules, seats, 5, 0, 200, "rounds"),
                                           f"misbehaving:bad={D[decision]}", 0, says)


def test_a_decision_that_raises_stops_both_engines_naming_it():
    rules, seats = seats_for([f"{MISBEHAVING}:bad=99", *SEATING[1:]])
    assert_both_engines_name_the_raise(lambda: raw_kernel(rules, seats, 5, 0, 20, "rounds"),
                                       lambda: raw_reference(rules, seats, 5, 0, 20, "rounds"),
                                       "misbehaving:bad=99", 0, "draw", "rami_misbehaving.py")


def test_the_cli_stops_an_illegal_answer_with_exit_2(tmp_path, capsys):
    code = cli.main(["simulate", "rami", "-n", "50", "--seed", "5", "--quiet", "--out", str(tmp_path / "run"),
                     "--strategy", f"{MISBEHAVING}:bad={D['lay']}", *sum((["--strategy", s] for s in SEATING[1:]),
                                                                          [])])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "answered lay with 7" in err


def reason(check, *args):
    fault = A.new_fault()
    ok = check.py_func(fault, *args)
    assert ok == (fault[0] == 0)
    return int(fault[A.F_REASON])


@pytest.mark.rule("R5")
def test_R5_the_discard_is_drawn_only_when_it_may_be_taken():
    assert reason(A.legal_draw, 0, DRAW_STOCK, False) == 0
    assert reason(A.legal_draw, 0, DRAW_DISCARD, True) == 0
    assert reason(A.legal_draw, 0, DRAW_DISCARD, False) == A.R_NOT_NOW
    assert reason(A.legal_draw, 0, 2, True) == A.R_CHOICE


@pytest.mark.rule("R7")
def test_R7_R12_opening_and_rami_sec_only_when_the_hand_allows():
    assert reason(A.legal_open, 0, OPEN_NONE, False, False) == 0
    assert reason(A.legal_open, 0, OPEN_OPEN, True, False) == 0
    assert reason(A.legal_open, 0, OPEN_OPEN, False, True) == A.R_NOT_NOW
    assert reason(A.legal_open, 0, OPEN_SEC, True, False) == A.R_NOT_NOW
    assert reason(A.legal_open, 0, OPEN_SEC, False, True) == 0
    assert reason(A.legal_open, 0, -1, True, True) == A.R_CHOICE


@pytest.mark.rule("R8")
def test_R8_R9_lay_plans_and_layoff_moves():
    for plan in (LAY_NONE, LAY_ALL, LAY_KEEP_JOKERS):
        assert reason(A.legal_lay, 0, plan) == 0
    assert reason(A.legal_lay, 0, 3) == A.R_CHOICE
    assert reason(A.legal_layoff, 0, -1, 4, False) == 0
    assert reason(A.legal_layoff, 0, 3, 4, True) == 0
    assert reason(A.legal_layoff, 0, -1, 4, True) == A.R_MUST_LAY
    assert reason(A.legal_layoff, 0, 4, 4, False) == A.R_MOVE
    assert reason(A.legal_layoff, 0, -2, 4, False) == A.R_MOVE


@pytest.mark.rule("R10")
def test_R10_a_discard_is_held_and_not_playable_when_that_is_forbidden():
    hand, fits = np.zeros(53, dtype=np.int8), np.zeros(53, dtype=np.int8)
    hand[[3, 20]] = 1
    fits[3] = 1
    assert reason(A.legal_discard, 0, 20, hand, fits, True) == 0
    assert reason(A.legal_discard, 0, 3, hand, fits, False) == 0
    assert reason(A.legal_discard, 0, 3, hand, fits, True) == A.R_FITS
    assert reason(A.legal_discard, 0, 4, hand, fits, False) == A.R_NOT_HELD
    assert reason(A.legal_discard, 0, 53, hand, fits, False) == A.R_NOT_HELD
    fits[20] = 1  # every held card fits: any may go
    assert reason(A.legal_discard, 0, 3, hand, fits, True) == 0
    assert A.first_legal_discard.py_func(hand, fits, True) == 3
    fits[20] = 0
    assert A.first_legal_discard.py_func(hand, fits, True) == 20
    assert reason(A.legal_rate, 0, 0.5) == 0 and reason(A.legal_rate, 0, 0.0) == A.R_RATE


def test_the_family_dispatch_answers_each_decision_with_each_family_s_own_function():
    """strategies/rami/dispatch.py: one function per decision, each family's answer by kernel id (the speed read at
    each family's own parameter position; the opening family's claim a function of its own)."""
    from simulator.core.contract.decisions import python_twin
    from strategies.rami import opening, policy, random_play
    from simulator.rami.vocabulary.contract import DECISIONS, Claim, Me

    assert set(policy.BUILTIN) == set(DECISIONS) and policy.BUILTIN_IDS == tuple(policy.FAMILIES)
    prm = np.arange(len(opening.PARAMS.params), dtype=np.float64)
    speed = python_twin(policy.BUILTIN["speed"])
    assert speed(policy.RANDOM, prm, Me(0)) == prm[random_play.PARAM.speed]
    assert speed(policy.OPENING, prm, Me(0)) == prm[opening.PARAM.speed]
    hand = np.zeros(53, np.int8)
    claim = python_twin(policy.BUILTIN["claim"])
    assert claim(policy.OPENING, prm, Claim(0, hand, hand, np.zeros(2, np.int64), 5, np.zeros(4, np.uint64))) is True
