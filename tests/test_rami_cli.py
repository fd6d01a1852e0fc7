"""Rami on the command line: simulate, replay with its check, listings, the opening helper, bad input."""

from __future__ import annotations

import json

import pandas as pd
import polars as pl
import pytest

import cli
from simulator.core.contract.registry import get_game
from simulator.core.storage.spec import build_spec
from test_cli import run_cli, tree_digest


@pytest.fixture(scope="module")
def rami_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "r"
    assert cli.main(["simulate", "rami", "-n", "400", "--seed", "3", "--out", str(out), "--quiet"]) == 0
    return out


def test_plugin_is_registered_and_builds_specs():
    plugin = get_game("rami")
    assert plugin.name == "rami" and plugin.tables("rounds") == ("rounds",)
    assert plugin.tables("games") == ("rounds", "games")
    spec = build_spec("rami", n=10, seed=1, players=3, level="games", strategies=["open-big"])
    frames = plugin.simulate_chunk(spec, 0, 3, 1)
    assert set(frames) == {"rounds", "games"} and frames["games"].height == 3
    assert frames["games"]["game"].to_list() == [0, 1, 2]


def test_simulate_writes_rounds_that_pandas_and_polars_open(rami_run):
    rounds = pd.read_parquet(rami_run / "rounds")
    lazy = pl.scan_parquet(rami_run / "rounds").collect()
    assert len(rounds) == 400 == lazy.height
    assert sorted(rounds["game"]) == list(range(400))
    for col in ("winner", "outcome", "points_0", "total_3", "open_turn_1", "cards_left_2", "open_points_2",
                "jokers_laid", "jokers_swapped", "trace", "strategy_0"):
        assert col in lazy.columns
    for col in ("open_points_0", "jokers_laid", "jokers_swapped"):
        assert lazy[col].dtype == pl.Int16
    assert ((lazy["open_points_0"] >= 0) == (lazy["open_turn_0"] >= 0)).all()
    assert (lazy["jokers_laid"] >= lazy["jokers_swapped"]).all()
    assert set(lazy["strategy_0"]) == {"tuned-4p"}  # the default player at 4 players


def test_simulate_prints_a_summary_per_round_and_game(tmp_path, capsys):
    code, out, err = run_cli(capsys, "simulate", "rami", "-n", "4", "--seed", "1", "--level", "games", "--players", "2",
                             "--strategy", "open-asap", "--strategy", "random", "--out", str(tmp_path / "g"))
    assert code == 0, err
    assert "rounds won per seat" in out and "games won per seat over 4 games" in out and "seat 1 random" in out
    assert "outcome kinds" in out and "rounds/" in out
    assert pl.read_parquet(tmp_path / "g" / "games").height == 4
    assert (tmp_path / "g" / "summary.png").stat().st_size > 1000


def test_replay_matches_the_stored_run(rami_run, capsys):
    code, out, err = run_cli(capsys, "replay", "rami", "--index", "7", "--run", str(rami_run))
    assert code == 0, err
    assert "rami game 7 of seed 3" in out and "deal by P" in out and "discards" in out
    assert "matches the stored run" in out
    code2, out2, _ = run_cli(capsys, "replay", "rami", "--seed", "3", "--index", "7")
    assert code2 == 0 and out2.strip() == out.split("replay check")[0].strip()


def test_strategies_and_rules_list_names_and_rule_numbers(capsys):
    code, out, _ = run_cli(capsys, "strategies", "rami")
    assert code == 0
    for name in ("random", "open-asap", "open-big", "rami-sec-hunter", "joker-keeper", "min_open_points"):
        assert name in out
    code, out, _ = run_cli(capsys, "rules", "rami")
    assert code == 0
    for text in ("n_decks", "[R1]", "opening_points", "[R7]", "playable_discard", "[R10]", "target", "levels: rounds, games"):
        assert text in out
    lines = {line.split()[0]: line for line in out.splitlines() if " = " in line}
    for name, rule in (("a_carte_claims", "[R5]"), ("opening_single_meld", "[R7]"), ("rami_sec_layoffs", "[R12]")):
        assert lines[name].startswith(f"  {name} = false") and rule in lines[name]  # issue 18: the seed's reading


def test_opening_text_and_json(capsys):
    hand = "7H 8H 9H KS KH KD QS QH QD"
    code, out, err = run_cli(capsys, "rami", "opening", "--hand", hand)
    assert code == 0, err
    assert "can open: yes" in out and "84 points" in out and "7H 8H 9H" in out and "KD KH KS" in out
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", hand, "--json")
    data = json.loads(out)
    assert data["can_open"] is True and data["points"] == 84
    assert sorted(map(tuple, data["melds"])) == [("7H", "8H", "9H"), ("KD", "KH", "KS"), ("QD", "QH", "QS")]
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "7H 8H 9H KS KH JK", "--json")
    data = json.loads(out)
    assert data["can_open"] is False and data["points"] == 44  # the joker counts zero (R7 default)
    assert any(card.startswith("JK=K") for meld in data["melds"] for card in meld)
    code, out, _ = run_cli(capsys, "rami", "opening", "--hand", "7H 8H 5C KS KH 2D")
    assert code == 0 and "can open: no" in out and "0 points" in out


@pytest.mark.parametrize("args,words", [
    (["--hand", "7H ZZ 9H"], ["--hand", "'ZZ'", "JK"]),
    (["--hand", "7H 7H 7H"], ["--hand", "'7H'", "at most 2"]),
    (["--hand", "7H 7H", "--decks", "1"], ["--hand", "'7H'", "at most 1"]),
    (["--hand", "JK JK JK", "--decks", "1"], ["--hand", "'JK'", "at most 2"]),
    (["--hand", "7H", "--decks", "4"], ["--decks", "1, 2 or 3"]),
])
def test_bad_hand_is_one_line_exit_2(capsys, args, words):
    code, out, err = run_cli(capsys, "rami", "opening", *args)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err and out == ""
    for w in words:
        assert w in lines[0], err


BAD_INPUTS = [
    (["--option", "nope=1"], "--option", "listed by `cardsim rules rami`"),
    (["--strategy", "nope"], "--strategy", "listed by `cardsim strategies rami`"),
    (["--strategy", "open-asp"], "--strategy", "did you mean open-asap"),
    (["--players", "1"], "--players", "2 to 8"),
    (["--players", "9"], "--players", "2 to 8"),
    (["--option", "opening_cumulative=true"], "opening_cumulative", "false"),
    (["--level", "hands"], "--level", "rounds | games"),
]


@pytest.mark.parametrize("extra,field,allowed", BAD_INPUTS)
def test_bad_simulate_input_is_one_line_exit_2_and_touches_nothing(tmp_path, capsys, rami_run, extra, field, allowed):
    before = tree_digest(rami_run)
    for out in (tmp_path / "new", rami_run):
        code, _, err = run_cli(capsys, "simulate", "rami", "-n", "400", "--seed", "3", "--out", str(out), *extra)
        lines = err.strip().splitlines()
        assert code == 2 and len(lines) == 1 and field in lines[0] and allowed in lines[0], err
        assert "Traceback" not in err
    assert not (tmp_path / "new").exists()
    assert tree_digest(rami_run) == before
