"""Strength against time of the searching Kamoul player: duels against the tuned player, and the time a search costs.

    .venv/bin/python bench/search_strength.py [--worlds 4 8 16 32] [--players 4 2] [--deals 600] [--threads 2]

For each table size and each number of worlds: the time of one searched turn (a table with one ``search`` seat
and the tuned player at the others, against the same table all tuned, per searched turn: the extra time divided by
the search seat's turns, about a quarter of the table's at four players), then a duel of ``search:worlds=W``
against ``tuned-<P>p`` (``analysis.duel.duel``: paired deals, whole manches, Wald's sequential test with delta
0.05, at most ``--deals`` deals), with A's share of won deals and its 95% interval, the mean points per hand gap,
and the wall time per manche. Prints one line per cell and a table at the end; a script, not a test.
"""

from __future__ import annotations

import argparse
import time

import simulator.games  # noqa: F401  (registers the games)
from analysis.duel import duel
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import raw_kernel
from simulator.kamoul.vocabulary.records import HAND


def searched_turn_seconds(worlds: int, players: int, hands: int, threads: int) -> float:
    """Seconds per turn of one ``search:worlds=W`` seat, the rest of the table ``tuned-<P>p`` (see the docstring)."""
    tuned = f"tuned-{4 if players > 2 else 2}p"
    seats = [f"search:worlds={worlds}"] + [tuned] * (players - 1)
    searched_spec = build_spec("kamoul", n=hands, seed=1, players=players, strategies=seats)
    plain_spec = build_spec("kamoul", n=hands, seed=1, players=players, strategies=[tuned])
    raw_kernel(searched_spec, 0, min(hands, 50), threads)  # compiled or loaded before the clock starts
    raw_kernel(plain_spec, 0, min(hands, 50), threads)
    began = time.perf_counter()
    rows = raw_kernel(searched_spec, 0, hands, threads)["hands"]
    searched = time.perf_counter() - began
    began = time.perf_counter()
    raw_kernel(plain_spec, 0, hands, threads)
    plain = time.perf_counter() - began
    turns = rows[:, HAND.turns].sum() / players
    return (searched - plain) / turns


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[4, 8, 16, 32])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 2])
    parser.add_argument("--deals", type=int, default=600, help="most deals per duel (default 600)")
    parser.add_argument("--hands", type=int, default=2000, help="hands timed per searched-turn cell (default 2000)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--margin", action="store_true", help="the search judges its points less the others' mean")
    args = parser.parse_args()
    table = []
    for players in args.players:
        tuned = f"tuned-{4 if players > 2 else 2}p"
        for worlds in args.worlds:
            a = f"search:worlds={worlds}" + (",margin=true" if args.margin else "")
            per_turn = searched_turn_seconds(worlds, players, args.hands, args.threads)
            began = time.perf_counter()
            r = duel("kamoul", a=a, b=tuned, players=players, max_games=args.deals, seed=0, threads=args.threads,
                     progress=False)
            wall = time.perf_counter() - began
            row = (players, worlds, 1000 * per_turn, r["decision"], r["deals"], 100 * r["rate"], 100 * r["low"],
                   100 * r["high"], r["points_gap"], r["gap_low"], r["gap_high"], 1000 * wall / r["games"])
            table.append(row)
            print(f"{players}p worlds={worlds}: {row[2]:.2f} ms a searched turn; vs {tuned}: {row[3]} after {row[4]} "
                  f"deals, share {row[5]:.1f}% [{row[6]:.1f}, {row[7]:.1f}], points/hand {row[8]:+.2f} "
                  f"[{row[9]:+.2f}, {row[10]:+.2f}], {row[11]:.1f} ms a manche", flush=True)
    print("\nplayers  worlds  ms/turn  decision      deals  share [95%]           points/hand gap [95%]      ms/manche")
    for row in table:
        print(f"{row[0]:>7}  {row[1]:>6}  {row[2]:>7.2f}  {row[3]:<12}  {row[4]:>5}  {row[5]:5.1f} "
              f"[{row[6]:5.1f}, {row[7]:5.1f}]  {row[8]:+6.2f} [{row[9]:+6.2f}, {row[10]:+6.2f}]  {row[11]:9.1f}")


if __name__ == "__main__":
    main()
