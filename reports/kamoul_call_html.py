"""One self-contained HTML report of a kamoul-call study directory (``analysis.kamoul_call``): the question
and the method, the derived policy, its measured gain over the presets, the value of calling by known points,
unseen cards, turn, player count and cumulative zone, then each player count's tournament."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.kamoul_call import STUDY_NAME, load_study, strategy_label, study_frames, tournament_dir
from analysis.answers import rules_text
from reports.html import (_e, _interval, _interval_pct, _num, _pct, _png, _table, write_study_page)
from reports.output import check_output
from reports.kamoul_call import plot_call_gain, plot_call_win, plot_gain_by_turn, plot_policy_gain
from reports.batch_html import batch_part

METHOD = ("Each sampled state is one decision of one player at the start of one of its own turns where it may call, "
          "in a manche of real play ({strategy} at every seat). From it the hand is played twice on the same future "
          "(the same deal, stock order and random choices up to the decision): calling KAMOUL now, and not calling "
          "now but playing on with {strategy} (which may call later). <em>Points saved</em> is the hand points of "
          "playing on minus those of calling, paired on the same deals: calling is right where it is above 0. "
          "The policy calls on the highest known points where calling is significantly better (or where {strategy} "
          "itself calls and the data do not say otherwise), per number of unseen own cards.")


def _description(inputs: dict, policies: dict) -> str:
    rows = [["study", _e(STUDY_NAME)], ["game", "kamoul"],
            ["-n (what it counts)", _e(f"{inputs['n']:,} manches, sampled per player count and per seating of the "
                                       "tournaments")],
            ["rule options played", _e(rules_text("kamoul", inputs.get("rules")))],
            ["seed", _e(inputs["seed"])], ["players", _e(", ".join(map(str, inputs["players"])))],
            ["real play (and play on)", _e(inputs["strategy"])], ["presets compared", _e(", ".join(inputs["presets"]))],
            ["tournament level", _e(f"{inputs['tournament_level']} ({inputs['n']:,} per seating)")]]
    rows += [[f"derived policy, {p} players", _e(text)] for p, text in policies.items()]
    return ("<h2>Study</h2>" + _table(["field", "value"], rows, id="spec", caption="study description")
            + "<p>" + METHOD.format(strategy=_e(inputs["strategy"])) + "</p>")


def _policy_table(policy: pl.DataFrame) -> str:
    rows = [[_num(r["players"]), _num(r["unseen"]) + ("+" if r["unseen"] == 3 else ""),
             "never" if r["threshold"] < 0 else f"known points ≤ {r['threshold']}", _num(r["exceptions"]),
             _num(r["samples"])] for r in policy.sort("players", "unseen").iter_rows(named=True)]
    return _table(["players", "unseen own cards", "call when", "cells below the threshold where playing on is "
                   "better", "samples"], rows, id="policy", caption="the derived call policy", numeric={0, 1, 3, 4})


def _check_table(check: pl.DataFrame) -> str:
    def limit(t):
        return "never" if t is None or t < 0 else f"≤ {t}"

    rows = [[_num(r["players"]), _num(r["unseen"]) + ("+" if r["unseen"] == 3 else ""), limit(r["threshold"]),
             limit(r["threshold_again"]), _num(r["samples_again"] or 0), "yes" if r["stable"] else "no"]
            for r in check.iter_rows(named=True)]
    return _table(["players", "unseen own cards", "call when (from balanced play)", "call when (from the policy's "
                   "own play)", "samples", "same"], rows, id="policy-check",
                  caption="a second improvement step: the policy derived again from states of its own play",
                  numeric={0, 1, 4})


def _gain_table(gain: pl.DataFrame) -> str:
    rows = [[_num(r["players"]), _e(r["preset"]), f"{_pct(r['win_rate'])} {_interval_pct(r['low'], r['high'])}",
             _num(r["decided"]), f"{_num(r['points_gap'], True)} {_interval(r['gap_low'], r['gap_high'], True)}",
             _num(r["deals"])] for r in gain.sort("players", "preset").iter_rows(named=True)]
    return _table(["players", "preset", "policy's win rate (95% interval)", "decided games",
                   "policy minus preset, points per deal (95% interval)", "deals"], rows, id="gain",
                  caption="the derived policy against each preset in a paired tournament (seats rotated, same deals)",
                  numeric={0, 2, 3, 4, 5})


def _value_table(cells: pl.DataFrame, id: str, caption: str, keys: list[str]) -> str:
    rows = [[*(_e(r[k]) for k in keys), _num(r["n"]),
             f"{_pct(r['call_win'])} {_interval_pct(r['call_win_low'], r['call_win_high'])}",
             f"{_pct(r['play_win'])} {_interval_pct(r['play_win_low'], r['play_win_high'])}",
             f"{_num(r['call_points'], True)} {_interval(r['call_points_low'], r['call_points_high'], True)}",
             f"{_num(r['play_points'], True)} {_interval(r['play_points_low'], r['play_points_high'], True)}",
             f"{_num(r['gain'], True)} {_interval(r['gain_low'], r['gain_high'], True)}",
             _pct(r["false_call"]), _pct(r["strategy_share"])] for r in cells.iter_rows(named=True)]
    return _table([*keys, "samples", "win if calling", "win if playing on", "points if calling",
                   "points if playing on", "points saved by calling", "false calls", "strategy calls"], rows, id=id,
                  caption=caption, numeric=set(range(len(keys), len(keys) + 8)))


def build_report(out_dir: str | Path, out_html: str | Path, *, title: str | None = None,
                 frames: dict | None = None) -> Path:
    """Write the self-contained HTML report of the kamoul-call study at ``out_dir`` to ``out_html``."""
    out_dir = Path(out_dir)
    study = load_study(out_dir)
    inputs, policies = study["inputs"], study["policies"]
    out = check_output(out_html, "--out")
    frames = frames or study_frames(out_dir)
    by_known = frames["by_known"]
    body = [_description(inputs, policies), "<h2>The call policy</h2>", _policy_table(frames["policy"]),
            _check_table(frames["policy_check"]),
            "<h2>What the policy gains over the presets</h2>", _gain_table(frames["gain"])]
    figs = [("fig-policy-gain", "Win rate of the derived policy against each preset, per player count, with 95% "
             "Wilson intervals (50% = no better).", _png(lambda ax: plot_policy_gain(frames["gain"], ax=ax)))]
    for players in inputs["players"]:
        cells = by_known.filter(pl.col("players") == players)
        figs.append((f"fig-call-gain-{players}p", f"{players} players: points saved by calling now rather than "
                     "playing on, by known points and unseen own cards (95% intervals; above 0 = call).",
                     _png(lambda ax, c=cells, p=players: plot_call_gain(c, ax=ax, title=f"{p} players: value of "
                                                                           "calling now"))))
        figs.append((f"fig-call-win-{players}p", f"{players} players: probability of winning the hand when calling "
                     "now and when playing on, all own cards known (95% Wilson intervals).",
                     _png(lambda ax, c=cells, p=players: plot_call_win(c, ax=ax, title=f"{p} players: win "
                                                                          "probability, all own cards known"))))
        shown = cells.filter((pl.col("unseen") <= 1) & (pl.col("known_cell") <= 10)).sort("unseen", "known_cell")
        body += [f"<h2>{players} players: the value of calling</h2>",
                 _value_table(shown.select(pl.exclude("players")), f"value-{players}p",
                              f"{players} players: calling now against playing on, by unseen own cards and known "
                              "points (pooled over turns and cumulative zones; 95% intervals)",
                              ["unseen", "known_cell"])]
    figs.append(("fig-gain-by-turn", "Points saved by calling a fully known layout of at most 5 points, by own turn "
                 "and player count (95% intervals).", _png(lambda ax: plot_gain_by_turn(frames["by_turn"], ax=ax))))
    body += ["<h2>By cumulative zone</h2>",
             _value_table(frames["by_zone"].filter(pl.col("unseen") <= 1).sort("players", "zone", "unseen"),
                          "value-by-zone", "calling now against playing on by cumulative zone (low: ≤ −15, high: "
                          "≥ 15, where au-score calls exist) and unseen own cards (95% intervals)",
                          ["players", "zone", "unseen"]),
             "<p>The full table by players × zone × unseen × known points × turn is in call_value.parquet.</p>"]
    for players in inputs["players"]:
        part, part_figs = batch_part(tournament_dir(out_dir, players), f"{players}p",
                                      f"{players} players: tournament of the policy ("
                                      f"{strategy_label(policies[str(players)])}) and the presets")
        body.append(part)
        figs += part_figs
    return write_study_page(out, out_dir, STUDY_NAME, title, body, figs)
