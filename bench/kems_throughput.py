"""Kem's throughput, 4 players of the default strategy (``balanced``), default rules, manches level.

    .venv/bin/python bench/kems_throughput.py [--manches 400000] [--reference-manches 1000]

Prints the numba kernel's manches/s on 1 thread and on all cores, the reference engine's manches/s and the
ratios between them (the baseline is measured in the same run: these machines are noisy), and the end-to-end
``api.simulate("kems", ...)`` throughput writing Parquet. The issue's bar: 200,000 manches/s on 2 cores as the
target, 30,000 as the floor. A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

from simulator import api  # noqa: E402
from simulator.kems.engine import raw_kernel, raw_reference  # noqa: E402
from simulator.kems.rules import Rules  # noqa: E402
from strategies.kems import DEFAULT_STRATEGY  # noqa: E402

SEATS = [DEFAULT_STRATEGY] * 4
SEED = 12345
LEVEL = "manches"


def best_rate(fn, n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return n / best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manches", type=int, default=400_000,
                        help="manches for the all-cores and end-to-end figures (several seconds of work)")
    parser.add_argument("--reference-manches", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per kernel figure")
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    rules = Rules()

    def kernel(n: int, threads: int):
        return raw_kernel(rules, SEATS, SEED, 0, n, LEVEL, threads=threads)

    began = time.perf_counter()
    kernel(10, cores)  # compile or load the cached kernel
    print(f"kernel first call (compile or cache load): {time.perf_counter() - began:.1f} s")

    n1 = max(args.manches // 4, 1)
    numba.set_num_threads(1)
    kernel(min(n1, 1000), 1)
    one = best_rate(lambda: kernel(n1, 1), n1, args.repeats)
    print(f"kernel, 1 thread: {one:,.0f} manches/s ({n1:,} manches)")
    numba.set_num_threads(cores)
    kernel(min(args.manches, 1000 * cores), cores)
    allc = best_rate(lambda: kernel(args.manches, cores), args.manches, args.repeats)
    print(f"kernel, {cores} threads: {allc:,.0f} manches/s ({args.manches:,} manches)")

    nr = args.reference_manches
    raw_reference(rules, SEATS, SEED, 0, 20, LEVEL)  # load the strategy functions the reference engine calls
    ref = best_rate(lambda: raw_reference(rules, SEATS, SEED, 0, nr, LEVEL), nr, 1)
    print(f"reference engine: {ref:,.0f} manches/s ({nr:,} manches)")
    print(f"kernel 1 thread / reference: {one / ref:,.0f}x")
    print(f"kernel {cores} threads / reference: {allc / ref:,.0f}x")
    print(f"kernel {cores} threads / target 200,000 manches/s: {allc / 200_000:.2f}; / floor 30,000: {allc / 30_000:.2f}")

    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        result = api.simulate("kems", n=args.manches, seed=SEED, out=Path(tmp) / "run", progress=False)
        seconds = time.perf_counter() - began
        size = sum(p.stat().st_size for p in (Path(tmp) / "run").rglob("*.parquet"))
    print(f"end-to-end api.simulate to Parquet: {result.games_done / seconds:,.0f} manches/s "
          f"({result.games_done:,} manches, {result.chunks_written} chunks, {size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
