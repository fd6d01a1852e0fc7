"""The report of a tournament or sweep directory (``_batch.json``). A tournament: the verdict beside the ratings,
then the win-rate matrix and the paired points gap (each a grid coloured where the interval leaves out no
difference) and the meta-game. A sweep:
the verdict beside the first swept seat's chart, then each swept seat's win rate and points per cell and how the
rows end. The batch's description and its cells are folded in the appendix.

The numbers come from :func:`analysis.batches.batch_frames`; the charts from ``reports.batches``. A study's page
embeds a batch's sections with :func:`batch_part`.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl

from analysis.batches import NO_EFFECT, batch_frames, sweep_verdict, tournament_verdict
from analysis.labels import legend, short_label, short_labels, shown
from analysis.metagame import metagame
from reports import formats as fmt
from reports.batches import plot_ratings, plot_sweep, plot_sweep_outcomes
from reports.layout import Block, Page, Section, figure, nested, write_page
from reports.metagame_report import metagame_sections
from reports.output import check_output
from reports.tables import grid, table
from simulator.core.i18n import _
from simulator.core.run.batch import cell_dir, load_batch
from simulator.core.storage.spec import RunSpec, _fmt
from simulator.core.storage.store import read_manifest
from simulator.games import get_game


def _value(value) -> str:
    return _fmt(value) if isinstance(value, (bool, float)) else str(value)


def _cell_label(labels: dict) -> str:
    return " ".join(f"{k}={_fmt(v)}" for k, v in labels.items())


def description(data: dict, out: Path, suffix: str = "") -> list[tuple[str, object]]:
    """The batch's description and its cells, as folded tables."""
    inputs = data["inputs"]
    version, done = "?", 0
    for cell in data["cells"]:
        try:
            manifest = read_manifest(cell_dir(out, cell["id"]), "cell")
        except Exception:  # a cell not started yet
            continue
        version = manifest.get("cardsim_version", version)
        done += sum(b - a for a, b in manifest.get("chunks", []))
    total = inputs["n"] * len(data["cells"])
    finished = _("{done} of {total}").format(done=fmt.count(done), total=fmt.count(total))
    rows = [["kind", data["kind"]], ["game", inputs["game"]], ["players", str(inputs["players"])],
            ["level", inputs["level"]], ["games per cell (n)", fmt.count(inputs["n"])], ["cells", str(len(data["cells"]))],
            ["games finished", finished + ("" if done >= total else " " + _("(batch not complete)"))],
            ["seed", _("{seed} (the same deals in every cell)").format(seed=inputs["seed"])], ["cardsim version", version]]
    if data["kind"] == "tournament":
        rows.append(["strategies", "\n".join(inputs["strategies"])])
    else:
        rows.append(["strategies (seats)", "\n".join(f"seat {p}: {s}" for p, s in enumerate(inputs["strategies"]))])
        for name, values in inputs["grids"]:
            kind = inputs.get("kinds", {}).get(name, "param")
            rows.append([f"grid ({'rule option' if kind == 'option' else 'strategy parameter'}) {name}",
                         ", ".join(_fmt(v) for v in values)])
        rows.append(["swept seats", ", ".join(str(s) for s in inputs["seats"])])
    for name, value in sorted(inputs.get("options", {}).items()):
        rows.append([f"option {name}", _value(value)])
    kind = _("tournament") if data["kind"] == "tournament" else _("sweep")
    spec = table([_("field"), _("value")], rows, id=f"spec{suffix}", caption=_("{kind} description").format(kind=kind),
                 drop_constant=False, code={1})
    return [(_("The {kind}'s description").format(kind=kind), spec),
            (_("Its cells, one run each on the same deals"), _cells_table(data, suffix))]


