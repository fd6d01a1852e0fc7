"""Does A beat B? A sequential paired comparison that stops as soon as it knows (issue 5 item 1).

Each *deal* (game index ``i`` of the seed) is played in every seating of the pair (``ABAB…`` and its mirror
``BABA…``, as in a tournament: :func:`simulator.core.run.designs.tournament_batch`), so both strategies hold every
position on the same cards. A deal's duel goes to A when A's units won more of those games than B's, to B in the
opposite case, and is a tie otherwise (ties are left out). The duels feed Wald's two-sided sequential test
(:class:`analysis.stats.SequentialComparison`) in deal order; the comparison stops at the deal where it decides
"A beats B", "B beats A" (by at least ``delta`` in the share of won duels) or "within delta", or at
``max_games`` deals. Deals are played in chunks, but the stopping deal does not depend on the chunk size or the
thread count.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.batches import point_gaps_of, seating_masks, winning_units_of
from analysis.stats import SequentialComparison, mean_interval, wilson
from simulator.core.errors import SpecError
from simulator.core.progress import progress as progress_of
from simulator.core.run.designs import tournament_batch

CHUNK = 2_000


class CellScores:
    """One seating's part of a deal's duel, as a task (``task(start, stop, threads)``, picklable for a cluster):
    for deals ``[start, stop)`` of the cell ``spec`` played as ``pattern``, ``int64`` the sign of A's won games minus
    B's and ``float64`` A's mean points per finest game minus B's."""

    def __init__(self, spec, pattern: str):
        self.spec, self.pattern = spec, pattern

    def __call__(self, start: int, stop: int, threads=None) -> tuple[np.ndarray, np.ndarray]:
        spec = self.spec
        frames = spec.plugin.simulate_chunk(spec, start, stop, threads)
        a_mask, b_mask = seating_masks(spec, self.pattern)
        m = pl.col("mask")
        per_game = winning_units_of(spec, lambda table: frames[table].lazy()).group_by("game").agg(
            (((m != 0) & ((m & b_mask) == 0)).cast(pl.Int64) - ((m != 0) & ((m & a_mask) == 0)).cast(pl.Int64))
            .sum().alias("s")).collect()
        score = np.zeros(stop - start, dtype=np.int64)
        score[per_game["game"].to_numpy() - start] = np.sign(per_game["s"].to_numpy())
        gaps = point_gaps_of(spec, frames[spec.plugin.tables(spec.level)[0]].lazy(), self.pattern).collect()
        gap = np.zeros(stop - start, dtype=np.float64)
        gap[gaps["game"].to_numpy() - start] = gaps["gap"].to_numpy()
        return score, gap


