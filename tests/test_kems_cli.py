"""Kem's on the command line: simulate (tables pandas and polars open), replay with its check, listings,
and bad input as one line on stderr with exit code 2 that leaves the output directory alone."""

from __future__ import annotations

import re

import pandas as pd
import polars as pl
import pytest

import cardsim as api_module
import cli
from simulator.core.contract.registry import get_game
from simulator.kems.vocabulary.rules import OPTIONS
from strategies.kems import STRATEGIES
from test_cli import run_cli, tree_digest

MANCHE_COLUMNS = ("game", "manche", "dealer", "outcome", "caller", "why", "ticks", "sweeps", "exchanges", "reshuffles",
                  "redeals", "calls", "wrong_contres", "points_A", "points_B", "total_A", "total_B", "signs_A",
                  "seen_partner_A", "seen_opp_B", "exchanges_0", "exchanges_3", "four_tick_0", "four_tick_3", "trace",
                  "strategy_0", "strategy_3")


def test_plugin_is_registered_with_both_levels():
    plugin = get_game("kems")
    assert plugin.levels == ("manches", "games") and plugin.default_level == "manches"
    assert plugin.tables("manches") == ("manches",) and plugin.tables("games") == ("manches", "games")
    assert plugin.default_strategy == "balanced" and plugin.default_players == 4


