"""Charts of the balance study (``analysis.studies.balance.study``'s frames): ``plot_x(frame, *, ax=None) -> Axes``, every
estimate drawn with its 95% interval; they draw, they do not compute."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from reports.batches import _errors  # noqa: E402
from simulator.core.i18n import _  # noqa: E402


def _forest(ax, labels, mid, low, high, *, scale: float = 1.0, xlabel: str, title: str):
    """Horizontal point estimates with interval bars, one row per label, and a line at 0."""
    y = list(range(len(labels)))
    ax.errorbar([scale * v for v in mid], y, xerr=_errors(mid, low, high, scale), fmt="o", capsize=3,
                color="#4C72B0", markersize=4)
    ax.set_yticks(y, labels, fontsize=8)
    ax.invert_yaxis()
    ax.axvline(0, color="#444444", linewidth=0.8)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    return ax


def plot_positions(positions: pl.DataFrame, *, ax=None, title: str | None = None):
    """Share of the decided rows won from each position (``analysis.studies.balance.study.position_table``) with 95% Wilson
    intervals, and the equal share ``1/units`` as a dashed line."""
    ax = ax or plt.gca()
    x = list(range(positions.height))
    ax.bar(x, [100 * v for v in positions["share"]], capsize=4, color="#4C72B0",
           yerr=_errors(positions["share"], positions["share_low"], positions["share_high"], 100.0))
    ax.axhline(100 / max(1, positions.height), color="#aa0000", linestyle="--", linewidth=1, label=_("all equal"))
    ax.set_xticks(x, [label.replace(" (", "\n(") for label in positions["label"]], fontsize=7)
    ax.set_ylabel(_("% of decided rows won (95% interval)"))
    ax.set_title(title or _("share of decided games per position"))
    ax.legend(fontsize=8)
    return ax


def plot_upsets(upsets: pl.DataFrame, *, ax=None):
    """How often the weaker strategy of each pair wins (``analysis.studies.balance.study.upsets``), with 95% Wilson intervals;
    50% would mean pure luck."""
    ax = ax or plt.gca()
    labels = [f"{w} vs {s}" for w, s in zip(upsets["weaker"], upsets["stronger"])]
    _forest(ax, labels, upsets["rate"].fill_nan(0.5).to_list(), upsets["low"].fill_nan(0.5).to_list(),
            upsets["high"].fill_nan(0.5).to_list(), scale=100.0,
            xlabel=_("% of decided games won by the weaker (95% interval)"), title=_("how often the weaker one wins"))
    ax.axvline(50, color="#aa0000", linestyle="--", linewidth=1)
    ax.set_xlim(0, 100)
    return ax


def plot_option_effects(options: pl.DataFrame, *, ax=None, metric: str = "length_delta", unit: str = "turns"):
    """Paired change against the default value of each rule option's other values (``analysis.studies.balance.study.
    option_effects``): ``metric`` ``length_delta`` (mean length, in ``unit``) or ``first_delta`` (win rate of
    the first position, in points of %), with 95% t intervals."""
    ax = ax or plt.gca()
    rows = options.filter(~pl.col("default"))
    labels = [f"{o}={v}" for o, v in zip(rows["option"], rows["value"])]
    pct = metric == "first_delta"
    what = _("win rate of the first position (points of %)") if pct else _("mean length ({unit})").format(unit=_(unit))
    return _forest(ax, labels, rows[metric].fill_nan(0.0).to_list(), rows[f"{metric}_low"].fill_nan(0.0).to_list(),
                   rows[f"{metric}_high"].fill_nan(0.0).to_list(), scale=100.0 if pct else 1.0,
                   xlabel=_("change in {what} vs the default (95% interval)").format(what=what),
                   title=_("rule options: {what}").format(what=what))


def plot_powers(powers: pl.DataFrame, *, ax=None, metric: str = "value"):
    """What each Kamoul card power is worth to the seat that uses it (``analysis.studies.balance.study.power_values``):
    ``value`` (win rate with minus without, points of %) or ``points_value`` (points saved per hand), 95% t
    intervals."""
    ax = ax or plt.gca()
    pct = metric == "value"
    low, high = ("value_low", "value_high") if pct else ("points_low", "points_high")
    what = _("win rate gained (points of %)") if pct else _("points saved per hand")
    return _forest(ax, powers["power"].to_list(), powers[metric].fill_nan(0.0).to_list(),
                   powers[low].fill_nan(0.0).to_list(), powers[high].fill_nan(0.0).to_list(),
                   scale=100.0 if pct else 1.0, xlabel=_("{what} (95% interval)").format(what=what),
                   title=_("card powers: {what}").format(what=what))


def plot_skill_levels(levels: pl.DataFrame, *, ax=None):
    """Share of decided hands, manches, parties and TOPs won by the better strategy of each pair
    (``analysis.studies.balance.study.skill_by_level``), one line per pair, with 95% Wilson intervals."""
    ax = ax or plt.gca()
    order = list(dict.fromkeys(levels["level"].to_list()))
    for (better, weaker), rows in levels.group_by("better", "weaker", maintain_order=True):
        rate = rows["rate"].fill_nan(0.5)
        ax.errorbar([order.index(v) for v in rows["level"]], [100 * v for v in rate], fmt="o-", capsize=4,
                    yerr=_errors(rate, rows["low"].fill_nan(0.5), rows["high"].fill_nan(0.5), 100.0),
                    label=_("{better} vs {weaker}").format(better=better, weaker=weaker))
    ax.axhline(50, color="#aa0000", linestyle="--", linewidth=1)
    ax.set_xticks(range(len(order)), order)
    ax.set_ylim(0, 105)
    ax.set_ylabel(_("% won by the better one (95% interval)"))
    ax.set_title(_("does the format reward skill?"))
    ax.legend(fontsize=8)
    return ax


def plot_sign_visibility(signs: pl.DataFrame, *, ax=None, outcome: bool = False):
    """Kem's signs against the sign's visibility (``analysis.studies.balance.study.sign_cells``), one colour per ``kappa0``:
    the share seen by the partner (solid) and by one given opponent (dashed), or with ``outcome`` the share of
    signed manches contred (dashed) and won by Kem's (solid); 95% Wilson intervals."""
    ax = ax or plt.gca()
    pairs = (("kems", _("Kem's or double")), ("contred", _("contred"))) if outcome else (
        ("partner", _("partner saw")), ("opponent", _("one opponent saw")))
    for (kappa,), rows in signs.sort("kappa0", "visibility").group_by("kappa0", maintain_order=True):
        color = None
        for (key, what), style in zip(pairs, ("o-", "s--")):
            rate = rows[f"{key}_rate"].fill_nan(0.0)
            line = ax.errorbar(rows["visibility"].to_list(), [100 * v for v in rate], fmt=style, capsize=3,
                               yerr=_errors(rate, rows[f"{key}_low"].fill_nan(0.0), rows[f"{key}_high"].fill_nan(0.0),
                                            100.0), color=color, label=_("{what}, kappa0={kappa}").format(what=what, kappa=f"{kappa:g}"))
            color = line.lines[0].get_color()
    ax.set_xlabel(_("visibility of the sign (strategy v, every seat)"))
    ax.set_ylabel(_("% of signed manches") if outcome else _("% of signs (95% interval)"))
    ax.set_title(_("signed manches: Kem's vs contre") if outcome else _("sign seen by the partner vs an opponent"))
    ax.legend(fontsize=7)
    return ax
