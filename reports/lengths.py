"""Charts of game length: ``plot_x(frame, *, ax=None) -> Axes`` over frames from ``analysis.lengths``."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from simulator.core.i18n import _  # noqa: E402

MAX_ERROR_BARS = 40  # past this many distinct lengths the interval whiskers hide the bars


def plot_length_distribution(distribution: pl.DataFrame, *, ax=None, table: str = "hands", column: str = "turns"):
    """Share of ``table`` rows of each length (``analysis.lengths.length_distribution``), with 95% Wilson
    whiskers when there are few distinct lengths."""
    ax = ax or plt.gca()
    x = distribution["length"].to_list()
    share = [100 * v for v in distribution["share"]]
    err = None
    if distribution.height <= MAX_ERROR_BARS:
        err = [[100 * (s - lo) for s, lo in zip(distribution["share"], distribution["low"])],
               [100 * (hi - s) for s, hi in zip(distribution["share"], distribution["high"])]]
    ax.bar(x, share, width=1.0, yerr=err, capsize=2, color="#8172B2", edgecolor="white", linewidth=0.3)
    ax.set_xlabel(_("{counted} per {unit}").format(counted=_(column), unit=_(table[:-1] if table.endswith("s") else table)))
    ax.set_ylabel((_("% of {rows} (95% interval)") if err is not None else _("% of {rows}")).format(rows=_(table)))
    ax.set_title(_("length of {rows}").format(rows=_(table)))
    return ax
