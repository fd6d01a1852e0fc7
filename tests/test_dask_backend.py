"""The Dask backend on a LocalCluster of two worker processes on 127.0.0.1: the same datasets as the
local backend for every game, worker-side and client-side writing, a worker killed mid-run, a client
killed mid-run, a scheduler lost mid-run, and bad scheduler addresses."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

distributed = pytest.importorskip("distributed")

import cardsim as api  # noqa: E402
from cli import main  # noqa: E402
from simulator.core.errors import SpecError  # noqa: E402
from simulator.core.run.dask_backend import DaskBackend, check_address  # noqa: E402
from simulator.core.storage.store import read_table  # noqa: E402

# with no dashboard the scheduler still serves /health over HTTP, on 8787 or, when a parallel test has it,
# on another port with this warning
# and all of this file's tests go to one xdist worker (--dist loadgroup), so that one cluster serves them
pytestmark = [pytest.mark.filterwarnings("ignore:Port 8787 is already in use"), pytest.mark.xdist_group("dask")]

ROOT = Path(__file__).resolve().parents[1]
WORKER_ENV = {"NUMBA_NUM_THREADS": "1"}

# (game, n, chunk size): several chunks each, small enough to keep this file quick
RUNS = {"kamoul": (30_000, 4_000), "rami": (2_000, 300), "kems": (1_500, 200)}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None, env=WORKER_ENV) as local:
        yield local


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """The local backend's run of each game of RUNS, made once."""
    base = tmp_path_factory.mktemp("local")
    out = {}
    for game, (n, chunk) in RUNS.items():
        api.simulate(game, out=base / game, n=n, seed=7, chunk_size=chunk, progress=False)
        out[game] = base / game
    return out


def tables_of(out):
    return api.run_spec(out).plugin.tables(api.run_spec(out).level)


def assert_same_dataset(got: Path, expected: Path):
    """Same tables, same rows and values in the same order, same part files (same chunk boundaries)."""
    for table in tables_of(expected):
        assert sorted(p.name for p in (got / table).iterdir()) == sorted(p.name for p in (expected / table).iterdir())
        assert read_table(got, table, lazy=False).equals(read_table(expected, table, lazy=False)), table


