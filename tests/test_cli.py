"""The command line: help everywhere, one-line errors with exit 2, nothing on disk touched by bad input."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import polars as pl
import pytest

import cli


def tree_digest(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(str(path.relative_to(root)).encode())
        if path.is_file():
            digest.update(path.read_bytes())
    return digest.hexdigest()


def run_cli(capsys, *args):
    code = cli.main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("command", [[], ["simulate"], ["replay"], ["strategies"], ["rules"], ["report"], ["tournament"],
                                     ["sweep"], ["study"], ["rami"], ["rami", "opening"],
                                     ["verify"]])
def test_every_command_has_help(capsys, command):
    code, out, err = run_cli(capsys, *command, "--help")
    assert code == 0 and "Usage: cardsim" in out and len(out.splitlines()) > 5


def test_quiet_simulate_prints_nothing_and_writes_the_same_files(tmp_path, capsys):
    code, out, _err = run_cli(capsys, "simulate", "kamoul", "-n", "200", "--seed", "2", "--out", str(tmp_path / "q"),
                              "--quiet")
    assert code == 0 and out == ""
    code, loud, _err = run_cli(capsys, "simulate", "kamoul", "-n", "200", "--seed", "2", "--out", str(tmp_path / "l"))
    assert code == 0 and (tmp_path / "q" / "summary.png").stat().st_size > 0
    assert (tmp_path / "q" / "summary.md").read_text() == (tmp_path / "l" / "summary.md").read_text().replace(
        str(tmp_path / "l"), str(tmp_path / "q")) and (tmp_path / "q" / "summary.md").read_text().strip() in loud


def test_help_groups_the_commands_and_starts_with_the_main_job(capsys):
    code, out, _err = run_cli(capsys, "--help")
    assert code == 0
    examples = out.split("Examples:")[1].strip().splitlines()
    assert examples[0].strip() == "cardsim study kamoul-call -n 5000 --seed 1 --out runs/kamoul-call"
    headings = [line for line in out.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert headings[-5:] == ["The answers:", "Simulating:", "Strong play:", "Data and reports:", "Tools:"], headings
    for command in cli.cli.commands:  # each command listed once, under its heading
        assert sum(line.split()[0] == command for line in out.split("The answers:")[1].splitlines() if line.strip()) == 1


def test_strategies_and_rules_fit_the_terminal_and_round_numbers(capsys, monkeypatch):
    monkeypatch.setattr(cli, "_terminal_width", lambda: 99)  # as in a terminal 100 columns wide
    for command in (("strategies", "kamoul"), ("rules", "kamoul"), ("strategies", "rami", "--all")):
        code, out, _err = run_cli(capsys, *command)
        assert code == 0 and max(len(line) for line in out.splitlines()) <= 99, command
    code, out, _err = run_cli(capsys, "strategies", "kamoul")
    import re
    assert not re.search(r"\d\.\d{4,}", out), "numbers at three significant digits"


def test_strategies_and_rules_list_parameters_and_rule_numbers(capsys):
    code, out, _ = run_cli(capsys, "strategies", "kamoul")
    assert code == 0
    for name in ("random", "balanced", "cautious", "aggressive", "call_threshold", "forget", "contre_threshold"):
        assert name in out
    code, out, _ = run_cli(capsys, "rules", "kamoul")
    assert code == 0
    for text in ("snap_chain", "[K6]", "false_call_mode", "[K12]", "on_stock_empty", "[K14]"):
        assert text in out


@pytest.fixture(scope="module")
def existing_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "k"
    assert cli.main(["simulate", "kamoul", "-n", "3000", "--seed", "4", "--out", str(out), "--quiet"]) == 0
    return out


def test_simulate_writes_tables_that_pandas_and_polars_open(existing_run, capsys):
    hands = pd.read_parquet(existing_run / "hands")
    lazy = pl.scan_parquet(existing_run / "hands").collect()
    assert len(hands) == 3000 == lazy.height
    assert sorted(hands["game"]) == list(range(3000))
    for col in ("points_0", "cum_3", "caller", "call_estimate", "call_true", "call_unknown", "contre_seats",
                "outcome", "turns", "snaps", "penalty_cards", "strategy_0"):
        assert col in lazy.columns


def test_simulate_prints_a_summary_with_intervals(tmp_path, capsys):
    code, out, _ = run_cli(capsys, "simulate", "kamoul", "-n", "500", "--seed", "1", "--out", str(tmp_path / "r"),
                           "--level", "manches", "--strategy", "balanced", "--strategy", "random", "--players", "2")
    assert code == 0
    assert "seat 0 balanced" in out and "seat 1 random" in out and "manches won per seat" in out
    assert "[" in out and "outcome kinds" in out
    assert (tmp_path / "r" / "summary.md").exists() and (tmp_path / "r" / "summary.png").stat().st_size > 1000


BAD_INPUTS = [
    (["--strategy", "nope"], "--strategy", "11 names, listed by `cardsim strategies kamoul`"),
    (["--option", "nope=1"], "--option", "28 names, listed by `cardsim rules kamoul`"),
    (["--option", "snap_chain=maybe"], "snap_chain", "true or false"),
    (["--option", "p_stick=2"], "p_stick", "[0.0, 1.0]"),
    (["--strategy", "balanced:call_threshold=99"], "call_threshold", "[0.0, 30.0]"),
    (["--strategy", "balanced:nope=1"], "parameter", "18 names, listed by `cardsim strategies kamoul`"),
    (["--strategy", "balanced:call_treshold=1"], "parameter", "did you mean call_threshold or contre_threshold?"),
    (["--strategy", "balancd"], "--strategy", "did you mean balanced? allowed: 11 names"),
    (["--option", "snap_chian=true"], "--option", "did you mean snap_chain? allowed: 28 names, listed by `cardsim rules kamoul`"),
    (["--players", "1"], "--players", "2 to 6"),
    (["--players", "9"], "--players", "2 to 6"),
    (["--level", "rounds"], "--level", "hands | manches"),
    (["--threads", "0"], "--threads", "integer"),
    (["--strategy", "balanced", "--strategy", "random"], "--strategy", "one per seat"),
]


@pytest.mark.parametrize("extra,field,allowed", BAD_INPUTS)
def test_bad_input_is_one_line_exit_2_and_touches_nothing(tmp_path, capsys, existing_run, extra, field, allowed):
    before = tree_digest(existing_run)
    for out in (tmp_path / "new", existing_run):
        code, stdout, err = run_cli(capsys, "simulate", "kamoul", "-n", "3000", "--seed", "4", "--out", str(out), *extra)
        assert code == 2
        lines = err.strip().splitlines()
        assert len(lines) == 1 and field in lines[0] and allowed in lines[0], err
        assert "Traceback" not in err
    assert not (tmp_path / "new").exists()
    assert tree_digest(existing_run) == before


def test_different_spec_on_an_existing_run_is_refused_untouched(existing_run, capsys):
    before = tree_digest(existing_run)
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "3000", "--seed", "5", "--out", str(existing_run))
    assert code == 2 and "--out" in err and "different spec" in err and "seed" in err and len(err.strip().splitlines()) == 1
    assert tree_digest(existing_run) == before


def test_corrupt_toml_spec_is_refused(tmp_path, capsys):
    spec = tmp_path / "bad.toml"
    spec.write_text("n = 10\nseed = [\n")
    code, _, err = run_cli(capsys, "simulate", "kamoul", "--spec", str(spec), "--out", str(tmp_path / "o"))
    assert code == 2 and "--spec" in err and "TOML" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_toml_spec_runs_and_cli_overrides_it(tmp_path, capsys):
    spec = tmp_path / "run.toml"
    spec.write_text('game = "kamoul"\nn = 200\nseed = 3\nplayers = 3\nstrategies = ["cautious"]\n'
                    '[options]\nsnap_chain = true\n')
    code, _, err = run_cli(capsys, "simulate", "kamoul", "--spec", str(spec), "-n", "150", "--out", str(tmp_path / "o"),
                           "--quiet")
    assert code == 0, err
    frame = pl.read_parquet(tmp_path / "o" / "hands")
    assert frame.height == 150 and "points_2" in frame.columns and "points_3" not in frame.columns
    assert set(frame["strategy_0"]) == {"cautious"}


def test_bad_values_in_a_toml_spec_name_the_field(tmp_path, capsys):
    spec = tmp_path / "run.toml"
    spec.write_text('n = 200\n[options]\nsnap_chain = 3\n')
    code, _, err = run_cli(capsys, "simulate", "kamoul", "--spec", str(spec), "--out", str(tmp_path / "o"))
    assert code == 2 and "snap_chain" in err


def test_unknown_game_and_bad_number(tmp_path, capsys):
    code, _, err = run_cli(capsys, "simulate", "chess", "-n", "5", "--out", str(tmp_path / "o"))
    assert code == 2 and "kamoul" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "abc", "--out", str(tmp_path / "o"))
    assert code == 2 and "-n" in err and len(err.strip().splitlines()) == 1


def test_replay_shows_every_move_and_matches_the_stored_run(existing_run, capsys):
    code, out, err = run_cli(capsys, "replay", "kamoul", "--index", "17", "--run", str(existing_run))
    assert code == 0, err
    assert "peeks at own position" in out and "reveal P0" in out and "draws" in out
    assert "matches the stored run" in out
    code2, out2, err2 = run_cli(capsys, "replay", "kamoul", "--seed", "4", "--game", "17")  # the old spelling
    assert code2 == 0 and out2.split("replay check")[0].strip() == out.split("replay check")[0].strip()
    assert err2 == "note: --game is deprecated, use --index (GAME is the game's name)\n"


def test_strategies_lists_each_family_once_and_what_each_preset_changes(capsys):
    from simulator.games import GAMES

    code, out, _ = run_cli(capsys, "strategies", "kamoul")
    assert code == 0 and out.count("memory_noise = 0.0") == 1  # heuristic's parameters, listed once
    assert "\ncautious: " in out and "= heuristic with call_threshold=1.0" in out
    assert "balanced: heuristic preset" in out and "= heuristic (the family's defaults)" in out
    code, full, _ = run_cli(capsys, "strategies", "kamoul", "--all")
    with_memory = sum("memory_noise" in s.params.by_name for s in GAMES["kamoul"].strategies.values())
    assert full.count("memory_noise = 0.0") == with_memory and len(full.splitlines()) > 2 * len(out.splitlines())
    code, raw, _ = run_cli(capsys, "strategies", "kamoul", "--json")
    listed = {s["name"]: s for s in json.loads(raw)}
    plugin = GAMES["kamoul"]
    assert list(listed) == list(plugin.strategies)
    for name, sdef in plugin.strategies.items():
        assert {p["name"]: p["default"] for p in listed[name]["params"]} == {p.name: p.default for p in sdef.params.params}
        family = plugin.strategies.get(sdef.family)
        if family is not None and family is not sdef:  # the compact line names exactly the changed defaults
            line = out.split(f"\n{name}: ", 1)[1].splitlines()[1]
            changed = {p.name for p in sdef.params.params if family.params.by_name[p.name].default != p.default}
            assert {item.split("=")[0] for item in line.split(" with ", 1)[1].split(", ")} == changed if changed \
                else line.endswith("(the family's defaults)")


def test_cardsim_alone_prints_the_help_and_exits_0(capsys):
    code, out, err = run_cli(capsys)
    assert code == 0 and out.startswith("Usage: cardsim") and "simulate" in out and err == ""


def test_game_and_strategy_names_complete(monkeypatch):
    """Through click's completion protocol (what `eval "$(_CARDSIM_COMPLETE=bash_source cardsim)"` sets up)."""
    from click.shell_completion import ShellComplete

    def complete(*words):
        return [c.value for c in ShellComplete(cli.cli, {}, "cardsim", "_CARDSIM_COMPLETE").get_completions(
            list(words[:-1]), words[-1])]

    assert complete("simulate", "kam") == ["kamoul"]
    assert set(complete("duel", "")) >= {"kamoul", "rami", "kems"}
    assert complete("simulate", "kamoul", "--strategy", "bal") == ["balanced"]
    assert complete("tournament", "rami", "--strategy", "open-") == ["open-asap", "open-big", "open-small", "open-all"]
    assert "snap_chain=" in complete("simulate", "kamoul", "--option", "snap_")


def test_replay_of_a_missing_run_or_game_is_one_line(tmp_path, existing_run, capsys):
    code, _, err = run_cli(capsys, "replay", "kamoul", "--index", "1", "--run", str(tmp_path / "nothing"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(capsys, "replay", "kamoul", "--index", "999999", "--run", str(existing_run))
    assert code == 2 and "--index" in err
