"""Sweeps: the grid's cells, the same deals in every cell, the per-cell summary, resume and bad input."""

from __future__ import annotations

import polars as pl
import pytest

import cardsim as api
import cli
from simulator.core.run.designs import sweep_batch
from simulator.core.storage.store import read_table
from test_cli import run_cli, tree_digest


def test_cells_are_the_cartesian_product_applied_to_the_chosen_seat():
    batch = sweep_batch("kamoul", n=10, grids=["call_threshold=1,3,5"], option_grids=["snap_chain=false,true"],
                        seats=[0], strategies=["balanced", "cautious", "balanced", "random"])
    assert [c.labels for c in batch.cells] == [{"call_threshold": v, "snap_chain": b}
                                               for v in (1.0, 3.0, 5.0) for b in (False, True)]
    for cell in batch.cells:
        seats = cell.spec.strategies
        assert dict(seats[0].params)["call_threshold"] == cell.labels["call_threshold"]
        assert dict(seats[1].params)["call_threshold"] == 1.0  # cautious keeps its own value
        assert [s.name for s in seats] == ["balanced", "cautious", "balanced", "random"]
        assert cell.spec.option("snap_chain") is cell.labels["snap_chain"]
        assert cell.spec.seed == 0
    every = sweep_batch("kamoul", n=10, grids=["keep_max=2,4"])
    assert all(dict(s.params)["keep_max"] == c.labels["keep_max"] for c in every.cells for s in c.spec.strategies)


def test_sweep_plays_the_same_deals_and_summarises_each_cell(tmp_path):
    out = tmp_path / "s"
    result = api.sweep("kamoul", out=out, n=300, seed=4, grids=["call_threshold=3,6"], seats=[1],
                       strategies=["balanced"], progress=False)
    api.simulate("kamoul", out=tmp_path / "plain", n=300, seed=4, strategies=["balanced"], progress=False)
    default_cell = result.batch.cells[0]  # call_threshold=3 is balanced's default: the plain run
    assert read_table(out / "cells" / f"cell={default_cell.id}", "hands", lazy=False).equals(
        read_table(tmp_path / "plain", "hands", lazy=False))
    summary = result.frames["summary"]
    assert summary.height == 2 * 4 and {"cell", "call_threshold", "seat", "win_rate", "win_low", "win_high",
                                       "mean_points", "points_low", "points_high"} <= set(summary.columns)
    assert summary.filter(pl.col("seat") == 1)["call_threshold"].to_list() == [3.0, 6.0]
    outcomes = result.frames["outcomes"]
    for cell in ("c000", "c001"):
        assert outcomes.filter(pl.col("cell") == cell)["share"].sum() == pytest.approx(1.0)
    assert pl.read_parquet(out / "summary.parquet").equals(summary)
    assert pl.read_parquet(out / "outcomes.parquet").equals(outcomes)
    batch = api.read_batch(out).collect()
    assert batch.height == 600 and batch["call_threshold"].unique().sort().to_list() == [3.0, 6.0]


def test_kems_option_sweep_summarises_teams(tmp_path):
    result = api.sweep("kems", out=tmp_path / "k", n=40, option_grids=["multi_swap=false,true"], progress=False)
    summary = result.frames["summary"]
    assert "team" in summary.columns and summary.height == 2 * 2
    assert summary["multi_swap"].to_list() == [False, False, True, True]


def test_resume_and_refuse_another_sweep(tmp_path, capsys):
    out = tmp_path / "s"
    args = ["sweep", "kamoul", "-n", "200", "--grid", "keep_max=3,6", "--seat", "0", "--out", str(out), "--quiet"]
    assert cli.main(args) == 0
    first = pl.read_parquet(out / "summary.parquet")
    for part in (out / "cells" / "cell=c001" / "hands").iterdir():
        part.unlink()
    assert cli.main(args) == 0
    assert pl.read_parquet(out / "summary.parquet").equals(first)
    digest = tree_digest(out)
    code, _, err = run_cli(capsys, *args[:5], "keep_max=3,7", *args[6:])
    assert code == 2 and err.startswith("Error: --out") and "different batch" in err
    assert tree_digest(out) == digest


@pytest.mark.parametrize("bad, start", [
    (["--grid", "nope=1,2"], "Error: --grid: 'nope' is not a parameter of tuned-4p"),
    (["--grid", "call_threshold=1,99"], "Error: --grid call_threshold: '99'"),
    (["--grid", "au_score=true,maybe"], "Error: --grid au_score: 'maybe'"),
    (["--grid", "call_threshold"], "Error: --grid: 'call_threshold'"),
    (["--grid", "call_threshold=1,1"], "Error: --grid call_threshold"),
    (["--grid", "snap_prob=0.1,0.2", "--strategy", "balanced"], "Error: --grid: 'snap_prob'"),
    (["--grid", "call_threshold=1,2", "--seat", "7"], "Error: --seat: 7"),
    (["--option-grid", "nope=1"], "Error: --option-grid: 'nope' is not a rule option"),
    (["--option-grid", "hand_size=4,99"], "Error: --option-grid hand_size: '99'"),
    ([], "Error: --grid: is missing"),
])
def test_bad_sweep_input_is_one_line_and_writes_nothing(tmp_path, capsys, bad, start):
    code, _, err = run_cli(capsys, "sweep", "kamoul", "-n", "10", "--out", str(tmp_path / "s"), *bad)
    assert code == 2 and err.startswith(start) and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "s").exists()


def test_sweep_into_a_directory_that_is_not_a_batch(tmp_path, capsys):
    api.simulate("kamoul", out=tmp_path / "run", n=10, progress=False)
    digest = tree_digest(tmp_path / "run")
    code, _, err = run_cli(capsys, "sweep", "kamoul", "-n", "10", "--grid", "keep_max=3,6", "--out",
                           str(tmp_path / "run"))
    assert code == 2 and "holds a single run" in err and tree_digest(tmp_path / "run") == digest


def test_sweep_cli_prints_cells(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "sweep", "kamoul", "-n", "100", "--grid", "call_threshold=2,5", "--seat", "0",
                           "--out", str(tmp_path / "s"))
    assert code == 0 and "call_threshold=2.0" in out and "seat 0" in out and "seat 1" not in out
    assert run_cli(capsys, "sweep", "--help")[0] == 0


def test_a_cell_that_plays_the_baselines_games_is_marked_no_effect(tmp_path, capsys):
    """open-asap never opens under 51 points, so opening_points=40 replays the default's games move for move;
    61 changes them. A parameter sweep marks the same way (the baseline: the seats' own value)."""
    from analysis.batches import NO_EFFECT

    code, out, err = run_cli(capsys, "sweep", "rami", "-n", "60", "--option-grid", "opening_points=40,51,61",
                             "--out", str(tmp_path / "s"))
    assert code == 0, err
    effects = dict(api.batch_frames(tmp_path / "s")["summary"].select("opening_points", "effect").unique().iter_rows())
    assert effects == {40: NO_EFFECT, 51: "baseline", 61: "changes play"}
    assert f"1 cell(s) played every game move for move as the baseline (c000): {NO_EFFECT}" in out
    result = api.sweep("kamoul", out=tmp_path / "k", n=200, grids=["call_threshold=0,5"], seats=[0], progress=False)
    marks = dict(result.frames["summary"].select("call_threshold", "effect").unique().iter_rows())
    assert set(marks.values()) == {"baseline", "changes play"}
