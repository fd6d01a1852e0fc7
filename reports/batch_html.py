"""One self-contained HTML report of a tournament or sweep directory (``_batch.json``): the batch's
description and cells, then for a tournament the win-rate matrix, the paired points gap and the
Bradley–Terry ratings, for a sweep the per-cell summary and outcome shares; charts embedded as PNGs.

The numbers come from :func:`simulator.api.batch_frames` (``analysis.batches``); the charts from
``reports.batches``. Layout helpers are those of :mod:`reports.html`.
"""

from __future__ import annotations

import re
from pathlib import Path

import polars as pl

from reports.batches import plot_ratings, plot_sweep, plot_sweep_outcomes, plot_win_matrix
from reports.html import (_e, _figures_section, _interval, _interval_pct, _num, _page, _pct, _png, _table, write_atomic)
from reports.output import check_output
from simulator.core.batch import cell_dir, load_batch
from simulator.core.spec import RunSpec, _fmt
from simulator.core.store import read_manifest
from simulator.games import get_game


def _v(value) -> str:
    return _e(_fmt(value) if isinstance(value, (bool, float)) else value)


def _cell_label(labels: dict) -> str:
    return " ".join(f"{k}={_fmt(v)}" for k, v in labels.items())


def _description(data: dict, out: Path) -> str:
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
    rows = [["kind", _e(data["kind"])], ["game", _e(inputs["game"])], ["players", _e(inputs["players"])],
            ["level", _e(inputs["level"])], ["games per cell (n)", _e(f"{inputs['n']:,}")],
            ["cells", _e(len(data["cells"]))],
            ["games finished", _e(f"{done:,} of {total:,}" + ("" if done >= total else " (batch not complete)"))],
            ["seed", _e(inputs["seed"]) + " (the same deals in every cell)"], ["cardsim version", _e(version)]]
    if data["kind"] == "tournament":
        rows.append(["strategies", "<br>".join(_e(s) for s in inputs["strategies"])])
    else:
        rows.append(["strategies (seats)", "<br>".join(f"seat {p}: {_e(s)}" for p, s in enumerate(inputs["strategies"]))])
        for name, values in inputs["grids"]:
            kind = inputs.get("kinds", {}).get(name, "param")
            rows.append([_e(f"grid ({'rule option' if kind == 'option' else 'strategy parameter'}) {name}"),
                         _e(", ".join(_fmt(v) for v in values))])
        rows.append(["swept seats", _e(", ".join(str(s) for s in inputs["seats"]))])
    for name, value in sorted(inputs.get("options", {}).items()):
        rows.append([_e(f"option {name}"), _v(value)])
    return "<h2>Batch</h2>" + _table(["field", "value"], rows, id="spec", caption=f"{data['kind']} description")


