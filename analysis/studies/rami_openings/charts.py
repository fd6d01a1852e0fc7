"""Charts of studies (``analysis.studies.rami_openings.study``'s frames): they draw, they do not compute."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from reports.batches import _errors  # noqa: E402
from simulator.core.i18n import _  # noqa: E402


def plot_opening_turns(turns: pl.DataFrame, *, ax=None, title: str | None = None):
    """Share of seat-rounds opened at each own turn, one line per strategy (``opening_turns``, one player
    count), with 95% Wilson interval bars; "never" (``open_turn == -1``) at the left."""
    ax = ax or plt.gca()
    for (strategy,), rows in turns.sort("strategy", "open_turn").group_by("strategy", maintain_order=True):
        line = None
        for never in (False, True):  # the opened turns as a line, "never" as a lone point of the same colour
            part = rows.filter((pl.col("open_turn") < 0) == never)
            if part.height:
                line = ax.errorbar([0 if never else t for t in part["open_turn"]], [100 * v for v in part["share"]],
                                   yerr=_errors(part["share"], part["low"], part["high"], 100.0), fmt="o" if never else "o-",
                                   capsize=2, markersize=3, label=None if line else strategy,
                                   color=line.lines[0].get_color() if line else None)
    ticks = ax.get_xticks()
    ax.set_xticks([t for t in ticks if t >= 0 and t == int(t)],
                  ["never" if t == 0 else f"{int(t)}" for t in ticks if t >= 0 and t == int(t)])
    ax.set_xlabel(_("own turn of opening (0 = never opened)"))
    ax.set_ylabel(_("% of seat-rounds (95% interval)"))
    ax.set_title(title or _("turn of opening"))
    ax.legend(fontsize=8)
    return ax


def plot_rami_sec(secs: pl.DataFrame, *, ax=None):
    """Rami-sec rate per strategy (``rami_sec`` with a ``players`` column): grouped bars per player count with
    95% Wilson intervals."""
    ax = ax or plt.gca()
    counts = sorted(set(secs["players"].to_list()))
    names = list(dict.fromkeys(secs.sort("strategy")["strategy"].to_list()))
    width = 0.8 / max(1, len(counts))
    for k, players in enumerate(counts):
        rows = secs.filter(pl.col("players") == players)
        pos = [names.index(s) + (k - (len(counts) - 1) / 2) * width for s in rows["strategy"]]
        ax.bar(pos, [100 * v for v in rows["rate"]], width=width, label=_("{players} players").format(players=players),
               yerr=_errors(rows["rate"], rows["low"], rows["high"], 100.0), capsize=2)
    ax.set_xticks(range(len(names)), names, fontsize=8)
    ax.set_ylabel(_("% of its seat-rounds won by rami sec (95% interval)"))
    ax.set_title(_("rami sec frequency"))
    ax.legend(fontsize=8)
    return ax


def plot_ratings_by_players(ratings: pl.DataFrame, *, ax=None):
    """Each strategy's Elo (Bradley–Terry, mean 0 within each tournament) against the player count, one line per
    strategy (``ratings`` with a ``players`` column), with 95% interval bars."""
    ax = ax or plt.gca()
    for (strategy,), rows in ratings.sort("strategy", "players").group_by("strategy", maintain_order=True):
        rows = rows.filter(pl.col("elo").is_finite())
        ax.errorbar(rows["players"].to_list(), rows["elo"].to_list(),
                    yerr=_errors(rows["elo"], rows["elo_low"], rows["elo_high"]), fmt="o-", capsize=2, markersize=3,
                    label=strategy)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xticks(sorted(set(ratings["players"].to_list())))
    ax.set_xlabel(_("players"))
    ax.set_ylabel(_("Elo within the tournament (95% interval)"))
    ax.set_title(_("opening strategies across player counts"))
    ax.legend(fontsize=8)
    return ax