def deal_scores(cells, start: int, stop: int, threads, cluster=None) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``[start, stop)``: ``int64`` the sum over the seatings of the sign of A's won games minus B's,
    and ``float64`` A's mean points per finest game (hand, round, manche) minus B's, averaged over the seatings.
    ``cluster``: a connected :class:`~simulator.core.run.dask_backend.DaskBackend` to play the seatings there (the same
    numbers)."""
    return deal_scores_many([(cells, start, stop)], threads, cluster)[0]


def deal_scores_many(jobs, threads, cluster=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """:func:`deal_scores` of every ``(cells, start, stop)`` of ``jobs``; on a ``cluster`` every seating and slice
    of deals of every job is one task, all submitted together."""
    calls, owners = [], []
    for j, (cells, start, stop) in enumerate(jobs):
        pieces = cluster_slices(start, stop, cluster, len(cells) * len(jobs)) if cluster else [(start, stop)]
        for cell in cells:
            for a, b in pieces:
                calls.append((CellScores(cell.spec, cell.labels["seating"]), a, b))
                owners.append(j)
    if cluster is None:
        results = [task(a, b, threads) for task, a, b in calls]
    else:
        results = cluster.map(calls, threads)
    out = [(np.zeros(stop - start, dtype=np.int64), np.zeros(stop - start, dtype=np.float64))
           for _, start, stop in jobs]
    for j, (_, a, _), (score, gap) in zip(owners, calls, results):
        offset = a - jobs[j][1]
        out[j][0][offset:offset + len(score)] += score
        out[j][1][offset:offset + len(gap)] += gap / len(jobs[j][0])
    return out


def cluster_slices(start: int, stop: int, cluster, tasks: int) -> list[tuple[int, int]]:
    """``[start, stop)`` cut so that ``tasks`` such ranges give every worker thread of ``cluster`` about two."""
    pieces = max(1, min(stop - start, -(-2 * max(1, cluster.worker_threads()) // max(1, tasks))))
    edges = np.linspace(start, stop, pieces + 1).round().astype(int)
    return [(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]) if b > a]


def duel(game: str, *, a: str, b: str, delta: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
         max_games: int = 200_000, seed: int = 0, players: int | None = None, level: str | None = None,
         options: dict | None = None, threads: int | None = None, progress: bool = True, cluster=None) -> dict:
    """Play deals until the sequential test decides; returns the decision, the deals it took, and the share of
    decided duels A won with its 95% Wilson interval (see the module docstring). ``cluster``: a
    :class:`~simulator.core.run.dask_backend.DaskBackend` to play the deals on (the same answer)."""
    for field, value in (("--delta", delta), ("--alpha", alpha), ("--beta", beta)):
        if not isinstance(value, (int, float)) or not 0 < value < 0.5:
            raise SpecError(field, value, "a number strictly between 0 and 0.5")
    batch = tournament_batch(game, strategies=[a, b], n=max_games, seed=seed, players=players, level=level,
                             options=options)
    test = SequentialComparison(delta=float(delta), alpha=float(alpha), beta=float(beta))
    a_better = duels = deals = 0
    gap_sum = gap_squares = 0.0

    with progress_of(max_games, f"duel {game} {a} vs {b}", "deals", enabled=progress) as bar:
        for start in range(0, max_games, CHUNK):
            stop = min(max_games, start + CHUNK)
            scores, gaps = deal_scores(batch.cells, start, stop, threads, cluster)
            for s, g in zip(scores, gaps):
                deals += 1
                gap_sum += g
                gap_squares += g * g
                if s != 0:
                    duels += 1
                    a_better += s > 0
                if test.add(int(s)) is not None:
                    break
            bar.update(deals - bar.n)
            if test.decision is not None:
                bar.finish()
                break
    rate, low, high = wilson(a_better, duels)
    gap, gap_low, gap_high = mean_interval(gap_sum, gap_squares, deals)
    spec = batch.cells[0].spec
    return {"game": game, "a": batch.inputs["strategies"][0], "b": batch.inputs["strategies"][1],
            "players": spec.players, "level": spec.level, "seed": seed, "seatings": [c.labels["seating"] for c in
                                                                                  batch.cells],
            "decision": test.decision or "undecided", "deals": deals,
            "games": deals * len(batch.cells), "duels": duels, "a_better": int(a_better), "rate": rate, "low": low,
            "high": high, "points_gap": gap, "gap_low": gap_low, "gap_high": gap_high,
            "points_per": spec.plugin.finest_unit, "lower_is_better": spec.plugin.lower_is_better,
            "delta": delta, "alpha": alpha, "beta": beta}


def format_duel(r: dict) -> str:
    """The answer of :func:`duel` as a few lines of text."""
    verdict = {"A beats B": f"{r['a']} beats {r['b']}", "B beats A": f"{r['b']} beats {r['a']}",
               "within delta": f"{r['a']} and {r['b']} are within {r['delta']:.0%} of each other",
               "undecided": "no decision yet (raise --max-games)"}[r["decision"]]
    better = "lower" if r["lower_is_better"] else "higher"
    return "\n".join([
        f"{verdict}, judged by whole {r['level']}  (after {r['deals']:,} deals, {r['games']:,} {r['level']}; "
        f"error rates alpha {r['alpha']}, beta {r['beta']})",
        f"  {r['a']} won more of the deal's {r['level']} on {100 * r['rate']:.1f}% [{100 * r['low']:.1f}, "
        f"{100 * r['high']:.1f}] of {r['duels']:,} deals that were not a tie (95% interval)" if r["duels"] else
        "  every deal was a tie: the two strategies played alike",
        f"  mean points per {r['points_per']}, {r['a']} minus {r['b']}: {r['points_gap']:+.2f} [{r['gap_low']:+.2f}, "
        f"{r['gap_high']:+.2f}] ({better} is better)",
        f"  duel {r['game']}: {r['a']} (A) vs {r['b']} (B), {r['players']} players, seed {r['seed']}; each deal "
        f"played as {', '.join(r['seatings'])}",
    ])
