"""Whole runs: identical Parquet content whatever the threads or chunk size, and a killed run resumes exactly."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import polars as pl
import pytest

import cardsim as api

ROOT = Path(__file__).resolve().parents[1]


def table(out: Path, name: str) -> pl.DataFrame:
    frame = pl.read_parquet(out / name)
    keys = [c for c in ("game", "hand", "manche", "partie") if c in frame.columns]
    return frame.sort(keys)


@pytest.mark.parametrize("level", ["hands", "parties"])
def test_same_content_with_1_or_2_threads_and_any_chunk_size(tmp_path, level):
    n = 3000 if level == "hands" else 40
    runs = [(1, n // 3), (2, n // 7 + 1), (2, n)]
    outs = []
    for i, (threads, chunk) in enumerate(runs):
        out = tmp_path / f"r{i}"
        result = api.simulate("kamoul", n=n, seed=77, out=out, level=level, threads=threads, chunk_size=chunk,
                              strategies=["balanced", "aggressive", "random", "cautious"], progress=False)
        assert not result.interrupted
        outs.append(out)
    for name in ("hands", "manches", "parties") if level == "parties" else ("hands",):
        first = table(outs[0], name)
        for other in outs[1:]:
            assert first.equals(table(other, name)), name
    assert table(outs[0], "hands")["game"].n_unique() == n or level == "parties"


def _simulate_cmd(out: Path, n: int) -> list[str]:
    return [sys.executable, "-c", "import cli, sys; sys.exit(cli.main(sys.argv[1:]))", "simulate", "kamoul",
            "-n", str(n), "--seed", "1", "--out", str(out), "--chunk-size", str(n // 20), "--quiet"]


def test_sigkill_half_way_then_same_command_gives_the_uninterrupted_rows(tmp_path):
    n = 200_000
    killed = tmp_path / "killed"
    proc = subprocess.Popen(_simulate_cmd(killed, n), cwd=ROOT)
    deadline = time.time() + 120
    while time.time() < deadline:
        parts = list((killed / "hands").glob("*.parquet")) if (killed / "hands").exists() else []
        if len(parts) >= 5:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    parts = list((killed / "hands").glob("*.parquet"))
    assert 0 < len(parts) < 20, "the run was not caught half-way"
    assert subprocess.run(_simulate_cmd(killed, n), cwd=ROOT).returncode == 0
    clean = tmp_path / "clean"
    assert subprocess.run(_simulate_cmd(clean, n), cwd=ROOT).returncode == 0
    a, b = table(killed, "hands"), table(clean, "hands")
    assert a.height == n and a["game"].n_unique() == n
    assert a.equals(b)
    assert not (killed / ".tmp").exists()