def _cells_table(data: dict, suffix: str):
    if data["kind"] == "tournament":
        shown = short_labels(data["inputs"]["strategies"])
        rows = [[c["id"], shown.get(c["labels"]["a"], c["labels"]["a"]), shown.get(c["labels"]["b"], c["labels"]["b"]),
                 c["labels"]["seating"]] for c in data["cells"]]
        return table([_("cell"), _("strategy A"), _("strategy B"), _("seating (A/B per seat or team)")], rows,
                     id=f"cells{suffix}", caption=_("cells (one run each, same deals)"), drop_constant=False)
    grid_names = [k for k, _ in data["inputs"]["grids"]]
    rows = [[c["id"], *(_value(c["labels"][k]) for k in grid_names)] for c in data["cells"]]
    return table([_("cell"), *grid_names], rows, id=f"cells{suffix}", caption=_("cells (one run each, same deals)"),
                 drop_constant=False)


def tournament_sections(data: dict, frames: dict, suffix: str = "", *, headline: bool = False,
                        names: dict | None = None):
    """``(verdict sentences, sections, ratings chart)`` of a tournament; the sections leave the ratings chart out
    when it is the page's ``headline``. Strategies are shown by their short labels, or by ``names`` (a study's
    names for what its tournament played)."""
    frames, inputs, labels = shown(frames, data["inputs"], names)
    names = list(inputs["strategies"])
    plugin = get_game(inputs["game"])
    level = inputs["level"]
    matrix = frames["matrix"]
    m = {(r["strategy"], r["opponent"]): r for r in matrix.iter_rows(named=True)}
    ratings_chart = figure(f"fig-ratings{suffix}", _("Bradley–Terry ratings on the Elo scale (mean 0) with their 95% "
                                                     "intervals."), lambda ax: plot_ratings(frames["ratings"], ax=ax),
                           figsize=(7.0, 1.2 + 0.6 * len(names)))
    rows = [[r["strategy"], fmt.mean_cell(r["elo"], r["elo_low"], r["elo_high"], 0, True),
             fmt.mean_cell(r["rating"], r["low"], r["high"], 3, True), fmt.count(r["wins"]), fmt.count(r["games"])]
            for r in frames["ratings"].iter_rows(named=True)]
    ratings = table([_("strategy"), _("Elo (95% interval)"), _("rating, log-strength (95% interval)"), _("won"),
                     _("decided games")], rows, id=f"ratings{suffix}", numeric={1, 2, 3, 4}, drop_constant=False,
                    caption=_("Bradley–Terry ratings (mean 0), best first, from decided {level}").format(level=_(level)))
    note = ("" if frames["ratings"]["fitted"].all() else
            _("Ratings undefined: some strategy never won or never lost against the others; play more games."))
    rate = pd.DataFrame([[m[(s, o)]["win_rate"] - 0.5 if s != o else float("nan") for o in names] for s in names],
                        index=names, columns=names)
    significant = pd.DataFrame([[rate.loc[s, o] if s != o and (m[(s, o)]["low"] > 0.5 or m[(s, o)]["high"] < 0.5)
                                 else float("nan") for o in names] for s in names], index=names, columns=names)
    text = pd.DataFrame([["—" if s == o else f"{fmt.pct(m[(s, o)]['win_rate'])}\n"  # the interval on a line of its own
                          f"{fmt.interval(m[(s, o)]['low'], m[(s, o)]['high'], 1, percent=True)}"
                          f"\n{fmt.count(m[(s, o)]['wins'])}/{fmt.count(m[(s, o)]['decided'])}" for o in names]
                         for s in names], index=names, columns=names)
    corner = _("strategy \\ opponent")
    matrix_grid = grid(rate, text, id=f"matrix{suffix}", colour=significant, corner=corner,
                       caption=_("win rate of the row against the column over decided {level} (95% Wilson interval; "
                                 "won/decided); coloured where the interval leaves out 50%").format(level=_(level)))
    better = _("lower points are better") if plugin.lower_is_better else _("higher points are better")
    gap = pd.DataFrame([[float("nan") if s == o else m[(s, o)]["points_gap"] * (-1 if plugin.lower_is_better else 1)
                         for o in names] for s in names], index=names, columns=names)
    gap_sig = pd.DataFrame([[gap.loc[s, o] if s != o and (m[(s, o)]["gap_low"] > 0 or m[(s, o)]["gap_high"] < 0)
                             else float("nan") for o in names] for s in names], index=names, columns=names)
    gap_text = pd.DataFrame([["—" if s == o else fmt.number(m[(s, o)]["points_gap"], 2, True) + "\n" +
                              fmt.interval(m[(s, o)]["gap_low"], m[(s, o)]["gap_high"], 2, True) for o in names]
                             for s in names], index=names, columns=names)
    gaps = grid(gap, gap_text, id=f"points-gap{suffix}", colour=gap_sig, corner=corner,
                caption=_("mean points per {unit} and {side}, row minus column, paired on the same deals ({better}; 95% "
                          "t interval); blue where the row does significantly better").format(
                    unit=_(plugin.finest_unit), side=_(plugin.side_kind), better=better))
    named = legend(labels)
    names_table = [(_("The strategies' whole texts"), table([_("label"), _("strategy")], named, id=f"labels{suffix}",
                                                            caption=_("each short label and what it plays"),
                                                            drop_constant=False, code={1}))] if named else []
    shown_chart = [] if headline else [Block(ratings_chart)]  # the chart above its table: both fit their width
    sections = [Section(f"ratings{suffix}", _("Ratings"), blocks=shown_chart + [Block(None, ratings, note)],
                        details=names_table),
                Section(f"win-rates{suffix}", _("Win rates"), blocks=[Block(None, matrix_grid)]),
                Section(f"points-gap-section{suffix}", _("Points gap"), blocks=[Block(None, gaps)])]
    verdict = [line.strip() for line in tournament_verdict(frames, inputs).splitlines()]
    return verdict, sections, ratings_chart