def _tournament_sections(data: dict, frames: dict) -> tuple[str, list]:
    inputs = data["inputs"]
    names = list(inputs["strategies"])
    m = {(r["strategy"], r["opponent"]): r for r in frames["matrix"].iter_rows(named=True)}
    wins = {r["cell"]: r for r in frames["wins"].iter_rows(named=True)}
    cell_rows = []
    for cell in data["cells"]:
        lab, w = cell["labels"], wins.get(cell["id"], {})
        cell_rows.append([_e(cell["id"]), _e(lab["a"]), _e(lab["b"]), _e(lab["seating"]),
                          *(_num(w.get(k, 0)) for k in ("games", "a_wins", "b_wins", "undecided"))])
    out = [_table(["cell", "strategy A", "strategy B", "seating (A/B per seat or team)", inputs["level"], "A won",
                   "B won", "undecided"], cell_rows, id="cells", caption="cells (one run each, same deals)",
                  numeric={4, 5, 6, 7}), "<h2>Win rates</h2>"]
    rows = [[_e(s)] + ["—" if s == o else f"{_pct(m[(s, o)]['win_rate'])} {_interval_pct(m[(s, o)]['low'], m[(s, o)]['high'])}"
                       f" <span class=\"params\">({m[(s, o)]['wins']:,}/{m[(s, o)]['decided']:,})</span>"
                       for o in names] for s in names]
    out.append(_table(["strategy \\ opponent", *names], rows, id="matrix",
                      caption="win rate of the row against the column over decided games (95% Wilson interval; "
                              "won/decided)", numeric=set(range(1, len(names) + 1))))
    plugin = get_game(inputs["game"])
    better = "lower" if plugin.lower_is_better else "higher"
    rows = [[_e(s)] + ["—" if s == o else f"{_num(m[(s, o)]['points_gap'], True)} "
                       f"{_interval(m[(s, o)]['gap_low'], m[(s, o)]['gap_high'], True)}" for o in names] for s in names]
    unit = f"{plugin.finest_unit} and {plugin.side_kind}"
    out.append(_table(["strategy \\ opponent", *names], rows, id="points-gap",
                      caption=f"mean points per {unit}, row minus column, paired on the same deals ({better} is "
                              "better; 95% t interval)", numeric=set(range(1, len(names) + 1))))
    r_rows = [[_e(r["strategy"]), _num(r["rating"], True), _interval(r["low"], r["high"], True),
               _num(r["elo"], True), _interval(r["elo_low"], r["elo_high"], True), _num(r["wins"]), _num(r["games"])]
              for r in frames["ratings"].iter_rows(named=True)]
    out += ["<h2>Ratings</h2>", _table(["strategy", "rating (log-strength)", "95% interval", "Elo", "95% interval",
                                        "won", "decided games"], r_rows, id="ratings",
                                       caption="Bradley–Terry ratings (mean 0), best first", numeric={1, 2, 3, 4, 5, 6})]
    if not frames["ratings"]["fitted"].all():
        out.append('<p class="note">Ratings undefined: some strategy never won or never lost against the others; '
                   "play more games.</p>")
    size = max(5.0, 1.6 * len(names) + 2)
    figs = [("fig-matrix", "Win rate of the row strategy against the column strategy over decided games, each cell "
             "annotated with its rate and 95% Wilson interval.",
             _png(lambda ax: plot_win_matrix(frames["matrix"], ax=ax, names=names), figsize=(size + 1.5, size))),
            ("fig-ratings", "Bradley–Terry ratings on the Elo scale (mean 0) with their 95% intervals.",
             _png(lambda ax: plot_ratings(frames["ratings"], ax=ax), figsize=(7.0, 1.2 + 0.6 * len(names))))]
    return "".join(out), figs


def _sweep_sections(data: dict, frames: dict) -> tuple[str, list]:
    from analysis.batches import NO_EFFECT

    inputs = data["inputs"]
    grid = [k for k, _ in inputs["grids"]]
    summary, outcomes = frames["summary"], frames["outcomes"]
    side = "team" if "team" in summary.columns else "seat"
    shown = summary if side == "team" else summary.filter(pl.col("seat").is_in(inputs["seats"]))
    labels = {c["id"]: _cell_label(c["labels"]) for c in data["cells"]}
    effect = dict(summary.select("cell", "effect").unique().iter_rows()) if "effect" in summary.columns else {}
    out = [_table(["cell", *grid, "effect"], [[_e(c["id"]), *(_v(c["labels"][k]) for k in grid),
                                              _e(effect.get(c["id"], ""))] for c in data["cells"]],
                  id="cells", caption="cells (one run each, same deals); effect: a cell whose every game is played "
                                      "move for move as the baseline's has no effect (its rule is never reached)")]
    same = [cid for cid, e in effect.items() if e == NO_EFFECT]
    if same:
        out.append(f'<p class="note">{len(same)} cell(s), {_e(", ".join(sorted(same)))}, played every game as the '
                   f"baseline did: {_e(NO_EFFECT)}. Their equal numbers are not a finding that the rule does not "
                   "matter.</p>")
    out.append("<h2>Results per cell</h2>")
    spec = RunSpec.from_dict(data["cells"][0]["spec"])
    finest = spec.plugin.tables(spec.level)[0]
    rows = [[_e(r["cell"]), *(_v(r[k]) for k in grid), _e(f"{side} {r[side]}"), _e(r["strategy"]), _num(r["n"]),
             _num(r["wins"]), _pct(r["win_rate"]), _interval_pct(r["win_low"], r["win_high"]),
             _num(r["mean_points"], True), _interval(r["points_low"], r["points_high"], True)]
            for r in shown.iter_rows(named=True)]
    k = len(grid) + 3
    out.append(_table(["cell", *grid, side, "strategy", "rows", "won", "rate", "95% interval", "mean points",
                       "95% interval"], rows, id="sweep-summary",
                      caption=f"per cell: win rate and mean points of the swept {side}s (95% intervals)",
                      numeric=set(range(k, k + 6))))
    rows = [[_e(r["cell"]), _e(labels.get(r["cell"], "")), _e(r["outcome"]), _num(r["n"]), _pct(r["share"]),
             _interval_pct(r["low"], r["high"])] for r in outcomes.iter_rows(named=True)]
    out.append(_table(["cell", "values", "outcome", "count", "share", "95% interval"], rows, id="sweep-outcomes",
                      caption=f"how the {finest} end in each cell (95% Wilson interval)", numeric={3, 4, 5}))
    x, series = grid[0], grid[1:]
    figs = []
    for value in dict.fromkeys(shown[side].to_list()):
        rows = shown.filter(pl.col(side) == value)
        for metric, what in (("win_rate", "win rate"), ("mean_points", "mean points")):
            figs.append((f"fig-sweep-{side}{value}-{metric.replace('_', '-')}",
                         f"{side} {value}: {what} against {x}" + (f", one line per {', '.join(series)}" if series else "")
                         + ", with 95% " + ("Wilson" if metric == "win_rate" else "t") + " intervals.",
                         _png(lambda ax, f=rows, m=metric, t=f"{side} {value}: {what}":
                              plot_sweep(f, ax=ax, x=x, metric=m, series=series, title=t))))
    ticks = {c["id"]: "\n".join([c["id"]] + [f"{k}={_fmt(v)}" for k, v in c["labels"].items()]) for c in data["cells"]}
    figs.append(("fig-sweep-outcomes", "Share of each outcome kind per cell, with 95% Wilson intervals.",
                 _png(lambda ax: plot_sweep_outcomes(outcomes, ax=ax, cell_labels=ticks), figsize=(8.0, 4.5))))
    return "".join(out), figs


