"""``cardsim study rami-openings``: a tiny study (2 and 4 players) writes its batches, frames and
``_study.json``; the frames hold shares in [0, 1] with intervals around them and opening-turn distributions
summing to 1; ``report.html`` opens in headless Chromium with every chart; bad input is one line, exit 2."""

from __future__ import annotations

import json

import polars as pl

from simulator.core.run.batch import read_batch
import pytest

from analysis.metagame import metagame
from analysis.studies.rami_openings.study import (
    STRATEGIES, named, opening_turns, rami_sec, seat_rounds, style_names, style_on_tuned,
)
from answer_checks import check_answer, check_french, numbers
import cardsim as api
from test_reports import browser, check_first_screen, parse, render, run_cli  # noqa: F401  (browser: the shared Chromium fixture)

PLAYERS = (2, 4)
FIGURES = ({f"fig-{k}-{p}p" for k in ("ratings", "opening-turns", "metagame-mixture", "metagame-members")
            for p in PLAYERS}
           | {"fig-rami-sec", "fig-ratings-by-players"}
           | {f"fig-sweep-{k}-{part}" for k in ("seat0-win-rate", "seat0-mean-points", "outcomes")
              for part in ("threshold", "jokers")})


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("study") / "s"
    result = api.study("rami-openings", out=out, n=12, seed=3, players=PLAYERS, progress=False)
    assert not result["interrupted"]
    return out


def test_study_writes_its_batches_frames_and_description(study):
    for part in ("tournament-2p", "tournament-4p", "threshold", "jokers"):
        assert (study / part / "_batch.json").is_file()
    data = json.loads((study / "_study.json").read_text())
    assert data["study"] == "rami-openings" and data["inputs"]["players"] == list(PLAYERS)
    assert (study / "report.html").is_file()
    turns = pl.read_parquet(study / "opening_turns.parquet")
    secs = pl.read_parquet(study / "rami_sec.parquet")
    played = {s for p in PLAYERS for s in data["inputs"]["played"][str(p)]}  # each style on the tuned player
    assert played - set(STRATEGIES), "no style played as a strategy text: the names below test nothing"
    assert set(turns["players"]) == set(PLAYERS) and set(turns["strategy"]) == set(STRATEGIES)  # named by style
    for frame, (rate, low, high) in ((turns, ("share", "low", "high")), (secs, ("rate", "low", "high"))):
        assert frame[rate].is_between(0, 1).all()
        assert ((frame[low] <= frame[rate] + 1e-12) & (frame[rate] <= frame[high] + 1e-12)).all()
    sums = turns.group_by("players", "strategy").agg(pl.col("share").sum())["share"]
    assert ((sums - 1).abs() < 1e-9).all()
    assert ((turns["open_turn"] == -1) | (turns["open_turn"] >= 1)).all()
    for mean, low, high in (("sec_points", "sec_low", "sec_high"), ("other_points", "other_low", "other_high")):
        both = secs.filter(pl.col(low).is_not_nan())
        assert ((both[low] <= both[mean]) & (both[mean] <= both[high])).all()
    # whole games: every round of a tournament is counted once per seat, for the strategy that held it
    for p in PLAYERS:
        rounds = read_batch(study / f"tournament-{p}p", "rounds").select(pl.len()).collect().item()
        assert secs.filter(pl.col("players") == p)["rounds"].sum() == p * rounds
        assert json.loads((study / f"tournament-{p}p" / "_batch.json").read_text())["inputs"]["level"] == "games"
    ratings = pl.read_parquet(study / "ratings.parquet")
    assert ratings.height == len(PLAYERS) * len(STRATEGIES)
    for p in PLAYERS:  # the same ratings as the tournament's own file, mean 0 per tournament
        own = named(pl.read_parquet(study / f"tournament-{p}p" / "ratings.parquet"),
                    style_names(data["inputs"], p)).sort("strategy")
        mine = ratings.filter(pl.col("players") == p).drop("players").sort("strategy")
        assert mine.equals(own) and abs(mine["rating"].mean()) < 1e-9


def test_frames_are_pure_functions_of_the_rounds():
    rounds = pl.DataFrame({"winner": [0, 1, -1], "outcome": ["rami sec", "out", "blocked"],
                           "points_0": [-10, 30, 5], "points_1": [200, 0, 7],
                           "open_turn_0": [3, 2, -1], "open_turn_1": [-1, 2, 4],
                           "strategy_0": ["a", "a", "a"], "strategy_1": ["b", "b", "b"]})
    seats = seat_rounds(rounds, 2)
    turns = opening_turns(seats)
    assert turns.filter(pl.col("strategy") == "a").select("open_turn", "n").rows() == [(-1, 1), (2, 1), (3, 1)]
    sec = {r["strategy"]: r for r in rami_sec(seats).iter_rows(named=True)}
    assert sec["a"]["sec"] == 1 and sec["a"]["sec_points"] == -10 and sec["a"]["other_points"] == 17.5
    assert sec["b"]["sec"] == 0 and sec["b"]["rounds"] == 3


