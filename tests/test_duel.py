"""``cardsim duel``: the sequential paired comparison decides the obvious cases in the right direction, says
"within delta" for strategies that play alike, does not depend on chunk size or threads, and refuses bad input
in one line (exit 2). (The test's own error rates are checked by simulation in test_analysis_stats.py.)"""

from __future__ import annotations

import json

import pytest

import analysis.duel as duel_module
import cardsim as api
from test_reports import run_cli


def test_a_strong_strategy_beats_random_and_the_order_matters():
    ab = api.duel("kamoul", strategies=["balanced", "random"], level="manches", progress=False)
    ba = api.duel("kamoul", strategies=["random", "balanced"], level="manches", progress=False)
    assert ab["decision"] == "A beats B" and ba["decision"] == "B beats A"
    assert ab["deals"] < 1000 and ab["low"] > 0.5 and ba["high"] < 0.5
    assert ab["seatings"] == ["ABAB", "BABA"] and ab["games"] == 2 * ab["deals"]


def test_identical_play_ties_every_deal_and_never_decides():
    r = api.duel("kamoul", strategies=["balanced", "heuristic"], max_games=200, progress=False)
    assert r["decision"] == "undecided" and r["duels"] == 0 and r["deals"] == 200


def test_close_strategies_are_within_a_wide_delta():
    r = api.duel("kamoul", strategies=["balanced", "heuristic:forget=0.01"], delta=0.3, progress=False)
    assert r["decision"] == "within delta" and r["duels"] > 0 and r["low"] < 0.5 < r["high"], r


def test_the_stopping_deal_does_not_depend_on_chunks_or_threads(monkeypatch):
    base = api.duel("kamoul", strategies=["aggressive", "balanced"], progress=False, threads=1)
    monkeypatch.setattr(duel_module, "CHUNK", 37)
    again = api.duel("kamoul", strategies=["aggressive", "balanced"], progress=False, threads=2)
    assert base == again and base["decision"] != "undecided"


def test_duel_cli_prints_the_decision_and_json(capsys):
    code, out, _ = run_cli(capsys, "duel", "kamoul", "--strategy", "balanced", "--strategy", "random", "--level",
                           "manches", "--quiet")
    assert code == 0 and "balanced beats random" in out and "%" in out and "[" in out
    code, out, _ = run_cli(capsys, "duel", "kamoul", "--strategy", "balanced", "--strategy", "random", "--level",
                           "manches", "--quiet", "--json")
    assert code == 0 and json.loads(out)["decision"] == "A beats B"


def test_kamoul_is_judged_by_whole_manches_with_points_per_hand_beside(capsys):
    """The README's duel: by single hands aggressive looks better, by the manches the game is scored in it loses."""
    code, out, _ = run_cli(capsys, "duel", "kamoul", "--strategy", "aggressive", "--strategy", "balanced", "--quiet")
    head = out.splitlines()[0]
    assert code == 0 and head.startswith("balanced beats aggressive, judged by whole manches"), out
    assert "mean points per hand, aggressive minus balanced: +" in out and "(lower is better)" in out
    r = api.duel("kamoul", strategies=["aggressive", "balanced"], progress=False)
    assert r["level"] == "manches" and r["decision"] == "B beats A" and r["high"] < 0.5
    assert r["gap_low"] <= r["points_gap"] <= r["gap_high"] and r["gap_low"] > 0 and r["points_per"] == "hand"
    assert f"{r['points_gap']:+.2f} [{r['gap_low']:+.2f}, {r['gap_high']:+.2f}]" in out
    hands = api.duel("kamoul", strategies=["aggressive", "balanced"], level="hands", progress=False)
    assert hands["decision"] == "A beats B"  # the unit matters: hands give the opposite answer


def test_identical_strategies_have_no_points_gap():
    r = api.duel("rami", strategies=["open-asap", "opening"], max_games=20, progress=False)
    assert r["level"] == "games" and r["points_per"] == "round" and r["points_gap"] == 0.0


@pytest.mark.parametrize("args, field", [
    (["kamoul", "--strategy", "balanced", "--strategy", "random", "--strategy", "cautious"], "--strategy"),
    (["kamoul", "--strategy", "balanced", "--strategy", "nope"], "--strategy"),
    (["kamoul", "--strategy", "balanced", "--strategy", "random", "--delta", "0.7"], "--delta"),
    (["kamoul", "--strategy", "balanced", "--strategy", "random", "--max-games", "0"], "--max-games"),
    (["chess", "--strategy", "balanced", "--strategy", "random"], "game"),
])
def test_bad_duel_input_is_one_line_exit_2(capsys, args, field):
    code, out, err = run_cli(capsys, "duel", *args, "--quiet")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}"), err


def test_plan_gives_the_textbook_sample_size_and_pairing_halves_it(capsys):
    # two-sided alpha 0.05, power 0.8, 0.55 vs 0.50: (1.95996 + 0.84162)^2 (0.2475 + 0.25) / 0.05^2 = 1561.5 -> 1562
    assert api.plan(p1=0.55, p2=0.5)["games"] == 1562
    paired = api.plan(p1=0.55, p2=0.5, paired_rho=0.5)
    assert paired["games_unpaired"] == 1562 and abs(paired["games"] - 1562 / 2) <= 1
    code, out, _ = run_cli(capsys, "plan", "--p1", "0.55")
    assert code == 0 and "1,562" in out


@pytest.mark.parametrize("args, field", [(["--p1", "0.5"], "--p2"), (["--p1", "1.2"], "--p1"),
                                         (["--p1", "0.6", "--rho", "1"], "--rho"), (["--p1", "0.6", "--power", "0.3"],
                                                                                 "--power")])
def test_bad_plan_input_is_one_line_exit_2(capsys, args, field):
    code, out, err = run_cli(capsys, "plan", *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}:"), err


def test_one_strategy_duels_the_default_player():
    r = api.duel("kamoul", strategies=["cautious"], max_games=20, players=3, progress=False)
    assert (r["a"], r["b"], r["players"]) == ("cautious", "tuned-4p", 3)
