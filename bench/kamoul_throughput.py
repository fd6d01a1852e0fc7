"""Kamoul throughput, 4 players ``balanced``, default rules, hands level: one figure per line.

    .venv/bin/python bench/kamoul_throughput.py [--hands 1000000] [--reference-hands 3000]

Prints the numba kernel's hands/s on 1 thread and on all cores, the reference engine's hands/s and the
ratio between the two (a baseline measured in the same run: these machines are noisy), the end-to-end
``runner.run`` throughput writing Parquet, and the start-up time of a fresh process that runs a 1-hand
simulation with a warm numba cache (so without compilation). A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

from simulator.core.runner import run  # noqa: E402
from simulator.core.spec import build_spec  # noqa: E402
from simulator.kamoul.engine import raw_kernel, raw_reference  # noqa: E402

COLD_START = """
import tempfile, time
t0 = time.perf_counter()
from simulator import api
with tempfile.TemporaryDirectory() as out:
    api.simulate("kamoul", n=1, seed=1, out=out + "/run", progress=False)
print(time.perf_counter() - t0)
"""


def spec_of(n: int):
    return build_spec("kamoul", n=n, seed=12345, strategies=["balanced"], level="hands")


def best_rate(fn, n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands for the all-cores and end-to-end figures")
    parser.add_argument("--reference-hands", type=int, default=3_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per kernel figure")
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS

    began = time.perf_counter()
    raw_kernel(spec_of(10), 0, 10)  # compile or load the cached kernel
    print(f"kernel first call (compile or cache load): {time.perf_counter() - began:.1f} s")

    n1 = max(args.hands // 4, 1)
    numba.set_num_threads(1)
    one = best_rate(lambda: raw_kernel(spec_of(n1), 0, n1, threads=1), n1, args.repeats)
    print(f"kernel, 1 thread: {one:,.0f} hands/s ({n1:,} hands)")
    numba.set_num_threads(cores)
    allc = best_rate(lambda: raw_kernel(spec_of(args.hands), 0, args.hands, threads=cores), args.hands, args.repeats)
    print(f"kernel, {cores} threads: {allc:,.0f} hands/s ({args.hands:,} hands)")

    nr = args.reference_hands
    raw_reference(spec_of(20), 0, 20)  # compile or load the strategy functions the reference engine calls
    ref = best_rate(lambda: raw_reference(spec_of(nr), 0, nr), nr, 1)
    print(f"reference engine: {ref:,.0f} hands/s ({nr:,} hands)")
    print(f"kernel 1 thread / reference: {one / ref:,.0f}x")
    print(f"kernel {cores} threads / reference: {allc / ref:,.0f}x")

    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        result = run(spec_of(args.hands), Path(tmp) / "run", progress=False)
        seconds = time.perf_counter() - began
        size = sum(p.stat().st_size for p in (Path(tmp) / "run").rglob("*.parquet"))
    print(f"end-to-end runner.run to Parquet: {result.games_done / seconds:,.0f} hands/s "
          f"({result.games_done:,} hands, {result.chunks_written} chunks, {size / 1e6:.0f} MB)")

    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", COLD_START], cwd=ROOT, capture_output=True, text=True, check=True)
    total = time.perf_counter() - began
    print(f"cold start, fresh process, warm cache, 1-hand simulate: {total:.2f} s "
          f"(import + run inside the process: {float(proc.stdout.split()[-1]):.2f} s)")


if __name__ == "__main__":
    main()
