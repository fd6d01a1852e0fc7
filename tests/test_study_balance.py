"""``cardsim study balance GAME``: a tiny study per game writes its runs, batches, frames and ``_study.json``;
the frames hold rates in [0, 1] with intervals around them and are pure functions of the stored tables (checked
on hand-built tables with known answers); with the same strategy at every seat no seat stands out beyond a
4-sigma binomial band; ``report.html`` opens in headless Chromium with every chart and table; bad input is one
line, exit 2, nothing written."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from analysis.answers import say
from analysis.batches import NO_EFFECT
from analysis.studies.balance import study as balance
from analysis.studies.balance.study import (
    option_effects, pooled_exposure, position_rows, position_table, power_values, rank_strategies, seat_test,
    skill_by_level, upsets,
)
from answer_checks import check_answer, check_french, numbers
import cardsim as api
from simulator.core.contract.registry import get_game
from simulator.core.storage.sealed import sealed, unsealed
from simulator.core.storage.spec import parse_strategy
from test_reports import browser, check_first_screen, parse, render, run_cli  # noqa: F401  (browser: the shared Chromium fixture)

GAMES = ("kamoul", "rami", "kems")
N, SEED = 6, 3
UNITS = {"kamoul": 4, "rami": 4, "kems": 2}  # positions at the default player count (Kem's: teams)
UNIT_WORD = {"kamoul": "hands", "rami": "rounds", "kems": "manches"}  # what the seats run decides


@pytest.fixture(scope="module")
def studies(tmp_path_factory):
    root = tmp_path_factory.mktemp("balance")
    out = {}
    for game in GAMES:
        result = api.study("balance", game, out=root / game, n=N, seed=SEED, progress=False)
        assert not result["interrupted"] and result["html"] == root / game / "report.html"
        out[game] = root / game
    return out


def _intervals(frame: pl.DataFrame, triples, rates: bool = True):
    for mid, low, high in triples:
        rows = frame.filter(pl.col(low).is_not_nan() & pl.col(mid).is_not_nan())
        assert ((rows[low] <= rows[mid] + 1e-12) & (rows[mid] <= rows[high] + 1e-12)).all(), (mid, rows)
        if rates:
            assert rows[mid].is_between(0, 1).all() and rows[low].is_between(0, 1).all()


@pytest.mark.parametrize("game", GAMES)
def test_study_writes_its_parts_and_frames(studies, game):
    out = studies[game]
    data = json.loads((out / "_study.json").read_text())
    assert data["study"] == "balance" and data["game"] == game and data["inputs"]["n"] == N
    assert (out / "seats" / "_manifest.json").is_file() and (out / "skill" / "_batch.json").is_file()
    swept = [name for name, _ in data["inputs"]["option_grids"]]
    params = {p.name: p for p in get_game(game).options.params}
    skipped = data["inputs"]["skipped"]
    assert set(swept) | set(skipped) == set(params) and not set(swept) & set(skipped) and set(get_game(game).balance.skipped) <= set(skipped)
    for name, values in data["inputs"]["option_grids"]:
        assert (out / "options" / name / "_batch.json").is_file() and params[name].default in values
    frames = {p.stem: pl.read_parquet(p) for p in out.glob("*.parquet")}
    expected = {"positions", "units", "seat_test", "lengths", "length_means", "upsets", "options"}
    expected |= {"kamoul": {"powers", "skill_levels"}, "rami": set(), "kems": {"signs"}}[game]
    assert set(frames) == expected
    for key in ("positions", "units"):
        assert frames[key].height == UNITS[game]
        _intervals(frames[key], [("win_rate", "win_low", "win_high"), ("share", "share_low", "share_high")])
        _intervals(frames[key], [("mean_points", "points_low", "points_high")], rates=False)
    assert frames["positions"]["wins"].sum() == frames["units"]["wins"].sum() == frames["seat_test"]["decided"][0]
    assert 0 <= frames["seat_test"]["p_value"][0] <= 1
    k = len(data["inputs"]["strategies"])
    assert frames["upsets"].height == k * (k - 1) // 2
    _intervals(frames["upsets"], [("rate", "low", "high")])
    options = frames["options"]
    assert options.height == sum(len(v) for _, v in data["inputs"]["option_grids"])
    assert options.group_by("option").agg(pl.col("default").sum())["default"].to_list() == [1] * len(swept)
    defaults = options.filter(pl.col("default"))
    assert (defaults["first_delta"] == 0).all() and (defaults["length_delta"] == 0).all()
    _intervals(options, [(f"{m}_rate" if m == "decided" else f"{m}_share", f"{m}_low", f"{m}_high")
                         for m in ("decided", "first")])
    _intervals(options, [("length", "length_low", "length_high"), ("first_delta", "first_delta_low", "first_delta_high"),
                         ("length_delta", "length_delta_low", "length_delta_high")], rates=False)
    shares = frames["lengths"].group_by("table").agg(pl.col("share").sum())["share"]
    assert ((shares - 1).abs() < 1e-9).all()
    if game == "kamoul":
        assert frames["powers"]["power"].to_list() == list(get_game("kamoul").balance.extras["powers"])
        _intervals(frames["powers"], [("base_rate", "base_low", "base_high"), ("off_rate", "off_low", "off_high")])
        levels = frames["skill_levels"]
        assert levels["level"].to_list() == list(get_game("kamoul").levels) * 2
        assert levels["better"].n_unique() == 1 and data["choices"]["best"] == levels["better"][0] != "random"
        _intervals(levels, [("rate", "low", "high")])
    if game == "kems":
        signs = frames["signs"]
        assert signs.height == 12 and (signs["team"] == "all").all()
        _intervals(signs, [(f"{k}_rate", f"{k}_low", f"{k}_high") for k in ("partner", "opponent", "contred", "kems")])


@pytest.mark.parametrize("game", GAMES)
def test_stored_frames_are_the_frames_of_the_stored_runs(studies, game):
    fresh = balance.study_frames(studies[game])
    for name, frame in fresh.items():
        assert_frame_equal(pl.read_parquet(studies[game] / f"{name}.parquet"), frame)


@pytest.mark.parametrize("game", GAMES)
def test_no_seat_stands_out_when_every_seat_plays_the_same(studies, game):
    """Seats rotate through the positions (the deal moves), so with one strategy everywhere each seat's share of
    the decided rows is 1/U up to sampling: a 4-sigma binomial band from the number of decided rows."""
    units = pl.read_parquet(studies[game] / "units.parquet")
    decided = int(units["decided"][0])
    p = 1 / units.height
    band = 4 * math.sqrt(p * (1 - p) / decided)
    assert ((units["share"] - p).abs() <= band).all(), (units, band)


# --- pure functions on hand-built tables ------------------------------------------------------------------


def test_positions_count_from_the_deal():
    # Kamoul, 3 players: the dealer's left (dealer + 1) plays first
    hands = pl.DataFrame({"dealer": [0, 1, 2, 0], "winner": [1, 2, 0, -1], "points_0": [5, 3, 0, 9],
                          "points_1": [0, 4, 2, 8], "points_2": [7, 0, 6, 7]})
    rows = position_rows(hands, "kamoul", 3)
    assert rows.filter(pl.col("row") == 0).sort("unit")["pos"].to_list() == [2, 0, 1]
    table = position_table(rows, "kamoul")
    assert table["wins"].to_list() == [3, 0, 0] and table["decided"].to_list() == [3, 3, 3]
    assert table["share"][0] == 1.0 and table["win_rate"][0] == 0.75 and table["label"][0].startswith("first")
    # Rami, 4 players: play runs counter-clockwise from ``first``
    rounds = pl.DataFrame({"first": [2], "winner": [1], **{f"points_{p}": [p] for p in range(4)}})
    rows = position_rows(rounds, "rami", 4)
    assert rows.sort("unit")["pos"].to_list() == [2, 1, 0, 3] and rows.filter(pl.col("win"))["pos"].to_list() == [1]
    # Kem's, 4 players (teams A = seats 0, 2 and B = 1, 3): only a strictly highest team wins
    manches = pl.DataFrame({"dealer": [0, 1, 3], "points_A": [1, 0, 2], "points_B": [0, 0, 0]})
    rows = position_rows(manches, "kems", 4)
    assert rows.filter(pl.col("row") == 0).sort("unit")["pos"].to_list() == [1, 0]
    assert rows.filter(pl.col("win")).sort("row")["pos"].to_list() == [1, 0]
    assert position_table(rows, "kems", by="unit")["label"].to_list() == ["team A", "team B"]


def test_a_wilson_interval_holds_its_rate():
    from analysis.stats import wilson

    for wins, n in ((0, 6), (6, 6), (0, 1), (3, 7)):
        rate, low, high = wilson(wins, n)
        assert 0 <= low <= rate <= high <= 1


def test_chi_square_verdict():
    table = pl.DataFrame({"label": ["first", "2nd", "3rd", "4th"], "wins": [30, 10, 10, 10],
                          "share": [0.5, 1 / 6, 1 / 6, 1 / 6]})
    test = seat_test(table).row(0, named=True)
    assert test["chi2"] == pytest.approx(20.0) and test["df"] == 3
    assert test["p_value"] == pytest.approx(1.6974e-4, rel=1e-4) and test["verdict"].startswith("positions differ")
    even = seat_test(table.with_columns(pl.lit(10).alias("wins"))).row(0, named=True)
    assert even["chi2"] == 0 and even["p_value"] == 1 and even["verdict"].startswith("no evidence")


def test_upsets_and_ranking():
    def row(s, o, wins, losses):
        return {"strategy": s, "opponent": o, "wins": wins, "decided": wins + losses, "win_rate": wins / (wins + losses),
                "points_gap": 0.0, "gap_low": -1.0, "gap_high": 1.0}
    matrix = pl.DataFrame([row("a", "b", 30, 10), row("b", "a", 10, 30), row("a", "c", 35, 5), row("c", "a", 5, 35),
                           row("b", "c", 25, 15), row("c", "b", 15, 25)])
    ratings = pl.DataFrame({"strategy": ["c", "b", "a"], "rating": [0.0, 0.0, 0.0], "fitted": [False] * 3})
    order = rank_strategies(ratings, matrix)
    assert order == ["a", "b", "c"]
    frame = upsets(matrix, order)
    assert frame.select("stronger", "weaker", "weaker_wins", "decided").rows() == [
        ("a", "b", 10, 40), ("a", "c", 5, 40), ("b", "c", 15, 40)]
    assert frame["rate"].to_list() == [0.25, 0.125, 0.375]


def test_skill_by_level_counts_the_better_ones_wins_in_every_seating():
    wins = pl.DataFrame([
        {"level": "hands", "a": "x", "b": "y", "seating": "AB", "games": 10, "a_wins": 6, "b_wins": 3, "undecided": 1},
        {"level": "tops", "a": "x", "b": "y", "seating": "AB", "games": 2, "a_wins": 2, "b_wins": 0, "undecided": 0},
        {"level": "hands", "a": "x", "b": "y", "seating": "BA", "games": 10, "a_wins": 4, "b_wins": 4, "undecided": 2},
        {"level": "tops", "a": "x", "b": "y", "seating": "BA", "games": 2, "a_wins": 1, "b_wins": 1, "undecided": 0}])
    frame = skill_by_level(wins, "y")
    assert frame.select("level", "weaker", "games", "decided", "better_wins").rows() == [
        ("hands", "x", 20, 17, 7), ("tops", "x", 4, 4, 1)]


def test_option_effects_are_paired_on_the_deals():
    games = pl.DataFrame({"value": ["4"] * 4 + ["5"] * 4, "default": [True] * 4 + [False] * 4,
                          "game": [0, 1, 2, 3] * 2, "length": [10.0, 12.0, 14.0, 16.0, 11.0, 13.0, 15.0, 17.0],
                          "first": [True, False, False, True, True, True, False, False],
                          "decided": [True, True, False, True, True, True, True, True]})
    frame = {r["value"]: r for r in option_effects(games, "hand_size", 4).iter_rows(named=True)}
    assert frame["4"]["first_delta"] == 0 and frame["4"]["length_delta"] == 0 and frame["4"]["decided_rate"] == 0.75
    assert frame["4"]["first_share"] == pytest.approx(2 / 3)
    five = frame["5"]
    assert five["length_delta"] == 1.0 and five["length_delta_low"] == five["length_delta_high"] == 1.0
    assert five["first_delta"] == 0.0 and five["first_delta_low"] < 0 < five["first_delta_high"]
    assert five["length"] == 14.0 and five["first_share"] == 0.5 and five["units"] == 4


def test_power_values_compare_the_same_deals():
    games = pl.DataFrame({"power": ["king"] * 6, "off": [False] * 3 + [True] * 3, "game": [0, 1, 2] * 2,
                          "win": [True, True, False, True, False, False], "points": [1.0, 0.0, 5.0, 2.0, 4.0, 9.0],
                          "uses": [2.0, 1.0, 0.0, 0.0, 1.0, 0.0]})
    row = power_values(games).row(0, named=True)
    assert row["n"] == 3 and row["base_rate"] == pytest.approx(2 / 3) and row["off_rate"] == pytest.approx(1 / 3)
    assert row["value"] == pytest.approx(1 / 3) and row["points_value"] == pytest.approx(3.0)
    assert row["uses_on"] == pytest.approx(1.0) and row["uses_off"] == pytest.approx(1 / 3)
    assert row["uses_on_low"] <= 1.0 <= row["uses_on_high"]


def test_pooled_exposure_adds_up_the_teams():
    manches = pl.DataFrame({"outcome": ["contre", "kems", "cap"], "caller": [1, 2, -1],
                            "signs_A": [2, 3, 0], "seen_partner_A": [1, 2, 0], "seen_opp_A": [1, 0, 0],
                            "signs_B": [1, 0, 4], "seen_partner_B": [0, 0, 4], "seen_opp_B": [0, 0, 2]})
    row = pooled_exposure(manches, 4).row(0, named=True)
    assert row["team"] == "all" and row["manches"] == 6 and row["signs"] == 10
    assert row["partner_rate"] == pytest.approx(7 / 10) and row["opponent_rate"] == pytest.approx(3 / 20)
    # team A signed in manches 0 and 1: contred by team B's seat 1 in manche 0, its own Kem's in manche 1;
    # team B signed in manches 0 and 2: its contre is against A, not a contre of B
    assert row["contred"] == 1 and row["contred_rate"] == pytest.approx(1 / 4) and row["kems_rate"] == pytest.approx(1 / 4)


# --- the report ---------------------------------------------------------------------------------------------


def _figures(game: str) -> set[str]:
    plugin = get_game(game)
    tables = plugin.tables(plugin.levels[-1])
    ids = {"fig-positions", "fig-ratings-skill", "fig-upsets", "fig-options-first",
           "fig-options-length", "fig-wins-seats", "fig-points-seats", "fig-outcomes-seats"}
    ids |= {f"fig-wins-{t}-seats" for t in tables[1:]} | {f"fig-length-{t}-seats" for t in tables}
    return ids | {"kamoul": {"fig-skill-levels", "fig-powers-value", "fig-powers-points"}, "rami": set(),
                  "kems": {"fig-signs", "fig-visibility-sightings", "fig-visibility-outcomes"}}[game]


@pytest.mark.parametrize("game", GAMES)
def test_report_renders_in_headless_chromium_with_every_chart_and_table(studies, browser, game):  # noqa: F811
    html = studies[game] / "report.html"
    assert len(render(browser, html)) == len(_figures(game))
    check_first_screen(browser, html, max_height=8000)
    page = parse(html)
    assert {f["id"] for f in page.figures} == _figures(game)
    for figure in page.figures:
        assert figure["caption"].strip() and figure["img"]["alt"]
    data = json.loads((studies[game] / "_study.json").read_text())
    strategies = data["inputs"]["strategies"]
    assert len(page.tables["positions"]["rows"]) == len(page.tables["units"]["rows"]) == UNITS[game]
    assert len(page.tables["seat-test"]["rows"]) == 1
    assert sorted(r[0] for r in page.tables["matrix-skill"]["rows"]) == sorted(strategies)
    assert len(page.tables["upsets"]["rows"]) == len(strategies) * (len(strategies) - 1) // 2
    assert len(page.tables["options"]["rows"]) == sum(len(v) for _, v in data["inputs"]["option_grids"])
    assert [r[0] for r in page.tables["skipped-options"]["rows"]] == list(data["inputs"]["skipped"])
    assert "lengths-seats" in page.tables and "sides-seats" in page.tables
    if game == "kamoul":
        assert [r[0] for r in page.tables["powers"]["rows"]] == list(get_game("kamoul").balance.extras["powers"])
        assert [r[2] for r in page.tables["skill-levels"]["rows"]] == ["hands", "manches", "parties", "tops"] * 2
    if game == "kems":
        assert len(page.tables["visibility"]["rows"]) == 12 and "sign-exposure" in page.tables


def test_cli_resumes_the_study_and_rebuilds_its_report(studies, tmp_path, capsys):
    code, out, err = run_cli(capsys, "study", "balance", "rami", "-n", str(N), "--seed", str(SEED),
                             "--out", str(studies["rami"]), "--quiet")
    assert code == 0 and "report.html" in out, err
    code, out, err = run_cli(capsys, "report", str(studies["rami"]), "--out", str(tmp_path / "again.html"))
    assert code == 0, err
    assert {f["id"] for f in parse(tmp_path / "again.html").figures} == _figures("rami")


@pytest.mark.parametrize("args, field", [
    (["balance", "chess"], "GAME"),
    (["rami-openings", "kems"], "GAME"),
    (["balance", "kems", "--players", "5"], "--players"),
    (["balance", "kamoul", "--players", "2,4"], "--players"),
    (["balance", "kamoul", "--players", "9"], "--players"),
    (["balance", "rami", "--players", "two"], "--players"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, args, field):
    code, out, err = run_cli(capsys, "study", *args, "-n", "5", "--out", str(tmp_path / "s"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith(f"Error: {field}:"), err
    assert not (tmp_path / "s").exists()


def test_zero_games_is_one_line_exit_2(tmp_path, capsys):
    code, out, err = run_cli(capsys, "study", "balance", "kems", "-n", "0", "--out", str(tmp_path / "s"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("Error: -n:"), err
    assert not (tmp_path / "s").exists()


def test_a_different_study_in_the_same_directory_is_refused(studies, capsys):
    code, out, err = run_cli(capsys, "study", "balance", "kamoul", "-n", str(N + 1), "--seed", str(SEED),
                             "--out", str(studies["kamoul"]))
    assert code == 2 and err.startswith("Error: --out:") and "different study" in err
    code, out, err = run_cli(capsys, "study", "balance", "rami", "-n", str(N), "--seed", str(SEED),
                             "--out", str(studies["kamoul"]))
    assert code == 2 and err.startswith("Error: --out:")


def test_an_unfinished_study_has_no_report(studies, tmp_path, capsys):
    import shutil

    copy = tmp_path / "unfinished"
    shutil.copytree(studies["kamoul"], copy)
    data = unsealed(json.loads((copy / "_study.json").read_text()))
    assert data.pop("complete") is True and data.pop("choices")
    (copy / "_study.json").write_text(json.dumps(sealed(data)))  # as a study stopped before its end writes it
    code, out, err = run_cli(capsys, "report", str(copy), "--out", str(tmp_path / "x.html"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "not finished" in err, err
    assert not (tmp_path / "x.html").exists()


@pytest.mark.parametrize("game", GAMES)
def test_the_study_answers_each_question_in_one_line(studies, game):
    out = studies[game]
    data = check_answer(out)
    assert [s.split(":")[0].split(" (")[0] for s in data["sentences"]] == ["Seats", "Luck against skill", "Length",
                                                                          "Rule options"] + (
        ["Card powers"] if game == "kamoul" else [])
    positions = pl.read_parquet(out / "positions.parquet")
    seats = [r for r in numbers(data, "seat advantage") if r["kind"] == "share"]
    assert [(r["subject"], r["value"], r["n"]) for r in seats] == [
        (r["label"], r["share"], r["decided"]) for r in positions.iter_rows(named=True)]
    options = pl.read_parquet(out / "options.parquet").filter(~pl.col("default"))
    rows = numbers(data, "rule option")
    assert len(rows) == options.height
    for r, o in zip(rows, options.iter_rows(named=True)):
        assert r["subject"] == f"{o['option']}={o['value']}" and r["value"] == o["first_delta"]
        inside = -balance.EPSILON <= o["first_delta_low"] and o["first_delta_high"] <= balance.EPSILON
        outside = o["first_delta_low"] > 0 or o["first_delta_high"] < 0
        if o["effect"] == NO_EFFECT:  # every game played as at the default: never "does not matter"
            assert r["status"] == NO_EFFECT and o["first_delta"] == 0
        elif outside or inside:
            assert r["status"] == ("matters" if outside else "does not matter")
        else:
            assert r["status"].startswith("undecided at this n (about ") and "more games would decide" in r["status"]

    lengths = numbers(data, "game length")
    assert len(lengths) == 3 * pl.read_parquet(out / "length_means.parquet").height
    if game == "kamoul":  # each power's value and its uses, as in powers.parquet
        powers = pl.read_parquet(out / "powers.parquet")
        rows = numbers(data, "card power")
        assert [(r["subject"], r["value"]) for r in rows] == [
            x for p in powers.iter_rows(named=True) for x in ((p["power"], p["value"]), (p["power"], p["uses_on"]))]


TUNED = {"kamoul": ("tuned-4p", "tuned-4p"), "rami": ("tuned-4p", "tuned-4p"), "kems": ("tuned-4p", "tuned-4p")}


@pytest.mark.parametrize("game", GAMES)
def test_every_part_plays_the_tuned_player(studies, game):
    out = studies[game]
    inputs = json.loads((out / "_study.json").read_text())["inputs"]
    preset, played_as = TUNED[game]
    assert inputs["tuned"] == {"preset": preset, "played_as": played_as}
    skill = list(get_game(game).balance.skill)
    assert inputs["strategies"] == (skill if played_as in skill else [skill[0], played_as, *skill[1:]])
    seats = [s["label"] for s in json.loads((out / "seats" / "_manifest.json").read_text())["spec"]["strategies"]]
    assert seats == [played_as] * len(seats) == [played_as] * UNITS[game] * (2 if game == "kems" else 1)
    for name, _values in inputs["option_grids"]:
        cells = json.loads((out / "options" / name / "_batch.json").read_text())["inputs"]["strategies"]
        assert cells == [played_as] * len(seats)
    user = parse_strategy(get_game(game), f"{preset}:jq_power=1,red_king_power=1").label() if inputs["powers"] else ""
    for power in inputs["powers"]:  # seat 0 uses every power on the tuned player's values, the others are tuned
        cells = json.loads((out / "powers" / power / "_batch.json").read_text())["inputs"]["strategies"]
        assert cells == [user] + [played_as] * 3
    data = check_answer(out)
    assert f"played by the tuned player, {preset}" in data["holds_for"]
    best = pl.read_parquet(out / "upsets.parquet")["stronger"][0]
    assert (f"The tuned player, {played_as}, wins" in data["sentences"][1]) == (best != played_as)


def test_the_tuned_preset_of_a_table_is_the_nearest_the_larger_on_a_tie():
    from simulator.core.contract.presets import plays_alike, tuned_preset

    registry = {"tuned-2p": 0, "tuned-4p": 0, "balanced": 0, "tuned-xp": 0}
    assert [tuned_preset(registry, p) for p in (2, 3, 4, 5, 6)] == ["tuned-2p", "tuned-4p", "tuned-4p", "tuned-4p",
                                                                     "tuned-4p"]
    assert tuned_preset({"balanced": 0}, 4) is None
    rami = get_game("rami").strategies
    assert plays_alike(rami, "opening", "open-asap") and not plays_alike(rami, "open-asap", "open-small")
    assert not plays_alike(get_game("kamoul").strategies, "tuned-4p", "balanced")


def test_an_option_the_strategies_never_reach_is_marked_no_effect(tmp_path):
    """Rami's bots open at 51 or more, so opening_points=40 plays the default's games move for move."""
    out = tmp_path / "b"
    result = api.study("balance", "rami", out=out, n=30, seed=1, swept=["opening_points"], progress=False)
    effects = pl.read_parquet(out / "options.parquet").select("value", "effect")
    marks = dict(effects.iter_rows())
    assert marks["40"] == NO_EFFECT and marks["51"] == "baseline" and marks["61"] == "changes play", marks
    row = next(r for r in result["answer"].frame.iter_rows(named=True) if r["subject"] == "opening_points=40")
    assert row["status"] == NO_EFFECT and "1 have no effect, the strategies never reach them (opening_points=40)" in \
        " ".join(result["answer"].sentences)
    html = (out / "report.html").read_text(encoding="utf-8")
    assert NO_EFFECT in html



@pytest.mark.parametrize("game", GAMES)
def test_the_verdict_in_french(studies, game):
    from analysis.studies.balance import study as balance

    check_french(balance.answer, studies[game])


@pytest.mark.parametrize("game", GAMES)
def test_the_headline_says_whether_the_seats_are_fair_and_the_table_rests_on_the_numbers(studies, game):
    from analysis.answers import certainty
    from analysis.studies.balance.study import SHARE_MARGIN

    data = json.loads((studies[game] / "answer.json").read_text())
    test = next(r for r in numbers(data, "seat advantage") if r["subject"] == "all positions")
    seats = [r for r in numbers(data, "seat advantage") if r["subject"] != "all positions"]
    fair = 1 / len(seats)
    first = data["headline"][0]
    if test["status"] == "significant":
        assert first.startswith("Seats matter: the ")
    elif all(fair - SHARE_MARGIN <= r["low"] and r["high"] <= fair + SHARE_MARGIN for r in seats):
        assert first == "The seats are fair: no position wins significantly more than another."
    else:  # a few games: not a claim of fairness
        assert first == f"The seats look fair, but {test['n']:,} decided {UNIT_WORD[game]} are too few to be sure."
    rows = {r[0]: r for r in data["table"]["rows"]}
    assert rows["seats"][1].startswith("fair (p = ") == (test["status"] != "significant")
    skill = numbers(data, "luck against skill")
    if skill:
        best = skill[0]["subject"].split(" against ")[0]
        weakest = [r for r in skill if r["subject"].startswith(f"{best} against ")][-1]
        c = certainty(weakest["low"], weakest["high"], weakest["n"], SHARE_MARGIN, 0.5)
        assert rows["skill"][2].startswith(say(weakest))
        start = {"tentative": "Skill against luck is not settled: ", "even": "Luck rules: "}.get(
            c.word, "Skill pays: " if weakest["value"] > 0.5 else "Luck rules: ")
        assert data["headline"][1].startswith(start), data["headline"]
