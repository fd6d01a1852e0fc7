"""The short summary printed after a run: win rate per seat, mean points, outcome kinds (with 95% intervals).

Everything is computed lazily over the run's Parquet tables, so it works on runs larger than memory.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from simulator.core.spec import RunSpec
from simulator.core.store import read_manifest, read_table


def side_table(finest: pl.LazyFrame, plugin, players: int, labels: list[str]) -> pl.DataFrame:
    """One row per side (seat, or team): rows of the finest table it won (the plugin's ``row_winner``) with a Wilson
    interval, and its mean points per row with a t interval.

    Columns: ``seat`` (Int64) or ``team`` (String, its key), ``strategy`` (String; a team's seats' strategies joined
    by ``/``), ``n``, ``wins``, ``win_rate``, ``win_low``, ``win_high``, ``mean_points``, ``points_low``,
    ``points_high`` (Float64).
    """
    sides = plugin.sides(players)
    winner = plugin.row_winner(players)
    aggs = [pl.len().alias("n")]
    for side in sides:
        points = pl.col(f"points_{side.key}").cast(pl.Float64)
        aggs += [(winner == side.index).sum().alias(f"w{side.index}"), points.sum().alias(f"s{side.index}"),
                 (points ** 2).sum().alias(f"q{side.index}")]
    row = finest.select(aggs).collect().row(0, named=True)
    rows = []
    for side in sides:
        k, n = side.index, row["n"]
        rate, lo, hi = wilson(row[f"w{k}"], n)
        mean, mlo, mhi = mean_interval(row[f"s{k}"], row[f"q{k}"], n)
        rows.append({**_side_key(plugin, side), "strategy": "/".join(labels[p] for p in side.seats), "n": n,
                     "wins": row[f"w{k}"], "win_rate": rate, "win_low": lo, "win_high": hi, "mean_points": mean,
                     "points_low": mlo, "points_high": mhi})
    return pl.DataFrame(rows)


def _side_key(plugin, side) -> dict:
    return {"team": side.key} if plugin.side_kind == "team" else {"seat": side.index}


def level_wins(table: pl.LazyFrame, plugin, players: int, labels: list[str]) -> pl.DataFrame:
    """Share of manches/parties/TOPs/games each side won (``winners`` bit mask over the sides; a shared win counts
    for each)."""
    sides = plugin.sides(players)
    aggs = [pl.len().alias("n")] + [((pl.col("winners") // (1 << s.index)) % 2).sum().alias(f"w{s.index}")
                                    for s in sides]
    row = table.select(aggs).collect().row(0, named=True)
    out = []
    for side in sides:
        rate, lo, hi = wilson(row[f"w{side.index}"], row["n"])
        out.append({**_side_key(plugin, side), "strategy": "/".join(labels[p] for p in side.seats), "n": row["n"],
                    "wins": row[f"w{side.index}"], "win_rate": rate, "win_low": lo, "win_high": hi})
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
    finest = read_table(run, tables[0])  # one row per hand, round or manche: outcome, points per seat or team
    plugin = spec.plugin
    out = {"spec": spec, "table": tables[0], "seats": side_table(finest, plugin, spec.players, labels),
           "outcomes": outcome_table(finest)}
    for table in tables[1:]:
        out[table] = level_wins(read_table(run, table), plugin, spec.players, labels)
    return out


def side_name(row: dict) -> str:
    """``seat 2`` or ``team A``: how a row of :func:`side_table`/:func:`level_wins` is named."""
    return f"team {row['team']}" if "team" in row else f"seat {row['seat']}"


def _share(rate: float, low: float, high: float) -> str:
    return f"{100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def run_verdict(summary: dict) -> list[str]:
    """The run's answer in two sentences: which side won the most of the run's level (its share with the 95%
    interval, and whether that interval clears the next best's), then every side's mean points per finest row
    with its interval and which way is better."""
    spec: RunSpec = summary["spec"]
    finest = summary["table"]
    level = spec.plugin.tables(spec.level)[-1]
    wins = summary[level] if level in summary and level != finest else summary["seats"]
    ranked = sorted(wins.iter_rows(named=True), key=lambda r: -r["win_rate"])
    best, n = ranked[0], ranked[0]["n"]
    lead = f"Over {n:,} {level}, {side_name(best)} ({best['strategy']}) won the most: {_share(best['win_rate'], best['win_low'], best['win_high'])}"
    if len(ranked) > 1:
        second = ranked[1]
        other = f"{side_name(second)}, {second['strategy']}, {_share(second['win_rate'], second['win_low'], second['win_high'])}"
        lead += (f"; its 95% interval clears the next best's ({other}): a real lead." if best["win_low"] > second["win_high"]
                 else f"; its 95% interval overlaps the next best's ({other}): no side is ahead at this n.")
    unit = finest[:-1] if finest.endswith("s") else finest
    better = "lower" if spec.plugin.lower_is_better else "higher"
    points = "; ".join(f"{side_name(r)} {r['mean_points']:.2f} [{r['points_low']:.2f}, {r['points_high']:.2f}]"
                       for r in summary["seats"].iter_rows(named=True))
    return [lead, f"Mean points per {unit} ({better} is better): {points}."]


def format_summary(summary: dict) -> str:
    """Plain-text rendering of :func:`run_summary` for the terminal and ``summary.md``: the verdict first."""
    spec: RunSpec = summary["spec"]
    lines = [*run_verdict(summary), "", f"{spec.game}: {spec.n:,} {spec.level}, {spec.players} players, seed {spec.seed}", ""]
    seats = summary["seats"]
    finest = summary.get("table", "hands")
    unit = finest[:-1] if finest.endswith("s") else finest
    side = spec.plugin.side_kind
    better = "lower" if spec.plugin.lower_is_better else "higher"
    lines.append(f"{finest} won per {side} (95% interval) and mean points per {unit} ({better} is better), over "
                 f"{seats['n'][0]:,} {finest}:")
    for r in seats.iter_rows(named=True):
        lines.append(
            f"  {side_name(r)} {r['strategy']:<24} {100 * r['win_rate']:6.2f}% [{100 * r['win_low']:.2f}, "
            f"{100 * r['win_high']:.2f}]   points {r['mean_points']:+7.3f} [{r['points_low']:+.3f}, {r['points_high']:+.3f}]"
        )
    for table in spec.plugin.tables(spec.level)[1:]:
        if table in summary:
            frame = summary[table]
            lines.append(f"{table} won per {side} over {frame['n'][0]:,} {table} (shared wins count for each):")
            for r in frame.iter_rows(named=True):
                lines.append(f"  {side_name(r)} {r['strategy']:<24} {100 * r['win_rate']:6.2f}% "
                             f"[{100 * r['win_low']:.2f}, {100 * r['win_high']:.2f}]")
    lines.append("outcome kinds:")
    for r in summary["outcomes"].iter_rows(named=True):
        lines.append(f"  {r['outcome']:<16} {r['n']:>10,}  {100 * r['share']:6.2f}% [{100 * r['low']:.2f}, {100 * r['high']:.2f}]")
    return "\n".join(lines)
