"""No symbolic link is followed out of a run or study directory: verify reports it, ``verify --repair`` and a
resumed run remove the link (never what it points to), the lock never opens through one, and what lies outside
the directory is byte for byte as before."""

from __future__ import annotations

import os
import shutil

import pytest

import cardsim as api
from simulator.core.storage.store import read_table
from test_cli import run_cli, tree_digest

N, SEED, CHUNK = 300, 4, 100


def fresh_run(path):
    api.simulate("kamoul", out=path, n=N, seed=SEED, chunk_size=CHUNK, progress=False)
    return read_table(path, "hands", lazy=False)


@pytest.fixture(scope="module")
def clean(tmp_path_factory):
    return fresh_run(tmp_path_factory.mktemp("clean") / "k")


@pytest.mark.parametrize("how", ["verify-repair", "resume"])
def test_a_linked_table_folder_is_never_followed(tmp_path, capsys, clean, how):
    run, elsewhere = tmp_path / "k", tmp_path / "elsewhere"
    fresh_run(run)
    shutil.copytree(run / "hands", elsewhere)  # real part files of this very run: tempting to adopt or quarantine
    shutil.rmtree(run / "hands")
    os.symlink("../elsewhere", run / "hands")
    before = tree_digest(elsewhere)
    code, out, _ = run_cli(capsys, "verify", str(run))
    assert code == 1 and "symlink" in out and "hands" in out
    if how == "verify-repair":
        code, out, _ = run_cli(capsys, "verify", str(run), "--repair")
        assert "symbolic link" in out or "symlink" in out
    api.simulate("kamoul", out=run, n=N, seed=SEED, chunk_size=CHUNK, progress=False)
    assert not (run / "hands").is_symlink() and tree_digest(elsewhere) == before
    assert read_table(run, "hands", lazy=False).equals(clean)
    assert run_cli(capsys, "verify", str(run))[0] == 0


def test_a_linked_lock_never_truncates_its_target(tmp_path, clean):
    run, victim = tmp_path / "k", tmp_path / "precious.txt"
    fresh_run(run)
    victim.write_text("keep me\n")
    (run / ".lock").unlink(missing_ok=True)
    os.symlink("../precious.txt", run / ".lock")
    api.simulate("kamoul", out=run, n=N, seed=SEED, chunk_size=CHUNK, progress=False)
    assert victim.read_text() == "keep me\n" and not (run / ".lock").is_symlink()
    assert read_table(run, "hands", lazy=False).equals(clean)


def test_a_linked_quarantine_receives_nothing(tmp_path, capsys, clean):
    run, other = tmp_path / "k", tmp_path / "other"
    fresh_run(run)
    other.mkdir()
    (other / "mine.txt").write_text("mine")
    os.symlink("../other", run / "_quarantine")
    part = sorted((run / "hands").glob("part-*.parquet"))[0]
    part.write_bytes(part.read_bytes()[:-20] + b"\0" * 20)  # damaged: repair moves it to the quarantine
    before = tree_digest(other)
    code, out, _ = run_cli(capsys, "verify", str(run), "--repair")
    assert tree_digest(other) == before and (run / "_quarantine").is_dir() and not (run / "_quarantine").is_symlink()
    api.simulate("kamoul", out=run, n=N, seed=SEED, chunk_size=CHUNK, progress=False)
    assert read_table(run, "hands", lazy=False).equals(clean)


def test_a_study_never_follows_a_link_to_another_run(tmp_path, capsys):
    api.study("rami-openings", out=tmp_path / "s", n=2, seed=1, players=[2], progress=False)
    outside = tmp_path / "outside"
    fresh_run(outside)
    (outside / "hands" / "junk.txt").write_text("not a part")  # verify --repair would quarantine it
    os.symlink("../outside", tmp_path / "s" / "linked")
    before = tree_digest(outside)
    code, out, _ = run_cli(capsys, "verify", str(tmp_path / "s"))
    assert code == 1 and "symlink" in out and "linked" in out
    code, out, _ = run_cli(capsys, "verify", str(tmp_path / "s"), "--repair")
    assert tree_digest(outside) == before and not (tmp_path / "s" / "linked").exists()
    assert run_cli(capsys, "verify", str(tmp_path / "s"))[0] == 0
