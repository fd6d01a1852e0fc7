"""Does A beat B? A sequential paired comparison that stops as soon as it knows (issue 5 item 1).

Each *deal* (game index ``i`` of the seed) is played in every seating of the pair (``ABAB…`` and its mirror
``BABA…``, as in a tournament: :func:`simulator.core.designs.tournament_batch`), so both strategies hold every
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
from simulator.core.designs import tournament_batch
from simulator.core.errors import SpecError

CHUNK = 2_000


def deal_scores(cells, start: int, stop: int, threads) -> tuple[np.ndarray, np.ndarray]:
    """Per deal of ``[start, stop)``: ``int64`` A's won games minus B's over the seatings, and ``float64`` A's mean
    points per finest game (hand, round, manche) minus B's, averaged over the seatings."""
    score = np.zeros(stop - start, dtype=np.int64)
    gap = np.zeros(stop - start, dtype=np.float64)
    for cell in cells:
        spec, pattern = cell.spec, cell.labels["seating"]
        frames = spec.plugin.simulate_chunk(spec, start, stop, threads)
        a_mask, b_mask = seating_masks(spec, pattern)
        m = pl.col("mask")
        per_game = winning_units_of(spec, lambda table: frames[table].lazy()).group_by("game").agg(
            (((m != 0) & ((m & b_mask) == 0)).cast(pl.Int64) - ((m != 0) & ((m & a_mask) == 0)).cast(pl.Int64))
            .sum().alias("s")).collect()
        score[per_game["game"].to_numpy() - start] += np.sign(per_game["s"].to_numpy())
        gaps = point_gaps_of(spec, frames[spec.plugin.tables(spec.level)[0]].lazy(), pattern).collect()
        gap[gaps["game"].to_numpy() - start] += gaps["gap"].to_numpy() / len(cells)
    return score, gap


def duel(game: str, *, a: str, b: str, delta: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
         max_games: int = 200_000, seed: int = 0, players: int | None = None, level: str | None = None,
         options: dict | None = None, threads: int | None = None, progress: bool = True) -> dict:
    """Play deals until the sequential test decides; returns the decision, the deals it took, and the share of
    decided duels A won with its 95% Wilson interval (see the module docstring)."""
    for field, value in (("--delta", delta), ("--alpha", alpha), ("--beta", beta)):
        if not isinstance(value, (int, float)) or not 0 < value < 0.5:
            raise SpecError(field, value, "a number strictly between 0 and 0.5")
    batch = tournament_batch(game, strategies=[a, b], n=max_games, seed=seed, players=players, level=level,
                             options=options)
    test = SequentialComparison(delta=float(delta), alpha=float(alpha), beta=float(beta))
    a_better = duels = deals = 0
    gap_sum = gap_squares = 0.0
    from simulator.core.progress import progress as progress_of

    with progress_of(max_games, f"duel {game} {a} vs {b}", "deals", enabled=progress) as bar:
        for start in range(0, max_games, CHUNK):
            stop = min(max_games, start + CHUNK)
            scores, gaps = deal_scores(batch.cells, start, stop, threads)
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
