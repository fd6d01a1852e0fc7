"""One self-contained HTML report of a balance study directory (:mod:`analysis.balance`): the study's
description; seat advantage (by position from the deal and by seat, with the chi-square verdict, and every level
of the seats run); luck versus skill (the tournament's sections from :mod:`reports.batch_html`, how often the
weaker wins, and in Kamoul the better strategy's share of hands, manches, parties and TOPs); game lengths; what
each rule option changes; Kamoul's card powers; Kem's sign visibility against interception."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.balance import load_study, study_frames
from analysis.summary import run_summary
from reports.balance import (plot_option_effects, plot_positions, plot_powers, plot_sign_visibility,
                             plot_skill_levels, plot_upsets)
from reports.html import (_e, _exposure_figures, _exposure_section, _figures, _figures_section, _interval, _interval_pct, _lengths_section, _num, _page, _pct, _png, _sign_exposure, _summary_section, _table, verdict_section, write_atomic)
from reports.output import check_output, check_run
from reports.batch_html import batch_part
from analysis.answers import rules_text
from simulator.core.spec import _fmt
from simulator.games import get_game


def _length_unit(frames: dict) -> str:
    """What a game's length is counted in (turns, ticks): the length column of its finest table."""
    return frames["length_means"]["column"][0]



def _pm(mid, lo, hi, pct: bool) -> list[str]:
    return [_pct(mid), _interval_pct(lo, hi)] if pct else [_num(mid), _interval(lo, hi)]


def _delta(mid, lo, hi, pct: bool) -> list[str]:
    if mid is None or mid != mid:
        return ["–", "–"]
    if pct:
        return [f"{100 * mid:+.2f}", "–" if lo != lo else f"[{100 * lo:+.2f}, {100 * hi:+.2f}]"]
    return [_num(mid, True), _interval(lo, hi, True)]


def _description(data: dict) -> str:
    inputs = data["inputs"]
    plugin = get_game(inputs["game"])
    seat = (inputs.get("seat_strategy") or [plugin.default_strategy])[0]
    rows = [["study", "balance"], ["game", _e(inputs["game"])], ["players", _e(inputs["players"])],
            ["-n (what it counts)", _e(f"{inputs['n']:,}: {plugin.levels[0]} per cell of the rule sweeps, "
                                       f"{plugin.judged_level} per seating of the skill tournament, "
                                       f"{inputs['seats_level']} in the seats run")],
            ["rule options played", _e(rules_text(inputs["game"], inputs.get("rules")))],
            ["seats run", _e(f"{inputs['n']:,} {inputs['seats_level']}, {seat} at every seat")],
            ["seed", _e(inputs["seed"]) + " (the same deals in every cell)"],
            ["skill tournament", "<br>".join(_e(s) for s in inputs["strategies"])],
            ["rule options swept", "<br>".join(_e(f"{k}: {', '.join(_fmt(x) for x in v)}") for k, v in inputs["option_grids"])]]
    if data.get("choices"):
        rows.append(["TOP tournaments (level tops)",
                     _e(f"{data['choices']['best']} vs random; {data['choices']['best']} vs {data['choices']['second']}")])
    if inputs["powers"]:
        rows.append(["card powers (seat 0 at 1 and at 0)", _e(", ".join(inputs["powers"]))])
    if inputs["sign_grids"]:
        rows.append(["sign visibility sweep", "<br>".join(_e(g) for g in inputs["sign_grids"])])
    return "<h2>Study</h2>" + _table(["field", "value"], rows, id="spec", caption="study description")


def _seat_section(frames: dict, side_kind: str) -> str:
    out = ["<h2>Seat advantage</h2>"]
    for key, head, caption in (("positions", "position from the deal", "by position from the deal"),
                               ("units", side_kind, f"by {side_kind}")):
        rows = [[_e(r["label"]), _num(r["n"]), _num(r["wins"]), *_pm(r["win_rate"], r["win_low"], r["win_high"], True),
                 *_pm(r["share"], r["share_low"], r["share_high"], True),
                 *_pm(r["mean_points"], r["points_low"], r["points_high"], False)]
                for r in frames[key].iter_rows(named=True)]
        out.append(_table([head, "rows", "won", "win rate", "95% interval", "share of decided", "95% interval",
                           "mean points", "95% interval"], rows, id=key, numeric=set(range(1, 9)),
                          caption=f"rows of the seats run won {caption} (95% Wilson intervals; points: 95% t)"))
    t = frames["seat_test"].row(0, named=True)
    out.append(_table(["positions", "decided rows", "chi-square", "df", "p-value", "verdict"],
                      [[_num(t["units"]), _num(t["decided"]), _num(t["chi2"]), _num(t["df"]), _num(t["p_value"]),
                        _e(t["verdict"])]], id="seat-test", numeric={0, 1, 2, 3, 4},
                      caption="are all positions equal? chi-square test on the decided rows"))
    return "".join(out)


