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
from analysis.metagame import metagame
from reports import formats as fmt
from reports.batches import plot_ratings, plot_sweep, plot_sweep_outcomes
from reports.layout import Block, Page, Section, figure, nested, write_page
from reports.metagame_report import metagame_sections
from reports.output import check_output
from reports.tables import grid, table
from simulator.core.batch import cell_dir, load_batch
from simulator.core.spec import RunSpec, _fmt
from simulator.core.store import read_manifest
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
    rows = [["kind", data["kind"]], ["game", inputs["game"]], ["players", str(inputs["players"])],
            ["level", inputs["level"]], ["games per cell (n)", fmt.count(inputs["n"])], ["cells", str(len(data["cells"]))],
            ["games finished", f"{fmt.count(done)} of {fmt.count(total)}" + ("" if done >= total else " (batch not complete)")],
            ["seed", f"{inputs['seed']} (the same deals in every cell)"], ["cardsim version", version]]
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
    spec = table(["field", "value"], rows, id=f"spec{suffix}", caption=f"{data['kind']} description", drop_constant=False)
    return [(f"The {data['kind']}'s description", spec), ("Its cells, one run each on the same deals",
                                                           _cells_table(data, suffix))]


def _cells_table(data: dict, suffix: str):
    if data["kind"] == "tournament":
        rows = [[c["id"], c["labels"]["a"], c["labels"]["b"], c["labels"]["seating"]] for c in data["cells"]]
        return table(["cell", "strategy A", "strategy B", "seating (A/B per seat or team)"], rows, id=f"cells{suffix}",
                     caption="cells (one run each, same deals)", drop_constant=False)
    grid_names = [k for k, _ in data["inputs"]["grids"]]
    rows = [[c["id"], *(_value(c["labels"][k]) for k in grid_names)] for c in data["cells"]]
    return table(["cell", *grid_names], rows, id=f"cells{suffix}", caption="cells (one run each, same deals)",
                 drop_constant=False)


