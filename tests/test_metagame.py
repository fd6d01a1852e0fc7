"""``cardsim metagame`` (issue "the meta-game", step 1): the Nash equilibrium of a tournament's win-rate matrix.

The solver returns the known answers of constructed games; a real Kamoul tournament gives a mixture whose value
is 0 and that no member beats, with bootstrap intervals that hold the point estimate; bad input is one line,
exit 2."""

from __future__ import annotations

import json

import numpy as np
import pytest

from analysis import metagame as mg
import cardsim as api
from simulator.core.errors import SpecError
from test_cli import run_cli
from test_tune import kill_at_evaluation

RPS = np.array([[0.0, -1.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 1.0, 0.0]])


def test_rock_paper_scissors_is_a_third_each_with_value_zero():
    weights, value = mg.solve(RPS)
    assert weights == pytest.approx([1 / 3] * 3, abs=1e-9) and value == pytest.approx(0.0, abs=1e-9)


def test_a_dominated_strategy_added_to_rps_gets_no_weight():
    # D loses to each of R, P, S (and ties itself): it is strictly dominated and out of the support
    a = np.zeros((4, 4))
    a[:3, :3] = RPS
    a[3, :3], a[:3, 3] = -0.5, 0.5
    weights, value = mg.solve(a)
    assert weights[3] == pytest.approx(0.0, abs=1e-9) and weights[:3] == pytest.approx([1 / 3] * 3, abs=1e-9)
    assert value == pytest.approx(0.0, abs=1e-9)
    exploits, best = mg.exploitabilities(a)
    assert exploits[3] == 0.5 and exploits[:3] == pytest.approx([1.0] * 3)


def test_a_game_with_a_pure_equilibrium_returns_it():
    # strategy 1 beats both others; 0 beats 2
    a = np.array([[0.0, -0.2, 0.1], [0.2, 0.0, 0.3], [-0.1, -0.3, 0.0]])
    weights, value = mg.solve(a)
    assert weights == pytest.approx([0.0, 1.0, 0.0], abs=1e-9) and value == pytest.approx(0.0, abs=1e-9)
    assert mg.reply_values(a, weights) == pytest.approx([-0.2, 0.0, -0.3])


def test_a_non_symmetric_zero_sum_game_gets_its_minimax_value():
    # matching pennies scaled: value 0; a biased game: row's maximin mixture (2/5, 3/5) with value 1/5
    weights, value = mg.solve(np.array([[2.0, -1.0], [-1.0, 1.0]]))
    assert weights == pytest.approx([0.4, 0.6]) and value == pytest.approx(0.2)


def test_the_bootstrap_resamples_each_pair_s_games():
    wins = np.array([[0, 30, 10], [20, 0, 5], [40, 45, 0]])
    undecided = np.array([[0, 7, 3], [7, 0, 0], [3, 0, 0]])
    again = mg.resample(wins, undecided, np.random.default_rng(1))
    for i, j in ((0, 1), (0, 2), (1, 2)):  # every pair keeps its number of games
        assert again[i, j] + again[j, i] <= wins[i, j] + wins[j, i] + undecided[i, j]
    assert not np.array_equal(again, wins) and np.array_equal(np.diag(again), [0, 0, 0])
    assert np.array_equal(mg.resample(wins, undecided, np.random.default_rng(1)), again)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("meta") / "t"
    api.tournament("kamoul", strategies=["balanced", "cautious", "aggressive", "random"], out=out, n=400, seed=3,
                   level="hands", progress=False)
    return out


def test_a_kamoul_tournament_s_equilibrium_is_beaten_by_no_member(tournament):
    m = api.metagame(tournament, bootstrap=200, seed=1)
    assert m.weights.sum() == pytest.approx(1.0) and (m.weights >= 0).all()
    assert m.values.max() == pytest.approx(0.0, abs=1e-7)  # no member wins more than half against it
    assert m.values[m.weights > mg.SUPPORT_TOL] == pytest.approx(0.0, abs=1e-7)  # the support is indifferent
    assert "random" not in m.support  # random loses to every preset
    mix, members = m.mixture, m.members
    assert (mix["weight_low"] <= mix["weight"] + 1e-9).all() and (mix["weight"] <= mix["weight_high"] + 1e-9).all()
    assert mix["in_support"].is_between(0, 1).all()
    random = members.row(m.names.index("random"), named=True)
    assert random["exploit_low"] <= random["exploitability"] <= random["exploit_high"] and random["exploitability"] > 0
    off = ~np.eye(4, dtype=bool)
    assert np.allclose((m.rates + m.rates.T)[off], 1.0)  # every pair decided some games: r[i, j] + r[j, i] = 1
    assert mg.verdict(m)[0].endswith("give the 95% intervals).")
    again = api.metagame(tournament, bootstrap=200, seed=1)  # seeded: the same intervals
    assert again.mixture.equals(m.mixture) and again.members.equals(m.members)


def test_the_report_states_the_verdict_first_with_the_heatmap_mixture_and_members(tournament):
    m = api.metagame(tournament, bootstrap=100, seed=2)
    page = m.html.read_text(encoding="utf-8")
    assert m.html == tournament / "metagame.html"
    first = mg.verdict(m)[0]
    assert page.index("Meta-game: what no member can beat") < page.index('id="metagame"') and first[:40] in page
    for fig in ("fig-metagame-matrix", "fig-metagame-mixture", "fig-metagame-members"):
        assert f'id="{fig}"' in page
    assert api.verify(tournament)["sound"]  # the page beside the tournament's files damages nothing
    from reports.batch_report import build_batch_report

    report = build_batch_report(tournament, tournament / "report.html").read_text(encoding="utf-8")
    assert "Meta-game: what no member can beat" in report and 'id="fig-metagame-mixture"' in report