def _upsets_table(upsets: pl.DataFrame) -> str:
    rows = [[_e(r["stronger"]), _e(r["weaker"]), _num(r["decided"]), _num(r["weaker_wins"]),
             *_pm(r["rate"], r["low"], r["high"], True), *_delta(r["points_gap"], r["gap_low"], r["gap_high"], False)]
            for r in upsets.iter_rows(named=True)]
    return _table(["stronger", "weaker", "decided", "weaker won", "rate", "95% interval",
                   "points gap (weaker minus stronger)", "95% interval"], rows, id="upsets", numeric=set(range(2, 8)),
                  caption="how often the weaker strategy of each pair wins (stronger by Bradley–Terry rating)")


def _skill_levels_table(levels: pl.DataFrame) -> str:
    rows = [[_e(r["better"]), _e(r["weaker"]), _e(r["level"]), _num(r["games"]), _num(r["decided"]),
             _num(r["better_wins"]), *_pm(r["rate"], r["low"], r["high"], True)] for r in levels.iter_rows(named=True)]
    return _table(["better", "weaker", "level", "games", "decided", "better won", "rate", "95% interval"], rows,
                  id="skill-levels", numeric=set(range(3, 8)),
                  caption="the better strategy's share of decided hands, manches, parties and TOPs (level tops runs)")


def _options_tables(options: pl.DataFrame, unit: str, skipped: dict) -> str:
    rows = [[_e(r["option"]), _e(r["value"]) + (" (default)" if r["default"] else ""), _num(r["n"]),
             *_pm(r["decided_rate"], r["decided_low"], r["decided_high"], True),
             *_pm(r["first_share"], r["first_low"], r["first_high"], True),
             *_delta(r["first_delta"], r["first_delta_low"], r["first_delta_high"], True),
             *_pm(r["length"], r["length_low"], r["length_high"], False),
             *_delta(r["length_delta"], r["length_delta_low"], r["length_delta_high"], False),
             _e("" if r["default"] else r.get("effect", ""))]
            for r in options.iter_rows(named=True)]
    table = _table(["option", "value", "games", "decided", "95% interval", "first position's share", "95% interval",
                    "change in its win rate (points of %)", "95% interval", f"mean length ({unit})", "95% interval",
                    "change in length", "95% interval", "effect"], rows, id="options", numeric=set(range(2, 13)),
                   caption="one sweep per rule option, the default strategy at every seat: share of decided games and "
                           "of those won by the first position (equal seats: 1/positions), mean length, and the paired "
                           "change against the default value on the same deals (95% intervals); effect: no effect when every "
                           "game is played move for move as at the default (the strategies never reach the rule)")
    return table + _table(["option", "why it is not swept"], [[_e(k), _e(v)] for k, v in skipped.items()],
                          id="skipped-options", caption="options left out of the sweeps")


def _powers_table(powers: pl.DataFrame) -> str:
    rows = [[_e(r["power"]), _num(r["n"]), *_pm(r["base_rate"], r["base_low"], r["base_high"], True),
             *_pm(r["off_rate"], r["off_low"], r["off_high"], True),
             *_delta(r["value"], r["value_low"], r["value_high"], True),
             *_delta(r["points_value"], r["points_low"], r["points_high"], False),
             f"{r['uses_on']:.3f}", f"{r['uses_off']:.3f}"] for r in powers.iter_rows(named=True)]
    return _table(["power", "hands", "seat 0 win rate, power used", "95% interval", "power never used", "95% interval",
                   "value (points of %)", "95% interval", "points saved per hand", "95% interval",
                   "uses per hand, with it", "without it"], rows, id="powers",
                  numeric=set(range(1, 12)),
                  caption="what each card power is worth: seat 0 (a player who uses every power, discarding a drawn "
                          "J/Q or red king for it) with the power's probability at 1 and at 0, the others at the "
                          "default, paired on the same deals; uses: the power's uses per hand at the whole table")


def _signs_table(signs: pl.DataFrame) -> str:
    rows = [[_num(r["visibility"]), _num(r["kappa0"]), _num(r["signs"]),
             *_pm(r["partner_rate"], r["partner_low"], r["partner_high"], True),
             *_pm(r["opponent_rate"], r["opponent_low"], r["opponent_high"], True),
             *_pm(r["contred_rate"], r["contred_low"], r["contred_high"], True),
             *_pm(r["kems_rate"], r["kems_low"], r["kems_high"], True)] for r in signs.iter_rows(named=True)]
    return _table(["visibility", "kappa0", "signs", "seen by partner", "95% interval", "seen by one opponent",
                   "95% interval", "contred (signed manches)", "95% interval", "Kem's (signed manches)", "95% interval"],
                  rows, id="visibility", numeric=set(range(0, 11)),
                  caption="sign visibility against interception, every team pooled (95% Wilson intervals)")