def tournament_sections(data: dict, frames: dict, suffix: str = "", *, headline: bool = False):
    """``(verdict sentences, sections, ratings chart)`` of a tournament; the sections leave the ratings chart out
    when it is the page's ``headline``."""
    inputs = data["inputs"]
    names = list(inputs["strategies"])
    plugin = get_game(inputs["game"])
    level = inputs["level"]
    matrix = frames["matrix"]
    m = {(r["strategy"], r["opponent"]): r for r in matrix.iter_rows(named=True)}
    ratings_chart = figure(f"fig-ratings{suffix}", "Bradley–Terry ratings on the Elo scale (mean 0) with their 95% "
                           "intervals.", lambda ax: plot_ratings(frames["ratings"], ax=ax),
                           figsize=(7.0, 1.2 + 0.6 * len(names)))
    rows = [[r["strategy"], fmt.mean_cell(r["elo"], r["elo_low"], r["elo_high"], 0, True),
             fmt.mean_cell(r["rating"], r["low"], r["high"], 3, True), fmt.count(r["wins"]), fmt.count(r["games"])]
            for r in frames["ratings"].iter_rows(named=True)]
    ratings = table(["strategy", "Elo (95% interval)", "rating, log-strength (95% interval)", "won", "decided games"],
                    rows, id=f"ratings{suffix}", numeric={1, 2, 3, 4}, drop_constant=False,
                    caption=f"Bradley–Terry ratings (mean 0), best first, from decided {level}")
    note = ("" if frames["ratings"]["fitted"].all() else
            "Ratings undefined: some strategy never won or never lost against the others; play more games.")
    rate = pd.DataFrame([[m[(s, o)]["win_rate"] - 0.5 if s != o else float("nan") for o in names] for s in names],
                        index=names, columns=names)
    significant = pd.DataFrame([[rate.loc[s, o] if s != o and (m[(s, o)]["low"] > 0.5 or m[(s, o)]["high"] < 0.5)
                                 else float("nan") for o in names] for s in names], index=names, columns=names)
    text = pd.DataFrame([["—" if s == o else f"{fmt.share_cell(m[(s, o)]['win_rate'], m[(s, o)]['low'], m[(s, o)]['high'])}"
                          f"\n{fmt.count(m[(s, o)]['wins'])}/{fmt.count(m[(s, o)]['decided'])}" for o in names]
                         for s in names], index=names, columns=names)
    matrix_grid = grid(rate, text, id=f"matrix{suffix}", colour=significant, corner="strategy \\ opponent",
                       caption=f"win rate of the row against the column over decided {level} (95% Wilson interval; "
                               "won/decided); coloured where the interval leaves out 50%")
    better = "lower" if plugin.lower_is_better else "higher"
    gap = pd.DataFrame([[float("nan") if s == o else m[(s, o)]["points_gap"] * (-1 if plugin.lower_is_better else 1)
                         for o in names] for s in names], index=names, columns=names)
    gap_sig = pd.DataFrame([[gap.loc[s, o] if s != o and (m[(s, o)]["gap_low"] > 0 or m[(s, o)]["gap_high"] < 0)
                             else float("nan") for o in names] for s in names], index=names, columns=names)
    gap_text = pd.DataFrame([["—" if s == o else fmt.mean_cell(m[(s, o)]["points_gap"], m[(s, o)]["gap_low"],
                                                                m[(s, o)]["gap_high"], 2, True) for o in names]
                             for s in names], index=names, columns=names)
    gaps = grid(gap, gap_text, id=f"points-gap{suffix}", colour=gap_sig, corner="strategy \\ opponent",
                caption=f"mean points per {plugin.finest_unit} and {plugin.side_kind}, row minus column, paired on the "
                        f"same deals ({better} points are better; 95% t interval); blue where the row does "
                        "significantly better")
    sections = [Section(f"ratings{suffix}", "Ratings", blocks=[Block(None if headline else ratings_chart, ratings, note)]),
                Section(f"win-rates{suffix}", "Win rates", blocks=[Block(None, matrix_grid)]),
                Section(f"points-gap-section{suffix}", "Points gap", blocks=[Block(None, gaps)])]
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
    better = "lower" if spec.plugin.lower_is_better else "higher"
    x, series = names[0], names[1:]
    sections, first = [], None
    for value in dict.fromkeys(shown[side].to_list()):
        rows = shown.filter(pl.col(side) == value)
        charts = [figure(f"fig-sweep-{side}{value}-{metric.replace('_', '-')}{suffix}",
                         f"{side} {value}: {what} against {x}" + (f", one line per {', '.join(series)}" if series else "")
                         + ", with 95% " + ("Wilson" if metric == "win_rate" else "t") + " intervals.",
                         lambda ax, f=rows, m=metric, t=f"{side} {value}: {what}":
                         plot_sweep(f, ax=ax, x=x, metric=m, series=series, title=t))
                  for metric, what in (("win_rate", "win rate"), ("mean_points", f"mean points ({better} is better)"))]
        first = first or charts[0]
        cells = [[r["cell"], *(_value(r[k]) for k in names), r["strategy"], fmt.count(r["n"]),
                  fmt.share_cell(r["win_rate"], r["win_low"], r["win_high"]),
                  fmt.mean_cell(r["mean_points"], r["points_low"], r["points_high"]),
                  {"baseline": "baseline", NO_EFFECT: "no effect"}.get(r.get("effect", ""), "")]
                 for r in rows.iter_rows(named=True)]
        k = len(names) + 2
        numbers = table(["cell", *names, "strategy", finest, "won (95% interval)", "mean points (95% interval)", "effect"],
                        cells, id=f"sweep-{side}{value}{suffix}", numeric={k, k + 1, k + 2},
                        caption=f"{side} {value} per cell ({better} points are better); no effect: every game played "
                                "move for move as the baseline's")
        blocks = [Block(None if headline and not sections else charts[0], numbers),
                  Block(charts[1])]
        sections.append(Section(f"sweep-{side}{value}{suffix}", f"{side} {value}", blocks=blocks))
    rows = [[r["cell"], _cell_label({k: r[k] for k in names}), r["outcome"], fmt.count(r["n"]),
             fmt.share_cell(r["share"], r["low"], r["high"])] for r in outcomes.iter_rows(named=True)]
    ticks = {c["id"]: "\n".join([c["id"]] + [f"{k}={_fmt(v)}" for k, v in c["labels"].items()]) for c in data["cells"]}
    endings = figure(f"fig-sweep-outcomes{suffix}", "Share of each outcome kind per cell, with 95% Wilson intervals.",
                     lambda ax: plot_sweep_outcomes(outcomes, ax=ax, cell_labels=ticks), figsize=(8.0, 4.5))
    sections.append(Section(f"sweep-outcomes-section{suffix}", f"How the {finest} end", blocks=[Block(endings)],
                            details=[(f"How the {finest} end in each cell, in numbers",
                                      table(["cell", "values", "outcome", "count", "share (95% interval)"], rows,
                                            id=f"sweep-outcomes{suffix}", numeric={3, 4},
                                            caption=f"how the {finest} end in each cell (95% Wilson interval)"))]))
    return sweep_verdict(frames, inputs), sections, first


def _sections(data: dict, frames: dict, suffix: str = "", *, headline: bool = False):
    builder = tournament_sections if data["kind"] == "tournament" else sweep_sections
    return builder(data, frames, suffix, headline=headline)


def build_batch_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write the self-contained HTML report of the tournament or sweep at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    data = load_batch(out_dir, "RUN")
    out = check_output(out_html, "--out")
    frames = batch_frames(out_dir)
    verdict, sections, headline = _sections(data, frames, headline=True)
    if data["kind"] == "tournament":
        sections += metagame_sections(metagame(out_dir), None)[0]  # the matrix is drawn above
    page = Page(title or f"cardsim {data['kind']} report: {data['inputs']['game']}, {out_dir.name}", verdict, sections,
                headline=headline, appendix=description(data, out_dir),
                note="Every rate carries its 95% Wilson interval and every mean its 95% t interval. Generated from the "
                     f"{data['kind']} directory {out_dir.resolve()}.")
    return write_page(out, page)


def batch_part(path: Path, suffix: str, heading: str) -> tuple[list[str], list[Section]]:
    """A batch's verdict and sections inside a study's page, as parts of a section ``heading``; element ids end
    with ``-suffix`` to stay unique on the page."""
    data = load_batch(path, "--out")
    verdict, sections, _ = _sections(data, batch_frames(path), f"-{suffix}")
    sections[0].intro = verdict + sections[0].intro
    part = nested(sections, f"part-{suffix}", heading)
    part[0].details = description(data, path, f"-{suffix}")
    return verdict, part
