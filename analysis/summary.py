"""The short summary printed after a run: win rate per seat, mean points, outcome kinds (with 95% intervals).

Everything is computed lazily over the run's Parquet tables, so it works on runs larger than memory.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from simulator.core.i18n import _, bounds, number, percent, share_interval
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import read_manifest, read_table


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


def summarisable(run: str | Path) -> bool:
    """Whether the run's finest table says who won each row (the plugin's ``row_winner`` reads its columns: every
    game's does; a test double may not)."""
    spec = RunSpec.from_dict(read_manifest(run)["spec"])
    finest = read_table(run, spec.plugin.tables(spec.level)[0]).head(0)
    try:
        finest.select(spec.plugin.row_winner(spec.players)).collect()
    except pl.exceptions.ColumnNotFoundError:
        return False
    return True


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
    """``seat 2`` or ``team A``: how a row of :func:`side_table`/:func:`level_wins` is named, in the reader's
    language."""
    return _("team {key}").format(key=row["team"]) if "team" in row else _("seat {key}").format(key=row["seat"])


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
    lead = _("Over {n} {level}, {side} ({strategy}) won the most: {share}").format(
        n=number(n, 0), level=_(level), side=side_name(best), strategy=best["strategy"],
        share=share_interval(best["win_rate"], best["win_low"], best["win_high"]))
    if len(ranked) > 1:
        second = ranked[1]
        other = f"{side_name(second)}, {second['strategy']}, {share_interval(second['win_rate'], second['win_low'], second['win_high'])}"
        lead += (_("; its 95% interval clears the next best's ({other}): a real lead.") if best["win_low"] > second["win_high"]
                 else _("; its 95% interval overlaps the next best's ({other}): no side is ahead at this n.")).format(other=other)
    unit = finest[:-1] if finest.endswith("s") else finest
    better = _("lower is better") if spec.plugin.lower_is_better else _("higher is better")
    points = "; ".join(f"{side_name(r)} {number(r['mean_points'])} {bounds(number(r['points_low']), number(r['points_high']))}"
                       for r in summary["seats"].iter_rows(named=True))
    return [lead, _("Mean points per {unit} ({better}): {points}.").format(unit=_(unit), better=better, points=points)]


def format_summary(summary: dict) -> str:
    """Plain-text rendering of :func:`run_summary` for the terminal and ``summary.md``: the verdict first."""
    spec: RunSpec = summary["spec"]
    head = _("{game}: {n} {level}, {players} players, seed {seed}").format(
        game=spec.game, n=number(spec.n, 0), level=_(spec.level), players=spec.players, seed=spec.seed)
    lines = [*run_verdict(summary), "", head, ""]
    seats = summary["seats"]
    finest = summary.get("table", "hands")
    unit = finest[:-1] if finest.endswith("s") else finest
    side = _(spec.plugin.side_kind)
    better = _("lower is better") if spec.plugin.lower_is_better else _("higher is better")

    def share(r, low="win_low", high="win_high", rate="win_rate"):
        return f"{percent(r[rate], 2):>7} {bounds(number(100 * r[low], 2), number(100 * r[high], 2))}"

    lines.append(_("{rows} won per {side} (95% interval) and mean points per {unit} ({better}), over {n} {rows}:").format(
        rows=_(finest), side=side, unit=_(unit), better=better, n=number(seats["n"][0], 0)))
    for r in seats.iter_rows(named=True):
        points = f"{number(r['mean_points'], 3, True):>7} {bounds(number(r['points_low'], 3, True), number(r['points_high'], 3, True))}"
        lines.append(f"  {side_name(r)} {r['strategy']:<24} {share(r)}   " + _("points {points}").format(points=points))
    for table in spec.plugin.tables(spec.level)[1:]:
        if table in summary:
            frame = summary[table]
            lines.append(_("{rows} won per {side} over {n} {rows} (shared wins count for each):").format(
                rows=_(table), side=side, n=number(frame["n"][0], 0)))
            for r in frame.iter_rows(named=True):
                lines.append(f"  {side_name(r)} {r['strategy']:<24} {share(r)}")
    lines.append(_("outcome kinds:"))
    for r in summary["outcomes"].iter_rows(named=True):
        lines.append(f"  {r['outcome']:<16} {number(r['n'], 0):>10}  {share(r, 'low', 'high', 'share')}")
    return "\n".join(lines)
