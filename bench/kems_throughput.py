"""Kem's throughput, 4 players of the default strategy (``balanced``), default rules, manches level.

    .venv/bin/python bench/kems_throughput.py [--manches 400000] [--reference-manches 1000]

Prints the numba kernel's manches/s on 1 thread and on all cores, the reference engine's manches/s and the
ratios between them (the baseline is measured in the same run: these machines are noisy), and the end-to-end
``api.simulate("kems", ...)`` throughput writing Parquet. The issue's bar: 200,000 manches/s on 2 cores as the
target, 30,000 as the floor. A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse

from common import end_to_end, kernel_rates, reference_rate

from simulator.kems.engines.engine import raw_kernel, raw_reference
from simulator.kems.vocabulary.rules import Rules
from strategies.kems import DEFAULT_STRATEGY

SEATS = [DEFAULT_STRATEGY] * 4
SEED = 12345
LEVEL = "manches"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manches", type=int, default=400_000,
                        help="manches for the all-cores and end-to-end figures (several seconds of work)")
    parser.add_argument("--reference-manches", type=int, default=1_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per kernel figure")
    args = parser.parse_args()
    rules = Rules()
    rates = kernel_rates(lambda n, threads: raw_kernel(rules, SEATS, SEED, 0, n, LEVEL, threads=threads),
                         args.manches, "manches", args.repeats, warm_up=1000)
    reference_rate(lambda n: raw_reference(rules, SEATS, SEED, 0, n, LEVEL), args.reference_manches, "manches", rates)
    print(f"kernel all threads / target 200,000 manches/s: {rates[1] / 200_000:.2f}; / floor 30,000: "
          f"{rates[1] / 30_000:.2f}")
    end_to_end("kems", args.manches, "manches", seed=SEED)


if __name__ == "__main__":
    main()