def sweep_sections(data: dict, frames: dict, suffix: str = "", *, headline: bool = False):
    """``(verdict sentences, sections, first chart)`` of a sweep; the sections leave the first chart (the first
    swept seat's win rate) out when it is the page's ``headline``."""
    inputs = data["inputs"]
    names = [k for k, _ in inputs["grids"]]
    summary, outcomes = frames["summary"], frames["outcomes"]
    side = "team" if "team" in summary.columns else "seat"
    shown = summary if side == "team" else summary.filter(pl.col("seat").is_in(inputs["seats"]))
    spec = RunSpec.from_dict(data["cells"][0]["spec"])
    finest = spec.plugin.tables(spec.level)[0]
    better = _("lower points are better") if spec.plugin.lower_is_better else _("higher points are better")
    side_word = _("team") if side == "team" else _("seat")
    x, series = names[0], names[1:]
    sections, first = [], None
    for value in dict.fromkeys(shown[side].to_list()):
        rows = shown.filter(pl.col(side) == value)
        who = f"{side_word} {value}"
        charts = [figure(f"fig-sweep-{side}{value}-{metric.replace('_', '-')}{suffix}",
                         _("{who}: {what} against {x}").format(who=who, what=what, x=x)
                         + (_(", one line per {series}").format(series=", ".join(series)) if series else "")
                         + (_(", with 95% Wilson intervals.") if metric == "win_rate" else _(", with 95% t intervals.")),
                         lambda ax, f=rows, m=metric, t=f"{who}: {what}":
                         plot_sweep(f, ax=ax, x=x, metric=m, series=series, title=t))
                  for metric, what in (("win_rate", _("win rate")), ("mean_points", _("mean points ({better})").format(better=better)))]
        first = first or charts[0]
        cells = [[r["cell"], *(_value(r[k]) for k in names), short_label(r["strategy"]), fmt.count(r["n"]),
                  fmt.share_cell(r["win_rate"], r["win_low"], r["win_high"]),
                  fmt.mean_cell(r["mean_points"], r["points_low"], r["points_high"]),
                  {"baseline": _("baseline"), NO_EFFECT: _("no effect")}.get(r.get("effect", ""), "")]
                 for r in rows.iter_rows(named=True)]
        k = len(names) + 2
        numbers = table([_("cell"), *names, _("strategy"), _(finest), _("won (95% interval)"),
                         _("mean points (95% interval)"), _("effect")], cells, id=f"sweep-{side}{value}{suffix}",
                        numeric={k, k + 1, k + 2},
                        caption=_("{who} per cell ({better}); no effect: every game played move for move as the "
                                  "baseline's").format(who=who, better=better))
        blocks = [Block(None if headline and not sections else charts[0], numbers),
                  Block(charts[1])]
        sections.append(Section(f"sweep-{side}{value}{suffix}", who, blocks=blocks))
    rows = [[r["cell"], _cell_label({k: r[k] for k in names}), r["outcome"], fmt.count(r["n"]),
             fmt.share_cell(r["share"], r["low"], r["high"])] for r in outcomes.iter_rows(named=True)]
    ticks = {c["id"]: "\n".join([c["id"]] + [f"{k}={_fmt(v)}" for k, v in c["labels"].items()]) for c in data["cells"]}
    endings = figure(f"fig-sweep-outcomes{suffix}", _("Share of each outcome kind per cell, with 95% Wilson intervals."),
                     lambda ax: plot_sweep_outcomes(outcomes, ax=ax, cell_labels=ticks), figsize=(8.0, 4.5))
    ending_title = _("How {rows} end").format(rows=_(finest))
    numbers = table([_("cell"), _("values"), _("outcome"), _("count"), _("share (95% interval)")], rows,
                    id=f"sweep-outcomes{suffix}", numeric={3, 4},
                    caption=_("how {rows} end in each cell (95% Wilson interval)").format(rows=_(finest)))
    sections.append(Section(f"sweep-outcomes-section{suffix}", ending_title, blocks=[Block(endings)],
                            details=[(_("How {rows} end in each cell, in numbers").format(rows=_(finest)), numbers)]))
    return sweep_verdict(frames, inputs), sections, first


