"""Dask scaling: the same Kamoul run (4 players ``balanced``, default rules, hands level) end to end to
Parquet on the local backend (all cores) and on a LocalCluster of 1 and of 2 worker processes (1 thread
each, ``NUMBA_NUM_THREADS=1``, workers writing their own parts), all measured in this one run.

    .venv/bin/python bench/dask_scaling.py [--hands 3000000] [--chunk-size 500000] [--collect workers]

Prints hands/s of each, the ratios to the local backend, the scaling efficiency
``rate(2 workers) / (2 x rate(1 worker))``, the cost of a chunk beyond its games on each (a run of
1-hand chunks: a part file and a manifest update everywhere, plus Dask's scheduling on a cluster), and
the cluster start-up time. Workers are warmed (numba cache loaded) before timing; the three set-ups are
measured in turn, ``--repeats`` rounds, and the best of each is kept (the machine may be shared).
A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

from simulator.core.run.dask_backend import DaskBackend, quiet_dask_logs  # noqa: E402
from simulator.core.run.runner import run  # noqa: E402
from simulator.core.storage.spec import build_spec  # noqa: E402


def spec_of(n: int):
    return build_spec("kamoul", n=n, seed=12345, strategies=["balanced"], level="hands")


def seconds(n: int, chunk: int, backend=None) -> float:
    with tempfile.TemporaryDirectory(dir=ROOT / "runs") as out:
        began = time.perf_counter()
        result = run(spec_of(n), Path(out) / "run", chunk_size=chunk, backend=backend, progress=False)
        took = time.perf_counter() - began
    assert not result.interrupted and result.games_done == n
    return took


def main() -> None:
    from distributed import LocalCluster

    quiet_dask_logs()
    warnings.filterwarnings("ignore", message="Port 8787 is already in use")  # the scheduler's /health server
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=3_000_000)
    parser.add_argument("--chunk-size", type=int, default=500_000)
    parser.add_argument("--collect", choices=["workers", "client"], default="workers")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    (ROOT / "runs").mkdir(exist_ok=True)
    cores = numba.config.NUMBA_NUM_THREADS
    print(f"Kamoul, 4 players balanced, hands level: {args.hands:,} hands in chunks of {args.chunk_size:,}, "
          f"end to end to Parquet (collect={args.collect}); {os.cpu_count()} cores; the three set-ups "
          f"measured in turn, {args.repeats} rounds, best of each")
    seconds(2000, 1000)  # warm-up: load the numba cache here too
    clusters, backends, started = [], {}, {}
    try:
        for workers in (1, 2):
            began = time.perf_counter()
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, env={"NUMBA_NUM_THREADS": "1"})
            started[workers] = time.perf_counter() - began
            clusters.append(cluster)
            backends[workers] = DaskBackend(cluster.scheduler_address, args.collect).__enter__()
            seconds(2000 * workers, 1000, backends[workers])  # warm-up: every worker loads the numba cache
        best = {"local": float("inf"), 1: float("inf"), 2: float("inf")}
        for _ in range(args.repeats):  # in turn, so that a busy moment of a shared machine hits all three
            for name in best:
                best[name] = min(best[name], seconds(args.hands, args.chunk_size, backends.get(name)))
        rate = {name: args.hands / took for name, took in best.items()}
        per_task = {"local": seconds(200, 1) / 200 - 1 / rate["local"]}  # writing a part + the manifest
        for workers in (1, 2):  # many 1-hand tasks: what a task costs beyond its games
            tiny = 200 * workers
            per_task[workers] = workers * seconds(tiny, 1, backends[workers]) / tiny - 1 / rate[workers]
    finally:
        for backend in backends.values():
            backend.close()
        for cluster in clusters:
            cluster.close()
    local, one, two = rate["local"], rate[1], rate[2]
    print(f"local backend ({cores} numba threads):      {local:>12,.0f} hands/s   1.00x")
    print(f"dask, 1 worker x 1 thread:              {one:>12,.0f} hands/s   {one / local:.2f}x local")
    print(f"dask, 2 workers x 1 thread:             {two:>12,.0f} hands/s   {two / local:.2f}x local")
    print(f"scaling efficiency rate(2) / (2 x rate(1)): {two / (2 * one):.2f}")
    print(f"LocalCluster start-up: {started[1]:.2f} s (1 worker), {started[2]:.2f} s (2 workers)")
    print(f"cost of a chunk beyond its games (1-hand chunks): local {1000 * per_task['local']:.1f} ms, "
          f"1 worker {1000 * per_task[1]:.1f} ms, 2 workers {1000 * per_task[2]:.1f} ms per worker")
    dask_only = per_task[1] - per_task["local"]
    chunk_seconds = args.chunk_size / one
    print(f"Dask's own cost per task (1 worker minus local): {1000 * dask_only:.1f} ms = {100 * dask_only / chunk_seconds:.3f}% "
          f"of a {args.chunk_size:,}-hand chunk ({chunk_seconds:.2f} s on one worker)")


if __name__ == "__main__":
    main()
