"""The report of one run: the verdict (the run's headline per seat or team, with intervals) beside the win chart,
then who wins, how the rows end, how long each level lasts (and Kem's signs), each chart beside its numbers; the
spec and the rule options folded in the appendix.

The numbers come from ``analysis`` (:func:`analysis.summary.run_summary`, :func:`analysis.lengths.run_lengths`,
:func:`analysis.kems_signals.sign_exposure`); the charts from the ``plot_x(frame, *, ax=None)`` functions of
``reports``. The sections are also parts of the balance study's page (its seats run).
"""

from __future__ import annotations

from pathlib import Path

from analysis.kems_signals import sign_exposure
from analysis.lengths import run_lengths
from analysis.summary import run_summary, run_verdict
from reports import formats as fmt
from reports.batches import plot_sign_exposure
from reports.layout import Block, Page, Section, figure, write_page
from reports.lengths import plot_length_distribution
from reports.output import check_output, check_run
from reports.summary import plot_outcomes, plot_seat_points, plot_seat_win_rates
from reports.tables import table
from simulator.core.i18n import _
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import read_table


def unit_of(table_name: str) -> str:
    """``hand`` for ``hands``: one row of a table."""
    return table_name[:-1] if table_name.endswith("s") else table_name


def better_note(plugin) -> str:
    """Which way points are better in this game."""
    return _("lower points are better") if plugin.lower_is_better else _("higher points are better")


def side_label(row: dict) -> str:
    """``seat 2`` or ``team A`` in the reader's language."""
    return _("team {key}").format(key=row["team"]) if "team" in row else _("seat {key}").format(key=row["seat"])


def result_sections(summary: dict, *, suffix: str = "", headline: bool = True) -> tuple[list[Section], object]:
    """Who wins (the finest rows and every coarser level) and how the finest rows end, each chart beside its
    table, and the headline chart: the wins of the run's own level (the coarsest), which the sections leave out
    when ``headline`` (the page shows it beside the verdict)."""
    seats, finest = summary["seats"], summary["table"]
    spec: RunSpec = summary["spec"]
    team = "team" in seats.columns
    side = _("team") if team else _("seat")
    unit = _(unit_of(finest))
    levels = spec.plugin.tables(spec.level)
    finest_won = (_("Share of {level} scored in per team") if team else _("Share of {level} won per seat")).format(level=_(finest))
    charts = {finest: figure(f"fig-wins{suffix}", finest_won + _(", with their 95% Wilson intervals."),
                             lambda ax: plot_seat_win_rates(seats, ax=ax, title=finest_won))}
    for level in levels[1:]:
        title = _("Share of {level} won per {side}").format(level=_(level), side=side)
        charts[level] = figure(f"fig-wins-{level}{suffix}", title + _(" (a shared win counts for each), with 95% Wilson "
                                                                      "intervals."),
                               lambda ax, f=summary[level], t=title: plot_seat_win_rates(f, ax=ax, title=t))
    top = levels[-1]
    rows = [[side_label(r), r["strategy"], fmt.count(r["n"]), fmt.count(r["wins"]),
             fmt.share_cell(r["win_rate"], r["win_low"], r["win_high"]),
             fmt.mean_cell(r["mean_points"], r["points_low"], r["points_high"])] for r in seats.iter_rows(named=True)]
    sides = table([side, _("strategy"), _(finest), _("scored in") if team else _("won"), _("share (95% interval)"),
                   _("mean points per {unit} (95% interval)").format(unit=unit)],
                  rows, id=f"sides{suffix}", numeric={2, 3, 4, 5},
                  caption=_("{rows} won and points per {side}; {better}").format(rows=_(finest), side=side,
                                                                                 better=better_note(spec.plugin)))
    points = figure(f"fig-points{suffix}", _("Mean points per {unit} per {side} ({better}), with their 95% t "
                                             "intervals.").format(unit=unit, side=side, better=better_note(spec.plugin)),
                    lambda ax: plot_seat_points(seats, ax=ax, unit=unit))
    blocks = [Block(points, sides)]
    if not (headline and top == finest):
        blocks.append(Block(charts[finest]))
    for level in levels[1:]:
        rows = [[side_label(r), r["strategy"], fmt.count(r["n"]), fmt.count(r["wins"]),
                 fmt.share_cell(r["win_rate"], r["win_low"], r["win_high"])] for r in summary[level].iter_rows(named=True)]
        numbers = table([side, _("strategy"), _(level), _("won"), _("share (95% interval)")], rows,
                        id=f"wins-{level}{suffix}", numeric={2, 3, 4},
                        caption=_("{level} won per {side} (a shared win counts for each)").format(level=_(level), side=side))
        blocks.append(Block(None if headline and level == top else charts[level], numbers))
    outcomes = summary["outcomes"]
    rows = [[r["outcome"], fmt.count(r["n"]), fmt.share_cell(r["share"], r["low"], r["high"])]
            for r in outcomes.iter_rows(named=True)]
    ending_title = _("How {rows} end").format(rows=_(finest))
    ending = Block(figure(f"fig-outcomes{suffix}", ending_title + _(": share of each outcome kind, with 95% Wilson "
                                                                    "intervals."),
                          lambda ax: plot_outcomes(outcomes, ax=ax, table=finest)),
                   table([_("outcome"), _("count"), _("share (95% interval)")], rows, id=f"outcomes{suffix}",
                         numeric={1, 2}, caption=ending_title))
    sections = [Section(f"results{suffix}", _("Who wins"), blocks=blocks),
                Section(f"endings{suffix}", ending_title, blocks=[ending])]
    return sections, charts[top]


