"""The report of a rami-openings study directory (:mod:`analysis.studies.rami_openings.study`): the answer beside every opening
strategy's rating per player count, then per player count the turn of opening beside the rami-sec table and the
tournament, then the opening-threshold and joker-rules sweeps; the study's description folded."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import polars as pl

from analysis.answers import rules_text
from analysis.metagame import metagame
from analysis.studies.rami_openings.charts import plot_opening_turns, plot_rami_sec, plot_ratings_by_players
from analysis.studies.rami_openings.study import (
    STUDY_NAME, answer, load_study, named, study_frames, style_names, tournament_dir,
)
from reports import formats as fmt
from reports.batch_report import batch_part
from reports.layout import Block, Section, figure
from reports.metagame_report import metagame_sections
from reports.output import check_output
from reports.study_page import write_study_page
from reports.tables import table
from simulator.core.i18n import N_, _

TITLE = N_("Which Rami opening strategy wins")
"""The page's title: the study's question."""


def _description(inputs: dict):
    rows = [["study", STUDY_NAME], ["game", inputs["game"]],
            ["-n (what it counts)", _("{n} whole games per seating or grid point").format(n=fmt.count(inputs["n"]))],
            ["rule options played", rules_text(inputs["game"], inputs.get("rules"))],
            ["seed", _("{seed} (the same deals in every cell)").format(seed=inputs["seed"])],
            ["players (tournaments)", ", ".join(map(str, inputs["players"]))], ["strategies", "\n".join(inputs["strategies"])],
            ["rest of the play (tuned)", "\n".join(f"{p}: {name}" for p, name in (inputs.get("tuned") or {}).items())
             or _("as each strategy sets it")],
            ["opening_points (threshold sweep)", ", ".join(map(str, inputs["thresholds"]))],
            ["joker rules (joker sweep)", "\n".join(inputs["joker_grids"])], ["players (sweeps)", str(inputs["sweep_players"])]]
    return [(_("The study's description"), table([_("field"), _("value")], rows, id="spec",
                                                 caption=_("study description"), drop_constant=False))]


def _opening_section(frames: dict, players: int) -> Section:
    turns = frames["opening_turns"].filter(pl.col("players") == players)
    secs = frames["rami_sec"].filter(pl.col("players") == players)
    rows = [[r["strategy"], fmt.count(r["rounds"]), fmt.count(r["sec"]), fmt.share_cell(r["rate"], r["low"], r["high"]),
             fmt.mean_cell(r["sec_points"], r["sec_low"], r["sec_high"], 2, True),
             fmt.mean_cell(r["other_points"], r["other_low"], r["other_high"], 2, True)] for r in secs.iter_rows(named=True)]
    numbers = table([_("strategy"), _("seat-rounds"), _("rami sec"), _("share (95% interval)"),
                     _("points in rami sec rounds"), _("points in other rounds")], rows, id=f"rami-sec-{players}p",
                    numeric=set(range(1, 6)),
                    caption=_("{players} players: share of each strategy's seat-rounds won by rami sec (95% Wilson "
                              "interval) and its mean points in those rounds and in its other rounds (lower points are "
                              "better; 95% t interval)").format(players=players))
    chart = figure(f"fig-opening-turns-{players}p", _("{players} players: share of each strategy's seat-rounds opened "
                                                      "at each own turn (0 = never opened), with 95% Wilson "
                                                      "intervals.").format(players=players),
                   lambda ax: plot_opening_turns(turns, ax=ax, title=_("{players} players: turn of opening").format(
                       players=players)), figsize=(8.0, 4.0))
    return Section(f"openings-{players}p", _("{players} players: openings and rami sec").format(players=players),
                   blocks=[Block(chart, numbers)])


def build_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None,
                 frames: dict | None = None) -> Path:
    """Write the self-contained HTML report of the study at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    inputs = load_study(out_dir)["inputs"]
    out = check_output(out_html, "--out")
    frames = frames or study_frames(out_dir)
    headline = figure("fig-ratings-by-players", _("Each opening strategy's Elo (Bradley–Terry within each "
                                                  "tournament, mean 0) per player count, with 95% intervals."),
                      lambda ax: plot_ratings_by_players(frames["ratings"], ax=ax), figsize=(8.0, 4.0))
    sections = []
    for players in inputs["players"]:
        sections.append(_opening_section(frames, players))
        names = style_names(inputs, players)
        sections += batch_part(tournament_dir(out_dir, players), f"{players}p",
                               _("{players} players: tournament").format(players=players), names=names)[1]
        mix = metagame(tournament_dir(out_dir, players), seed=inputs["seed"])
        mix = replace(mix, names=[names.get(n, n) for n in mix.names], mixture=named(mix.mixture, names),
                      members=named(mix.members, names, ("strategy", "best_reply")))
        section = metagame_sections(mix, None, f"-{players}p")[0][0]
        section.heading = _("{players} players: the mix of styles no style can exploit").format(players=players)
        sections.append(section)
    sec_chart = figure("fig-rami-sec", _("Share of each strategy's seat-rounds won by rami sec, per player count, with "
                                         "95% Wilson intervals."),
                       lambda ax: plot_rami_sec(frames["rami_sec"], ax=ax), figsize=(8.0, 4.0))
    sections.append(Section("rami-sec", _("Rami sec across player counts"), blocks=[Block(sec_chart)]))
    for name, heading in (("threshold", _("The opening threshold (opening_points)")),
                          ("jokers", _("The joker rules (joker_swap x joker_opening_value)"))):
        sections += batch_part(out_dir / name, name, heading)[1]
    return write_study_page(out, out_dir, answer(out_dir), title or _(TITLE), sections, headline, _description(inputs))
