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


TEAM_NAMES = "ABC"


def team_labels(players: int, labels: list[str]) -> list[tuple[str, str]]:
    """Kem's sides: ``(team letter, "strategy/strategy")`` per team; seat ``p`` plays for team ``p mod (P/2)``."""
    teams = players // 2
    return [(TEAM_NAMES[t], "/".join(labels[p] for p in range(t, players, teams))) for t in range(teams)]


def team_table(manches: pl.LazyFrame, players: int, labels: list[str]) -> pl.DataFrame:
    """One row per team (games whose finest table has ``points_<A|B|C>`` columns, i.e. Kem's): the share of
    manches in which the team scored (Wilson interval) and its mean points per manche (t interval).

    Columns: ``team`` (String), ``strategy`` (String, its seats' strategies), ``n``, ``wins``, ``win_rate``,
    ``win_low``, ``win_high``, ``mean_points``, ``points_low``, ``points_high``.
    """
    sides = team_labels(players, labels)
    aggs = [pl.len().alias("n")]
    for t, _ in sides:
        points = pl.col(f"points_{t}").cast(pl.Float64)
        aggs += [(points > 0).sum().alias(f"w{t}"), points.sum().alias(f"s{t}"), (points ** 2).sum().alias(f"q{t}")]
    row = manches.select(aggs).collect().row(0, named=True)
    rows = []
    for t, strategy in sides:
        n = row["n"]
        rate, lo, hi = wilson(row[f"w{t}"], n)
        mean, mlo, mhi = mean_interval(row[f"s{t}"], row[f"q{t}"], n)
        rows.append({"team": t, "strategy": strategy, "n": n, "wins": row[f"w{t}"], "win_rate": rate, "win_low": lo,
                     "win_high": hi, "mean_points": mean, "points_low": mlo, "points_high": mhi})
    return pl.DataFrame(rows)


def level_wins(table: pl.LazyFrame, players: int, labels: list[str], teams: bool = False) -> pl.DataFrame:
    """Share of manches/parties/TOPs/games each seat (or team) won (``winners`` bit mask; a shared win counts
    for each)."""
    sides = team_labels(players, labels) if teams else [(p, labels[p]) for p in range(players)]
    aggs = [pl.len().alias("n")] + [((pl.col("winners") // (1 << k)) % 2).sum().alias(f"w{k}") for k in range(len(sides))]
    row = table.select(aggs).collect().row(0, named=True)
    out = []
    for k, (side, strategy) in enumerate(sides):
        rate, lo, hi = wilson(row[f"w{k}"], row["n"])
        out.append({"team" if teams else "seat": side, "strategy": strategy, "n": row["n"], "wins": row[f"w{k}"],
                    "win_rate": rate, "win_low": lo, "win_high": hi})
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
    teams = "points_A" in finest.collect_schema().names()
    sides = team_table(finest, spec.players, labels) if teams else seat_table(finest, spec.players, labels)
    out = {"spec": spec, "table": tables[0], "seats": sides, "outcomes": outcome_table(finest)}
    for table in tables[1:]:
        out[table] = level_wins(read_table(run, table), spec.players, labels, teams)
    return out


def side_name(row: dict) -> str:
    """``seat 2`` or ``team A``: how a row of :func:`seat_table`/:func:`team_table`/:func:`level_wins` is named."""
    return f"team {row['team']}" if "team" in row else f"seat {row['seat']}"


def format_summary(summary: dict) -> str:
    """Plain-text rendering of :func:`run_summary` for the terminal and ``summary.md``."""
    spec: RunSpec = summary["spec"]
    lines = [f"{spec.game}: {spec.n:,} {spec.level}, {spec.players} players, seed {spec.seed}", ""]
    seats = summary["seats"]
    finest = summary.get("table", "hands")
    unit = finest[:-1] if finest.endswith("s") else finest
    side = "team" if "team" in seats.columns else "seat"
    won = "scored in" if side == "team" else "won"
    lines.append(f"{finest} {won} per {side} (95% interval) and mean points per {unit}, over {seats['n'][0]:,} {finest}:")
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