def length_section(lengths: dict, suffix: str = "") -> Section:
    """How long each level lasts: the table beside the first distribution, the other distributions below."""
    rows = []
    for name, item in lengths.items():
        m = item["mean"]
        rows.append([_(name), _(item["column"]), fmt.count(m["n"]), fmt.mean_cell(m["mean"], m["low"], m["high"]),
                     *(fmt.number(m[k], 0) for k in ("median", "p90", "min", "max"))])
    numbers = table([_("table"), _("counted in"), _("rows"), _("mean (95% interval)"), _("median"), _("90th percentile"),
                     _("min"), _("max")], rows, id=f"lengths{suffix}", numeric={2, 3, 4, 5, 6, 7},
                    caption=_("how long each level lasts"), drop_constant=False)
    blocks = []
    for k, (name, item) in enumerate(lengths.items()):
        caption = _("Length of {rows}: share of {rows} lasting each number of {counted}.").format(
            rows=_(name), counted=_(item["column"]))
        blocks.append(Block(figure(f"fig-length-{name}{suffix}", caption,
                                   lambda ax, i=item, t=name: plot_length_distribution(i["distribution"], ax=ax, table=t,
                                                                                     column=i["column"])),
                            numbers if k == 0 else None))
    return Section(f"length{suffix}", _("Length"), blocks=blocks)


def exposure_of(run_dir, spec: RunSpec):
    """The sign exposure of a run whose game lists it in ``report_sections``
    (:func:`analysis.kems_signals.sign_exposure` of its manches); ``None`` otherwise."""
    if "sign exposure" not in spec.plugin.report_sections or "manches" not in spec.plugin.tables(spec.level):
        return None
    return sign_exposure(read_table(run_dir, "manches"), spec.players)