def build_batch_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write the self-contained HTML report of the tournament or sweep at ``out_dir`` to ``out_html``."""
    from analysis.batches import batch_frames

    out_dir = Path(out_dir)
    data = load_batch(out_dir, "RUN")
    out = check_output(out_html, "--out")
    frames = batch_frames(out_dir)
    body, figs = (_tournament_sections if data["kind"] == "tournament" else _sweep_sections)(data, frames)
    title = title or f"cardsim {data['kind']} report: {data['inputs']['game']}, {out_dir.name}"
    note = ("Every rate carries its 95% Wilson interval and every mean its 95% t interval. "
            f"Generated from the {data['kind']} directory {out_dir.resolve()}.")
    verdict = ""
    if data["kind"] == "tournament":
        from analysis.batches import tournament_verdict

        from analysis.metagame import metagame
        from reports.metagame_html import metagame_section

        verdict = "<h2>Verdict</h2>" + "".join(f'<p class="verdict">{_e(line.strip())}</p>'
                                               for line in tournament_verdict(frames, data["inputs"]).splitlines())
        meta_body, meta_figs = metagame_section(metagame(out_dir), None)  # the matrix is drawn above
        body, figs = body + meta_body, figs + meta_figs
    return write_atomic(out, _page(title, note, verdict + _description(data, out_dir) + body
                                   + _figures_section(figs)))


def _suffixed(body: str, figs: list, suffix: str) -> tuple[str, list]:
    body = re.sub(r'<table id="([^"]+)">', lambda m: f'<table id="{m.group(1)}-{suffix}">', body)
    return body, [(f"{fid}-{suffix}", caption, data) for fid, caption, data in figs]


def batch_part(path: Path, suffix: str, heading: str) -> tuple[str, list]:
    """A batch's sections under ``heading`` inside a study's page; element ids get ``-suffix`` to stay unique."""
    from analysis.batches import batch_frames

    data = load_batch(path, "--out")
    body, figs = (_tournament_sections if data["kind"] == "tournament" else _sweep_sections)(data, batch_frames(path))
    body, figs = _suffixed(body, figs, suffix)
    return f"<h2>{_e(heading)}</h2>{body}", [(fid, f"{heading}: {caption}", png) for fid, caption, png in figs]