def _lengths(frames: dict) -> dict:
    """The frames ``lengths``/``length_means`` as :func:`analysis.lengths.run_lengths` gives them."""
    out = {}
    for r in frames["length_means"].iter_rows(named=True):
        dist = frames["lengths"].filter(pl.col("table") == r["table"]).drop("table", "column")
        out[r["table"]] = {"column": r["column"], "distribution": dist,
                           "mean": {k: v for k, v in r.items() if k not in ("table", "column")}}
    return out


def build_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None,
                 frames: dict | None = None) -> Path:
    """Write the self-contained HTML report of the balance study at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    data = load_study(out_dir, "RUN", finished=True)
    game = data["game"]
    out = check_output(out_html, "--out")
    frames = frames or study_frames(out_dir)
    seats_dir = out_dir / "seats"
    _, spec = check_run(seats_dir)
    summary, lengths = run_summary(seats_dir), _lengths(frames)
    run_figs = [(f"{fid}-seats", f"Seats run: {caption}", png) for fid, caption, png in _figures(summary, lengths)]
    body = [_description(data), _seat_section(frames, get_game(game).side_kind),
            _summary_section(summary).replace("<h2>Results</h2>", "<h3>The seats run, every level</h3>", 1)]
    figs = [("fig-positions", "Share of the decided rows of the seats run won from each position from the deal, "
             "with 95% Wilson intervals; the dashed line is the equal share.",
             _png(lambda ax: plot_positions(frames["positions"], ax=ax), figsize=(8.0, 4.0)))]
    exposure = _sign_exposure(seats_dir, spec)
    if exposure is not None:
        body.append(_exposure_section(exposure))
        figs += _exposure_figures(exposure)
    part, part_figs = batch_part(out_dir / "skill", "skill", "Luck versus skill: tournament")
    body += [part, "<h3>How often the weaker one wins</h3>", _upsets_table(frames["upsets"])]
    figs += part_figs
    figs.append(("fig-upsets", "Share of decided games won by the weaker strategy of each pair, with 95% Wilson "
                 "intervals; 50% would be pure luck.",
                 _png(lambda ax: plot_upsets(frames["upsets"], ax=ax), figsize=(8.0, 1.5 + 0.35 * frames["upsets"].height))))
    if "skill_levels" in frames:
        body += ["<h3>Does the BO3-of-BO3 format reward skill?</h3>", _skill_levels_table(frames["skill_levels"])]
        figs.append(("fig-skill-levels", "Share of decided hands, manches, parties and TOPs won by the better "
                     "strategy of each pair, with 95% Wilson intervals.",
                     _png(lambda ax: plot_skill_levels(frames["skill_levels"], ax=ax))))
    body.append(_lengths_section(lengths))
    body += ["<h2>Rule options</h2>", _options_tables(frames["options"], _length_unit(frames), data["inputs"]["skipped"])]
    height = 1.5 + 0.3 * int((~frames["options"]["default"]).sum())
    for metric, what in (("first_delta", "the first position's win rate"), ("length_delta", "the mean length")):
        figs.append((f"fig-options-{metric.split('_')[0]}", f"Change in {what} against the option's default value, "
                     "paired on the same deals, with 95% t intervals.",
                     _png(lambda ax, m=metric: plot_option_effects(frames["options"], ax=ax, metric=m, unit=_length_unit(frames)),
                          figsize=(8.0, height))))
    if "powers" in frames:
        body += ["<h2>Card powers</h2>", _powers_table(frames["powers"])]
        for metric, what in (("value", "win rate"), ("points_value", "points")):
            figs.append((f"fig-powers-{metric.split('_')[0]}", f"What each card power is worth to seat 0 in {what}, "
                         "paired on the same deals, with 95% t intervals.",
                         _png(lambda ax, m=metric: plot_powers(frames["powers"], ax=ax, metric=m), figsize=(7.0, 3.0))))
    if "signs" in frames:
        body += ["<h2>Sign visibility against interception</h2>", _signs_table(frames["signs"])]
        for outcome, what in ((False, "sightings"), (True, "outcomes")):
            figs.append((f"fig-visibility-{what}", "Kem's signs against their visibility, one colour per kappa0: "
                         + ("seen by the partner vs by one given opponent" if not outcome else
                            "signed manches won by Kem's vs contred") + ", with 95% Wilson intervals.",
                         _png(lambda ax, o=outcome: plot_sign_visibility(frames["signs"], ax=ax, outcome=o),
                              figsize=(8.0, 4.5))))
    figs += run_figs
    title = title or f"cardsim study balance ({game}): {out_dir.name}"
    note = ("Every rate carries its 95% Wilson interval, every mean and paired difference its 95% t interval. "
            f"Generated from the study directory {out_dir.resolve()}.")
    return write_atomic(out, _page(title, note, verdict_section(out_dir, "balance") + "".join(body)
                                   + _figures_section(figs)))
