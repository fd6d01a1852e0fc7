"""A new game is its package plus one registry line (issue 11): the toy game of ``tests/toygame`` (a package
outside cardsim, made only of what ``simulator.core`` offers) runs through simulate, replay, the CLI, a
tournament, a sweep, the reports and the balance study, with nothing in cardsim naming it."""

from __future__ import annotations

import json

import polars as pl
import pytest

import cardsim as api
from simulator.core.contract import registry
from tests.toygame import PLUGIN

N = 120


@pytest.fixture(autouse=True)
def toy_registered(monkeypatch):
    monkeypatch.setitem(registry._REGISTRY, "toy", PLUGIN)  # the one registry line


def test_simulate_replay_and_report(tmp_path):
    out = tmp_path / "run"
    result = api.simulate("toy", out=out, n=N, seed=3, progress=False)
    assert not result.interrupted
    hands = pl.read_parquet(out / "hands")
    assert hands.height == N and set(hands["winner"].unique()) <= {-1, 0, 1, 2}
    for r in hands.iter_rows(named=True):  # T3: the winner holds the highest total; nobody on a tie with tie=none
        totals = [r[f"points_{p}"] for p in range(3)]
        assert r["winner"] >= 0 and totals[r["winner"]] == max(totals)
    text = api.replay("toy", index=7, run_dir=out)
    assert "game 7 of seed 3" in text and "the event trace matches the stored run" in text
    html = api.report(out, tmp_path / "run.html")["html"]
    page = html.read_text()
    assert "threshold" in page and "higher is better" in page


def test_every_seat_wins_what_its_totals_say(tmp_path):
    out = tmp_path / "m"
    api.simulate("toy", out=out, n=40, seed=5, level="matches", progress=False)
    matches = pl.read_parquet(out / "matches")
    hands = pl.read_parquet(out / "hands")
    wins = hands.filter(pl.col("winner") >= 0).group_by("game", "winner").len()
    for r in matches.filter(pl.col("winner") >= 0).iter_rows(named=True):  # T4: the winner won match_wins hands
        won = wins.filter((pl.col("game") == r["game"]) & (pl.col("winner") == r["winner"]))["len"]
        assert won.to_list() == [2] and r["winners"] == 1 << r["winner"]


def test_cli_simulate_rules_and_strategies(tmp_path, capsys):
    import cli

    assert cli.main(["simulate", "toy", "-n", "50", "--out", str(tmp_path / "c"), "--quiet"]) == 0
    assert pl.read_parquet(tmp_path / "c" / "hands").height == 50
    capsys.readouterr()
    assert cli.main(["rules", "toy"]) == 0
    out = capsys.readouterr().out
    assert "draws" in out and "T2" in out and "match_wins" in out
    assert cli.main(["simulate", "toy", "-n", "5", "--players", "9", "--out", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err
    assert "--players" in err and len(err.strip().splitlines()) == 1 and not (tmp_path / "d").exists()


def test_tournament_and_sweep_with_reports(tmp_path):
    t = api.tournament("toy", strategies=["random", "greedy"], out=tmp_path / "t", n=N, seed=1, progress=False)
    matrix = t.frames["matrix"]
    assert matrix.height == 2 and int(matrix["decided"][0]) > 0
    assert api.report(tmp_path / "t", tmp_path / "t.html")["html"].is_file()
    s = api.sweep("toy", out=tmp_path / "s", n=N, option_grids=["draws=0,2"], progress=False)
    summary = s.frames["summary"]
    assert sorted(summary["draws"].unique().to_list()) == [0, 2] and summary.height == 2 * 3
    assert api.report(tmp_path / "s", tmp_path / "s.html")["html"].is_file()


def test_the_balance_study(tmp_path):
    out = tmp_path / "b"
    result = api.study("balance", "toy", out=out, n=N, seed=2, progress=False)
    assert not result["interrupted"] and result["html"].is_file()
    data = json.loads((out / "_study.json").read_text())
    assert data["complete"] and data["game"] == "toy"
    assert [k for k, _ in data["inputs"]["option_grids"]] == ["draws", "tie"] and "match_wins" in data["inputs"]["skipped"]
    frames = result["frames"]
    assert frames["positions"]["label"][0] == "first to play (dealer's left)"
    assert int(frames["positions"]["wins"].sum()) == int(frames["seat_test"]["decided"][0])
    assert set(frames["options"]["option"].unique()) == {"draws", "tie"}
    assert "powers" not in frames and "signs" not in frames
    assert pl.read_parquet(out / "positions.parquet").equals(frames["positions"])
