"""How long games last: at each level of a run, the distribution of a row's length (turns of a Kamoul hand or
a Rami round, clock ticks of a Kem's manche, hands of a manche, rounds of a game…) and its mean, with 95%
intervals. Pure functions over the run's lazy tables.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import read_manifest, read_table

# what one row's length is counted in, first column present wins (hands/rounds: turns, Kem's manches: ticks,
# a coarser level: the finer rows it holds)
LENGTH_COLUMNS = ("turns", "ticks", "hands", "rounds", "manches", "parties")


def length_column(columns: list[str]) -> str | None:
    """The column measuring a row's length among ``columns`` (see :data:`LENGTH_COLUMNS`), or ``None``."""
    return next((c for c in LENGTH_COLUMNS if c in columns), None)


def length_distribution(table: pl.LazyFrame, column: str) -> pl.DataFrame:
    """Share of rows of each length, with Wilson 95% intervals. Columns: ``length`` (Int64), ``n``,
    ``share``, ``low``, ``high``; sorted by length."""
    counts = (table.group_by(pl.col(column).cast(pl.Int64).alias("length")).agg(pl.len().alias("n"))
              .collect().sort("length"))
    total = int(counts["n"].sum())
    rows = []
    for length, n in counts.iter_rows():
        share, lo, hi = wilson(n, total)
        rows.append({"length": length, "n": n, "share": share, "low": lo, "high": hi})
    schema = {"length": pl.Int64, "n": pl.Int64, "share": pl.Float64, "low": pl.Float64, "high": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def length_mean(table: pl.LazyFrame, column: str) -> dict:
    """Mean length with its t 95% interval, plus the median and the 90th percentile.
    Keys: ``n``, ``mean``, ``low``, ``high``, ``median``, ``p90``, ``min``, ``max``."""
    x = pl.col(column).cast(pl.Float64)
    row = table.select(pl.len().alias("n"), x.sum().alias("s"), (x ** 2).sum().alias("q"),
                       x.median().alias("median"), x.quantile(0.9, "nearest").alias("p90"),
                       x.min().alias("min"), x.max().alias("max")).collect().row(0, named=True)
    mean, lo, hi = mean_interval(row["s"], row["q"], row["n"])
    return {"n": row["n"], "mean": mean, "low": lo, "high": hi, "median": row["median"], "p90": row["p90"],
            "min": row["min"], "max": row["max"]}


def run_lengths(run: str | Path) -> dict[str, dict]:
    """Per table of the run (finest first): ``{"column", "distribution", "mean"}`` for the tables that have a
    length column (:func:`length_column`)."""
    spec = RunSpec.from_dict(read_manifest(run)["spec"])
    out = {}
    for name in spec.plugin.tables(spec.level):
        table = read_table(run, name)
        column = length_column(table.collect_schema().names())
        if column is not None:
            out[name] = {"column": column, "distribution": length_distribution(table, column),
                         "mean": length_mean(table, column)}
    return out
