"""``--json`` prints the same numbers as the text and nothing else on stdout; ``--quiet`` prints nothing."""

from __future__ import annotations

import json

import pytest

from analysis.summary import run_summary
import cardsim as api
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
    capsys.readouterr()  # a compile notice of the line above, on a cold cache
    code, out, err = run_cli(capsys, "report", str(tmp_path / "r"), "--out", str(tmp_path / "r.html"), "--quiet")
    assert code == 0 and out == "" and err == "" and (tmp_path / "r.html").is_file()


def test_advise_and_replay_quiet_print_their_answer_and_nothing_on_stderr(capsys):
    code, out, err = run_cli(capsys, "advise", "kamoul", "--known", "2 3", "--turn", "3", "--samples", "300",
                             "--quiet")
    assert code == 0 and "advice: " in out and err == ""
    code, out, err = run_cli(capsys, "replay", "rami", "--game", "2", "--quiet")  # the deprecated spelling too
    assert code == 0 and out and err == ""



# --- every command that prints results: --json parses and holds the text's numbers, --quiet is silent ----------

JSON_COMMANDS = {
    # name: (arguments, the strings of the JSON answer that the text answer must hold)
    "duel": (["duel", "kamoul", "--strategy", "balanced", "--strategy", "random", "--max-games", "60"],
             lambda r: [f"after {r['deals']:,} deals", f"{r['games']:,} {r['level']}", f"{r['points_gap']:+.2f}"]),
    "advise": (["advise", "kamoul", "--known", "2 3", "--turn", "3", "--samples", "300"],
               lambda r: [r["advice"].upper(), f"{r['gain']:+.2f}", f"{r['samples']:,} situations"]),
    "plan": (["plan", "--p1", "0.6"], lambda r: [f"{r['games']:,}", f"{r['games_unpaired']:,}"]),
    "strategies": (["strategies", "rami"], lambda r: [s["name"] for s in r]),
    "rules": (["rules", "kems"], lambda r: [o["name"] for o in r]),
    "opening": (["rami", "opening", "--hand", "7H 8H 9H 10H JH QH KH"],
                lambda r: [f"best opening {r['points']} points", f"{r['threshold']} needed", " ".join(r["melds"][0])]),
    "replay": (["replay", "kems", "--index", "1"], lambda r: r["events"] + r["seats"]),
}


def _run_twice(capsys, args):
    code, text, err = run_cli(capsys, *args)
    assert code == 0, err
    code, raw, err = run_cli(capsys, *args, "--json")
    assert code == 0, err
    return text, json.loads(raw)


@pytest.mark.parametrize("command", sorted(JSON_COMMANDS))
def test_json_holds_the_numbers_of_the_text(capsys, command):
    args, expected = JSON_COMMANDS[command]
    text, data = _run_twice(capsys, args)
    for shown in expected(data):
        assert str(shown) in text, (command, shown)


@pytest.mark.parametrize("command", sorted(JSON_COMMANDS))
def test_quiet_prints_nothing_on_stderr(capsys, command):
    args, _ = JSON_COMMANDS[command]
    code, out, err = run_cli(capsys, *args, "--quiet")
    assert code == 0 and err == "" and out  # the answer is still printed


def test_replay_json_of_a_run_holds_the_check(tmp_path, capsys):
    api.simulate("kamoul", out=tmp_path / "r", n=30, progress=False)
    capsys.readouterr()
    code, raw, err = run_cli(capsys, "replay", "kamoul", "--run", str(tmp_path / "r"), "--index", "7", "--json")
    data = json.loads(raw)
    assert code == 0 and data["check"]["matches"] is True and data["index"] == 7 and data["spec"]["n"] == 30
    code, text, _ = run_cli(capsys, "replay", "kamoul", "--run", str(tmp_path / "r"), "--index", "7")
    assert text.rstrip("\n").splitlines()[-1] == data["check"]["detail"]
    assert text.splitlines()[2:-1] == data["events"]


def test_verify_json_and_quiet(tmp_path, capsys):
    api.simulate("rami", out=tmp_path / "r", n=20, progress=False)
    capsys.readouterr()
    code, raw, _ = run_cli(capsys, "verify", str(tmp_path / "r"), "--json")
    data = json.loads(raw)
    code, text, err = run_cli(capsys, "verify", str(tmp_path / "r"), "--quiet")
    assert code == 0 and err == "" and f"{data['parts']} part(s) checked" in text and data["sound"]


def test_sweep_json_and_quiet(tmp_path, capsys):
    args = ["sweep", "kamoul", "-n", "40", "--grid", "forget=0,0.2", "--out", str(tmp_path / "s")]
    code, out, err = run_cli(capsys, *args, "--quiet")
    assert code == 0 and out == "" and err == ""
    code, raw, err = run_cli(capsys, *args, "--json")
    data = json.loads(raw)
    assert code == 0 and data["kind"] == "sweep" and len(data["summary"]) == 2 * 4  # cells x seats
    code, text, _ = run_cli(capsys, *args)
    for row in data["summary"]:
        assert (f"{100 * row['win_rate']:.2f}% [{100 * row['win_low']:.2f}, {100 * row['win_high']:.2f}]   points  "
                f"{row['mean_points']:+.3f}") in text
