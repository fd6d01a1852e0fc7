"""What the throughput scripts share: best-of-N timing, the kernel on one thread and on all cores, the reference
engine as the baseline measured in the same process, and the end-to-end ``api.simulate`` to Parquet."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import numba  # noqa: E402

import cardsim as api  # noqa: E402

CORES = numba.config.NUMBA_NUM_THREADS


def best_rate(play: Callable[[], object], n: int, repeats: int) -> float:
    """``n`` divided by the shortest of ``repeats`` timings of ``play()``."""
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        play()
        best = min(best, time.perf_counter() - began)
    return n / best


def kernel_rates(kernel: Callable[[int, int], object], n: int, unit: str, repeats: int, warm_up: int) -> tuple[float, float]:
    """Print and return the kernel's rate on 1 thread (``n // 4`` games) and on all cores (``n``);
    ``kernel(games, threads)`` plays that many games; ``warm_up`` games per thread are played first."""
    began = time.perf_counter()
    kernel(10, CORES)  # compile or load the cached kernel
    print(f"kernel first call (compile or cache load): {time.perf_counter() - began:.1f} s")
    n1 = max(n // 4, 1)
    numba.set_num_threads(1)
    kernel(min(n1, warm_up), 1)
    one = best_rate(lambda: kernel(n1, 1), n1, repeats)
    print(f"kernel, 1 thread: {one:,.0f} {unit}/s ({n1:,} {unit})")
    numba.set_num_threads(CORES)
    kernel(min(n, warm_up * CORES), CORES)
    every = best_rate(lambda: kernel(n, CORES), n, repeats)
    print(f"kernel, {CORES} threads: {every:,.0f} {unit}/s ({n:,} {unit})")
    return one, every


def reference_rate(reference: Callable[[int], object], n: int, unit: str, kernel: tuple[float, float]) -> float:
    """Print the reference engine's rate over ``n`` games (``reference(games)``) and the kernel's ratios to it."""
    reference(20)  # load the strategy functions the reference engine calls
    rate = best_rate(lambda: reference(n), n, 1)
    print(f"reference engine: {rate:,.0f} {unit}/s ({n:,} {unit})")
    print(f"kernel 1 thread / reference: {kernel[0] / rate:,.0f}x")
    print(f"kernel {CORES} threads / reference: {kernel[1] / rate:,.0f}x")
    return rate


def end_to_end(game: str, n: int, unit: str, **spec) -> float:
    """Print the rate of ``api.simulate(game, n=n, **spec)`` writing Parquet into a temporary directory."""
    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        result = api.simulate(game, n=n, out=Path(tmp) / "run", progress=False, **spec)
        seconds = time.perf_counter() - began
        size = sum(p.stat().st_size for p in (Path(tmp) / "run").rglob("*.parquet"))
    rate = result.games_done / seconds
    print(f"end-to-end api.simulate to Parquet: {rate:,.0f} {unit}/s "
          f"({result.games_done:,} {unit}, {result.chunks_written} chunks, {size / 1e6:.1f} MB)")
    return rate


YARDSTICK = ROOT.parent / "shared" / "yardsticks" / "kamoul_proto.py"
"""The simplified numba Kamoul that Kamoul's speed is read against (outside the repository; absent: no ratio)."""
YARDSTICK_FIGURE = re.compile(r"^(\d+) threads?: ([\d,]+) rounds/s", re.MULTILINE)


def yardstick_rates(rounds: int, path: Path = YARDSTICK) -> dict[int, float]:
    """``{threads: rounds/s}`` printed by the yardstick script at ``path`` (its own process, ``rounds`` rounds per
    figure, on 1 thread and on all cores); ``{}`` when the script is not there."""
    if not path.is_file():
        return {}
    out = subprocess.run([sys.executable, str(path), str(rounds)], capture_output=True, text=True, check=True).stdout
    return {int(threads): float(rate.replace(",", "")) for threads, rate in YARDSTICK_FIGURE.findall(out)}


def print_yardstick_ratios(kernel: dict[int, float], rounds: int, path: Path = YARDSTICK) -> dict[int, float]:
    """Measure the yardstick now (the same run as the kernel's ``{threads: hands/s}``) and print each ratio
    ``kernel, T threads / yardstick: 0.33x``; returns the yardstick's rates."""
    rates = yardstick_rates(rounds, path)
    if not rates:
        print(f"yardstick: not found at {path}, no ratio")
    for threads, rate in sorted(rates.items()):
        print(f"yardstick, {threads} thread{'s' if threads != 1 else ''}: {rate:,.0f} rounds/s")
        if threads in kernel:
            print(f"kernel / yardstick, {threads} thread{'s' if threads != 1 else ''}: {kernel[threads] / rate:.3f}x")
    return rates