def exposure_section(exposure, suffix: str = "") -> Section:
    """Kem's signs: seen by the partner or by one given opponent, and the manches they led to."""
    rows = [[_("team {key}").format(key=r["team"]), fmt.count(r["signs"]), fmt.number(r["per_manche"]),
             fmt.share_cell(r["partner_rate"], r["partner_low"], r["partner_high"]),
             fmt.share_cell(r["opponent_rate"], r["opponent_low"], r["opponent_high"]), fmt.count(r["contred"]),
             fmt.share_cell(r["contred_rate"], r["contred_low"], r["contred_high"]),
             fmt.share_cell(r["kems_rate"], r["kems_low"], r["kems_high"])] for r in exposure.iter_rows(named=True)]
    numbers = table([_("team"), _("signs"), _("per manche"), _("seen by partner"), _("seen by one opponent"),
                     _("contred manches"), _("contred share"), _("Kem's share")], rows, id=f"sign-exposure{suffix}",
                    numeric=set(range(1, 8)),
                    caption=_("each team's signs: seen by the partner or by one given opponent (per sign); contred or "
                              "Kem's/double among the manches in which it signed (95% Wilson intervals)"))
    chart = figure(f"fig-signs{suffix}", _("Kem's signs per team: share seen by the partner vs by one given opponent, "
                                          "and share of the manches in which the team signed that were contred vs won "
                                          "by its Kem's, with 95% Wilson intervals."),
                   lambda ax: plot_sign_exposure(exposure, ax=ax), figsize=(8.0, 4.0))
    return Section(f"signs{suffix}", _("Signs"), blocks=[Block(chart, numbers)])


def spec_appendix(manifest: dict, spec: RunSpec) -> list[tuple[str, object]]:
    """The run's spec and its rule options, as folded tables."""
    done = sum(b - a for a, b in manifest.get("chunks", []))
    rows = [["game", spec.game], ["players", str(spec.players)], ["level", spec.level], ["games (n)", fmt.count(spec.n)],
            ["games finished", fmt.count(done) + ("" if manifest.get("complete") else " " + _("(run not complete)"))],
            ["seed", str(spec.seed)], ["cardsim version", manifest.get("cardsim_version", "?")],
            ["spec digest", manifest.get("spec_digest", spec.digest())]]
    plugin = spec.plugin
    sides, side_of = plugin.sides(spec.players), plugin.side_of_seat(spec.players)
    for p, strategy in enumerate(spec.strategies):
        side = f"seat {p}" + (f" ({sides[side_of[p]].label})" if plugin.team_count else "")
        params = ", ".join(f"{k}={v}" for k, v in strategy.params)
        rows.append([f"strategy, {side}", strategy.label() + (f"\n{params}" if params else "")])
    options = [[name, str(value).lower() if isinstance(value, bool) else str(value)] for name, value in spec.options]
    return [(_("The run's spec"), table([_("field"), _("value")], rows, id="spec", caption=_("run spec"),
                                        drop_constant=False)),
            (_("The rule options played"), table([_("option"), _("value")], options, id="options",
                                                 caption=_("rule options"), drop_constant=False))]


def build_report(run_dir: str | Path, out_html: str | Path, *, title: str | None = None) -> Path:
    """Write one self-contained HTML report of the run at ``run_dir`` to ``out_html`` (atomically).

    :class:`SpecError` (nothing written) when ``run_dir`` is not a run or ``out_html``'s folder is missing.
    """
    manifest, spec = check_run(run_dir)
    out = check_output(out_html, "--out")
    summary, lengths = run_summary(run_dir), run_lengths(run_dir)
    sections, headline = result_sections(summary)
    sections.append(length_section(lengths))
    exposure = exposure_of(run_dir, spec)
    if exposure is not None:
        sections.append(exposure_section(exposure))
    verdict = run_verdict(summary)
    if not manifest.get("complete"):
        verdict.append(_("The run is not complete: these numbers are of the games finished so far."))
    page = Page(title or _("cardsim report: {game}, {name}").format(game=spec.game, name=Path(run_dir).name), verdict,
                sections, headline=headline, appendix=spec_appendix(manifest, spec),
                note=_("Every rate carries its 95% Wilson interval and every mean its 95% t interval. Generated from "
                       "the run directory {path}.").format(path=Path(run_dir).resolve()))
    return write_page(out, page)