def test_study_report_renders_in_headless_chromium_with_every_chart(study, browser):  # noqa: F811
    html = study / "report.html"
    assert len(render(browser, html)) == len(FIGURES)
    check_first_screen(browser, html, max_height=8000)
    page = parse(html)
    assert {f["id"] for f in page.figures} == FIGURES
    for figure in page.figures:
        assert figure["caption"].strip() and figure["img"]["alt"]
    played = json.loads((study / "_study.json").read_text())["inputs"]["played"]
    for p in PLAYERS:
        assert [r[0] for r in page.tables[f"matrix-{p}p"]["rows"]] == list(STRATEGIES)  # each style by name
        assert sorted(r[0] for r in page.tables[f"rami-sec-{p}p"]["rows"]) == sorted(STRATEGIES)
        assert sorted(r[0] for r in page.tables[f"metagame-{p}p"]["rows"]) == sorted(STRATEGIES)
    assert [r[1] for r in page.tables["cells-threshold"]["rows"]] == ["40", "51", "61", "71"]


def test_study_resumes_and_cli_writes_the_report(study, capsys):
    code, out, err = run_cli(capsys, "study", "rami-openings", "-n", "12", "--seed", "3", "--players", "2,4",
                             "--out", str(study), "--quiet")
    assert code == 0 and "report.html" in out


