"""Rami throughput, 4 players ``open-asap``, default rules, rounds level: one figure per line.

    .venv/bin/python bench/rami_throughput.py [--rounds 40000] [--reference-rounds 300] [--openspiel-games 3000]

Prints the numba kernel's rounds/s on 1 thread and on all cores, the reference engine's rounds/s and the
ratios between them (baselines measured in the same run: these machines are noisy), the end-to-end
``api.simulate("rami", ...)`` throughput writing Parquet, and, as the nearest existing engine, OpenSpiel's
C++ gin rummy games/s with its simple bot (``pyspiel.evaluate_bots`` on cloned initial states, one
thread) with the ratios against it. OpenSpiel is optional (``pip install 'cardsim[bench]'``); without it
that part is skipped. A script, not a test: nothing is asserted.
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
from simulator.rami.engine import raw_kernel, raw_reference  # noqa: E402
from simulator.rami.rules import Rules  # noqa: E402

SEATS = ["open-asap"] * 4
SEED = 12345
LEVEL = "rounds"


def best_rate(fn, n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - began)
    return n / best


def openspiel_rate(games: int) -> float | None:
    """Gin rummy games/s of OpenSpiel's C++ simple bot against itself, or None without open_spiel."""
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("gin_rummy")
    params = game.get_parameters()
    bots = [pyspiel.make_simple_gin_rummy_bot(params, p) for p in range(game.num_players())]
    initial = game.new_initial_state()
    for seed in range(20):  # warm up
        pyspiel.evaluate_bots(initial.clone(), bots, seed)
    began = time.perf_counter()
    for seed in range(games):
        pyspiel.evaluate_bots(initial.clone(), bots, seed)
    return games / (time.perf_counter() - began)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40_000,
                        help="rounds for the all-cores and end-to-end figures (about 5 s of work or more on all cores)")
    parser.add_argument("--reference-rounds", type=int, default=300)
    parser.add_argument("--openspiel-games", type=int, default=3_000)
    parser.add_argument("--repeats", type=int, default=3, help="best of this many runs per kernel figure")
    args = parser.parse_args()
    cores = numba.config.NUMBA_NUM_THREADS
    rules = Rules()

    def kernel(n: int, threads: int):
        return raw_kernel(rules, SEATS, SEED, 0, n, LEVEL, threads=threads)

    began = time.perf_counter()
    kernel(10, cores)  # compile or load the cached kernel
    print(f"kernel first call (compile or cache load): {time.perf_counter() - began:.1f} s")

    n1 = max(args.rounds // 4, 1)
    numba.set_num_threads(1)
    kernel(min(n1, 200), 1)  # warm up on 1 thread
    one = best_rate(lambda: kernel(n1, 1), n1, args.repeats)
    print(f"kernel, 1 thread: {one:,.0f} rounds/s ({n1:,} rounds)")
    numba.set_num_threads(cores)
    kernel(min(args.rounds, 200 * cores), cores)  # warm up on all cores
    allc = best_rate(lambda: kernel(args.rounds, cores), args.rounds, args.repeats)
    print(f"kernel, {cores} threads: {allc:,.0f} rounds/s ({args.rounds:,} rounds)")

    nr = args.reference_rounds
    raw_reference(rules, SEATS, SEED, 0, 20, LEVEL)  # compile or load the strategy functions the reference engine calls
    ref = best_rate(lambda: raw_reference(rules, SEATS, SEED, 0, nr, LEVEL), nr, 1)
    print(f"reference engine: {ref:,.0f} rounds/s ({nr:,} rounds)")
    print(f"kernel 1 thread / reference: {one / ref:,.0f}x")
    print(f"kernel {cores} threads / reference: {allc / ref:,.0f}x")

    with tempfile.TemporaryDirectory() as tmp:
        began = time.perf_counter()
        result = api.simulate("rami", n=args.rounds, seed=SEED, out=Path(tmp) / "run", progress=False)
        seconds = time.perf_counter() - began
        size = sum(p.stat().st_size for p in (Path(tmp) / "run").rglob("*.parquet"))
    print(f"end-to-end api.simulate to Parquet: {result.games_done / seconds:,.0f} rounds/s "
          f"({result.games_done:,} rounds, {result.chunks_written} chunks, {size / 1e6:.1f} MB)")

    gin = openspiel_rate(args.openspiel_games)
    if gin is None:
        print("OpenSpiel gin rummy: skipped, open_spiel is not installed "
              "(pip install 'cardsim[bench]', or .venv/bin/pip install open_spiel)")
        return
    print(f"OpenSpiel gin rummy, C++ simple bot, 1 thread: {gin:,.0f} games/s ({args.openspiel_games:,} games)")
    print(f"cardsim rami kernel {cores} threads rounds/s / OpenSpiel games/s: {allc / gin:,.2f}x")
    print(f"per core, cardsim rami kernel 1 thread rounds/s / OpenSpiel games/s: {one / gin:,.2f}x")


if __name__ == "__main__":
    main()
