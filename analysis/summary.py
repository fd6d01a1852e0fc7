"""The short summary printed after a run: win rate per seat, mean points, outcome kinds (with 95% intervals).

Everything is computed lazily over the run's Parquet tables, so it works on runs larger than memory.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from simulator.core.spec import RunSpec
from simulator.core.store import read_manifest, read_table


def seat_table(hands: pl.LazyFrame, players: int, labels: list[str]) -> pl.DataFrame:
    """One row per seat: hands won (as the hand's winner) with a Wilson interval, mean points with a t interval.

    Columns: ``seat`` (Int64), ``strategy`` (String), ``n``, ``wins``, ``win_rate``, ``win_low``, ``win_high``,
    ``mean_points``, ``points_low``, ``points_high`` (Float64).
    """
    aggs = [pl.len().alias("n")]
    for p in range(players):
        aggs += [
            (pl.col("winner") == p).sum().alias(f"w{p}"),
            pl.col(f"points_{p}").cast(pl.Float64).sum().alias(f"s{p}"),
            (pl.col(f"points_{p}").cast(pl.Float64) ** 2).sum().alias(f"q{p}"),
        ]
    row = hands.select(aggs).collect().row(0, named=True)
    rows = []
    for p in range(players):
        n = row["n"]
        rate, lo, hi = wilson(row[f"w{p}"], n)
        mean, mlo, mhi = mean_interval(row[f"s{p}"], row[f"q{p}"], n)
        rows.append({"seat": p, "strategy": labels[p], "n": n, "wins": row[f"w{p}"], "win_rate": rate, "win_low": lo,
                     "win_high": hi, "mean_points": mean, "points_low": mlo, "points_high": mhi})
    return pl.DataFrame(rows)


def level_wins(table: pl.LazyFrame, players: int, labels: list[str]) -> pl.DataFrame:
    """Share of manches/parties/TOPs each seat won (``winners`` bit mask; a shared win counts for each)."""
    aggs = [pl.len().alias("n")] + [((pl.col("winners") // (1 << p)) % 2).sum().alias(f"w{p}") for p in range(players)]
    row = table.select(aggs).collect().row(0, named=True)
    out = []
    for p in range(players):
        rate, lo, hi = wilson(row[f"w{p}"], row["n"])
        out.append({"seat": p, "strategy": labels[p], "n": row["n"], "wins": row[f"w{p}"], "win_rate": rate,
                    "win_low": lo, "win_high": hi})
    return pl.DataFrame(out)


def outcome_table(hands: pl.LazyFrame) -> pl.DataFrame:
    """Outcome kinds with counts and shares (Wilson intervals). Columns: outcome, n, share, low, high."""
    counts = hands.group_by("outcome").agg(pl.len().alias("n")).collect().sort("n", descending=True)
    total = int(counts["n"].sum())
    rows = []
    for outcome, n in counts.iter_rows():
        share, lo, hi = wilson(n, total)
        rows.append({"outcome": str(outcome), "n": n, "share": share, "low": lo, "high": hi})
    return pl.DataFrame(rows)


def run_summary(run: str | Path) -> dict:
    """Frames of a finished (or partial) run: ``seats``, ``outcomes`` (from the game's finest table, named by
    ``table``) and, at higher levels, one win table per coarser table (``manches``…, ``games``)."""
    manifest = read_manifest(run)
    spec = RunSpec.from_dict(manifest["spec"])
    labels = [s.label() for s in spec.strategies]
    tables = spec.plugin.tables(spec.level)
    finest = read_table(run, tables[0])  # one row per hand (Kamoul) or round (Rami): winner, outcome, points_<p>
    out = {"spec": spec, "table": tables[0], "seats": seat_table(finest, spec.players, labels),
           "outcomes": outcome_table(finest)}
    for table in tables[1:]:
        out[table] = level_wins(read_table(run, table), spec.players, labels)
    return out


def format_summary(summary: dict) -> str:
    """Plain-text rendering of :func:`run_summary` for the terminal and ``summary.md``."""
    spec: RunSpec = summary["spec"]
    lines = [f"{spec.game}: {spec.n:,} {spec.level}, {spec.players} players, seed {spec.seed}", ""]
    seats = summary["seats"]
    finest = summary.get("table", "hands")
    unit = finest[:-1] if finest.endswith("s") else finest
    lines.append(f"{finest} won per seat (95% interval) and mean points per {unit}, over {seats['n'][0]:,} {finest}:")
    for r in seats.iter_rows(named=True):
        lines.append(
            f"  seat {r['seat']} {r['strategy']:<24} {100 * r['win_rate']:6.2f}% [{100 * r['win_low']:.2f}, "
            f"{100 * r['win_high']:.2f}]   points {r['mean_points']:+7.3f} [{r['points_low']:+.3f}, {r['points_high']:+.3f}]"
        )
    for table in spec.plugin.tables(spec.level)[1:]:
        if table in summary:
            frame = summary[table]
            lines.append(f"{table} won per seat over {frame['n'][0]:,} {table} (shared wins count for each):")
            for r in frame.iter_rows(named=True):
                lines.append(f"  seat {r['seat']} {r['strategy']:<24} {100 * r['win_rate']:6.2f}% "
                             f"[{100 * r['win_low']:.2f}, {100 * r['win_high']:.2f}]")
    lines.append("outcome kinds:")
    for r in summary["outcomes"].iter_rows(named=True):
        lines.append(f"  {r['outcome']:<16} {r['n']:>10,}  {100 * r['share']:6.2f}% [{100 * r['low']:.2f}, {100 * r['high']:.2f}]")
    return "\n".join(lines)
