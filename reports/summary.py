"""Charts of a run summary: ``plot_x(frame, *, ax=None) -> Axes`` over frames from ``analysis.summary``."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from simulator.core.i18n import _  # noqa: E402


def plot_seat_win_rates(seats: pl.DataFrame, *, ax=None, title: str = "hands won per seat"):
    """Bar per seat with its 95% Wilson interval (``analysis.summary.side_table`` columns)."""
    ax = ax or plt.gca()
    x = list(range(seats.height))
    rate = [100 * v for v in seats["win_rate"]]
    err = [[100 * (r - lo) for r, lo in zip(seats["win_rate"], seats["win_low"])],
           [100 * (hi - r) for r, hi in zip(seats["win_rate"], seats["win_high"])]]
    ax.bar(x, rate, yerr=err, capsize=4, color="#4C72B0")
    side = "team" if "team" in seats.columns else "seat"
    named = _("team {key}") if side == "team" else _("seat {key}")
    ax.set_xticks(x, [f"{named.format(key=s)}\n{name}" for s, name in zip(seats[side], seats["strategy"])], fontsize=8)
    ax.set_ylabel(_("% (95% interval)"))
    ax.set_title(title)
    return ax


def plot_outcomes(outcomes: pl.DataFrame, *, ax=None, table: str = "hands"):
    """Horizontal bars of outcome kinds with their 95% intervals (``analysis.summary.outcome_table``)."""
    ax = ax or plt.gca()
    y = list(range(outcomes.height))
    share = [100 * v for v in outcomes["share"]]
    err = [[100 * (s - lo) for s, lo in zip(outcomes["share"], outcomes["low"])],
           [100 * (hi - s) for s, hi in zip(outcomes["share"], outcomes["high"])]]
    ax.barh(y, share, xerr=err, capsize=3, color="#DD8452")
    ax.set_yticks(y, outcomes["outcome"].to_list())
    ax.invert_yaxis()
    ax.set_xlabel(_("% of {rows} (95% interval)").format(rows=_(table)))
    ax.set_title(_("How {rows} end").format(rows=_(table)))
    return ax


def save_summary_figure(summary: dict, path: str | Path) -> Path:
    """One PNG with the seat win rates and the outcome kinds of a run summary."""
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    table = summary.get("table", "hands")
    side = "team" if "team" in summary["seats"].columns else "seat"
    won = "scored in" if side == "team" else "won"
    plot_seat_win_rates(summary["seats"], ax=axes[0], title=f"{table} {won} per {side}")
    plot_outcomes(summary["outcomes"], ax=axes[1], table=table)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return Path(path)


def plot_seat_points(seats: pl.DataFrame, *, ax=None, unit: str = "hand"):
    """Mean points per seat (or team) with their 95% t intervals (``analysis.summary.side_table``)."""
    ax = ax or plt.gca()
    x = list(range(seats.height))
    err = [[m - lo for m, lo in zip(seats["mean_points"], seats["points_low"])],
           [hi - m for m, hi in zip(seats["mean_points"], seats["points_high"])]]
    ax.bar(x, seats["mean_points"].to_list(), yerr=err, capsize=4, color="#55A868")
    side = "team" if "team" in seats.columns else "seat"
    named = _("team {key}") if side == "team" else _("seat {key}")
    ax.set_xticks(x, [f"{named.format(key=s)}\n{name}" for s, name in zip(seats[side], seats["strategy"])], fontsize=8)
    ax.axhline(0, color="#444444", linewidth=0.8)
    ax.set_ylabel(_("mean points per {unit} (95% interval)").format(unit=_(unit)))
    ax.set_title(_("points per {side}").format(side=_(side)))
    return ax