def _sections(data: dict, frames: dict, suffix: str = "", *, headline: bool = False, names: dict | None = None):
    if data["kind"] == "tournament":
        return tournament_sections(data, frames, suffix, headline=headline, names=names)
    return sweep_sections(data, frames, suffix, headline=headline)


def build_batch_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write the self-contained HTML report of the tournament or sweep at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    data = load_batch(out_dir, "RUN")
    out = check_output(out_html, "--out")
    frames = batch_frames(out_dir)
    verdict, sections, headline = _sections(data, frames, headline=True)
    if data["kind"] == "tournament":
        sections += metagame_sections(metagame(out_dir), None)[0]  # the matrix is drawn above
    title = title or (_("cardsim tournament report: {game}, {name}") if data["kind"] == "tournament" else
                      _("cardsim sweep report: {game}, {name}")).format(game=data["inputs"]["game"], name=out_dir.name)
    page = Page(title, verdict, sections, headline=headline, appendix=description(data, out_dir),
                note=_("Every rate carries its 95% Wilson interval and every mean its 95% t interval. Generated from "
                       "the directory {path}.").format(path=out_dir.resolve()))
    return write_page(out, page)


def batch_part(path: Path, suffix: str, heading: str, names: dict | None = None,
               folded: bool = True) -> tuple[list[str], list[Section]]:
    """A batch's verdict and sections inside a study's page, as parts of a section ``heading`` (``names``: a
    study's names for the strategies; ``folded``: each part's charts and tables behind its "show" line, its verdict
    still shown); element ids end with ``-suffix`` to stay unique on the page."""
    data = load_batch(path, "--out")
    verdict, sections, _headline = _sections(data, batch_frames(path), f"-{suffix}", names=names)
    sections[0].intro = verdict + sections[0].intro
    part = nested(sections, f"part-{suffix}", heading, folded)
    part[0].details = description(data, path, f"-{suffix}")
    return verdict, part
