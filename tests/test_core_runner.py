"""The chunked runner: results independent of chunking, threads and backend order; resume; Ctrl-C; kill -9."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest

import fakegame
from simulator.core.errors import SpecError
from simulator.core.run.backends import ChunkTask, LocalBackend, check_threads
from simulator.core.run.runner import run, split_ranges
from simulator.core.storage.store import MANIFEST_NAME, part_name, read_table

ROOT = Path(__file__).resolve().parents[1]
TESTS = Path(__file__).resolve().parent


@pytest.fixture(autouse=True)
def fake(monkeypatch):
    fakegame.patch(monkeypatch)


def content(out):
    """Both tables of a run, sorted by game: what must not depend on how the run was executed."""
    return (
        read_table(out, "hands", lazy=False).sort("game", "hand"),
        read_table(out, "manches", lazy=False).sort("game"),
    )


def same(a, b):
    return all(x.equals(y) for x, y in zip(a, b))


@pytest.fixture
def reference(tmp_path):
    spec = fakegame.fake_spec(n=60, seed=11)
    run(spec, tmp_path / "ref", chunk_size=60, progress=False)
    return spec, content(tmp_path / "ref")


def test_split_ranges():
    assert split_ranges([(0, 10)], 4) == [(0, 4), (4, 8), (8, 10)]
    assert split_ranges([(3, 5), (7, 8)], 100) == [(3, 5), (7, 8)]
    assert split_ranges([], 5) == []


@pytest.mark.parametrize("chunk_size", [1, 7, 13, 59, 1000])
def test_content_independent_of_chunk_size(tmp_path, reference, chunk_size):
    spec, expected = reference
    result = run(spec, tmp_path / "run", chunk_size=chunk_size, progress=False)
    assert result.chunks_written == -(-60 // chunk_size) and result.games_done == 60
    assert same(content(tmp_path / "run"), expected)


def test_default_chunk_size_is_the_games(tmp_path):
    spec = fakegame.fake_spec(n=20)
    assert run(spec, tmp_path / "run", progress=False).chunks_written == 3  # fake default: 7


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 numba threads")
def test_content_independent_of_threads(tmp_path, reference):
    spec, expected = reference
    for threads in (1, 2):
        fakegame.THREADS_SEEN.clear()
        run(spec, tmp_path / f"t{threads}", chunk_size=8, threads=threads, progress=False)
        assert set(fakegame.THREADS_SEEN) == {threads}
        assert same(content(tmp_path / f"t{threads}"), expected)


class ReversedBackend:
    """Yields chunks in reverse order, as a cluster might."""

    def run(self, task, ranges, threads):
        for start, stop in reversed(list(ranges)):
            yield (start, stop), task(start, stop, threads)


def test_backend_order_does_not_matter(tmp_path, reference):
    spec, expected = reference
    run(spec, tmp_path / "run", chunk_size=9, backend=ReversedBackend(), progress=False)
    assert same(content(tmp_path / "run"), expected)


def test_chunk_task_pickles(reference):
    spec, expected = reference
    task = pickle.loads(pickle.dumps(ChunkTask(spec)))
    assert task.spec == spec
    assert task(10, 20)["manches"].equals(expected[1].slice(10, 10))


def test_bad_settings_refused_before_anything_is_written(tmp_path):
    spec = fakegame.fake_spec(n=10)
    for kwargs, field in [({"chunk_size": 0}, "--chunk-size"), ({"chunk_size": 2.5}, "--chunk-size"),
                          ({"threads": 0}, "--threads"),
                          ({"threads": numba.config.NUMBA_NUM_THREADS + 1}, "--threads")]:
        with pytest.raises(SpecError, match=f"^{field}: "):
            run(spec, tmp_path / "run", progress=False, **kwargs)
        assert not (tmp_path / "run").exists()
    assert check_threads(None) is None and check_threads(1) == 1


def test_local_backend_restores_numba_threads(reference):
    spec, _ = reference
    before = numba.get_num_threads()
    list(LocalBackend().run(ChunkTask(spec), [(0, 3)], 1))
    assert numba.get_num_threads() == before


def test_resume_after_crash_writes_only_missing(tmp_path, reference):
    spec, expected = reference
    out = tmp_path / "run"
    run(spec, out, chunk_size=10, progress=False)
    # simulate a crash: chunks 20-30 and 50-60 lost, 30-40 half written, junk in .tmp
    for table in ("hands", "manches"):
        (out / table / part_name(20, 30)).unlink()
        (out / table / part_name(50, 60)).unlink()
    (out / "manches" / part_name(30, 40)).unlink()
    (out / ".tmp").mkdir()
    (out / ".tmp" / "manches-part-x.parquet.99").write_bytes(b"torn")
    kept = {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.glob("*/part-*.parquet")
            if "000000000030" not in p.name}
    result = run(spec, out, chunk_size=4, progress=False)
    assert not result.interrupted
    assert result.games_done == 30  # 20-30, 30-40 (its stray hands part deleted), 50-60
    assert result.chunks_written == 8  # missing [20, 40) and [50, 60), re-split in chunks of at most 4
    for p, ident in kept.items():
        assert (p.stat().st_ino, p.stat().st_mtime_ns) == ident
    assert not (out / ".tmp").exists()
    assert same(content(out), expected)
    again = run(spec, out, chunk_size=4, progress=False)
    assert again.games_done == 0 and again.chunks_written == 0 and not again.interrupted


SCRIPT = """
import json, sys
sys.path[:0] = [{root!r}, {tests!r}]
import fakegame
fakegame.install()
from simulator.core.run.runner import run
spec = fakegame.fake_spec(n={n}, seed=11)
result = run(spec, {out!r}, chunk_size={chunk}, progress=False)
print(json.dumps({{"interrupted": result.interrupted, "chunks": result.chunks_written}}))
"""


def start_run(out, n, delay, chunk):
    script = SCRIPT.format(root=str(ROOT), tests=str(TESTS), out=str(out), n=n, chunk=chunk)
    env = dict(os.environ, FAKEGAME_DELAY_MS=str(delay))
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def wait_for_chunks(out, count, proc, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if len(json.loads((out / MANIFEST_NAME).read_text())["chunks"]) >= count:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.02)
    proc.kill()
    pytest.fail("the run did not write its first chunks in time")


def test_ctrl_c_finishes_the_chunk_in_flight_then_stops(tmp_path, reference):
    spec, expected = reference
    out = tmp_path / "run"
    proc = start_run(out, n=60, delay=250, chunk=6)
    wait_for_chunks(out, 1, proc)
    time.sleep(0.1)  # the second chunk is now in flight (each takes >= 250 ms)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 0, stderr
    report = json.loads(stdout.strip().splitlines()[-1])
    assert report["interrupted"] is True and 2 <= report["chunks"] < 10
    manifest = json.loads((out / MANIFEST_NAME).read_text())
    assert len(manifest["chunks"]) == report["chunks"] and manifest["complete"] is False
    partial = read_table(out, "manches", lazy=False)
    assert partial.height == 6 * report["chunks"]
    assert partial.equals(expected[1].slice(0, partial.height))
    result = run(spec, out, chunk_size=25, progress=False)
    assert not result.interrupted and result.games_done == 60 - partial.height
    assert same(content(out), expected)


def test_sigkill_mid_run_resumes_to_identical_content(tmp_path, reference):
    spec, expected = reference
    out = tmp_path / "run"
    proc = start_run(out, n=60, delay=150, chunk=5)
    wait_for_chunks(out, 2, proc)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert not json.loads((out / MANIFEST_NAME).read_text())["complete"]
    result = run(spec, out, chunk_size=7, progress=False)
    assert not result.interrupted and 0 < result.games_done < 60
    assert same(content(out), expected)
    assert json.loads((out / MANIFEST_NAME).read_text())["complete"] is True


def test_sigint_handler_restored(tmp_path):
    before = signal.getsignal(signal.SIGINT)
    run(fakegame.fake_spec(n=5), tmp_path / "run", progress=False)
    assert signal.getsignal(signal.SIGINT) is before
    assert os.path.exists(tmp_path / "run" / MANIFEST_NAME)
