"""Charts of tournaments and sweeps: ``plot_x(frame, *, ax=None) -> Axes`` over the frames of
``analysis.batches`` (``matrix``, ``ratings``, ``summary``, ``outcomes``); they draw, they do not compute."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402
from simulator.core.i18n import _  # noqa: E402


def _label(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return f"{value:g}"
    return str(value)


LABEL_CHARS = 36  # a tick label longer than this is shortened (the full label is in the tables)


def short_label(label: str, limit: int = LABEL_CHARS) -> str:
    """``label`` as a chart shows it: a strategy with many parameters (``name:k=v,k=v,...``) keeps its name and the
    parameters that fit in ``limit`` characters, then says how many more it has; a shorter label is unchanged."""
    if len(label) <= limit or ":" not in label:
        return label
    name, _colon, rest = label.partition(":")
    shown, kept = name + ":", 0
    params = rest.split(",")
    for k, param in enumerate(params):
        if len(shown) + len(param) + 1 > limit - 10 and k:
            break
        shown += ("," if k else "") + param
        kept += 1
    hidden = len(params) - kept
    return shown + (f",… (+{hidden})" if hidden else "")


def tick_labels(names: list[str]) -> list[str]:
    """Each name :func:`short_label`-ed, unless two would then read the same (then every name in full)."""
    short = [short_label(n) for n in names]
    return short if len(set(short)) == len(set(names)) else list(names)


def _errors(mid, low, high, scale: float = 1.0):
    """Error-bar lengths; a rounding-level crossing (Wilson bound of a share of 0 or 1) counts as 0."""
    return [[max(0.0, scale * (m - lo)) for m, lo in zip(mid, low)], [max(0.0, scale * (hi - m)) for m, hi in zip(mid, high)]]


def plot_win_matrix(matrix: pl.DataFrame, *, ax=None, names: list[str] | None = None):
    """Heatmap of the row strategy's win rate against the column strategy (``analysis.batches``'s ``matrix``),
    each cell annotated with its rate and 95% Wilson interval; the diagonal is left blank."""
    ax = ax or plt.gca()
    names = names or list(dict.fromkeys(matrix["strategy"].to_list() + matrix["opponent"].to_list()))
    index = {s: k for k, s in enumerate(names)}
    grid = [[math.nan] * len(names) for _ in names]
    notes = {}
    for r in matrix.iter_rows(named=True):
        i, j = index[r["strategy"]], index[r["opponent"]]
        grid[i][j] = 100 * r["win_rate"] if r["win_rate"] is not None else math.nan
        notes[(i, j)] = ("–" if math.isnan(grid[i][j]) else
                         f"{grid[i][j]:.1f}%\n[{100 * r['low']:.1f}, {100 * r['high']:.1f}]")
    image = ax.imshow(grid, cmap="RdBu", vmin=0, vmax=100)
    for (i, j), text in notes.items():
        value = grid[i][j]
        dark = not math.isnan(value) and abs(value - 50) > 30
        ax.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    ticks = tick_labels(names)
    ax.set_xticks(range(len(names)), ticks, rotation=30, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), ticks, fontsize=8)
    ax.set_xlabel(_("opponent"))
    ax.set_ylabel(_("strategy"))
    ax.set_title(_("win rate of the row against the column (decided games)"))
    ax.figure.colorbar(image, ax=ax, label=_("% won (row)"))
    return ax


def plot_ratings(ratings: pl.DataFrame, *, ax=None, scale: str = "elo"):
    """Bradley–Terry rating per strategy (``analysis.batches``'s ``ratings``) with its 95% interval bar, on
    the Elo scale (``scale="elo"``) or in log-strength (``scale="log"``); a note when the fit is undefined."""
    ax = ax or plt.gca()
    cols = ("elo", "elo_low", "elo_high") if scale == "elo" else ("rating", "low", "high")
    y = list(range(ratings.height))
    ax.set_yticks(y, tick_labels(ratings["strategy"].to_list()), fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="#444444", linewidth=0.8)
    ax.set_xlabel(_("Elo (mean 0, 95% interval)") if scale == "elo" else _("log-strength (mean 0, 95% interval)"))
    ax.set_title(_("Bradley–Terry ratings"))
    if ratings.height and bool(ratings["fitted"].all()):
        mid, low, high = (ratings[c].to_list() for c in cols)
        ax.errorbar(mid, y, xerr=_errors(mid, low, high), fmt="o", capsize=4, color="#4C72B0")
    else:
        ax.text(0.5, 0.5, "ratings undefined: some strategy never won\nor never lost; play more games",
                transform=ax.transAxes, ha="center", va="center", fontsize=9, color="#aa0000")
    return ax


def plot_sweep(summary: pl.DataFrame, *, ax=None, x: str, metric: str = "win_rate", series: list[str] = (),
               title: str | None = None):
    """One seat's or team's rows of a sweep ``summary`` (``analysis.batches``): ``metric`` (``win_rate`` or
    ``mean_points``) with its 95% interval bars against the swept value ``x``, one line per combination of
    the other swept names in ``series``."""
    ax = ax or plt.gca()
    low, high, scale = (("win_low", "win_high", 100.0) if metric == "win_rate" else ("points_low", "points_high", 1.0))
    xs = list(dict.fromkeys(summary[x].to_list()))
    pos = {v: k for k, v in enumerate(xs)}
    groups = summary.partition_by(list(series), maintain_order=True, as_dict=True) if series else {(): summary}
    for key, rows in groups.items():
        mid = [scale * v for v in rows[metric]]
        err = _errors(rows[metric], rows[low], rows[high], scale)
        label = ", ".join(f"{k}={_label(v)}" for k, v in zip(series, key)) or None
        ax.errorbar([pos[v] for v in rows[x]], mid, yerr=err, fmt="o-", capsize=4, label=label)
    ax.set_xticks(range(len(xs)), [_label(v) for v in xs])
    ax.set_xlabel(x)
    ax.set_ylabel(_("% won (95% interval)") if metric == "win_rate" else _("mean points (95% interval)"))
    if metric != "win_rate":
        ax.axhline(0, color="#444444", linewidth=0.8)
    if series:
        ax.legend(fontsize=8)
    ax.set_title(title or metric)
    return ax


def plot_sweep_outcomes(outcomes: pl.DataFrame, *, ax=None, cell_labels: dict[str, str] | None = None):
    """Share of each outcome kind per cell of a sweep (``analysis.batches``'s ``outcomes``), grouped bars with
    95% Wilson intervals."""
    ax = ax or plt.gca()
    cells = list(dict.fromkeys(outcomes["cell"].to_list()))
    kinds = list(dict.fromkeys(outcomes["outcome"].to_list()))
    width = 0.8 / max(1, len(kinds))
    for k, kind in enumerate(kinds):
        rows = outcomes.filter(pl.col("outcome") == kind)
        pos = [cells.index(c) + (k - (len(kinds) - 1) / 2) * width for c in rows["cell"]]
        ax.bar(pos, [100 * v for v in rows["share"]], width=width, label=kind,
               yerr=_errors(rows["share"], rows["low"], rows["high"], 100.0), capsize=2)
    labels = cell_labels or {}
    ax.set_xticks(range(len(cells)), [labels.get(c, c) for c in cells], fontsize=8)
    ax.set_ylabel(_("% (95% interval)"))
    ax.set_title(_("outcome shares per cell"))
    ax.legend(fontsize=8)
    return ax


def plot_sign_exposure(exposure: pl.DataFrame, *, ax=None):
    """Kem's signs per team (``analysis.kems_signals.sign_exposure``): share seen by the partner, by one given
    opponent, and of the manches in which it signed, contred and Kem's, each with its 95% Wilson interval."""
    ax = ax or plt.gca()
    series = [("partner", "partner saw the sign"), ("opponent", "one opponent saw it"),
              ("contred", "contred (signed manches)"), ("kems", "Kem's or double (signed manches)")]
    width = 0.8 / len(series)
    teams = exposure["team"].to_list()
    for k, (key, label) in enumerate(series):
        rate = exposure["contred_rate" if key == "contred" else f"{key}_rate"]
        low, high = exposure[f"{key}_low"], exposure[f"{key}_high"]
        pos = [t + (k - (len(series) - 1) / 2) * width for t in range(len(teams))]
        ax.bar(pos, [100 * v for v in rate.fill_nan(0.0)], width=width, label=label,
               yerr=_errors(rate.fill_nan(0.0), low.fill_nan(0.0), high.fill_nan(0.0), 100.0), capsize=2)
    ax.set_xticks(range(len(teams)), [_("team {key}").format(key=t) for t in teams])
    ax.set_ylabel(_("% (95% interval)"))
    ax.set_title(_("signs: seen by partner vs opponents; contred vs Kem's"))
    ax.legend(fontsize=8)
    return ax
