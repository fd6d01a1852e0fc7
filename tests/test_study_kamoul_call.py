"""Study 1, ``cardsim study kamoul-call`` and ``cardsim advise kamoul``: the study writes its samples, frames,
policy and tournaments; the frames are pure functions of the samples with intervals around their estimates; the
policy follows the data; the report opens in headless Chromium with every chart; advise answers with
intervals, does what the situation implies, and refuses bad input in one line (exit 2)."""

from __future__ import annotations

import json

import polars as pl
import pytest

from analysis.studies.kamoul_call.study import (
    MIN_CELL, PRESETS, call_value, decide, derive_policy, parse_known, policy_strategy, scan_samples,
)
from answer_checks import check_answer, check_french, numbers
import cardsim as api
from simulator.core.errors import SpecError
from simulator.core.storage.spec import parse_strategy
from simulator.games import get_game
from test_reports import browser, check_first_screen, parse, render, run_cli  # noqa: F401  (browser: the shared Chromium fixture)

PLAYERS = (2, 4)
FIGURES = ({"fig-policy-gain", "fig-gain-by-turn"}
           | {f"fig-{k}-{p}p" for k in ("call-gain", "call-win", "ratings") for p in PLAYERS})


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("kcall") / "s"
    result = api.study("kamoul-call", out=out, n=400, seed=4, players=PLAYERS, progress=False)
    assert not result["interrupted"] and result["html"] == out / "report.html"
    return out


def test_study_writes_samples_frames_policy_and_tournaments(study):
    data = json.loads((study / "_study.json").read_text())
    assert data["study"] == "kamoul-call" and data["game"] == "kamoul" and set(data["policies"]) == {"2", "4"}
    samples = scan_samples(study).collect()
    assert set(samples["players"].unique()) == set(PLAYERS) and samples.height > 2000
    assert pl.read_parquet(study / "samples").height == samples.height  # opens directly
    cells = pl.read_parquet(study / "call_value.parquet")
    assert cells["n"].sum() == samples.height
    for name in ("call_win", "play_win", "false_call", "call_points", "play_points", "gain"):
        ok = cells.filter(pl.col("n") >= 2)
        assert ((ok[f"{name}_low"] <= ok[name] + 1e-12) & (ok[name] <= ok[f"{name}_high"] + 1e-12)).all()
    assert ((cells["call_win"] >= 0) & (cells["call_win"] <= 1)).all()
    gain = pl.read_parquet(study / "gain.parquet")
    assert data["inputs"]["played"] == {"2": "tuned-2p", "4": "tuned-4p"}  # the tuned players, by default
    for p, played in data["inputs"]["played"].items():  # the rule against its own player, and the presets
        assert sorted(gain.filter(pl.col("players") == int(p))["preset"]) == sorted([played, *PRESETS])
        tuned = parse_strategy(get_game("kamoul"), played).params
        policy_params = dict(parse_strategy(get_game("kamoul"), data["policies"][p]).params)
        assert all(policy_params[k] == v for k, v in tuned if k in policy_params and k != "call_threshold")
    assert ((gain["low"] <= gain["win_rate"]) & (gain["win_rate"] <= gain["high"])).all()
    for p in PLAYERS:
        assert (study / f"tournament-{p}p" / "matrix.parquet").exists()
    check = pl.read_parquet(study / "policy_check.parquet")
    policy = pl.read_parquet(study / "policy.parquet")
    assert check.select("players", "unseen", "threshold").equals(policy.select("players", "unseen", "threshold")
                                                                 .sort("players", "unseen"))
    assert (check["stable"] == (check["threshold"] == check["threshold_again"])).all()
    assert scan_samples(study, "samples-policy").select(pl.len()).collect().item() > 2000


def _rows(cells):
    """Samples with given (known, unknown, gain) where calling gains ``gain`` points; strategy calls at known <= 1."""
    rows = []
    for known, unknown, gain, count in cells:
        for i in range(count):
            noise = (i % 3) - 1
            rows.append({"players": 4, "game": i, "hand": 0, "dealer": 0, "focal": 1, "position": 1, "turn": 1 + i % 9,
                         "cum": 0, "known": known, "unknown": unknown, "cards": 4, "total": known,
                         "strategy_calls": int(known <= 1 and unknown == 0), "call_points": -5,
                         "call_won": 1, "call_outcome": "normal", "call_others": 10, "play_points": -5 + gain + noise,
                         "play_won": 0, "play_outcome": "normal", "play_others": 10})
    return pl.DataFrame(rows)