@pytest.fixture(scope="module")
def kems_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "k"
    assert cli.main(["simulate", "kems", "-n", "600", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    return out


def test_simulate_writes_manches_that_pandas_and_polars_open(kems_run):
    manches = pd.read_parquet(kems_run / "manches")
    lazy = pl.scan_parquet(kems_run / "manches").collect()
    assert len(manches) == 600 == lazy.height
    assert sorted(manches["game"]) == list(range(600))
    for col in MANCHE_COLUMNS:
        assert col in lazy.columns, col
    assert "points_C" not in lazy.columns and "exchanges_4" not in lazy.columns
    assert set(lazy["outcome"].cast(pl.String)) <= {"kems", "double", "wrong kems", "contre", "cap"}
    assert (lazy["manche"] == 0).all() and (lazy["dealer"] == lazy["game"] % 4).all()
    assert (lazy["points_A"] == lazy["total_A"]).all()  # one manche per game at level manches
    assert (lazy["exchanges_0"] + lazy["exchanges_1"] + lazy["exchanges_2"] + lazy["exchanges_3"] == lazy["exchanges"]).all()
    assert lazy["trace"].n_unique() == 600
    assert set(lazy["strategy_0"]) == {"tuned-4p"}  # the default player


def test_games_level_with_six_players_has_three_teams(tmp_path, capsys):
    seats = ["random", "balanced", "discreet", "blocker", "watcher", "sprinter"]
    args = ["simulate", "kems", "-n", "12", "--seed", "4", "--level", "games", "--players", "6",
            "--out", str(tmp_path / "g")]
    for s in seats:
        args += ["--strategy", s]
    code, out, err = run_cli(capsys, *args)
    assert code == 0, err
    assert "team C" in out and "games won per team over 12 games" in out and "outcome kinds" in out
    games = pd.read_parquet(tmp_path / "g" / "games")
    manches = pl.scan_parquet(tmp_path / "g" / "manches").collect()
    assert sorted(games["game"]) == list(range(12))
    for col in ("game", "manches", "first_dealer", "winners", "winner", "total_A", "total_B", "total_C", "strategy_5"):
        assert col in games.columns, col
    for col in ("points_C", "total_C", "signs_C", "seen_partner_C", "seen_opp_C", "exchanges_5", "four_tick_5"):
        assert col in manches.columns, col
    assert [manches["strategy_%d" % p][0] for p in range(6)] == seats
    assert games["manches"].sum() == manches.height
    last = manches.sort("game", "manche").group_by("game", maintain_order=True).last()
    for t in "ABC":
        assert last[f"total_{t}"].to_list() == games.sort_values("game")[f"total_{t}"].tolist()


def test_replay_shows_exchanges_signs_and_calls_and_matches_the_stored_run(kems_run, capsys):
    lazy = pl.scan_parquet(kems_run / "manches").collect()
    called = lazy.filter((pl.col("why") == "sign") & (pl.col("outcome") == "kems") & (pl.col("exchanges") > 0))
    game = int(called["game"].min())
    code, out, err = run_cli(capsys, "replay", "kems", "--index", str(game), "--run", str(kems_run))
    assert code == 0, err
    assert f"kems game {game} of seed 3" in out and "Top!" in out
    assert re.search(r"^t +\d+ +[\d.]+s  P\d takes \w+, gives \w+", out, re.M)           # exchanges, at a tick
    assert re.search(r"P(\d) makes the team sign \(seen by (P\d(, )?)+\)", out)          # signs, and who saw them
    assert re.search(r"P\d calls KEM'S! P\d shows", out) and "manche 0: kems" in out
    assert "matches the stored run" in out
    code2, out2, _ = run_cli(capsys, "replay", "kems", "--seed", "3", "--index", str(game))
    assert code2 == 0 and out2.strip() == out.split("replay check")[0].strip()


def test_replay_check_notices_a_different_trace(kems_run, capsys, monkeypatch):
    real = api_module.trace_hashes
    monkeypatch.setattr(api_module, "trace_hashes", lambda spec, index: [h ^ 1 for h in real(spec, index)])
    code, out, err = run_cli(capsys, "replay", "kems", "--index", "3", "--run", str(kems_run))
    assert code == 0, err
    assert "MISMATCH" in out and "matches the stored run" not in out


def test_strategies_and_rules_list_every_name_and_option(capsys):
    code, out, _ = run_cli(capsys, "strategies", "kems")
    assert code == 0
    for name, sdef in STRATEGIES.items():
        assert re.search(rf"^{name}:", out, re.M), name
        for p in sdef.params.params:
            assert p.name in out
    code, out, _ = run_cli(capsys, "rules", "kems")
    assert code == 0
    for p in OPTIONS.params:
        assert re.search(rf"^  {p.name} = .*\[{re.escape(p.rule)}\]", out, re.M), p.name
    assert "levels: manches, games" in out


BAD_INPUTS = [
    (["--option", "nope=1"], "--option", "nope", "listed by `cardsim rules kems`"),
    (["--option", "lag_ticks=99"], "lag_ticks", "99", "[0, 6]"),
    (["--option", "deck=36"], "deck", "36", "52 | 32"),
    (["--option", "double_mode=x"], "double_mode", "'x'", "auto | second_call"),
    (["--option", "multi_swap=maybe"], "multi_swap", "maybe", "true or false"),
    (["--option", "reaction_min=4", "--option", "reaction_max=3"], "reaction_max", "3", "at least reaction_min (4)"),
    (["--strategy", "nope"], "--strategy", "nope", "balanced"),
    (["--strategy", "balanced:sigma=2"], "sigma", "2", "[0.0, 1.0]"),
    (["--strategy", "balanced:visibility=0"], "visibility", "0", "[0.01, 1.0]"),
    (["--strategy", "balanced:nope=1"], "parameter", "nope", "listed by `cardsim strategies kems`"),
    (["--players", "5"], "--players", "5", "4 or 6"),
    (["--players", "3"], "--players", "3", "4 or 6"),
    (["--level", "hands"], "--level", "hands", "manches | games"),
]


@pytest.mark.parametrize("extra,field,value,allowed", BAD_INPUTS, ids=[" ".join(b[0]) for b in BAD_INPUTS])
def test_bad_simulate_input_is_one_line_exit_2_and_touches_nothing(tmp_path, capsys, kems_run, extra, field, value,
                                                                   allowed):
    before = tree_digest(kems_run)
    for out in (tmp_path / "new", kems_run):
        code, stdout, err = run_cli(capsys, "simulate", "kems", "-n", "600", "--seed", "3", "--out", str(out), *extra)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1, err
        assert field in lines[0] and value in lines[0] and allowed in lines[0], err
        assert "Traceback" not in err and stdout == ""
    assert not (tmp_path / "new").exists()
    assert tree_digest(kems_run) == before


@pytest.mark.parametrize("extra,field", [(["--option", "deck=36"], "deck"), (["--players", "5"], "--players"),
                                         (["--strategy", "balanced:sigma=2"], "sigma")])
def test_bad_replay_input_is_one_line_exit_2(capsys, extra, field):
    code, stdout, err = run_cli(capsys, "replay", "kems", "--seed", "1", "--index", "0", *extra)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and field in lines[0] and "Traceback" not in err and stdout == ""
