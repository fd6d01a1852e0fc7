"""What watching a run costs: ``api.simulate`` to Parquet with progress on (each chunk played in slices, so the
count moves within a chunk) against progress off (one call per chunk), alternated in one process.

    .venv/bin/python bench/progress_slices.py [GAME] [-n N] [--rounds R]

Prints each side's best rate and the ratio watched / quiet. Progress goes to stderr as log lines (run it with
stderr to a file or a pipe) or as a bar. A script, not a test: nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time

from common import api  # noqa: F401  (puts the project on sys.path)

from simulator.core.run.runner import run
from simulator.core.storage.spec import build_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", nargs="?", default="kamoul")
    parser.add_argument("-n", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    spec = build_spec(args.game, n=args.n, seed=1)
    run(build_spec(args.game, n=100, seed=1), tempfile.mkdtemp(), progress=False)  # compile or load
    best = {"quiet": float("inf"), "watched": float("inf")}
    for _ in range(args.rounds):
        for side in best:
            began = time.perf_counter()
            run(spec, tempfile.mkdtemp(), progress=side == "watched")
            best[side] = min(best[side], time.perf_counter() - began)
    unit = spec.level
    for side, seconds in best.items():
        print(f"{side}: {args.n / seconds:,.0f} {unit}/s", file=sys.stdout)
    print(f"watched / quiet: {best['quiet'] / best['watched']:.3f}")


if __name__ == "__main__":
    main()