def test_call_value_and_policy_are_pure_functions_of_the_samples():
    samples = _rows([(0, 0, 0, 60), (1, 0, 0, 60), (3, 0, 4, 60), (5, 0, 2, 60), (6, 0, -20, 60), (2, 1, -10, 60),
                     (4, 0, 3, 10)])
    cells = call_value(samples, keys=("players", "unseen", "known_cell"))
    row = cells.filter((pl.col("unseen") == 0) & (pl.col("known_cell") == 3)).row(0, named=True)
    assert row["n"] == 60 and row["gain"] == pytest.approx(4.0) and row["call_win"] == 1 and row["play_win"] == 0
    assert row["gain_low"] < 4.0 < row["gain_high"] and row["gain_high"] - row["gain_low"] < 0.6
    policy = derive_policy(cells)
    thresholds = {r["unseen"]: r["threshold"] for r in policy.iter_rows(named=True)}
    # known 0-1: no difference, the strategy calls; 3 and 5: calling saves points; 4: too few samples to overrule
    # the strategy (which does not call there): an exception below the threshold; 6: playing on is better
    assert thresholds == {0: 5, 1: -1}
    assert policy.filter(pl.col("unseen") == 0)["exceptions"].item() == 1
    assert policy_strategy(policy, 4) == "call-table:call_known_0=5,call_known_1=-1,call_known_2=-1,call_known_3=-1"


@pytest.mark.parametrize("row, verdict", [
    ({"n": MIN_CELL, "gain_low": 0.1, "gain_high": 2.0, "strategy_share": 0.0}, "call"),
    ({"n": MIN_CELL, "gain_low": -2.0, "gain_high": -0.1, "strategy_share": 1.0}, "play on"),
    ({"n": MIN_CELL, "gain_low": -1.0, "gain_high": 1.0, "strategy_share": 1.0}, "call"),
    ({"n": MIN_CELL, "gain_low": -1.0, "gain_high": 1.0, "strategy_share": 0.0}, "play on"),
    ({"n": MIN_CELL - 1, "gain_low": 5.0, "gain_high": 9.0, "strategy_share": 0.0}, "play on"),
])
def test_the_policy_keeps_the_strategy_where_the_data_do_not_decide(row, verdict):
    assert decide(row) == verdict


def test_study_report_renders_in_headless_chromium_with_every_chart(study, browser):  # noqa: F811
    html = study / "report.html"
    assert len(render(browser, html)) == len(FIGURES)
    check_first_screen(browser, html, max_height=8000)  # each player count's details and tournaments folded
    page = parse(html)
    assert page.title == "When to call KAMOUL"
    assert {f["id"] for f in page.figures} == FIGURES
    assert len(page.tables["policy"]["rows"]) == 2 * 4 and len(page.tables["gain"]["rows"]) == 2 * (len(PRESETS) + 1)
    assert len(page.tables["policy-check"]["rows"]) == 2 * 4
    for p in PLAYERS:
        assert page.tables[f"value-{p}p"]["rows"] and f"matrix-{p}p" in page.tables
        grid = page.tables[f"value-grid-{p}p"]  # known points x unseen own cards, one coloured grid
        assert grid["head"][0] == "known points" and grid["head"][1:] == ["0 unseen", "1 unseen", "2 unseen", "3+ unseen"]


def test_study_resumes_cli_writes_the_report_and_report_rebuilds_it(study, tmp_path, capsys):
    code, out, err = run_cli(capsys, "study", "kamoul-call", "-n", "400", "--seed", "4", "--players", "2,4",
                             "--out", str(study), "--quiet")
    assert code == 0 and "report.html" in out, err
    code, out, err = run_cli(capsys, "report", str(study), "--out", str(tmp_path / "again.html"))
    assert code == 0 and {f["id"] for f in parse(tmp_path / "again.html").figures} == FIGURES


