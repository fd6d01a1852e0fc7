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
import time

from common import CORES, end_to_end, kernel_rates, reference_rate

from simulator.rami.engines.engine import raw_kernel, raw_reference
from simulator.rami.vocabulary.rules import Rules

SEATS = ["open-asap"] * 4
SEED = 12345
LEVEL = "rounds"


def openspiel_rate(games: int) -> float | None:
    """Gin rummy games/s of OpenSpiel's C++ simple bot against itself, or None without open_spiel or games."""
    if games < 1:
        return None
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
    rules = Rules()
    one, every = kernel_rates(lambda n, threads: raw_kernel(rules, SEATS, SEED, 0, n, LEVEL, threads=threads),
                              args.rounds, "rounds", args.repeats, warm_up=200)
    reference_rate(lambda n: raw_reference(rules, SEATS, SEED, 0, n, LEVEL), args.reference_rounds, "rounds",
                   (one, every))
    end_to_end("rami", args.rounds, "rounds", seed=SEED)

    gin = openspiel_rate(args.openspiel_games)
    if gin is None:
        print("OpenSpiel gin rummy: skipped, open_spiel is not installed "
              "(pip install 'cardsim[bench]', or .venv/bin/pip install open_spiel)")
        return
    print(f"OpenSpiel gin rummy, C++ simple bot, 1 thread: {gin:,.0f} games/s ({args.openspiel_games:,} games)")
    print(f"cardsim rami kernel {CORES} threads rounds/s / OpenSpiel games/s: {every / gin:,.2f}x")
    print(f"per core, cardsim rami kernel 1 thread rounds/s / OpenSpiel games/s: {one / gin:,.2f}x")


if __name__ == "__main__":
    main()
