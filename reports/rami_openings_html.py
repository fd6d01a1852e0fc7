"""One self-contained HTML report of a study directory (``_study.json``, :mod:`analysis.rami_openings`): the
study's description, per player count the tournament's win-rate matrix and ratings, the turn of opening and the
rami-sec table, then the threshold and joker-rules sweeps. The batch parts reuse :mod:`reports.batch_html`;
element ids of a part are suffixed with the part's name so that they stay unique on the page."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.rami_openings import STUDY_NAME, load_study, study_frames, tournament_dir
from reports.batch_html import batch_part
from reports.html import (_e, _interval, _interval_pct, _num, _pct, _png, _table, write_study_page)
from reports.output import check_output
from analysis.answers import rules_text
from reports.studies import plot_opening_turns, plot_rami_sec, plot_ratings_by_players


def _description(inputs: dict) -> str:
    rows = [["study", _e(STUDY_NAME)], ["game", _e(inputs["game"])],
            ["-n (what it counts)", _e(f"{inputs['n']:,} whole games per seating or grid point")],
            ["rule options played", _e(rules_text(inputs["game"], inputs.get("rules")))],
            ["seed", _e(inputs["seed"]) + " (the same deals in every cell)"],
            ["players (tournaments)", _e(", ".join(map(str, inputs["players"])))],
            ["strategies", "<br>".join(_e(s) for s in inputs["strategies"])],
            ["opening_points (threshold sweep)", _e(", ".join(map(str, inputs["thresholds"])))],
            ["joker rules (joker sweep)", "<br>".join(_e(g) for g in inputs["joker_grids"])],
            ["players (sweeps)", _e(inputs["sweep_players"])]]
    return "<h2>Study</h2>" + _table(["field", "value"], rows, id="spec", caption="study description")


def _opening_section(frames: dict, players: int) -> tuple[str, list]:
    turns = frames["opening_turns"].filter(pl.col("players") == players)
    secs = frames["rami_sec"].filter(pl.col("players") == players)
    rows = [[_e(r["strategy"]), _num(r["rounds"]), _num(r["sec"]), _pct(r["rate"]), _interval_pct(r["low"], r["high"]),
             _num(r["sec_points"], True), _interval(r["sec_low"], r["sec_high"], True),
             _num(r["other_points"], True), _interval(r["other_low"], r["other_high"], True)]
            for r in secs.iter_rows(named=True)]
    table = _table(["strategy", "seat-rounds", "rami sec", "rate", "95% interval", "points (rami sec rounds)",
                    "95% interval", "points (other rounds)", "95% interval"], rows, id=f"rami-sec-{players}p",
                   caption=f"{players} players: share of each strategy's seat-rounds won by rami sec (95% Wilson "
                           "interval) and its mean points in those rounds vs its other rounds (lower is better; 95% t "
                           "interval)", numeric=set(range(1, 9)))
    fig = (f"fig-opening-turns-{players}p", f"{players} players: share of each strategy's seat-rounds opened at each "
           "own turn (0 = never opened), with 95% Wilson intervals.",
           _png(lambda ax: plot_opening_turns(turns, ax=ax, title=f"{players} players: turn of opening"),
                figsize=(8.0, 4.0)))
    return table, [fig]


def build_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None,
                       frames: dict | None = None) -> Path:
    """Write the self-contained HTML report of the study at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    inputs = load_study(out_dir)["inputs"]
    out = check_output(out_html, "--out")
    frames = frames or study_frames(out_dir)
    body, figs = [_description(inputs)], []
    for players in inputs["players"]:
        part, part_figs = batch_part(tournament_dir(out_dir, players), f"{players}p",
                                      f"{players} players: tournament")
        table, opening_figs = _opening_section(frames, players)
        body += [part, f"<h3>{players} players: openings and rami sec</h3>", table]
        figs += part_figs + opening_figs
    figs.append(("fig-ratings-by-players", "Each opening strategy's Elo (Bradley–Terry within each tournament, mean 0) "
                 "per player count, with 95% intervals.",
                 _png(lambda ax: plot_ratings_by_players(frames["ratings"], ax=ax), figsize=(8.0, 4.0))))
    figs.append(("fig-rami-sec", "Share of each strategy's seat-rounds won by rami sec, per player count, with 95% "
                 "Wilson intervals.", _png(lambda ax: plot_rami_sec(frames["rami_sec"], ax=ax), figsize=(8.0, 4.0))))
    for name, heading in (("threshold", "The opening threshold (opening_points)"),
                          ("jokers", "The joker rules (joker_swap x joker_opening_value)")):
        part, part_figs = batch_part(out_dir / name, name, heading)
        body.append(part)
        figs += part_figs
    return write_study_page(out, out_dir, STUDY_NAME, title, body, figs)
