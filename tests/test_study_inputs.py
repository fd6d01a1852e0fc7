"""Studies on the user's rules and players: ``--option``, ``--strategy`` and ``--spec`` on every study and on
``advise``; stored in ``_study.json``, stated by the verdict, refused when they change on resume, and a bad one is
one line naming the field, exit 2, nothing written."""

from __future__ import annotations

import json

import pytest

from test_reports import run_cli

STUDY_ARGS = {"kamoul-call": ["kamoul-call"], "rami-openings": ["rami-openings"], "balance": ["balance", "kems"]}


def test_kamoul_call_on_a_house_variant_stores_it_and_says_so(tmp_path, capsys):
    out = tmp_path / "s"
    args = ["study", "kamoul-call", "-n", "150", "--players", "3", "--option", "implicit_contest=true",
            "--strategy", "cautious", "--out", str(out), "--quiet"]
    code, printed, err = run_cli(capsys, *args)
    assert code == 0, err
    inputs = json.loads((out / "_study.json").read_text())["inputs"]
    assert inputs["rules"] == {"implicit_contest": True} and inputs["strategy"] == "cautious"
    answer = json.loads((out / "answer.json").read_text())
    assert answer["holds_for"] == "Kamoul, rules implicit_contest=true, cautious play"
    assert "Holds for: Kamoul, rules implicit_contest=true, cautious play." in (out / "answer.md").read_text()
    assert printed.splitlines()[:len(answer["headline"])] == answer["headline"]
    assert "implicit_contest=true" in (out / "report.html").read_text(encoding="utf-8")
    # the same command resumes; another rule variant on the same directory is refused, nothing touched
    before = sorted(p.name for p in out.iterdir())
    code, _, err = run_cli(capsys, *[a if a != "implicit_contest=true" else "implicit_contest=false" for a in args])
    assert code == 2 and err.startswith("Error: --out:") and "--option" in err and len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in out.iterdir()) == before


def test_a_spec_file_sets_the_study_and_flags_override_it(tmp_path, capsys):
    spec = tmp_path / "s.toml"
    spec.write_text('n = 2\nseed = 5\nplayers = [2]\nstrategies = ["open-asap", "open-big"]\n'
                    "[options]\njoker_swap = \"free\"\n")
    out = tmp_path / "r"
    code, _, err = run_cli(capsys, "study", "rami-openings", "--spec", str(spec), "--seed", "6", "--out", str(out),
                           "--quiet")
    assert code == 0, err
    inputs = json.loads((out / "_study.json").read_text())["inputs"]
    assert (inputs["n"], inputs["seed"], inputs["players"], inputs["strategies"]) == (2, 6, [2], ["open-asap",
                                                                                               "open-big"])
    assert inputs["rules"] == {"joker_swap": "free"}
    assert json.loads((out / "answer.json").read_text())["holds_for"].startswith("Rami, rules joker_swap=free")


BAD = [
    (["--option", "nope=1"], "--option"),
    (["--option", "hand_size"], "--option"),
    (["--strategy", "nobody"], "--strategy"),
    (["--strategy", "random:speed=-1"], "--strategy"),
    (["--spec", "MISSING"], "--spec"),
    (["--spec", "LEVEL"], "--spec level"),
    (["--spec", "JUNK"], "--spec"),
]


@pytest.mark.parametrize("study", sorted(STUDY_ARGS))
@pytest.mark.parametrize("extra, field", BAD)
def test_a_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys, study, extra, field):
    files = {"MISSING": tmp_path / "missing.toml", "LEVEL": tmp_path / "level.toml", "JUNK": tmp_path / "junk.toml"}
    files["LEVEL"].write_text('level = "hands"\n')
    files["JUNK"].write_text("this is = not [ toml\n")
    extra = [str(files[a]) if a in files else a for a in extra]
    if study == "kamoul-call" and field == "--option":
        extra = [a.replace("hand_size", "hand_size=99") for a in extra]
    out = tmp_path / "out"
    code, printed, err = run_cli(capsys, "study", *STUDY_ARGS[study], "-n", "3", *extra, "--out", str(out))
    assert code == 2 and printed == "" and len(err.strip().splitlines()) == 1, err
    assert err.startswith(f"Error: {field}"), err
    assert not out.exists()


def test_advise_takes_a_spec_file(tmp_path, capsys):
    spec = tmp_path / "a.toml"
    spec.write_text('players = 3\nstrategies = ["cautious"]\n[options]\nimplicit_contest = true\n')
    code, out, err = run_cli(capsys, "advise", "kamoul", "--known", "2 3", "--turn", "3", "--samples", "300",
                             "--spec", str(spec), "--json")
    assert code == 0, err
    result = json.loads(out)
    assert (result["players"], result["strategy"], result["rules"]) == (3, "cautious", "rules implicit_contest=true")
    code, out, err = run_cli(capsys, "advise", "kamoul", "--known", "2 3", "--turn", "3", "--spec",
                             str(tmp_path / "none.toml"))
    assert code == 2 and out == "" and err.startswith("Error: --spec") and len(err.strip().splitlines()) == 1
