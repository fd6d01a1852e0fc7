"""Kamoul throughput, 4 players ``balanced``, default rules, hands level: one figure per line.

    .venv/bin/python bench/kamoul_throughput.py [--hands 1000000] [--reference-hands 3000]

Prints the numba kernel's hands/s on 1 thread and on all cores; the yardstick (the simplified numba Kamoul of
``../shared/yardsticks``, rounds/s) measured in the same run and the kernel's ratio to it, the figure Kamoul's
speed target is set in; the reference engine's hands/s and the ratio between the two (a baseline measured in the
same run: these machines are noisy); the end-to-end ``api.simulate`` throughput writing Parquet; and the start-up
time of a fresh process that runs a 1-hand simulation with a warm numba cache (so without compilation). A script,
not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from common import CORES, ROOT, YARDSTICK, end_to_end, kernel_rates, print_yardstick_ratios, reference_rate

from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import raw_kernel, raw_reference

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="hands for the all-cores and end-to-end figures")
    parser.add_argument("--reference-hands", type=int, default=3_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per kernel figure")
    parser.add_argument("--yardstick", type=Path, default=YARDSTICK,
                        help="the simplified numba Kamoul the kernel is read against (ratio printed if it exists)")
    parser.add_argument("--yardstick-rounds", type=int, default=1_000_000)
    args = parser.parse_args()
    rates = kernel_rates(lambda n, threads: raw_kernel(spec_of(n), 0, n, threads=threads), args.hands, "hands",
                         args.repeats, warm_up=1000)
    print_yardstick_ratios({1: rates[0], CORES: rates[1]}, args.yardstick_rounds, args.yardstick)
    reference_rate(lambda n: raw_reference(spec_of(n), 0, n), args.reference_hands, "hands", rates)
    end_to_end("kamoul", args.hands, "hands", seed=12345, strategies=["balanced"], level="hands")

    began = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", COLD_START], cwd=ROOT, capture_output=True, text=True, check=True)
    total = time.perf_counter() - began
    print(f"cold start, fresh process, warm cache, 1-hand simulate: {total:.2f} s "
          f"(import + run inside the process: {float(proc.stdout.split()[-1]):.2f} s)")


if __name__ == "__main__":
    main()