def test_the_cli_answers_first_and_prints_json(tournament, capsys):
    code, out, err = run_cli(capsys, "metagame", str(tournament), "--bootstrap", "50")
    assert code == 0 and "unexploitable within this population" in out.splitlines()[0] and "[" in out.splitlines()[0]
    assert "At 4 players this is the game between two clubs" in out
    code, out, err = run_cli(capsys, "metagame", str(tournament), "--bootstrap", "50", "--json")
    data = json.loads(out)
    assert code == 0 and data["strategies"] == ["balanced", "cautious", "aggressive", "random"]
    assert abs(sum(r["weight"] for r in data["mixture"]) - 1) < 1e-9 and data["verdict"][0].startswith(
        ("The mixture", data["support"][0]))


@pytest.mark.parametrize("make, reason", [
    (lambda tmp, t: tmp / "nowhere", "is not a batch"),
    (lambda tmp, t: t / "cells", "is not a batch"),
])
def test_a_directory_that_is_no_tournament_is_one_line_exit_2(tournament, tmp_path, capsys, make, reason):
    code, out, err = run_cli(capsys, "metagame", str(make(tmp_path, tournament)))
    assert code == 2 and len(err.strip().splitlines()) == 1 and reason in err and "Traceback" not in err


def test_a_sweep_or_a_tournament_of_one_strategy_is_refused(tmp_path, capsys, monkeypatch):
    api.sweep("kamoul", out=tmp_path / "s", n=20, grids=["call_threshold=1,3"], progress=False)
    code, out, err = run_cli(capsys, "metagame", str(tmp_path / "s"))
    assert code == 2 and "is a sweep, not a tournament" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(mg, "load_batch", lambda out, field: {"kind": "tournament",
                                                              "inputs": {"strategies": ["balanced"]}})
    with pytest.raises(SpecError, match="is a tournament of 1 strategy"):
        mg.tournament_counts(tmp_path / "s")


@pytest.mark.parametrize("value", [0, -3, 100_001])
def test_a_bad_bootstrap_count_is_refused(tournament, capsys, value):
    code, out, err = run_cli(capsys, "metagame", str(tournament), "--bootstrap", str(value))
    assert code == 2 and "--bootstrap" in err and len(err.strip().splitlines()) == 1


GROW = dict(rounds=2, budget=3, family="heuristic", params=["call_threshold=0:10", "max_unknown_at_call"],
            deals=40, confirm_deals=40, bootstrap=60, seed=4)


@pytest.fixture(scope="module")
def small_tournament(tmp_path_factory):
    out = tmp_path_factory.mktemp("grow") / "t"
    api.tournament("kamoul", strategies=["cautious", "balanced", "random"], out=out, n=150, seed=2, players=2,
                   level="hands", progress=False)
    return out


def _record(run):
    return run.rounds.drop("best_response_file")


def test_a_two_round_growth_records_each_round_s_gain_and_resumes_after_a_kill(small_tournament, tmp_path,
                                                                              monkeypatch):
    straight = api.metagame_grow(small_tournament, out=tmp_path / "straight", progress=False, **GROW)
    rounds = straight.rounds
    assert not straight.interrupted and 1 <= rounds.height <= 2 and rounds["round"].to_list() == list(
        range(1, rounds.height + 1))
    for r in rounds.iter_rows(named=True):
        assert r["gain_low"] <= r["gain"] <= r["gain_high"] and r["significant"] == (r["gain_low"] > 0)
        assert (tmp_path / "straight" / f"round-{r['round']}" / "tune" / "best.toml").is_file()
    assert rounds.height == 2 or not rounds["significant"][-1]  # it stops early only on an insignificant gain
    assert straight.final.names[-1] == rounds["best_response"][-1] or not rounds["significant"][-1]
    revive = kill_at_evaluation(monkeypatch, 3)  # in round one's tuning
    assert api.metagame_grow(small_tournament, out=tmp_path / "killed", progress=False, **GROW).interrupted
    revive()
    resumed = api.metagame_grow(small_tournament, out=tmp_path / "killed", progress=False, **GROW)
    assert _record(resumed).equals(_record(straight))


def test_the_cli_grows_and_refuses_bad_input_in_one_line(small_tournament, tmp_path, capsys):
    args = ["metagame", str(small_tournament), "--grow", "--rounds", "1", "--budget", "2", "--param",
            "call_threshold=0:10", "--deals", "40", "--bootstrap", "40", "--out", str(tmp_path / "g"), "--quiet"]
    code, out, err = run_cli(capsys, *args)
    assert code == 0 and out.startswith("Round 1: the best re") and "unexploitable within this population" in out
    code, out, err = run_cli(capsys, *args[:-3], "--out", str(tmp_path / "g"), "--seed", "9", "--quiet")
    assert code == 2 and "holds another growth" in err and len(err.strip().splitlines()) == 1
    for bad, field in ((["--budget", "0"], "--budget"), (["--family", "nope"], "--family"),
                       (["--rounds", "0"], "--rounds")):
        code, out, err = run_cli(capsys, "metagame", str(small_tournament), "--grow", "--budget", "2",
                                 "--out", str(tmp_path / f"x{field}"), *bad)
        assert code == 2 and err.startswith(f"Error: {field}: ") and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / f"x{field}").exists()
    code, out, err = run_cli(capsys, "metagame", str(small_tournament), "--budget", "2")
    assert code == 2 and "--budget" in err and "only with --grow" in err