@pytest.mark.parametrize("game", list(RUNS))
def test_identical_to_local_backend_workers_write(cluster, references, tmp_path, game):
    n, chunk = RUNS[game]
    result = api.simulate(game, out=tmp_path / "run", n=n, seed=7, chunk_size=chunk, progress=False,
                          scheduler=cluster.scheduler_address)
    assert not result.interrupted and result.games_done == n and result.chunks_written == -(-n // chunk)
    assert_same_dataset(tmp_path / "run", references[game])
    assert not (tmp_path / "run" / ".tmp").exists()


def test_client_collection(cluster, references, tmp_path):
    n, chunk = RUNS["kamoul"]
    result = api.simulate("kamoul", out=tmp_path / "run", n=n, seed=7, chunk_size=chunk, progress=False,
                          scheduler=cluster.scheduler_address, collect="client")
    assert not result.interrupted and result.games_done == n
    assert_same_dataset(tmp_path / "run", references["kamoul"])


def test_a_killed_worker_loses_and_duplicates_nothing(cluster, tmp_path):
    n, chunk = 400_000, 40_000
    out = tmp_path / "run"
    killed = {}
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        pids = client.run(os.getpid)

        def kill_a_busy_worker():
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and not killed:
                if (out / "hands").is_dir() and any((out / "hands").iterdir()):
                    busy = [w for w, keys in client.processing().items() if keys and w in pids]
                    if busy:
                        killed["parts"] = len(list((out / "hands").iterdir()))
                        os.kill(pids[busy[0]], signal.SIGKILL)
                        killed["pid"] = pids[busy[0]]
                        return
                time.sleep(0.005)

        killer = threading.Thread(target=kill_a_busy_worker)
        killer.start()
        result = api.simulate("kamoul", out=out, n=n, seed=3, chunk_size=chunk, progress=False,
                              scheduler=cluster.scheduler_address)
        killer.join()
        client.wait_for_workers(2, timeout=60)  # the nanny restarts it, for the tests that follow
    assert killed and killed["parts"] < n // chunk, "the worker was not killed mid-run"
    assert not result.interrupted
    hands = read_table(out, "hands", lazy=False)
    assert hands.height == n and hands["game"].n_unique() == n
    assert hands["game"].to_list() == list(range(n))
    local = api.simulate("kamoul", out=tmp_path / "local", n=n, seed=3, chunk_size=chunk, progress=False)
    assert not local.interrupted
    assert_same_dataset(out, tmp_path / "local")


def cli_command(out, game, n, chunk, address, *extra):
    return [sys.executable, str(ROOT / "cli.py"), "simulate", game, "-n", str(n), "--seed", "7",
            "--chunk-size", str(chunk), "--out", str(out), "--scheduler", address, "--quiet", *extra]


def wait_for_parts(folder: Path, count: int, proc, timeout=60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if folder.is_dir() and len([p for p in folder.iterdir() if p.name.startswith("part-")]) >= count:
            return
        time.sleep(0.01)
    proc.kill()
    pytest.fail("the run wrote no part in time")


@pytest.mark.slow
def test_a_killed_client_resumes_to_the_same_dataset(cluster, tmp_path):
    n, chunk = 300_000, 20_000
    out = tmp_path / "run"
    proc = subprocess.Popen(cli_command(out, "kamoul", n, chunk, cluster.scheduler_address),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for_parts(out / "hands", 2, proc)
    proc.kill()
    proc.communicate()
    assert len(list((out / "hands").iterdir())) < n // chunk
    again = subprocess.run(cli_command(out, "kamoul", n, chunk, cluster.scheduler_address), capture_output=True,
                           text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    api.simulate("kamoul", out=tmp_path / "local", n=n, seed=7, chunk_size=chunk, progress=False)
    assert_same_dataset(out, tmp_path / "local")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_lost_scheduler_stops_the_run_and_keeps_what_is_finished(cluster, tmp_path):
    dask = str(Path(sys.executable).parent / "dask")
    address = f"tcp://127.0.0.1:{free_port()}"
    started = []
    try:
        scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", address.rsplit(":", 1)[1],
                                      "--no-dashboard"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(scheduler)
        worker = subprocess.Popen([dask, "worker", address, "--nthreads", "1", "--no-nanny", "--no-dashboard"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ, **WORKER_ENV))
        started.append(worker)
        n, chunk = 1_000_000, 25_000
        out = tmp_path / "run"
        proc = subprocess.Popen(cli_command(out, "kamoul", n, chunk, address), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        wait_for_parts(out / "hands", 3, proc)
        scheduler.kill()
        began = time.monotonic()
        _, stderr = proc.communicate(timeout=60)
        assert time.monotonic() - began < 30
    finally:
        for p in started:
            p.kill()
            p.wait()
    assert proc.returncode == 3, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: lost the Dask scheduler"), stderr
    kept = len(list((out / "hands").iterdir()))
    assert 3 <= kept < n // chunk
    # the same command on a working cluster finishes it, to the dataset an uninterrupted run writes
    result = api.simulate("kamoul", out=out, n=n, seed=7, chunk_size=chunk, progress=False,
                          scheduler=cluster.scheduler_address)
    assert not result.interrupted and result.games_done <= n - kept * chunk
    api.simulate("kamoul", out=tmp_path / "local", n=n, seed=7, chunk_size=chunk, progress=False)
    assert_same_dataset(out, tmp_path / "local")


@pytest.mark.parametrize("address, reason", [("tcp://127.0.0.1:1", "cannot be reached"),
                                             ("nonsense", "is not a scheduler address"),
                                             ("tcp://127.0.0.1:70000", "is not a scheduler address")])
def test_a_bad_scheduler_address_is_one_line_and_exit_2(tmp_path, capsys, address, reason):
    began = time.monotonic()
    code = main(["simulate", "kamoul", "-n", "100", "--out", str(tmp_path / "run"), "--scheduler", address, "--quiet"])
    assert code == 2
    assert time.monotonic() - began < 30
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: --scheduler: ") and reason in err[0], err
    assert not (tmp_path / "run").exists()


def test_the_environment_names_the_scheduler(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "nonsense")
    assert main(["simulate", "kamoul", "-n", "100", "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "--scheduler: 'nonsense'" in capsys.readouterr().err
    assert main(["simulate", "kamoul", "-n", "100", "--out", str(tmp_path / "run"), "--quiet",
                 "--scheduler", "local"]) == 0


def test_parts_the_client_cannot_see_stop_the_run(tmp_path):
    """Worker-written parts must be visible to the client (shared storage); else one clear line."""
    from simulator.core.storage.spec import build_spec
    from simulator.core.storage.store import open_run, part_name, write_parts

    spec = build_spec("kamoul", n=20, seed=1)
    store = open_run(tmp_path / "run", spec, ("hands",))
    began = time.monotonic()
    with pytest.raises(SpecError, match="^--out: .*--collect client"):
        store.record_chunk(0, 10, wait=0.5)
    assert 0.5 <= time.monotonic() - began < 5
    frames = spec.plugin.simulate_chunk(spec, 0, 10, 1)
    records = write_parts(tmp_path / "run", spec, ("hands",), 0, 10, frames)
    assert records["hands"]["rows"] == 10 and records["hands"]["size"] == (tmp_path / "run" / "hands" /
                                                                            part_name(0, 10)).stat().st_size
    before = (tmp_path / "run" / "hands").stat().st_mtime_ns, sorted((tmp_path / "run" / "hands").iterdir())
    write_parts(tmp_path / "run", spec, ("hands",), 0, 10, frames)  # a retried task: kept as it is
    assert before == ((tmp_path / "run" / "hands").stat().st_mtime_ns, sorted((tmp_path / "run" / "hands").iterdir()))
    assert store.record_chunk(0, 10, records, wait=0) and not store.record_chunk(0, 10, wait=0)
    assert store.parts["hands/" + part_name(0, 10)] == records["hands"]
    assert store.missing_ranges() == [(10, 20)]


def test_address_forms():
    assert check_address("tcp://10.0.0.1:8786") == "tcp://10.0.0.1:8786"
    assert check_address("head:8786") == "tcp://head:8786"
    assert check_address("tls://[::1]:8786") == "tls://[::1]:8786"
    for bad in ("", "tcp://host", "http://host:80", "host:0", 8786, None):
        with pytest.raises(SpecError, match="^--scheduler: "):
            check_address(bad)
    with pytest.raises(SpecError, match="^--collect: "):
        DaskBackend("tcp://127.0.0.1:8786", collect="everywhere")
    assert DaskBackend.check_threads(64) == 64 and DaskBackend.check_threads(None) is None
    with pytest.raises(SpecError, match="^--threads: "):
        DaskBackend.check_threads(0)


TUNE_SMALL = dict(strategy="heuristic", params=["call_threshold=0:10", "max_unknown_at_call"],
                  against="balanced,aggressive", players=2, budget=4, seed=5, deals=40, confirm_deals=60)


def test_tune_on_the_cluster_finds_what_it_finds_here(cluster, tmp_path):
    """`cardsim tune --scheduler`: every evaluation (trials, race, confirmation duels) played as tasks on the
    cluster, cut into slices of deals; the same trials, race, confirmation and tuned player as on this machine."""
    here = api.tune("kamoul", out=tmp_path / "here", progress=False, **TUNE_SMALL)
    there = api.tune("kamoul", out=tmp_path / "there", progress=False, scheduler=cluster.scheduler_address,
                     **TUNE_SMALL)
    played = cluster.scheduler.task_prefixes.get("play_on_worker")
    assert played is not None and sum(played.state_counts.values()) >= 4 * 2 * 2  # trials x opponents x seatings
    assert there.best == here.best
    for name in ("trials", "race", "confirm"):
        assert there.frames[name].equals(here.frames[name]), name


def test_tune_with_an_unreachable_scheduler_writes_nothing(tmp_path, capsys):
    code = main(["tune", "kamoul", "--strategy", "heuristic", "--against", "balanced", "--budget", "2",
                 "--out", str(tmp_path / "t"), "--scheduler", "tcp://127.0.0.1:1", "--quiet"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("Error: --scheduler: ") and "cannot be reached" in err[0], err
    assert not (tmp_path / "t").exists()


@pytest.mark.slow  # each worker compiles the kernel's call through the function table (about a minute, once)
def test_a_strategy_from_a_file_plays_the_same_rows_on_the_cluster(cluster, tmp_path):
    """A user's numba strategy file (on storage the workers share, at the same path) is compiled by each worker
    for its own process and plays the rows the local backend plays."""
    strategies = [f"{ROOT}/examples/kamoul_balanced_copy.py:balanced-copy", "aggressive"] * 2
    here = api.simulate("kamoul", out=tmp_path / "here", n=6_000, seed=3, chunk_size=1_500, strategies=strategies,
                        progress=False)
    there = api.simulate("kamoul", out=tmp_path / "there", n=6_000, seed=3, chunk_size=1_500, strategies=strategies,
                         progress=False, scheduler=cluster.scheduler_address)
    assert not here.interrupted and not there.interrupted
    assert_same_dataset(tmp_path / "there", tmp_path / "here")
