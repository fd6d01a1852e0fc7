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
from simulator.core.run.runner import run
from simulator.core.run.verify import verify
from simulator.core.storage.ledger import write_frame
from simulator.core.storage.store import part_name, read_table


def flip_byte(path: Path, where: float = 0.5) -> None:
    data = bytearray(path.read_bytes())
    data[int(len(data) * where)] ^= 0x10
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["random bytes", 0.01, 0.3, 0.6, 0.99])
def test_a_damaged_study_frame_is_refused_by_the_reader_as_by_verify(tmp_path, damage):
    study = tmp_path / "study"
    study.mkdir()
    (study / "_study.json").write_text('{"study": "kamoul-call", "inputs": {}}')
    frame = study / "policy.parquet"
    write_frame(frame, pl.DataFrame({"players": [2, 3], "threshold": [4, 4]}))
    assert stored_frames(study, ("policy",))["policy"].height == 2
    if damage == "random bytes":
        frame.write_bytes(os.urandom(frame.stat().st_size))
    else:
        flip_byte(frame, damage)
    assert not verify(study)["sound"]
    with pytest.raises(DatasetError, match=r"policy\.parquet is damaged; run `cardsim verify"):
        stored_frames(study, ("policy",))


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
    """A Kamoul run at the manches level: the replay reads the hands, and refuses a damaged manches part too, at
    every flipped position that verify reports."""
    out = tmp_path / "run"
    assert cli.main(["simulate", "kamoul", "-n", "3", "--seed", "2", "--players", "2", "--level", "manches",
                     "--quiet", "--out", str(out)]) == 0
    assert cli.main(["replay", "kamoul", "--index", "1", "--run", str(out)]) == 0
    capsys.readouterr()
    part = next((out / "manches").glob("part-*.parquet"))
    whole = part.read_bytes()
    for where in (0.01, 0.25, 0.5, 0.75, 0.99):
        flip_byte(part, where)
        assert not verify(out)["sound"]
        code = cli.main(["replay", "kamoul", "--index", "1", "--run", str(out)])
        err = capsys.readouterr().err
        assert code == 1 and len(err.strip().splitlines()) == 1 and "manches/part-" in err and "damaged" in err, err
        part.write_bytes(whole)


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


@pytest.mark.parametrize("limit_kb", [307_200, 1_000_000])
def test_an_address_space_too_small_to_start_is_one_line(tmp_path, limit_kb):
    """Under ``ulimit -v`` below the measured floor: one line, exit 1, nothing written (polars' allocator printed
    55,396 lines at 300 MB; its thread pool panicked with a traceback at 1 GB)."""
    import resource
    import subprocess
    import sys

    def limited():
        resource.setrlimit(resource.RLIMIT_AS, (limit_kb * 1024, resource.RLIM_INFINITY))

    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.path[:0] = [{str(root)!r}]\n"
                           "from simulator.launch import console\nconsole()",
                           "simulate", "kems", "-n", "4", "--out", str(tmp_path / "run")],
                          preexec_fn=limited, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr[-500:]
    assert done.stderr.startswith(f"Error: the address-space limit (ulimit -v) is {limit_kb:,} KB; cardsim needs at "
                                  "least 1,800,000 KB")
    assert not (tmp_path / "run").exists()
