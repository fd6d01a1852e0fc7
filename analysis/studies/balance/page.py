"""The report of a balance study directory (:mod:`analysis.studies.balance.study`): the answer beside the share of decided rows
won from each position; then seat advantage (by position from the deal and by seat, the chi-square test, the seats
run at every level), luck versus skill (the tournament, how often the weaker wins, in Kamoul the better
strategy's share at each level), lengths, what each rule option changes, Kamoul's card powers and Kem's sign
visibility, each chart beside its numbers; the study's description folded."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.answers import rules_text
from analysis.studies.balance.charts import (
    plot_option_effects, plot_positions, plot_powers, plot_sign_visibility, plot_skill_levels, plot_upsets,
)
from analysis.studies.balance.study import answer, load_study, position_label, study_frames
from analysis.summary import run_summary
from reports import formats as fmt
from reports.batch_report import batch_part
from reports.layout import Block, Section, figure, nested
from reports.output import check_output, check_run
from reports.run_report import exposure_of, exposure_section, length_section, result_sections
from reports.study_page import write_study_page
from reports.tables import table
from simulator.core.i18n import _
from simulator.core.storage.spec import _fmt
from simulator.games import get_game


def _description(data: dict):
    inputs = data["inputs"]
    plugin = get_game(inputs["game"])
    seat = (inputs.get("seat_strategy") or [plugin.default_strategy])[0]
    rows = [["study", "balance"], ["game", inputs["game"]], ["players", str(inputs["players"])],
            ["-n (what it counts)", _("{n}: {cell} per cell of the rule sweeps, {judged} per seating of the skill "
                                      "tournament, {seats} in the seats run").format(
                n=fmt.count(inputs["n"]), cell=_(plugin.levels[0]), judged=_(plugin.judged_level),
                seats=_(inputs["seats_level"]))],
            ["rule options played", rules_text(inputs["game"], inputs.get("rules"))],
            ["seats run", _("{n} {level}, {strategy} at every seat").format(n=fmt.count(inputs["n"]),
                                                                           level=_(inputs["seats_level"]), strategy=seat)],
            ["seed", _("{seed} (the same deals in every cell)").format(seed=inputs["seed"])],
            ["skill tournament", "\n".join(inputs["strategies"])],
            ["rule options swept", "\n".join(f"{k}: {', '.join(_fmt(x) for x in v)}" for k, v in inputs["option_grids"])]]
    if inputs.get("tuned"):
        tuned = inputs["tuned"]
        rows.append(["tuned player", tuned["preset"] + ("" if tuned["played_as"] == tuned["preset"] else
                                                        f" (= {tuned['played_as']})")])
    if data.get("choices"):
        best, second = data["choices"]["best"], data["choices"]["second"]
        rows.append(["TOP tournaments (level tops)", f"{best} vs random; {best} vs {second}"])
    if inputs["powers"]:
        rows.append(["card powers (seat 0 at 1 and at 0)", ", ".join(inputs["powers"])])
    if inputs["sign_grids"]:
        rows.append(["sign visibility sweep", "\n".join(inputs["sign_grids"])])
    return [(_("The study's description"), table([_("field"), _("value")], rows, id="spec",
                                                 caption=_("study description"), drop_constant=False))]


def _seat_section(frames: dict, side_kind: str, better: str) -> Section:
    blocks = []
    for key, head, caption in (("positions", _("position from the deal"), _("by position from the deal")),
                               ("units", _(side_kind), _("by {side}").format(side=_(side_kind)))):
        rows = [[r["label"], fmt.count(r["n"]), fmt.count(r["wins"]), fmt.share_cell(r["win_rate"], r["win_low"], r["win_high"]),
                 fmt.share_cell(r["share"], r["share_low"], r["share_high"]),
                 fmt.mean_cell(r["mean_points"], r["points_low"], r["points_high"])] for r in frames[key].iter_rows(named=True)]
        blocks.append(Block(None, table([head, _("rows"), _("won"), _("win rate"), _("share of decided"),
                                         _("mean points")], rows, id=key, numeric=set(range(1, 6)),
                                        caption=_("rows of the seats run won {by} (95% Wilson intervals; points: 95% t, "
                                                  "{better})").format(by=caption, better=better))))
    t = frames["seat_test"].row(0, named=True)
    blocks.append(Block(None, table([_("positions"), _("decided rows"), _("chi-square"), _("df"), _("p-value"),
                                     _("verdict")],
                                    [[fmt.count(t["units"]), fmt.count(t["decided"]), fmt.number(t["chi2"]),
                                      fmt.count(t["df"]), fmt.number(t["p_value"], 4), t["verdict"]]],
                                    id="seat-test", numeric={0, 1, 2, 3, 4},
                                    caption=_("are all positions equal? chi-square test on the decided rows"))))
    return Section("seats", _("Seat advantage"), blocks=blocks)


def _skill_sections(out_dir: Path, frames: dict, better: str) -> list[Section]:
    sections = batch_part(out_dir / "skill", "skill", _("Luck versus skill: tournament"))[1]
    upsets = frames["upsets"]
    rows = [[r["stronger"], r["weaker"], fmt.count(r["decided"]), fmt.count(r["weaker_wins"]),
             fmt.share_cell(r["rate"], r["low"], r["high"]),
             fmt.mean_cell(r["points_gap"], r["gap_low"], r["gap_high"], 2, True)] for r in upsets.iter_rows(named=True)]
    numbers = table([_("stronger"), _("weaker"), _("decided"), _("weaker won"), _("share (95% interval)"),
                     _("points gap, weaker minus stronger")], rows, id="upsets", numeric=set(range(2, 6)),
                    caption=_("how often the weaker strategy of each pair wins (stronger by Bradley–Terry rating; "
                              "points: {better})").format(better=better))
    chart = figure("fig-upsets", _("Share of decided games won by the weaker strategy of each pair, with 95% Wilson "
                                   "intervals; 50% would be pure luck."), lambda ax: plot_upsets(upsets, ax=ax),
                   figsize=(8.0, 1.5 + 0.35 * upsets.height))
    blocks = [Block(chart, numbers)]
    if "skill_levels" in frames:
        levels = frames["skill_levels"]
        rows = [[r["better"], r["weaker"], r["level"], fmt.count(r["games"]), fmt.count(r["decided"]),
                 fmt.count(r["better_wins"]), fmt.share_cell(r["rate"], r["low"], r["high"])]
                for r in levels.iter_rows(named=True)]
        blocks.append(Block(figure("fig-skill-levels", _("Share of decided hands, manches, parties and TOPs won by the "
                                                         "better strategy of each pair, with 95% Wilson intervals."),
                                   lambda ax: plot_skill_levels(levels, ax=ax)),
                            table([_("better"), _("weaker"), _("level"), _("games"), _("decided"), _("better won"),
                                   _("share (95% interval)")], rows, id="skill-levels", numeric=set(range(3, 7)),
                                  keep=(0, 1, 2),
                                  caption=_("does the BO3-of-BO3 format reward skill? the better strategy's share of "
                                            "decided hands, manches, parties and TOPs"))))
    sections.append(Section("upsets-section", _("How often the weaker one wins"), blocks=blocks, level=3, folded=True))
    return sections


def _options_section(frames: dict, unit: str, skipped: dict) -> Section:
    options = frames["options"]
    rows = [[r["option"], _fmt(r["value"]) + (" " + _("(default)") if r["default"] else ""), fmt.count(r["n"]),
             *(fmt.stacked(cell) for cell in (  # nine columns: each interval under its value
                 fmt.share_cell(r["decided_rate"], r["decided_low"], r["decided_high"]),
                 fmt.share_cell(r["first_share"], r["first_low"], r["first_high"]),
                 fmt.points_cell(r["first_delta"], r["first_delta_low"], r["first_delta_high"]),
                 fmt.mean_cell(r["length"], r["length_low"], r["length_high"]),
                 fmt.mean_cell(r["length_delta"], r["length_delta_low"], r["length_delta_high"], 2, True))),
             "" if r["default"] else r.get("effect", "")] for r in options.iter_rows(named=True)]
    numbers = table([_("option"), _("value"), _("games"), _("decided"), _("first position's share"),
                     _("change in its win rate (points of %)"), _("mean length ({unit})").format(unit=_(unit)),
                     _("change in length"), _("effect")], rows, id="options", numeric=set(range(2, 8)),
                    caption=_("one sweep per rule option, the default strategy at every seat: share of decided games "
                              "and of those won by the first position (equal seats: 1/positions), mean length, and the "
                              "paired change against the default value on the same deals (95% intervals); effect: no "
                              "effect when every game is played move for move as at the default"))
    skipped_table = table([_("option"), _("why it is not swept")], [[k, v] for k, v in skipped.items()],
                          id="skipped-options", caption=_("options left out of the sweeps"), drop_constant=False)
    height = 1.5 + 0.3 * int((~options["default"]).sum())
    charts = [figure(f"fig-options-{metric.split('_')[0]}", _("Change in {what} against the option's default value, "
                                                              "paired on the same deals, with 95% t intervals.").format(what=what),
                     lambda ax, m=metric: plot_option_effects(options, ax=ax, metric=m, unit=unit), figsize=(8.0, height))
              for metric, what in (("first_delta", _("the first position's win rate")),
                                   ("length_delta", _("the mean length")))]
    return Section("rule-options", _("Rule options"), blocks=[Block(charts[0]), Block(charts[1])],
                   details=[(_("Every option's numbers"), numbers), (_("Options left out of the sweeps"), skipped_table)])


def _powers_section(powers: pl.DataFrame) -> Section:
    rows = [[r["power"], fmt.count(r["n"]), fmt.share_cell(r["base_rate"], r["base_low"], r["base_high"]),
             fmt.share_cell(r["off_rate"], r["off_low"], r["off_high"]),
             fmt.points_cell(r["value"], r["value_low"], r["value_high"]),
             fmt.mean_cell(r["points_value"], r["points_low"], r["points_high"], 2, True),
             fmt.number(r["uses_on"], 3), fmt.number(r["uses_off"], 3)] for r in powers.iter_rows(named=True)]
    numbers = table([_("power"), _("hands"), _("seat 0 win rate, power used"), _("power never used"),
                     _("value (points of %)"), _("points saved per hand"), _("uses per hand, with it"), _("without it")],
                    rows, id="powers", numeric=set(range(1, 8)),
                    caption=_("what each card power is worth: seat 0 (a player who uses every power, discarding a drawn "
                              "J/Q or red king for it) with the power's probability at 1 and at 0, the others at the "
                              "default, paired on the same deals; uses: the power's uses per hand at the whole table"))
    charts = [figure(f"fig-powers-{metric.split('_')[0]}", _("What each card power is worth to seat 0 in {what}, paired "
                                                             "on the same deals, with 95% t intervals.").format(what=what),
                     lambda ax, m=metric: plot_powers(powers, ax=ax, metric=m), figsize=(7.0, 3.0))
              for metric, what in (("value", _("win rate")), ("points_value", _("points")))]
    return Section("powers-section", _("Card powers"), blocks=[Block(charts[0], numbers), Block(charts[1])])


def _signs_section(signs: pl.DataFrame) -> Section:
    rows = [[fmt.number(r["visibility"]), fmt.number(r["kappa0"]), fmt.count(r["signs"]),
             fmt.share_cell(r["partner_rate"], r["partner_low"], r["partner_high"]),
             fmt.share_cell(r["opponent_rate"], r["opponent_low"], r["opponent_high"]),
             fmt.share_cell(r["contred_rate"], r["contred_low"], r["contred_high"]),
             fmt.share_cell(r["kems_rate"], r["kems_low"], r["kems_high"])] for r in signs.iter_rows(named=True)]
    numbers = table([_("visibility"), "kappa0", _("signs"), _("seen by partner"), _("seen by one opponent"),
                     _("contred (signed manches)"), _("Kem's (signed manches)")], rows, id="visibility",
                    numeric=set(range(0, 7)), keep=(0, 1),
                    caption=_("sign visibility against interception, every team pooled (95% Wilson intervals)"))
    charts = [figure(f"fig-visibility-{what}", (_("Kem's signs against their visibility, one colour per kappa0: seen by "
                                                  "the partner vs by one given opponent, with 95% Wilson intervals.")
                                                if not outcome else
                                                _("Kem's signs against their visibility, one colour per kappa0: signed "
                                                  "manches won by Kem's vs contred, with 95% Wilson intervals.")),
                     lambda ax, o=outcome: plot_sign_visibility(signs, ax=ax, outcome=o), figsize=(8.0, 4.5))
              for outcome, what in ((False, "sightings"), (True, "outcomes"))]
    return Section("visibility-section", _("Sign visibility against interception"),
                   blocks=[Block(charts[0]), Block(charts[1])], details=[(_("Every visibility's numbers"), numbers)])


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
    plugin = get_game(data["game"])
    out = check_output(out_html, "--out")
    frames = dict(frames or study_frames(out_dir))
    positions = frames["positions"]
    if "pos" in positions.columns:  # named in the reader's language, whatever the language they were stored in
        frames["positions"] = positions.with_columns(
            pl.Series("label", [position_label(plugin, p, positions.height) for p in positions["pos"]]))
    seats_dir = out_dir / "seats"
    _manifest, spec = check_run(seats_dir)
    better = _("lower points are better") if plugin.lower_is_better else _("higher points are better")
    headline = figure("fig-positions", _("Share of the decided rows of the seats run won from each position from the "
                                         "deal, with 95% Wilson intervals; the dashed line is the equal share."),
                      lambda ax: plot_positions(frames["positions"], ax=ax), figsize=(8.0, 4.0))
    run_sections, _headline = result_sections(run_summary(seats_dir), suffix="-seats", headline=False)
    sections = [_seat_section(frames, plugin.side_kind, better)]
    sections += nested(run_sections, "seats-run", _("The seats run, every level"), folded=True)
    exposure = exposure_of(seats_dir, spec)
    if exposure is not None:
        sections.append(exposure_section(exposure))
    sections += _skill_sections(out_dir, frames, better)
    lengths = length_section(_lengths(frames), "-seats")
    lengths.folded = True  # the headline table gives the medians
    sections.append(lengths)
    sections.append(_options_section(frames, frames["length_means"]["column"][0], data["inputs"]["skipped"]))
    if "powers" in frames:
        sections.append(_powers_section(frames["powers"]))
    if "signs" in frames:
        sections.append(_signs_section(frames["signs"]))
    title = title or _("Is this {game} rule set balanced?").format(game=data["game"].capitalize())
    return write_study_page(out, out_dir, answer(out_dir), title, sections, headline, _description(data))