@pytest.mark.parametrize("args, field", [
    (["kamoul-call", "rami"], "GAME"),
    (["kamoul-call", "--players", "2,7"], "--players"),
    (["kamoul-call", "-n", "0"], "-n"),
])
def test_bad_study_input_is_one_line_exit_2(tmp_path, capsys, args, field):
    extra = [] if "-n" in args else ["-n", "5"]
    code, out, err = run_cli(capsys, "study", *args, *extra, "--out", str(tmp_path / "s"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}:")
    assert not (tmp_path / "s").exists()


def test_advise_calls_a_sure_low_layout_and_refuses_a_sure_false_call(capsys):
    low = api.advise("kamoul", known="RK A", unknown=0, turn=2, players=3, samples=2000)
    assert low["advice"] == "call" and low["gain_low"] > 0 and low["false_call"] < 0.01
    assert low["call_win_low"] <= low["call_win"] <= low["call_win_high"] and low["samples"] >= 2000
    high = api.advise("kamoul", known="10 9", unknown=0, turn=2, players=3, samples=2000)
    assert high["advice"] == "play on" and high["false_call"] > 0.99 and high["gain_high"] < 0  # K7 ULTIME voids a few
    code, out, _ = run_cli(capsys, "advise", "kamoul", "--known", "RK A", "--turn", "2", "--players", "3",
                           "--samples", "2000")
    assert code == 0 and "advice: CALL" in out and "[" in out and "win the hand" in out
    code, out, _ = run_cli(capsys, "advise", "kamoul", "--known", "RK A", "--turn", "2", "--players", "3",
                           "--samples", "2000", "--json")
    assert code == 0 and json.loads(out)["gain"] == pytest.approx(low["gain"])


def test_advise_does_not_depend_on_threads():
    a = api.advise("kamoul", known="2 3", unknown=1, turn=3, players=4, samples=500, threads=1)
    b = api.advise("kamoul", known="2 3", unknown=1, turn=3, players=4, samples=500, threads=2)
    assert a == b


@pytest.mark.parametrize("args, field", [
    (["rami", "--known", "2", "--turn", "1"], "GAME"),
    (["kamoul", "--known", "2 K", "--turn", "1"], "--known"),
    (["kamoul", "--known", "2 X", "--turn", "1"], "--known"),
    (["kamoul", "--known", "2", "--turn", "0"], "--turn"),
    (["kamoul", "--known", "2", "--turn", "1", "--players", "7"], "--players"),
    (["kamoul", "--known", "2", "--turn", "1", "--unknown", "-1"], "--unknown"),
    (["kamoul", "--known", "2", "--turn", "1", "--cumulative", "-31"], "--cumulative"),
    (["kamoul", "--known", "2", "--turn", "1", "--strategy", "nope"], "--strategy"),
    (["kamoul", "--known", "2", "--turn", "1", "--samples", "5"], "--samples"),
])
def test_bad_advise_input_is_one_line_exit_2(capsys, args, field):
    code, out, err = run_cli(capsys, "advise", *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}:"), err


def test_known_cards_parse_by_rank():
    assert parse_known("2 3 RK") == (1, 2, 12) and parse_known("a,10 bk q") == (0, 9, 13, 11)
    with pytest.raises(SpecError):
        parse_known("K")


def test_the_study_states_its_call_rule_with_numbers_from_its_frames(study, capsys):
    data = check_answer(study)
    assert data["study"] == "kamoul-call" and data["holds_for"] == "Kamoul, default rules, tuned-2p/tuned-4p play"
    policy = pl.read_parquet(study / "policy.parquet")
    rule = {r["subject"]: r["value"] for r in numbers(data, "call rule")}
    assert rule == {f"{r['players']} players, {r['unseen']} unseen": r["threshold"] for r in policy.iter_rows(named=True)}
    gain = pl.read_parquet(study / "gain.parquet")
    same = gain.filter((pl.col("points_gap") == 0) & (pl.col("gap_low") == 0) & (pl.col("gap_high") == 0))
    assert " ".join(data["sentences"]).count("(the same games: it already plays this rule)") == same.height
    won = [r for r in numbers(data, "against the presets") if r["kind"] == "share"]
    assert sorted((r["subject"], r["value"], r["low"], r["high"]) for r in won) == sorted(
        (f"{g['players']} players, against {g['preset']}", g["win_rate"], g["low"], g["high"])
        for g in gain.iter_rows(named=True))
    for players, sentence in zip(PLAYERS, data["sentences"]):
        assert sentence.startswith(f"{players} players: call KAMOUL when the known total is ")
    saved = numbers(data, "points saved by calling")
    assert saved and all(r["low"] <= r["value"] <= r["high"] for r in saved)
    code, out, err = run_cli(capsys, "study", "kamoul-call", "-n", "400", "--seed", "4", "--players",
                             ",".join(map(str, PLAYERS)), "--out", str(study), "--quiet", "--json")
    assert code == 0 and json.loads(out) == data, err



def test_the_verdict_in_french(study):
    from analysis.studies.kamoul_call import study as kamoul_call

    check_french(kamoul_call.answer, study)


def _limit(players, rule, word=None, n=1000, more=0):
    from analysis.answers import Certainty

    return {"players": players, "rule": rule, "limit": None, "own": None,
            "certainty": Certainty(word, n, more) if word else None}


def test_the_headline_says_the_rule_as_a_player_would_with_the_other_table_sizes_in_brackets():
    from analysis.studies.kamoul_call.study import _headline

    never = {1: -1, 2: -1, 3: -1}
    limits = [_limit(2, {0: 5, **never}, "even"), _limit(3, {0: 4, **never}, "decided"),
              _limit(4, {0: 4, **never}, "decided"), _limit(6, {0: 4, **never}, "even")]
    assert _headline(limits) == (
        "Call KAMOUL once all your cards are seen and total 4 or less (5 or less heads-up).",
        "Never with an unseen card.",
        "At the limit it is break-even at 2 and 6 players: calling or playing on, the same.")
    limits = [_limit(3, {0: 3, 1: 1, 2: -1}, "tentative"), _limit(4, {0: 4, 1: 1, 2: -1}, "decided"),
              _limit(6, {0: 4, 1: -1, 2: -1}, "even")]
    assert _headline(limits) == (
        "Call KAMOUL once all your cards are seen and total 4 or less (3 or less at 3 players).",
        "With 1 unseen card: 1 or less at 3 and 4 players; never at 6 players.",
        "Break-even at the limit at 6 players; tentative at 3: too few decisions.")


def test_certainty_is_decided_even_or_tentative_with_the_units_that_would_settle_it():
    from analysis.answers import certainty
    from analysis.stats import games_for_half_width

    assert certainty(0.1, 0.3, 500, 0.25).word == "decided"
    assert certainty(-0.4, -0.1, 500, 0.25).word == "decided"
    assert certainty(-0.05, 0.06, 10_692, 0.25).word == "even"
    unsure = certainty(-0.38, 0.48, 143, 0.25)
    assert unsure.word == "tentative" and unsure.n == 143
    assert unsure.more == games_for_half_width(0.43, 143, 0.25) - 143 > 0
    assert certainty(0.49, 0.515, 4000, 0.02, null=0.5).word == "even"


def test_the_table_gives_each_player_counts_limit_with_its_certainty(study):
    from analysis.answers import certainty
    from analysis.studies.kamoul_call.study import POINTS_MARGIN

    data = json.loads((study / "answer.json").read_text())
    policy = pl.read_parquet(study / "policy.parquet")
    by_known = pl.read_parquet(study / "by_known.parquet")
    table = data["table"]
    assert [r[0] for r in table["rows"]] == [str(p) for p in PLAYERS]
    for row in table["rows"]:
        players = int(row[0])
        threshold = policy.filter((pl.col("players") == players) & (pl.col("unseen") == 0))["threshold"].item()
        assert row[1] == (f"≤ {threshold}" if threshold >= 0 else "never")
        if threshold < 0:
            continue
        cell = by_known.filter((pl.col("players") == players) & (pl.col("unseen") == 0)
                               & (pl.col("known_cell") == threshold)).row(0, named=True)
        c = certainty(cell["gain_low"], cell["gain_high"], cell["n"], POINTS_MARGIN)
        assert row[-1] == f"{cell['n']:,}"
        assert row[3].endswith({"decided": "]", "even": "] even", "tentative": "] tentative"}[c.word]), row
        if c.word == "tentative":
            assert (f"{players} players: tentative ({c.n:,} decisions; about {c.more:,} more would settle it)."
                    in table["notes"])
    assert data["headline"][0].startswith("Call KAMOUL once all your cards are seen and total ")


RANK_OF_VALUE = {0: "RK", 1: "A", **{v: str(v) for v in range(2, 11)}}


def _layout(total: int, cards: int) -> str | None:
    """``cards`` own cards worth ``total`` points as evenly as ranks allow (``None``: not with at most two red kings)."""
    values = [total // cards + (1 if i < total % cards else 0) for i in range(cards)]
    if values.count(0) > 2 or max(values) > 10:
        return None
    return " ".join(RANK_OF_VALUE[v] for v in values)


def test_advise_plays_the_studys_player_and_agrees_with_it_where_the_study_is_decided(study):
    """One default player: advise, without --strategy, assumes the tuned player the study sampled, and on states
    drawn from the study's samples (every own card seen, each decided cell's commonest hand size and median turn)
    it gives the study's decision."""
    played = json.loads((study / "_study.json").read_text())["inputs"]["played"]
    by_known = pl.read_parquet(study / "by_known.parquet").filter(pl.col("unseen") == 0)
    samples = scan_samples(study).filter(pl.col("unknown") == 0).collect()
    compared = 0
    for cell in by_known.filter((pl.col("n") >= MIN_CELL) & ((pl.col("gain_low") > 0) | (pl.col("gain_high") < 0))
                                & (pl.col("known_cell") <= 8)).iter_rows(named=True):
        drawn = samples.filter((pl.col("players") == cell["players"]) & (pl.col("known") == cell["known_cell"]))
        cards = drawn["cards"].mode().sort()[0]
        known = _layout(cell["known_cell"], cards)
        if known is None:
            continue
        turn = int(drawn.filter(pl.col("cards") == cards)["turn"].median())
        advice = api.advise("kamoul", known=known, unknown=0, turn=turn, players=cell["players"], samples=2000)
        assert advice["strategy"] == played[str(cell["players"])]
        assert advice["advice"] == decide(cell), (cell, known, turn, advice)
        compared += 1
    assert compared >= 4  # calls and play-ons at both player counts
