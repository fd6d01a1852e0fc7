"""The report of a kamoul-call study directory (``analysis.studies.kamoul_call.study``): the answer beside the derived policy's
win rate against the presets, then the policy, the value of calling per player count as a grid of known points ×
unseen own cards coloured where calling or playing on is significantly better (beside its chart), by own turn and
by cumulative zone, then each player count's tournament; the study's description folded."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl

from analysis.answers import rules_text
from analysis.studies.kamoul_call.charts import plot_call_gain, plot_call_win, plot_gain_by_turn, plot_policy_gain
from analysis.studies.kamoul_call.study import STUDY_NAME, answer, load_study, study_frames, tournament_dir
from reports import formats as fmt
from reports.batch_report import batch_part
from reports.layout import Block, Section, figure
from reports.output import check_output
from reports.study_page import write_study_page
from reports.tables import grid, table
from simulator.core.i18n import N_, _

TITLE = N_("When to call KAMOUL")
"""The page's title: the study's question."""

METHOD = N_("Each sampled state is one decision of one player at the start of one of its own turns where it may call, "
          "in a manche of real play ({strategy} at every seat). From it the hand is played twice on the same future "
          "(the same deal, stock order and random choices up to the decision): calling KAMOUL now, and not calling "
          "now but playing on with {strategy} (which may call later). Points saved is the hand points of playing on "
          "minus those of calling, paired on the same deals: calling is right where it is above 0 (Kamoul points: "
          "lower is better). The policy calls on the highest known points where calling is significantly better "
          "(or where {strategy} itself calls and the data do not say otherwise), per number of unseen own cards.")


#: the value tables' key columns, shown as their headers (``_(key)``)
KEY_WORDS = (N_("unseen"), N_("known_cell"), N_("players"), N_("zone"))


def _unseen(value: int) -> str:
    return f"{value}+" if value == 3 else str(value)


def _threshold(t) -> str:
    return _("never") if t is None or t < 0 else _("known points ≤ {t}").format(t=t)


def _played(inputs: dict) -> str:
    """The sampled strategy per player count (``tuned`` resolves to each count's tuned preset)."""
    played = inputs.get("played")
    return ", ".join(f"{p}p: {name}" for p, name in played.items()) if played else inputs["strategy"]


def _description(inputs: dict, policies: dict):
    rows = [["study", STUDY_NAME], ["game", "kamoul"],
            ["-n (what it counts)", _("{n} manches, sampled per player count and per seating of the "
                                      "tournaments").format(n=fmt.count(inputs["n"]))],
            ["rule options played", rules_text("kamoul", inputs.get("rules"))], ["seed", str(inputs["seed"])],
            ["players", ", ".join(map(str, inputs["players"]))], ["real play (and play on)", _played(inputs)],
            ["presets compared", ", ".join(inputs["presets"])],
            ["tournament level", f"{inputs['tournament_level']} ({fmt.count(inputs['n'])} per seating)"]]
    rows += [[f"derived policy, {p} players", text] for p, text in policies.items()]
    return [(_("The study's description"), table([_("field"), _("value")], rows, id="spec",
                                                 caption=_("study description"), drop_constant=False, code={1}))]


def _policy_section(frames: dict) -> Section:
    rows = [[fmt.count(r["players"]), _unseen(r["unseen"]),
             _threshold(r["threshold"]), fmt.count(r["exceptions"]),
             fmt.count(r["samples"])] for r in frames["policy"].sort("players", "unseen").iter_rows(named=True)]
    policy = table([_("players"), _("unseen own cards"), _("call when"),
                    _("cells below the threshold where playing on is better"), _("samples")], rows, id="policy",
                   caption=_("the derived call policy"), numeric={0, 1, 3, 4})
    rows = [[fmt.count(r["players"]), _unseen(r["unseen"]), _threshold(r["threshold"]), _threshold(r["threshold_again"]),
             fmt.count(r["samples_again"] or 0), _("yes") if r["stable"] else _("no")]
            for r in frames["policy_check"].iter_rows(named=True)]
    check = table([_("players"), _("unseen own cards"), _("call when (from the sampled play)"),
                   _("call when (from the policy's own play)"), _("samples"), _("same")], rows, id="policy-check",
                  numeric={0, 1, 4}, caption=_("a second improvement step: the policy derived again from states of its "
                                               "own play"))
    return Section("policy", _("The call policy"), blocks=[Block(None, policy), Block(None, check)])


def _gain_section(gain: pl.DataFrame) -> Section:
    rows = [[fmt.count(r["players"]), r["preset"], fmt.share_cell(r["win_rate"], r["low"], r["high"]),
             fmt.count(r["decided"]), fmt.mean_cell(r["points_gap"], r["gap_low"], r["gap_high"], 2, True),
             fmt.count(r["deals"])] for r in gain.sort("players", "preset").iter_rows(named=True)]
    numbers = table([_("players"), _("preset"), _("policy's win rate (95% interval)"), _("decided games"),
                     _("policy minus preset, points per deal (95% interval; lower is better)"), _("deals")], rows,
                    id="gain", numeric={0, 2, 3, 4, 5},
                    caption=_("the derived policy against each preset in a paired tournament (seats rotated, same "
                              "deals)"))
    return Section("gain", _("What the policy gains over the presets"), blocks=[Block(None, numbers)])


def value_grid(cells: pl.DataFrame, id: str, caption: str):
    """Points saved by calling (with its 95% interval) by known points (rows) × unseen own cards (columns), blue
    where calling is significantly better, red where playing on is."""
    known = sorted(set(cells["known_cell"].to_list()))
    unseen = sorted(set(cells["unseen"].to_list()))
    at = {(r["known_cell"], r["unseen"]): r for r in cells.iter_rows(named=True)}
    columns = [_("{count} unseen").format(count=_unseen(u)) for u in unseen]

    def cell(k, u, what):
        r = at.get((k, u))
        if r is None:
            return float("nan") if what != "text" else "–"
        if what == "text":
            return fmt.mean_cell(r["gain"], r["gain_low"], r["gain_high"], 1, True) + f"\nn = {fmt.count(r['n'])}"
        significant = r["gain_low"] > 0 or r["gain_high"] < 0
        return r["gain"] if what == "value" or significant else float("nan")

    frames = {what: pd.DataFrame([[cell(k, u, what) for u in unseen] for k in known], index=known, columns=columns)
              for what in ("value", "colour", "text")}
    return grid(frames["value"], frames["text"], colour=frames["colour"], id=id, caption=caption,
                corner=_("known points"))


def _value_details(cells: pl.DataFrame, id: str, caption: str, keys: list[str]):
    rows = [[*(str(r[k]) for k in keys), fmt.count(r["n"]),
             fmt.share_cell(r["call_win"], r["call_win_low"], r["call_win_high"]),
             fmt.share_cell(r["play_win"], r["play_win_low"], r["play_win_high"]),
             fmt.mean_cell(r["call_points"], r["call_points_low"], r["call_points_high"], 1),
             fmt.mean_cell(r["play_points"], r["play_points_low"], r["play_points_high"], 1),
             fmt.mean_cell(r["gain"], r["gain_low"], r["gain_high"], 2, True), fmt.pct(r["false_call"]),
             fmt.pct(r["strategy_share"])] for r in cells.iter_rows(named=True)]
    return table([*(_(k) for k in keys), _("samples"), _("win if calling"), _("win if playing on"),
                  _("points if calling"), _("points if playing on"), _("points saved by calling"),
                  _("false calls"), _("strategy calls")], rows, id=id,
                 caption=caption + _(" (points: lower is better)"), numeric=set(range(len(keys), len(keys) + 8)),
                 keep=range(len(keys)))


def _players_section(by_known: pl.DataFrame, players: int) -> Section:
    cells = by_known.filter(pl.col("players") == players)
    gain_chart = figure(f"fig-call-gain-{players}p", _("{players} players: points saved by calling now rather than "
                                                       "playing on, by known points and unseen own cards (95% "
                                                       "intervals; above 0 = call).").format(players=players),
                        lambda ax: plot_call_gain(cells, ax=ax, title=_("{players} players: value of calling now").format(
                            players=players)))
    win_chart = figure(f"fig-call-win-{players}p", _("{players} players: probability of winning the hand when calling "
                                                     "now and when playing on, all own cards known (95% Wilson "
                                                     "intervals).").format(players=players),
                       lambda ax: plot_call_win(cells, ax=ax, title=_("{players} players: win probability, all own "
                                                                      "cards known").format(players=players)))
    shown = cells.filter((pl.col("unseen") <= 1) & (pl.col("known_cell") <= 10)).sort("unseen", "known_cell")
    values = value_grid(cells.filter(pl.col("known_cell") <= 15), f"value-grid-{players}p",
                        _("{players} players: points saved by calling now rather than playing on (95% interval; n "
                          "samples), pooled over turns and cumulative zones; blue: calling is significantly better, "
                          "red: playing on is").format(players=players))
    details = _value_details(shown.select(pl.exclude("players")), f"value-{players}p",
                             _("{players} players: calling now against playing on, by unseen own cards and known points "
                               "(pooled over turns and cumulative zones; 95% intervals)").format(players=players),
                             ["unseen", "known_cell"])
    return Section(f"value-{players}p-section", _("{players} players: the value of calling").format(players=players),
                   blocks=[Block(gain_chart), Block(None, values), Block(win_chart)], folded=True,
                   details=[(_("{players} players: every measure of calling and playing on, 0 or 1 unseen "
                               "card").format(players=players), details)])


def build_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None,
                 frames: dict | None = None) -> Path:
    """Write the self-contained HTML report of the kamoul-call study at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    study = load_study(out_dir)
    inputs, policies = study["inputs"], study["policies"]
    out = check_output(out_html, "--out")
    frames = frames or study_frames(out_dir)
    headline = figure("fig-policy-gain", _("Win rate of the derived policy against each preset, per player count, with "
                                           "95% Wilson intervals (50% = no better)."),
                      lambda ax: plot_policy_gain(frames["gain"], ax=ax))
    sections = [Section("method", _("How the answer is found"), intro=[_(METHOD).format(strategy=inputs["strategy"])]),
                _policy_section(frames), _gain_section(frames["gain"])]
    sections += [_players_section(frames["by_known"], players) for players in inputs["players"]]
    by_turn = figure("fig-gain-by-turn", _("Points saved by calling a fully known layout of at most 5 points, by own "
                                           "turn and player count (95% intervals)."),
                     lambda ax: plot_gain_by_turn(frames["by_turn"], ax=ax))
    zones = _value_details(frames["by_zone"].filter(pl.col("unseen") <= 1).sort("players", "zone", "unseen"),
                           "value-by-zone", _("calling now against playing on by cumulative zone (low: ≤ −15, high: ≥ "
                                              "15, where au-score calls exist) and unseen own cards (95% intervals)"),
                           ["players", "zone", "unseen"])
    sections.append(Section("by-turn-and-zone", _("By own turn and by cumulative zone"), blocks=[Block(by_turn)],
                            details=[(_("By cumulative zone, in numbers"), zones)],
                            intro=[_("The full table by players × zone × unseen × known points × turn is in "
                                     "call_value.parquet.")]))
    for players in inputs["players"]:
        sections += batch_part(tournament_dir(out_dir, players), f"{players}p",
                               _("{players} players: tournament of the derived policy, its own player and the "
                                 "presets").format(players=players))[1]
    return write_study_page(out, out_dir, answer(out_dir), title or _(TITLE), sections, headline,
                            _description(inputs, policies))
