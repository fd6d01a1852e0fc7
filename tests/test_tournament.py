"""Tournaments: seatings, same deals in every cell, the win matrix, Bradley–Terry on known answers, resume, refusals."""

from __future__ import annotations

import math
import os
from collections import Counter

import numpy as np
import pandas as pd
import polars as pl
import pytest

from analysis.ratings import bradley_terry, ratings_frame
from analysis.stats import wilson
import cardsim as api
import cli
from simulator.core.errors import SpecError
from simulator.core.run.batch import read_batch
from simulator.core.run.designs import seatings, tournament_batch
from simulator.core.storage.store import read_table
from test_cli import run_cli, tree_digest

STRATEGY_COLUMNS = [f"strategy_{p}" for p in range(4)]


# --- seatings ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("units, expected", [(2, ["AB", "BA"]), (4, ["ABAB", "BABA"]),
                                             (3, ["ABA", "BAA", "AAB", "BAB", "ABB", "BBA"])])
def test_seatings_rotate_each_strategy_over_every_unit(units, expected):
    assert seatings(units) == expected
    for u in range(units):
        assert Counter(p[u] for p in expected) == {"A": len(expected) // 2, "B": len(expected) // 2}


def test_kems_seatings_give_each_team_one_strategy():
    batch = tournament_batch("kems", strategies=["balanced", "random"], n=10)
    seats = [[s.name for s in c.spec.strategies] for c in batch.cells]
    assert seats == [["balanced", "random", "balanced", "random"], ["random", "balanced", "random", "balanced"]]


# --- Bradley–Terry -------------------------------------------------------------------------------------


def test_bradley_terry_recovers_known_strengths():
    strengths = np.array([1.0, 2.0, 4.0, 0.5])
    n = 1200.0
    wins = n * strengths[:, None] / (strengths[:, None] + strengths[None, :])  # exact expected counts
    np.fill_diagonal(wins, 0)
    theta, se, fitted = bradley_terry(wins)
    truth = np.log(strengths) - np.log(strengths).mean()
    assert fitted and np.allclose(theta, truth, atol=1e-9)
    assert np.all(se > 0) and np.all(se < 0.1)


def test_bradley_terry_two_players_closed_form():
    w, l = 30, 10
    frame = ratings_frame(["A", "B"], [[0, w], [l, 0]]).sort("strategy")
    a = frame.row(0, named=True)
    assert a["rating"] == pytest.approx(math.log(w / l) / 2, abs=1e-10)
    half = 1.959963984540054 * math.sqrt(1 / w + 1 / l) / 2  # se of the difference, shared by the two ratings
    assert a["high"] - a["rating"] == pytest.approx(half, rel=1e-9)
    assert frame["rating"].sum() == pytest.approx(0.0, abs=1e-12)
    assert a["elo"] == pytest.approx(400 / math.log(10) * math.log(w / l) / 2)


def test_bradley_terry_without_a_finite_answer_says_so():
    theta, se, fitted = bradley_terry([[0, 5], [0, 0]])  # B never won
    assert not fitted and np.isnan(theta).all()
    with pytest.raises(ValueError):
        bradley_terry([[1]])


# --- runs ------------------------------------------------------------------------------------------------


def test_identical_players_reproduce_the_plain_run(tmp_path):
    """heuristic with its defaults plays exactly as balanced: every seating must equal the plain run."""
    result = api.tournament("kamoul", strategies=["balanced", "heuristic"], out=tmp_path / "t", n=300, seed=5,
                            progress=False)
    assert result.batch.inputs["level"] == "manches"  # a tournament judges Kamoul by whole manches
    api.simulate("kamoul", out=tmp_path / "plain", n=300, seed=5, level="manches", strategies=["balanced"],
                 progress=False)
    plain = read_table(tmp_path / "plain", "hands", lazy=False).drop(STRATEGY_COLUMNS)
    for cell in result.batch.cells:
        hands = read_table(tmp_path / "t" / "cells" / f"cell={cell.id}", "hands", lazy=False)
        assert hands.drop(STRATEGY_COLUMNS).equals(plain)
    matrix = result.frames["matrix"]
    assert matrix["win_rate"].sum() == pytest.approx(1.0)
    assert matrix["points_gap"].to_list() == [0.0, 0.0] and matrix["deals"].to_list() == [300, 300]


def test_kamoul_tournament_matrix_ratings_and_dataset(tmp_path):
    out = tmp_path / "t"
    names = ["balanced", "cautious", "aggressive"]
    result = api.tournament("kamoul", strategies=names, out=out, n=400, seed=3, level="hands", progress=False)
    assert not result.interrupted and len(result.batch.cells) == 6
    # a cell is the ordinary run of its seating with the batch's seed: same deals everywhere
    api.simulate("kamoul", out=tmp_path / "plain", n=400, seed=3, strategies=["cautious", "balanced"] * 2,
                 level="hands", progress=False)
    cell = next(c for c in result.batch.cells if c.labels == {"a": "balanced", "b": "cautious", "seating": "BABA"})
    assert read_table(out / "cells" / f"cell={cell.id}", "hands", lazy=False).equals(
        read_table(tmp_path / "plain", "hands", lazy=False))
    m = {(r["strategy"], r["opponent"]): r for r in result.frames["matrix"].iter_rows(named=True)}
    assert len(m) == 6
    for a in names:
        for b in names:
            if a != b:
                assert m[a, b]["win_rate"] + m[b, a]["win_rate"] == pytest.approx(1.0)
                assert m[a, b]["wins"] == m[b, a]["losses"] and m[a, b]["decided"] > 0
                assert m[a, b]["low"] <= m[a, b]["win_rate"] <= m[a, b]["high"]
                assert m[a, b]["points_gap"] == pytest.approx(-m[b, a]["points_gap"])
                assert m[a, b]["gap_low"] == pytest.approx(-m[b, a]["gap_high"]) and m[a, b]["deals"] == 400
    ratings = result.frames["ratings"]
    assert set(ratings["strategy"]) == set(names) and ratings["rating"].sum() == pytest.approx(0, abs=1e-9)
    assert pl.read_parquet(out / "matrix.parquet").equals(result.frames["matrix"])
    assert pl.read_parquet(out / "ratings.parquet").equals(ratings)
    # one dataset: read_batch, polars hive scan, pandas
    batch = read_batch(out).collect()
    assert batch.height == 6 * 400 and {"cell", "a", "b", "seating"} <= set(batch.columns)
    hive = pl.scan_parquet(str(out / "cells" / "*" / "hands" / "*.parquet"), hive_partitioning=True).collect()
    assert hive.height == 6 * 400 and sorted(hive["cell"].unique()) == [c.id for c in result.batch.cells]
    assert len(pd.read_parquet(out / "cells")) == 6 * 400


@pytest.mark.parametrize("game, names", [("rami", ["open-asap", "random"]), ("kems", ["balanced", "random"])])
def test_rami_and_kems_tournaments(tmp_path, game, names):
    result = api.tournament(game, strategies=names, out=tmp_path / game, n=60, seed=1, progress=False)
    matrix = result.frames["matrix"]
    assert matrix.height == 2 and matrix["win_rate"].sum() == pytest.approx(1.0)
    wins = result.frames["wins"]
    assert (wins["a_wins"] + wins["b_wins"] + wins["undecided"] == wins["games"]).all()
    assert int(wins["a_wins"].sum() + wins["b_wins"].sum()) > 60


def test_resume_and_refusals(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["tournament", "kamoul", "-n", "200", "--seed", "2", "--strategy", "balanced", "--strategy", "cautious",
            "--out", str(out), "--quiet"]
    assert cli.main(args) == 0
    first = pl.read_parquet(out / "matrix.parquet")
    kept = out / "cells" / "cell=c000" / "_manifest.json"
    stamp = os.stat(kept).st_mtime_ns
    for part in (out / "cells" / "cell=c001" / "hands").iterdir():
        part.unlink()  # as if the second seating had been interrupted
    assert cli.main(args) == 0
    assert pl.read_parquet(out / "matrix.parquet").equals(first)
    assert os.stat(kept).st_mtime_ns >= stamp
    digest = tree_digest(out)
    for bad in (["--seed", "3"], ["--strategy", "random"]):
        code, _, err = run_cli(capsys, *args, *bad)
        assert code == 2 and len(err.strip().splitlines()) == 1 and err.startswith("Error: --out")
    assert tree_digest(out) == digest
    api.simulate("kamoul", out=tmp_path / "run", n=10, progress=False)
    run_digest = tree_digest(tmp_path / "run")
    code, _, err = run_cli(capsys, *args[:-3], "--out", str(tmp_path / "run"))
    assert code == 2 and "single run" in err and tree_digest(tmp_path / "run") == run_digest
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "notes.txt").write_text("mine")
    code, _, err = run_cli(capsys, *args[:-3], "--out", str(tmp_path / "junk"))
    assert code == 2 and "not a cardsim batch" in err
    with pytest.raises(SpecError):
        read_batch(tmp_path / "junk")


@pytest.mark.parametrize("bad, field", [(["--strategy", "nope"], "--strategy"),
                                        (["--strategy", "balanced", "--strategy", "nope"], "--strategy"),
                                        (["--strategy", "balanced", "--strategy", "balanced"], "--strategy"),
                                        (["--strategy", "balanced", "--strategy", "cautious", "--players", "9"],
                                         "--players")])
def test_bad_tournament_input(tmp_path, capsys, bad, field):
    code, _, err = run_cli(capsys, "tournament", "kamoul", "-n", "10", "--out", str(tmp_path / "t"), *bad)
    assert code == 2 and err.startswith(f"Error: {field}") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_cli_prints_matrix_and_ratings(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "tournament", "kamoul", "-n", "200", "--strategy", "balanced", "--strategy",
                           "aggressive", "--out", str(tmp_path / "t"))
    assert code == 0 and "win rate of the row against the column" in out and "Bradley–Terry" in out
    # the verdict comes first, by whole manches, with the numbers of the stored frames and points per hand beside
    frames = api.batch_frames(tmp_path / "t")
    best = frames["ratings"].row(0, named=True)
    other = frames["ratings"].row(1, named=True)["strategy"]
    pair = frames["matrix"].filter((pl.col("strategy") == best["strategy"]) & (pl.col("opponent") == other)).row(
        0, named=True)
    first, second = out.splitlines()[:2]
    rate, low, high = wilson(best["wins"], best["games"])
    assert first.startswith(f"verdict, by whole manches: {best['strategy']} is the strongest of 2")
    assert f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of its {best['games']:,} decided manches" in first
    assert f"{100 * pair['win_rate']:.1f}% [{100 * pair['low']:.1f}, {100 * pair['high']:.1f}]" in second
    assert f"mean points per hand and seat minus {other}'s: {pair['points_gap']:+.2f}" in second
    assert "Bradley–Terry ratings from" in out and "decided manches" in out
    code, out, _ = run_cli(capsys, "tournament", "--help")
    assert code == 0 and "ABAB" in out