@pytest.mark.parametrize("args, field", [
    (["kamoul-openings"], "STUDY"),
    (["rami-openings", "kamoul"], "GAME"),
    (["balance"], "GAME"),
    (["balance", "chess"], "GAME"),
    (["rami-openings", "--players", "2,9"], "--players"),
    (["rami-openings", "--players", "two"], "--players"),
    (["rami-openings", "--players", "2,2"], "--players"),
])
def test_bad_study_input_is_one_line_exit_2(tmp_path, capsys, args, field):
    code, out, err = run_cli(capsys, "study", *args, "-n", "5", "--out", str(tmp_path / "s"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}:")
    assert not (tmp_path / "s").exists()


def test_a_different_study_in_the_same_directory_is_refused(study, capsys):
    code, out, err = run_cli(capsys, "study", "rami-openings", "-n", "13", "--seed", "3", "--players", "2,4",
                             "--out", str(study))
    assert code == 2 and err.startswith("Error: --out:") and "different study" in err


def test_cardsim_report_rebuilds_a_study_report(study, tmp_path, capsys):
    code, out, err = run_cli(capsys, "report", str(study), "--out", str(tmp_path / "again.html"))
    assert code == 0, err
    page = parse(tmp_path / "again.html")
    assert {f["id"] for f in page.figures} == FIGURES and "matrix-2p" in page.tables


def test_the_study_ranks_the_openings_and_says_if_the_winner_is_significant(study):
    data = check_answer(study)
    assert data["study"] == "rami-openings" and data["holds_for"].startswith("Rami, default rules")
    margins = numbers(data, "margin")
    assert len(margins) == len(PLAYERS)
    rankings = [s for s in data["sentences"] if "mix of styles" not in s]
    for p, margin, sentence in zip(PLAYERS, margins, rankings, strict=True):
        ratings = pl.read_parquet(study / f"tournament-{p}p" / "ratings.parquet")
        first, next_ = ratings["strategy"][0], ratings["strategy"][1]  # as played; the answer names the styles
        names = style_names(json.loads((study / "_study.json").read_text())["inputs"], p)
        best, second = names.get(first, first), names.get(next_, next_)
        assert best in STRATEGIES and second in STRATEGIES and "tuned" not in " ".join(data["sentences"][:-1])
        assert margin["subject"] == f"{p} players, {best} against {second}"
        pair = pl.read_parquet(study / f"tournament-{p}p" / "matrix.parquet").filter(
            (pl.col("strategy") == first) & (pl.col("opponent") == next_)).row(0, named=True)
        assert (margin["value"], margin["low"], margin["high"], margin["n"]) == (
            pair["win_rate"], pair["low"], pair["high"], pair["decided"])
        assert margin["status"] == ("significant" if pair["low"] > 0.5 or pair["high"] < 0.5 else "not significant")
        assert sentence.startswith(f"{p} players: {best} ") and f"({margin['status']})" in sentence



def test_the_verdict_in_french(study):
    from analysis.studies.rami_openings import study as rami_openings

    check_french(rami_openings.answer, study)


def test_the_styles_play_the_rest_of_the_game_as_the_tuned_player(study):
    inputs = json.loads((study / "_study.json").read_text())["inputs"]
    assert inputs["tuned"] == {"2": "tuned-2p", "4": "tuned-4p"}
    for p in PLAYERS:  # each style plays on the tuned player's other values (its own name where they are its own)
        assert inputs["played"][str(p)] == [style_on_tuned(s, inputs["tuned"][str(p)]) for s in STRATEGIES]
        batch = json.loads((study / f"tournament-{p}p" / "_batch.json").read_text())
        assert batch["inputs"]["strategies"] == inputs["played"][str(p)]


def test_a_style_takes_the_tuned_players_other_parameters(monkeypatch):
    from dataclasses import replace

    from simulator.core.contract.registry import get_game

    tuned = get_game("rami").strategies["tuned-4p"]
    monkeypatch.setitem(get_game("rami").strategies, "tuned-9p",
                        replace(tuned, name="tuned-9p", params=tuned.params.with_defaults(take_discard=0)))
    assert style_on_tuned("open-small", "tuned-9p") == "tuned-9p:opening_style=1"
    assert style_on_tuned("meld-holder", "tuned-9p") == "tuned-9p:opening_style=1,hold_melds=2"
    assert style_on_tuned("open-asap", "tuned-9p") == "tuned-9p"
    assert style_on_tuned("open-small", "open-asap") == "open-small"  # the family's defaults: its own name
    assert style_on_tuned("open-small", None) == "open-small" and style_on_tuned("random", "tuned-9p") == "random"


def test_the_study_gives_the_mix_of_styles_no_style_can_exploit(study):
    data = check_answer(study)
    mixes = pl.read_parquet(study / "equilibrium.parquet")
    weights = numbers(data, "equilibrium")
    assert len(weights) == len(PLAYERS) * len(STRATEGIES)
    sentence = data["sentences"][-1]
    assert sentence.startswith("The mix of styles no style can exploit") and len(data["sentences"]) == len(PLAYERS) + 1
    for p in PLAYERS:
        mix = mixes.filter(pl.col("players") == p)
        m = metagame(study / f"tournament-{p}p", seed=3)  # the study's seed: the same bootstrap
        own = named(m.mixture, style_names(json.loads((study / "_study.json").read_text())["inputs"], p))
        assert mix.sort("strategy")["weight"].to_list() == own.sort("strategy")["weight"].to_list()
        assert abs(mix["weight"].sum() - 1) < 1e-9
        assert ((mix["weight_low"] <= mix["weight"] + 1e-12) & (mix["weight"] <= mix["weight_high"] + 1e-12)).all()
        clause = sentence.split(f"at {p} players ")[1].split("; at ")[0]
        for r in mix.filter(pl.col("weight") > 1e-6).iter_rows(named=True):
            assert clause.startswith(r["strategy"]) or f"+ {r['strategy']} " in clause


def test_the_headline_names_the_best_style_and_the_table_its_margin(study):
    from analysis.answers import certainty
    from analysis.studies.rami_openings.study import SHARE_MARGIN, STYLE_ADVICE

    data = json.loads((study / "answer.json").read_text())
    margins = {int(r["subject"].split(" ")[0]): r for r in numbers(data, "margin")}
    rows = {int(r[0]): r for r in data["table"]["rows"]}
    assert sorted(rows) == list(PLAYERS)
    for p, margin in margins.items():
        best, second = margin["subject"].split(", ", 1)[1].split(" against ")
        c = certainty(margin["low"], margin["high"], margin["n"], SHARE_MARGIN, 0.5)
        assert rows[p][1] == best and rows[p][4] == second
        assert rows[p][3].endswith({"decided": "]", "even": "] even", "tentative": "] tentative"}[c.word])
        if c.word == "tentative":
            assert any(note.startswith(f"{p} players: tentative ({c.n:,} decided games; about {c.more:,} more")
                       for note in data["table"]["notes"])
    bests = {r[1] for r in rows.values()}
    first = data["headline"][0]
    if len(bests) == 1:
        (best,) = bests
        assert first.startswith(f"{STYLE_ADVICE[best]} ({best}): the best opening style at ") or \
            first.startswith(f"{best} is the best")
    else:
        assert first.startswith("Best opening style: ") and all(b in first for b in bests)
