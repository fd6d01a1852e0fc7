"""``cardsim tune`` (issue "strong play, found not hand-set", step 1): bad input is one line and writes nothing; a
small tuning finishes with a verdict, its trials, race, confirmation and ``best.toml``; killed half-way and run
again, it ends with the same trials and the same best parameters as an uninterrupted run."""

from __future__ import annotations

import json
import tomllib

import polars as pl
import pytest

import analysis.tune as tune_module
import cardsim as api
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from test_cli import run_cli

SMALL = dict(strategy="heuristic", params=["call_threshold=0:10", "max_unknown_at_call", "au_score"],
             against="balanced,aggressive", players=2, budget=6, seed=3, deals=40, confirm_deals=60)
CLI_SMALL = ["tune", "kamoul", "--strategy", "heuristic", "--param", "call_threshold=0:10", "--param",
             "max_unknown_at_call", "--against", "balanced,aggressive", "--players", "2", "--budget", "6", "--seed", "3",
             "--deals", "40", "--confirm-deals", "60"]


@pytest.mark.parametrize("change,field", [
    (["--strategy", "no-such"], "--strategy"),
    (["--param", "no_such=1:2"], "--param"),
    (["--param", "call_threshold=0:99"], "--param"),
    (["--param", "call_threshold=5:1"], "--param"),
    (["--param", "speed=1:1"], "--param"),
    (["--budget", "0"], "--budget"),
    (["--against", ","], "--against"),
    (["--against", "balanced,balanced"], "--against"),
    (["--against", "nobody"], "--against"),
    (["--players", "9"], "--players"),
    (["--deals", "1"], "--deals"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, change, field):
    args = ["tune", "kamoul", "--strategy", "heuristic", "--against", "balanced", "--budget", "3",
            "--out", str(tmp_path / "t")]
    for k in range(0, len(change), 2):
        if change[k] in args:
            args[args.index(change[k]) + 1] = change[k + 1]
        else:
            args += change[k:k + 2]
    code, out, err = run_cli(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and field in err, err
    assert not (tmp_path / "t").exists()


def test_the_default_space_leaves_abilities_and_fixed_parameters_out():
    spec = tune_module.check_tune("kamoul", strategy="cautious:snap=0.5", against="balanced", budget=1)
    names = {d.name for d in spec.space}
    assert {"speed", "forget", "memory_noise", "snap"}.isdisjoint(names) and "call_threshold" in names
    assert spec.fixed == {"snap": 0.5} and spec.family == "heuristic"  # cautious' own values are searched


def test_the_search_starts_from_the_family_s_presets_in_the_population():
    spec = tune_module.check_tune("kamoul", strategy="heuristic", against="balanced,random,aggressive", budget=9)
    points = tune_module.starting_points(spec)
    families = get_game("kamoul").strategies
    expected = [{d.name: families[name].params.by_name[d.name].default for d in spec.space}
                for name in ("balanced", "aggressive")]
    assert points == expected  # random is another family; heuristic's defaults are balanced's, listed once
    narrow = tune_module.check_tune("kamoul", strategy="heuristic", params=["call_threshold=4:6"],
                                    against="balanced,aggressive", budget=3)
    assert tune_module.starting_points(narrow) == [{"call_threshold": 5.0}]  # balanced's 3.0 is outside


def test_a_small_tuning_answers_and_writes_its_preset(tmp_path, capsys):
    code, out, err = run_cli(capsys, *CLI_SMALL, "--out", str(tmp_path / "t"), "--quiet")
    assert code == 0 and err == "", err
    lines = out.splitlines()
    assert lines[0].startswith("Tuned heuristic (6 trials, 2 players, judged by whole manches): ")
    assert lines[1].startswith("Against balanced: it ") and "% [" in lines[1]
    best = tomllib.loads((tmp_path / "t" / "best.toml").read_text())
    assert best["family"] == "heuristic" and set(best["provenance"]["confirmed"]) == {"balanced", "aggressive"}
    assert 0 <= best["params"]["call_threshold"] <= 10
    trials = pl.read_parquet(tmp_path / "t" / "trials.parquet")
    assert trials["trial"].to_list() == list(range(6)) and trials["deals"].unique().to_list() == [40]
    race = pl.read_parquet(tmp_path / "t" / "race.parquet")
    assert race["trial"].n_unique() == 5 and set(race["deals"]) == {160}
    assert best["provenance"]["trial"] in race["trial"].to_list()
    page = (tmp_path / "t" / "report.html").read_text()
    assert page.index(lines[0].split(":")[0]) < page.index("<img") and page.count("<img") == 3  # verdict, then charts
    code, _, _ = run_cli(capsys, "report", str(tmp_path / "t"), "--out", str(tmp_path / "again.html"), "--quiet")
    assert code == 0 and (tmp_path / "again.html").is_file()
    code, raw, err = run_cli(capsys, *CLI_SMALL, "--out", str(tmp_path / "t"), "--json", "--quiet")  # resumes: done
    data = json.loads(raw)
    assert code == 0 and err == "" and data["verdict"] == lines[:3] and data["best"]["params"] == best["params"]
    assert [r["trial"] for r in data["trials"]] == list(range(6))
    api.simulate("kamoul", n=20, strategies=[f"heuristic:{_assignments(best['params'])}"], out=tmp_path / "r",
                 progress=False)  # the tuned player plays


def _assignments(params: dict) -> str:
    return ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in params.items())


def kill_at_evaluation(monkeypatch, call: int):
    """Make the ``call``-th evaluation of a tuning raise ``KeyboardInterrupt`` (a kill); returns what undoes it."""
    real, calls = tune_module.evaluate, {"n": 0}

    def dies(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == call:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tune_module, "evaluate", dies)
    return lambda: monkeypatch.setattr(tune_module, "evaluate", real)


def test_killed_half_way_it_resumes_to_the_same_trials_and_best(tmp_path, monkeypatch):
    straight = api.tune("kamoul", out=tmp_path / "straight", progress=False, **SMALL)
    revive = kill_at_evaluation(monkeypatch, 4)  # in the fourth trial
    assert api.tune("kamoul", out=tmp_path / "killed", progress=False, **SMALL).interrupted
    assert pl.read_parquet(tmp_path / "killed" / "trials.parquet").height == 3
    revive()
    resumed = api.tune("kamoul", out=tmp_path / "killed", progress=False, **SMALL)
    assert resumed.best == straight.best
    for name in ("trials", "race", "confirm"):
        assert resumed.frames[name].equals(straight.frames[name]), name


def test_another_tuning_in_the_same_directory_is_refused(tmp_path):
    api.tune("kamoul", out=tmp_path / "t", progress=False, **{**SMALL, "budget": 1})
    with pytest.raises(SpecError, match="holds another tuning"):
        api.tune("kamoul", out=tmp_path / "t", progress=False, **{**SMALL, "budget": 1, "seed": 4})


def test_a_mixture_population_scores_the_weighted_share_and_bad_weights_are_refused():
    spec = tune_module.check_tune("kamoul", strategy="heuristic", against="balanced,aggressive", budget=2,
                                  weights=(0.25, 0.75))
    rows = [{"share": 0.4}, {"share": 0.8}]
    assert spec.score(rows) == pytest.approx(0.25 * 0.4 + 0.75 * 0.8) and spec.to_dict()["weights"] == [0.25, 0.75]
    plain = tune_module.check_tune("kamoul", strategy="heuristic", against="balanced,aggressive", budget=2)
    assert plain.score(rows) == 0.4 and "weights" not in plain.to_dict()  # maximin, and old tunings still resume
    for weights in ((0.5,), (0.7, 0.7), (-0.5, 1.5), "a,b", "nan,1", (float("inf"), 0.0)):
        with pytest.raises(SpecError, match="^--weights: "):
            tune_module.check_tune("kamoul", strategy="heuristic", against="balanced,aggressive", budget=2,
                                   weights=weights)
