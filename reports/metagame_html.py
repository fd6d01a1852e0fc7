"""The meta-game of a tournament (``cardsim metagame``) as a report section and as its own page
(``DIR/metagame.html``): the verdict first, then the win-rate matrix as a heatmap beside the equilibrium mixture and
each member's standing against it, every number with its 95% interval; the tables folded."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.metagame import MetaGame, verdict
from reports.html import (_e, _figures_section, _page, _png, _table, write_atomic)
from reports.output import check_output
PAGE = "metagame.html"


def _mixture_chart(ax, m: MetaGame) -> None:
    mix = m.mixture.sort("weight", descending=True)
    names, w = mix["strategy"].to_list(), mix["weight"].to_numpy()
    ax.barh(names, w, xerr=[w - mix["weight_low"].to_numpy(), mix["weight_high"].to_numpy() - w], color="C0",
            capsize=4)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("weight in the equilibrium mixture (95% bootstrap interval)")
    ax.invert_yaxis()


def _members_chart(ax, m: MetaGame) -> None:
    members = m.members.sort("value", descending=True)
    names = members["strategy"].to_list()
    value = 100 * (0.5 + members["value"].to_numpy())
    low, high = 100 * (0.5 + members["value_low"].to_numpy()), 100 * (0.5 + members["value_high"].to_numpy())
    ax.barh(names, value, xerr=[value - low, high - value], color="C1", capsize=4)
    ax.axvline(50, color="grey", lw=0.8, ls="--")
    ax.set_xlabel(f"share of decided {m.level} won against the equilibrium mixture (%), 95% interval")
    ax.invert_yaxis()


def metagame_section(m: MetaGame, matrix: pl.DataFrame | None, suffix: str = "") -> tuple[str, list]:
    """The meta-game's HTML (verdict, folded tables) and its figures (the ``matrix`` heatmap unless ``None``, for a
    page that already draws it; the mixture; the members); element ids end with ``suffix`` so that the section can
    sit in another page."""
    from reports.batches import plot_win_matrix

    sentences = "".join(f'<p class="verdict">{_e(line)}</p>' for line in verdict(m))
    members = {r["strategy"]: r for r in m.members.iter_rows(named=True)}
    rows = []
    for r in m.mixture.sort("weight", descending=True).iter_rows(named=True):
        e = members[r["strategy"]]
        rows.append([_e(r["strategy"]), f"{r['weight']:.3f}", f"[{r['weight_low']:.3f}, {r['weight_high']:.3f}]",
                     f"{100 * r['in_support']:.0f}%", f"{100 * (0.5 + e['value']):.1f}%",
                     f"[{100 * (0.5 + e['value_low']):.1f}, {100 * (0.5 + e['value_high']):.1f}]",
                     f"{100 * (0.5 + e['exploitability']):.1f}%",
                     f"[{100 * (0.5 + e['exploit_low']):.1f}, {100 * (0.5 + e['exploit_high']):.1f}]",
                     _e(e["best_reply"] or "none beats it")])
    table = _table(["strategy", "weight", "95% interval", "in the equilibrium (replicates)",
                    "won against the mixture", "95% interval", "its best reply wins", "95% interval", "best reply"],
                   rows, id=f"metagame{suffix}", numeric=set(range(1, 8)),
                   caption=f"the equilibrium mixture and each member against it (shares of decided {m.level}; "
                           f"{m.bootstrap:,} bootstrap replicates of the tournament's games, seed {m.seed})")
    body = (f'<section id="metagame-verdict{suffix}"><h2>Meta-game: what no member can beat</h2>{sentences}'
            f"<details><summary>The mixture and every member, in numbers</summary>{table}</details></section>")
    size = max(5.0, 1.6 * len(m.names) + 2)
    height = 0.8 + 0.5 * len(m.names)
    figs = [] if matrix is None else [
        (f"fig-metagame-matrix{suffix}", "The game solved: win rate of the row strategy against the column over "
         "decided games (95% Wilson interval).",
         _png(lambda ax: plot_win_matrix(matrix, ax=ax, names=m.names), figsize=(size + 1.5, size)))]
    figs += [(f"fig-metagame-mixture{suffix}", "The equilibrium mixture: each strategy's weight, 95% bootstrap "
             "interval.", _png(lambda ax: _mixture_chart(ax, m), figsize=(7.0, height))),
            (f"fig-metagame-members{suffix}", "Each member against the mixture: its share of decided games (50%: "
             "it cannot be told from the mixture; below: the mixture beats it).",
             _png(lambda ax: _members_chart(ax, m), figsize=(7.0, height)))]
    return body, figs


def build_metagame_report(m: MetaGame, out_html: str | Path | None = None, *, title: str | None = None) -> Path:
    """Write the meta-game page of ``m`` to ``out_html`` (default ``DIR/metagame.html``), atomically."""
    from analysis.batches import tournament_frames

    out = check_output(out_html if out_html is not None else Path(m.path) / PAGE, "--out")
    body, figs = metagame_section(m, tournament_frames(m.path)["matrix"])
    title = title or f"cardsim metagame: {m.game}, {Path(m.path).name}"
    note = ("The tournament's win-rate matrix read as a symmetric zero-sum game between two sides and solved by "
            "linear programming; every number carries its 95% bootstrap interval. From the tournament directory "
            f"{Path(m.path).resolve()}.")
    return write_atomic(out, _page(title, note, body + _figures_section(figs)))
