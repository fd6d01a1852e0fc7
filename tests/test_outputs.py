"""An output never lands inside a run, batch or study (simulator/core/storage/outputs.py), nor in the current directory
by an empty name: every writing command refuses in one line, exit 2, and the dataset is byte for byte as before."""

from __future__ import annotations

import os

import pytest

import cardsim as api
from test_cli import run_cli, tree_digest


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    root = tmp_path_factory.mktemp("datasets")
    api.simulate("kamoul", out=root / "k", n=300, seed=1, progress=False)
    api.tournament("rami", strategies=["open-asap", "random"], out=root / "t", n=4, seed=1, level="rounds",
                   progress=False)
    api.study("rami-openings", out=root / "s", n=2, seed=1, players=[2], progress=False)
    return root


def _part(run):
    return next((run / "hands").glob("part-*.parquet")).name


CASES = [
    (["report", "{k}", "--out", "{k}/_manifest.json"], "k", "--out"),
    (["report", "{k}", "--out", "{k}/hands/{part}"], "k", "--out"),
    (["report", "{k}", "--out", "{k}/hands/r.html"], "k", "--out"),
    (["report", "{k}", "--out", "{k}/summary.md"], "k", "--out"),
    (["report", "{k}", "--out", "{root}/r.html", "--pdf", "{k}/hands/r.pdf"], "k", "--pdf"),
    (["report", "{s}", "--out", "{s}/frames.parquet"], "s", "--out"),
    (["report", "{s}", "--out", "{s}/answer.md"], "s", "--out"),
    (["report", "{s}", "--out", "{s}/tournament-2p/r.html"], "s", "--out"),
    (["simulate", "kamoul", "-n", "200", "--out", "{k}/hands/sub"], "k", "--out"),
    (["simulate", "kamoul", "-n", "200", "--out", "{k}/_quarantine"], "k", "--out"),
    (["simulate", "kamoul", "-n", "200", "--out", "{t}/cells/new"], "t", "--out"),
    (["tournament", "kamoul", "-n", "5", "--strategy", "balanced", "--strategy", "random", "--out", "{s}/more"],
     "s", "--out"),
    (["sweep", "kamoul", "-n", "5", "--grid", "call_threshold=1,3", "--out", "{k}/hands/sw"], "k", "--out"),
    (["study", "rami-openings", "-n", "2", "--players", "2", "--out", "{k}/study"], "k", "--out"),
    (["new-strategy", "kamoul", "mine", "--out", "{k}/hands"], "k", "--out"),
]


@pytest.mark.parametrize("args, target, field", CASES)
def test_an_output_inside_a_dataset_is_refused_and_the_dataset_is_untouched(datasets, tmp_path, capsys, args,
                                                                           target, field):
    names = {"k": datasets / "k", "t": datasets / "t", "s": datasets / "s", "root": tmp_path}
    before = tree_digest(names[target])
    filled = [a.format(part=_part(names["k"]), **names) for a in args]
    code, out, err = run_cli(capsys, *filled)
    assert code == 2 and out == "" and err.startswith(f"Error: {field}:"), err
    assert len(err.strip().splitlines()) == 1 and "writing there would damage it" in err
    assert tree_digest(names[target]) == before


def test_a_symlink_into_a_run_is_followed_and_refused(datasets, tmp_path, capsys):
    (tmp_path / "link").symlink_to(datasets / "k" / "hands")
    before = tree_digest(datasets / "k")
    code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "50", "--out", str(tmp_path / "link" / "sub"))
    assert code == 2 and "inside the run at" in err
    code, _, err = run_cli(capsys, "report", str(datasets / "k"), "--out", str(tmp_path / "link" / "x.html"))
    assert code == 2 and "inside the run at" in err
    assert tree_digest(datasets / "k") == before


def test_an_empty_name_is_refused_and_the_current_directory_untouched(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args in (["simulate", "kamoul", "-n", "50", "--out", ""], ["study", "kamoul-call", "-n", "5", "--out", ""],
                 ["tournament", "kamoul", "-n", "5", "--strategy", "balanced", "--strategy", "random", "--out", ""],
                 ["new-strategy", "kamoul", "mine", "--out", ""]):
        code, out, err = run_cli(capsys, *args)
        assert code == 2 and err.startswith("Error: --out: ''") and "current directory" in err, (args, err)
    assert os.listdir(tmp_path) == []


def test_a_report_may_be_written_beside_a_datasets_data(datasets, capsys):
    for name in ("k", "t"):
        code, out, err = run_cli(capsys, "report", str(datasets / name), "--out", str(datasets / name / "r.html"))
        assert code == 0, err
        (datasets / name / "r.html").unlink()
    study = datasets / "s"
    code, out, err = run_cli(capsys, "report", str(study), "--out", str(study / "report.html"))
    assert code == 0, err
    code, out, err = run_cli(capsys, "report", str(study), "--out", str(study / "copy.html"))
    assert code == 0, err
    (study / "copy.html").unlink()
    code, out, err = run_cli(capsys, "verify", str(study))
    assert code == 0, out + err


def test_a_name_that_cannot_be_recorded_is_refused_before_anything_is_written(datasets, tmp_path, capsys,
                                                                           monkeypatch):
    monkeypatch.chdir(tmp_path)
    bad = "bad" + b"\xff\xfe".decode("utf-8", "surrogateescape") + "name"
    long = "x" * 300
    for out, says in ((bad, "not UTF-8"), (f"deep/{long}/run", "a name of 300 bytes")):
        code, _, err = run_cli(capsys, "simulate", "kamoul", "-n", "20", "--out", out)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
        code, _, err = run_cli(capsys, "report", str(datasets / "k"), "--out", out + ".html")
        assert code == 2 and says in err, err
    assert os.listdir(tmp_path) == []

