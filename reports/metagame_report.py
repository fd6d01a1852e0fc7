"""The meta-game of a tournament (``cardsim metagame``) as sections of a tournament's page and as its own page
(``DIR/metagame.html``): the verdict first, then the equilibrium mixture and each member's standing against it,
each chart beside its numbers, every number with its 95% interval."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt
import polars as pl

from analysis.batches import tournament_frames
from analysis.labels import relabelled, short_labels
from analysis.metagame import MetaGame, verdict
from reports import formats as fmt
from reports.batches import plot_win_matrix
from reports.layout import Block, Figure, Page, Section, figure, write_page
from reports.output import check_output
from reports.tables import table
from simulator.core.i18n import _

PAGE = "metagame.html"


def plot_mixture(mixture: pl.DataFrame, *, ax=None):
    """Each strategy's weight in the equilibrium mixture (``MetaGame.mixture``) with its 95% bootstrap interval."""
    ax = ax or plt.gca()
    mix = mixture.sort("weight", descending=True)
    w = mix["weight"].to_numpy()
    ax.barh(mix["strategy"].to_list(), w, xerr=[w - mix["weight_low"].to_numpy(), mix["weight_high"].to_numpy() - w],
            color="C0", capsize=4)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel(_("weight in the equilibrium mixture (95% bootstrap interval)"))
    ax.invert_yaxis()
    return ax


def plot_members(members: pl.DataFrame, *, ax=None, level: str = "games"):
    """Each member's share of decided ``level`` won against the mixture (``MetaGame.members``), 95% interval."""
    ax = ax or plt.gca()
    members = members.sort("value", descending=True)
    value = 100 * (0.5 + members["value"].to_numpy())
    low, high = 100 * (0.5 + members["value_low"].to_numpy()), 100 * (0.5 + members["value_high"].to_numpy())
    ax.barh(members["strategy"].to_list(), value, xerr=[value - low, high - value], color="C1", capsize=4)
    ax.axvline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(_("share of decided {level} won against the equilibrium mixture (%), 95% interval").format(level=_(level)))
    ax.invert_yaxis()
    return ax


def metagame_sections(m: MetaGame, matrix: pl.DataFrame | None, suffix: str = "", *,
                      headline: bool = False) -> tuple[list[Section], Figure]:
    """The meta-game's section (its verdict, the mixture beside its table, the members' chart, and the ``matrix``
    heatmap unless ``None``, for a page that already draws it) and the mixture's chart, which the section leaves
    out when it is the page's ``headline`` (its verdict too: the page states it); element ids end with ``suffix``."""
    labels = short_labels(m.names)
    m = replace(m, names=[labels[n] for n in m.names], mixture=relabelled(m.mixture, labels),
                members=relabelled(m.members, labels))
    members = {r["strategy"]: r for r in m.members.iter_rows(named=True)}
    rows = []
    for r in m.mixture.sort("weight", descending=True).iter_rows(named=True):
        e = members[r["strategy"]]
        rows.append([r["strategy"], fmt.mean_cell(r["weight"], r["weight_low"], r["weight_high"], 3),
                     fmt.pct(r["in_support"], 0),
                     fmt.share_cell(0.5 + e["value"], 0.5 + e["value_low"], 0.5 + e["value_high"]),
                     fmt.share_cell(0.5 + e["exploitability"], 0.5 + e["exploit_low"], 0.5 + e["exploit_high"]),
                     e["best_reply"] or _("none beats it")])
    numbers = table([_("strategy"), _("weight (95% interval)"), _("in the equilibrium (replicates)"),
                     _("won against the mixture"), _("its best reply wins"), _("best reply")], rows,
                    id=f"metagame{suffix}", numeric={1, 2, 3, 4},
                    caption=_("the equilibrium mixture and each member against it (shares of decided {level}; {count} "
                              "bootstrap replicates of the tournament's games, seed {seed})").format(
                        level=_(m.level), count=fmt.count(m.bootstrap), seed=m.seed))
    height = 0.8 + 0.5 * len(m.names)
    mixture = figure(f"fig-metagame-mixture{suffix}", _("The equilibrium mixture: each strategy's weight, 95% bootstrap "
                                                        "interval."),
                     lambda ax: plot_mixture(m.mixture, ax=ax), figsize=(7.0, height))
    blocks = [Block(None if headline else mixture, numbers),
              Block(figure(f"fig-metagame-members{suffix}", _("Each member against the mixture: its share of decided "
                                                              "games (50%: it cannot be told from the mixture; below: "
                                                              "the mixture beats it)."),
                           lambda ax: plot_members(m.members, ax=ax, level=m.level), figsize=(7.0, height)))]
    if matrix is not None:
        size = max(5.0, 1.6 * len(m.names) + 2)
        blocks.append(Block(figure(f"fig-metagame-matrix{suffix}", _("The game solved: win rate of the row strategy "
                                                                     "against the column over decided games (95% "
                                                                     "Wilson interval)."),
                                   lambda ax: plot_win_matrix(relabelled(matrix, labels), ax=ax, names=m.names),
                                   figsize=(size + 1.5, size))))
    intro = [] if headline else verdict(m)
    return [Section(f"metagame{suffix}", _("Meta-game: what no member can beat"), intro=intro, blocks=blocks)], mixture


def build_metagame_report(m: MetaGame, out_html: str | Path | None = None, *, title: str | None = None) -> Path:
    """Write the meta-game page of ``m`` to ``out_html`` (default ``DIR/metagame.html``), atomically."""
    out = check_output(out_html if out_html is not None else Path(m.path) / PAGE, "--out")
    sections, mixture = metagame_sections(m, tournament_frames(m.path)["matrix"], headline=True)
    page = Page(title or _("cardsim metagame: {game}, {name}").format(game=m.game, name=Path(m.path).name), verdict(m),
                sections, headline=mixture,
                note=_("The tournament's win-rate matrix read as a symmetric zero-sum game between two sides and solved "
                       "by linear programming; every number carries its 95% bootstrap interval. From the tournament "
                       "directory {path}.").format(path=Path(m.path).resolve()))
    return write_page(out, page)
