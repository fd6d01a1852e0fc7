"""Every reader checks what it reads against the dataset's own records first: a study's frames against its
ledger, a replay every part of the run (also the tables it does not read), and no reader follows a part that is
a symbolic link (``verify`` refuses those too)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import polars as pl
import pytest

import cli
import fakegame
from analysis.answers import stored_frames
from simulator.core.errors import DatasetError
from simulator.core.ledger import write_frame
from simulator.core.runner import run
from simulator.core.store import part_name, read_table
from simulator.core.verify import verify


def flip_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))


def test_a_study_frame_replaced_by_other_bytes_is_refused(tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    (study / "_study.json").write_text('{"study": "kamoul-call", "inputs": {}}')
    write_frame(study / "policy.parquet", pl.DataFrame({"players": [2, 3], "threshold": [4, 4]}))
    assert stored_frames(study, ("policy",))["policy"].height == 2
    (study / "policy.parquet").write_bytes(os.urandom((study / "policy.parquet").stat().st_size))
    with pytest.raises(DatasetError, match=r"policy\.parquet is damaged; run `cardsim verify"):
        stored_frames(study, ("policy",))
    assert not verify(study)["sound"]


def test_a_listed_part_that_is_a_symlink_is_refused_by_readers_as_by_verify(tmp_path, monkeypatch):
    fakegame.patch(monkeypatch)
    out = tmp_path / "run"
    run(fakegame.fake_spec(n=20, seed=3), out, chunk_size=10, progress=False)
    part = out / "hands" / part_name(10, 20)
    elsewhere = tmp_path / "elsewhere.parquet"
    shutil.copy(part, elsewhere)
    part.unlink()
    part.symlink_to(elsewhere)
    assert not verify(out)["sound"]
    with pytest.raises(DatasetError, match=r"hands/part-.* is a symbolic link, not read"):
        read_table(out, "hands", lazy=False)


def test_replay_refuses_a_run_whose_other_tables_are_damaged(tmp_path, capsys):
    """A Kamoul run at the manches level: the replay reads the hands, and refuses a damaged manches part too."""
    out = tmp_path / "run"
    assert cli.main(["simulate", "kamoul", "-n", "3", "--seed", "2", "--players", "2", "--level", "manches",
                     "--quiet", "--out", str(out)]) == 0
    assert cli.main(["replay", "kamoul", "--index", "1", "--run", str(out)]) == 0
    capsys.readouterr()
    flip_byte(next((out / "manches").glob("part-*.parquet")))
    code = cli.main(["replay", "kamoul", "--index", "1", "--run", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "manches/part-" in err and "damaged" in err, err


def test_a_cache_directory_that_is_a_file_is_one_line_before_anything_runs(tmp_path, capsys, monkeypatch):
    from simulator.launch import start

    blocker = tmp_path / "cache"
    blocker.write_text("not a directory")
    monkeypatch.setenv("CARDSIM_CACHE_DIR", str(blocker))
    code = start(["simulate", "kems", "-n", "2", "--quiet", "--out", str(tmp_path / "run")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"Error: CARDSIM_CACHE_DIR: '{blocker}' is a file, not a directory; allowed: a directory")
    assert not (tmp_path / "run").exists()
