"""One self-contained HTML report of a run: its spec, the summary tables (every figure with its 95% interval)
and the charts as embedded PNGs; optionally printed to PDF by headless Chromium.

The numbers come from ``analysis`` (:func:`analysis.summary.run_summary`, :func:`analysis.lengths.run_lengths`);
this module only lays them out and draws them with the ``plot_x(frame, *, ax=None)`` functions of ``reports``.
"""

from __future__ import annotations

import html
import math
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

from analysis.kems_signals import sign_exposure  # noqa: E402
from reports.batches import plot_sign_exposure  # noqa: E402
from reports.lengths import plot_length_distribution  # noqa: E402
from reports.summary import plot_outcomes, plot_seat_points, plot_seat_win_rates  # noqa: E402
from reports.layout import figure  # noqa: E402
from simulator.core.spec import RunSpec  # noqa: E402
from simulator.core.store import read_table  # noqa: E402

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 60em;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.8em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f2f2f2; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
caption { caption-side: top; text-align: left; font-weight: 600; padding: 0.3em 0; }
.params { color: #666; font-size: 0.85em; }
#spec td:first-child { white-space: nowrap; }
figure { display: inline-block; margin: 0.6em 0.6em 1em 0; page-break-inside: avoid; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { font-size: 0.85em; color: #444; max-width: 44em; }
p.note { color: #555; font-size: 0.9em; }
"""


# --- input checks ---------------------------------------------------------------------------------------


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to a temporary name beside ``path`` and rename it into place."""
    from simulator.core.store import write_bytes_atomic

    write_bytes_atomic(Path(path), data)
    return Path(path)


# --- formatting -----------------------------------------------------------------------------------------


def _e(value) -> str:
    if isinstance(value, bool):
        value = "true" if value else "false"
    return html.escape(str(value), quote=True)


def _pct(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.2f}%"


def _interval_pct(lo: float, hi: float) -> str:
    return "–" if lo is None or math.isnan(lo) else f"[{100 * lo:.2f}%, {100 * hi:.2f}%]"


def _num(x: float, signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{x:+.3f}" if signed else f"{x:.3f}" if isinstance(x, float) else f"{x:,}"


def _interval(lo: float, hi: float, signed: bool = False) -> str:
    return "–" if lo is None or math.isnan(lo) else f"[{_num(lo, signed)}, {_num(hi, signed)}]"


def _table(headers: list[str], rows: list[list[str]], *, id: str, caption: str, numeric: set[int] = frozenset()) -> str:
    """An HTML table; cells are already-escaped strings."""
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f'<td class="num">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(row))
        + "</tr>" for row in rows)
    return (f'<table id="{_e(id)}"><caption>{_e(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def _unit(table: str) -> str:
    return table[:-1] if table.endswith("s") else table


def _side_cells(row: dict, side: str) -> list[str]:
    return [_e(f"{side} {row[side]}"), _e(row["strategy"])]


# --- sections -------------------------------------------------------------------------------------------


def _summary_section(summary: dict) -> str:
    seats, finest = summary["seats"], summary["table"]
    side = "team" if "team" in seats.columns else "seat"
    won = "scored in" if side == "team" else "won"
    rows = [_side_cells(r, side) + [_num(r["n"]), _num(r["wins"]), _pct(r["win_rate"]),
                                    _interval_pct(r["win_low"], r["win_high"]), _num(r["mean_points"], True),
                                    _interval(r["points_low"], r["points_high"], True)]
            for r in seats.iter_rows(named=True)]
    spec: RunSpec = summary["spec"]
    better = "lower" if spec.plugin.lower_is_better else "higher"
    out = ["<h2>Results</h2>", _table(
        [side, "strategy", finest, won, "rate", "95% interval", f"mean points per {_unit(finest)}", "95% interval"],
        rows, id="sides", caption=f"{finest} {won} and points per {side} ({better} is better)",
        numeric={2, 3, 4, 5, 6, 7})]
    for table in spec.plugin.tables(spec.level)[1:]:
        frame = summary[table]
        rows = [_side_cells(r, side) + [_num(r["n"]), _num(r["wins"]), _pct(r["win_rate"]),
                                        _interval_pct(r["win_low"], r["win_high"])] for r in frame.iter_rows(named=True)]
        out.append(_table([side, "strategy", table, "won", "rate", "95% interval"], rows, id=f"wins-{table}",
                          caption=f"{table} won per {side} (a shared win counts for each)", numeric={2, 3, 4, 5}))
    rows = [[_e(r["outcome"]), _num(r["n"]), _pct(r["share"]), _interval_pct(r["low"], r["high"])]
            for r in summary["outcomes"].iter_rows(named=True)]
    out.append(_table(["outcome", "count", "share", "95% interval"], rows, id="outcomes",
                      caption=f"how {finest} end", numeric={1, 2, 3}))
    return "".join(out)


def _lengths_section(lengths: dict) -> str:
    rows = []
    for table, item in lengths.items():
        m = item["mean"]
        rows.append([_e(table), _e(item["column"]), _num(m["n"]), _num(m["mean"]), _interval(m["low"], m["high"]),
                     *(f"{m[k]:g}" for k in ("median", "p90", "min", "max"))])
    return "<h2>Length</h2>" + _table(
        ["table", "counted in", "rows", "mean", "95% interval", "median", "90th percentile", "min", "max"], rows,
        id="lengths", caption="how long each level lasts", numeric={2, 3, 4, 5, 6, 7, 8})


def _sign_exposure(run_dir, spec: RunSpec):
    """The "sign exposure" section (a game that lists it in ``report_sections``): :func:`analysis.kems_signals.sign_exposure` of the run's manches; ``None`` otherwise."""
    if "sign exposure" not in spec.plugin.report_sections or "manches" not in spec.plugin.tables(spec.level):
        return None
    return sign_exposure(read_table(run_dir, "manches"), spec.players)


def _exposure_section(exposure) -> str:
    rows = [[_e(f"team {r['team']}"), _num(r["signs"]), _num(r["per_manche"]), _pct(r["partner_rate"]),
             _interval_pct(r["partner_low"], r["partner_high"]), _pct(r["opponent_rate"]),
             _interval_pct(r["opponent_low"], r["opponent_high"]), _num(r["contred"]), _pct(r["contred_rate"]),
             _interval_pct(r["contred_low"], r["contred_high"]), _pct(r["kems_rate"]),
             _interval_pct(r["kems_low"], r["kems_high"])] for r in exposure.iter_rows(named=True)]
    return "<h2>Signs</h2>" + _table(
        ["team", "signs", "per manche", "seen by partner", "95% interval", "seen by one opponent", "95% interval",
         "contred manches", "contred share", "95% interval", "Kem's share", "95% interval"], rows,
        id="sign-exposure", caption="each team's signs: seen by the partner or by one given opponent (per sign); "
        "contred or Kem's/double among the manches in which it signed", numeric=set(range(1, 12)))


def _exposure_figures(exposure) -> list[tuple[str, str, str]]:
    return [("fig-signs", "Kem's signs per team: share seen by the partner vs by one given opponent, and share of "
             "the manches in which the team signed that were contred vs won by its Kem's, with 95% Wilson intervals.",
             _png(lambda ax: plot_sign_exposure(exposure, ax=ax), figsize=(8.0, 4.0)))]


# --- charts ---------------------------------------------------------------------------------------------


def _png(draw, figsize=(7.0, 4.0)) -> str:
    """Base64 PNG of one chart: ``draw(ax)`` fills a fresh Axes."""
    return figure("", "", draw, figsize).png


def _figures(summary: dict, lengths: dict) -> list[tuple[str, str, str]]:
    """``(id, caption, base64 png)`` of every chart of the report."""
    seats, finest = summary["seats"], summary["table"]
    side = "team" if "team" in seats.columns else "seat"
    won = "scored in" if side == "team" else "won"
    spec: RunSpec = summary["spec"]
    figs = [
        ("fig-wins", f"Share of {finest} {won} per {side}, bars with their 95% Wilson intervals.",
         _png(lambda ax: plot_seat_win_rates(seats, ax=ax, title=f"{finest} {won} per {side}"))),
        ("fig-points", f"Mean points per {_unit(finest)} per {side}, with their 95% t intervals.",
         _png(lambda ax: plot_seat_points(seats, ax=ax, unit=_unit(finest)))),
        ("fig-outcomes", f"How {finest} end: share of each outcome kind, with 95% Wilson intervals.",
         _png(lambda ax: plot_outcomes(summary["outcomes"], ax=ax, table=finest))),
    ]
    for table in spec.plugin.tables(spec.level)[1:]:
        frame = summary[table]
        figs.append((f"fig-wins-{table}", f"Share of {table} won per {side} (a shared win counts for each), with "
                     "95% Wilson intervals.",
                     _png(lambda ax, f=frame, t=table: plot_seat_win_rates(f, ax=ax, title=f"{t} won per {side}"))))
    for table, item in lengths.items():
        figs.append((f"fig-length-{table}", f"Length of {table}: share of {table} lasting each number of "
                     f"{item['column']}.",
                     _png(lambda ax, i=item, t=table: plot_length_distribution(i["distribution"], ax=ax, table=t,
                                                                               column=i["column"]))))
    return figs


def _figures_section(figures) -> str:
    items = "".join(f'<figure class="chart" id="{_e(fid)}"><img alt="{_e(caption)}" '
                    f'src="data:image/png;base64,{data}"><figcaption>{_e(caption)}</figcaption></figure>'
                    for fid, caption, data in figures)
    return f"<h2>Charts</h2>{items}"


# --- entry points ---------------------------------------------------------------------------------------


def _page(title: str, note: str, body: str) -> bytes:
    """The whole self-contained page, UTF-8."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<link rel="icon" href="data:,"><style>{CSS}</style></head><body><h1>{_e(title)}</h1>'
            f'<p class="note">{_e(note)}</p>{body}</body></html>\n').encode("utf-8")


def verdict_section(out_dir: Path, study: str) -> str:
    """The study's answer (``analysis.<study>.answer``) as the page's first section: its sentences, and what
    it holds for."""
    from analysis.studies import study_def

    answer = study_def(study).module.answer(out_dir)
    return ('<section id="verdict"><h2>Verdict</h2>' + "".join(f'<p class="verdict">{_e(s)}</p>' for s in answer.sentences)
            + f'<p class="note">Holds for: {_e(answer.holds_for)}. Every number with its 95% interval and n: '
            "answer.md and answer.json beside this page.</p></section>")


def write_study_page(out: Path, out_dir: Path, study: str, title: str | None, body: list[str], figs: list) -> Path:
    """Write a study's report page to ``out``: the verdict (:func:`verdict_section`), the ``body`` sections, then
    the figures (``(id, caption, png)``)."""
    title = title or f"cardsim study {study}: {out_dir.name}"
    note = ("Every rate carries its 95% Wilson interval and every mean its 95% interval. "
            f"Generated from the study directory {out_dir.resolve()}.")
    return write_atomic(out, _page(title, note, verdict_section(out_dir, study) + "".join(body)
                                   + _figures_section(figs)))
