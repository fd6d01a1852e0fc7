"""``--json`` prints the same numbers as the text and nothing else on stdout; ``--quiet`` prints nothing."""

from __future__ import annotations

import json

from analysis.summary import run_summary
from simulator import api
from simulator.games import GAMES
from test_cli import run_cli


def test_plan_and_rules_json(capsys):
    code, out, _ = run_cli(capsys, "plan", "--p1", "0.55", "--json")
    result = json.loads(out)
    code, text, _ = run_cli(capsys, "plan", "--p1", "0.55")
    assert f"games per strategy: {result['games']:,}" in text
    code, out, _ = run_cli(capsys, "rules", "rami", "--json")
    assert [o["name"] for o in json.loads(out)] == GAMES["rami"].options.names()


def test_simulate_json_and_quiet(tmp_path, capsys):
    code, out, err = run_cli(capsys, "simulate", "kamoul", "-n", "200", "--out", str(tmp_path / "r"), "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["seats"] == run_summary(tmp_path / "r")["seats"].to_dicts() and data["spec"]["n"] == 200
    code, out, err = run_cli(capsys, "simulate", "kamoul", "-n", "200", "--out", str(tmp_path / "q"), "--quiet")
    assert code == 0 and out == "" and err == ""


def test_tournament_json_holds_the_verdict_and_the_frames(tmp_path, capsys):
    args = ["tournament", "kamoul", "-n", "60", "--strategy", "balanced", "--strategy", "random", "--out",
            str(tmp_path / "t")]
    code, out, err = run_cli(capsys, *args, "--json", "--quiet")
    assert code == 0, err
    data = json.loads(out)
    frames = api.batch_frames(tmp_path / "t")
    assert data["matrix"] == frames["matrix"].to_dicts() and data["inputs"]["level"] == "manches"
    code, text, _ = run_cli(capsys, *args)  # resumes: every cell is done, prints the text
    assert text.splitlines()[:2] == data["verdict"]


def test_report_quiet_prints_nothing(tmp_path, capsys):
    api.simulate("rami", out=tmp_path / "r", n=20, progress=False)
    code, out, err = run_cli(capsys, "report", str(tmp_path / "r"), "--out", str(tmp_path / "r.html"), "--quiet")
    assert code == 0 and out == "" and err == "" and (tmp_path / "r.html").is_file()


def test_advise_and_replay_quiet_print_their_answer_and_nothing_on_stderr(capsys):
    code, out, err = run_cli(capsys, "advise", "kamoul", "--known", "2 3", "--turn", "3", "--samples", "300",
                             "--quiet")
    assert code == 0 and "advice: " in out and err == ""
    code, out, err = run_cli(capsys, "replay", "rami", "--game", "2", "--quiet")  # the deprecated spelling too
    assert code == 0 and out and err == ""

