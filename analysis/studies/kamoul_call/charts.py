"""Charts of Study 1 (``analysis.studies.kamoul_call.study``'s frames): they draw, they do not compute."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from reports.batches import _errors  # noqa: E402
from simulator.core.i18n import _  # noqa: E402

SHOWN_UNSEEN = (0, 1, 2)
MAX_KNOWN_SHOWN = 12


def plot_call_gain(by_known: pl.DataFrame, *, ax=None, title: str | None = None):
    """Points saved by calling now rather than playing on, against the known points, one line per number of
    unseen own cards (``by_known`` of one player count), with 95% interval bars; above 0 calling is right."""
    ax = ax or plt.gca()
    for unseen in SHOWN_UNSEEN:
        rows = by_known.filter((pl.col("unseen") == unseen) & (pl.col("known_cell") <= MAX_KNOWN_SHOWN)
                               & (pl.col("n") >= 2)).sort("known_cell")
        if rows.height:
            ax.errorbar(rows["known_cell"].to_list(), rows["gain"].to_list(),
                        yerr=_errors(rows["gain"], rows["gain_low"], rows["gain_high"], 1.0),
                        fmt="o-", capsize=2, markersize=3, label=_("{count} unseen").format(count=unseen))
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(_("points of the own cards the caller knows"))
    ax.set_ylabel(_("points saved by calling now (95% interval)"))
    ax.set_title(title or _("value of calling now"))
    ax.legend(fontsize=8)
    return ax


def plot_call_win(by_known: pl.DataFrame, *, ax=None, title: str | None = None):
    """Probability of winning the hand when calling now and when playing on, against the known points, for a
    fully known layout (``by_known`` of one player count, ``unseen == 0``), with 95% Wilson interval bars."""
    ax = ax or plt.gca()
    rows = by_known.filter((pl.col("unseen") == 0) & (pl.col("known_cell") <= MAX_KNOWN_SHOWN)).sort("known_cell")
    for branch, label in (("call_win", "call now"), ("play_win", "play on")):
        ax.errorbar(rows["known_cell"].to_list(), [100 * v for v in rows[branch]],
                    yerr=_errors(rows[branch], rows[f"{branch}_low"], rows[f"{branch}_high"], 100.0), fmt="o-",
                    capsize=2, markersize=3, label=label)
    ax.set_xlabel(_("points of the own cards (all known)"))
    ax.set_ylabel(_("% of hands won (95% interval)"))
    ax.set_title(title or _("win probability, all own cards known"))
    ax.legend(fontsize=8)
    return ax


def plot_gain_by_turn(by_turn: pl.DataFrame, *, ax=None):
    """Points saved by calling a fully known layout of at most 5 points, by own-turn bucket, one line per
    player count (``by_turn``), with 95% interval bars."""
    ax = ax or plt.gca()
    order = sorted(set(by_turn["turn_bucket"].to_list()), key=lambda b: int(b.split("-")[0].rstrip("+")))
    for (players,), rows in by_turn.sort("players").group_by("players", maintain_order=True):
        rows = rows.filter(pl.col("n") >= 2)
        x = [order.index(b) for b in rows["turn_bucket"]]
        ax.errorbar(x, rows["gain"].to_list(), yerr=_errors(rows["gain"], rows["gain_low"], rows["gain_high"]),
                    fmt="o-", capsize=2, markersize=3, label=_("{players} players").format(players=players))
    ax.set_xticks(range(len(order)), order)
    ax.axhline(0.0, color="black", linewidth=0.8)
    ax.set_xlabel(_("own turn of the decision"))
    ax.set_ylabel(_("points saved by calling now (95% interval)"))
    ax.set_title(_("all own cards known, at most 5 points: calling by turn"))
    ax.legend(fontsize=8)
    return ax


def plot_policy_gain(gain: pl.DataFrame, *, ax=None):
    """The derived policy's win rate against each preset (``gain``), grouped bars per player count, with 95%
    Wilson interval bars; 50% = no better than the preset."""
    ax = ax or plt.gca()
    presets = list(dict.fromkeys(gain["preset"].to_list()))
    counts = sorted(set(gain["players"].to_list()))
    width = 0.8 / max(1, len(presets))
    for k, preset in enumerate(presets):
        rows = gain.filter(pl.col("preset") == preset).sort("players")
        pos = [counts.index(p) + (k - (len(presets) - 1) / 2) * width for p in rows["players"]]
        ax.bar(pos, [100 * v for v in rows["win_rate"]], width=width, label=_("vs {preset}").format(preset=preset),
               yerr=_errors(rows["win_rate"], rows["low"], rows["high"], 100.0), capsize=2)
    ax.axhline(50.0, color="black", linewidth=0.8)
    ax.set_xticks(range(len(counts)), [_("{players} players").format(players=p) for p in counts])
    ax.set_ylabel(_("% of decided games won (95% interval)"))
    ax.set_title(_("the derived call policy against each preset"))
    ax.set_ylim(0, 112)
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=min(4, len(presets)), frameon=False)
    return ax
