"""Study 3 — is this rule set balanced? (issue 5 item 6), for any game with balance hints, as one directory of
ordinary runs and batches. Everything game-specific comes from the game's plugin (``GamePlugin.balance``,
``sides``, ``row_winner``, ``row_position``, ``position_names``); nothing here names a game.

Layout of a study directory ``OUT`` (``P`` = the study's player count, the game's default unless ``--players``)::

    OUT/_study.json              the study's inputs, its parts and the strategies it chose (``choices``)
    OUT/seats/                   a run at the game's coarsest level, the tuned player at every seat: seat
                                 advantage and every level's length
    OUT/skill/                   a tournament of the game's ``balance.skill`` strategies (random first) and the
                                 tuned player: luck versus skill
    OUT/options/<option>/        one sweep per rule option (:func:`option_grids`), the tuned player everywhere
    OUT/powers/<power>/          extra ``powers``: seat 0 (the game's ``power_player``, who uses every power: Kamoul
                                 discards a drawn J/Q or red king for its power, on the tuned player's other values)
                                 with one card power's probability 1 and 0, the tuned player at the other seats
    OUT/tops-best-random/        extra ``best_of_three``: the best preset against random, at the coarsest level
    OUT/tops-best-second/        extra ``best_of_three``: the best preset against the second best
    OUT/signs/                   extra ``signs``: the listed strategy-parameter x rule-option grids (Kem's: the
                                 sign's visibility x ``kappa0``)
    OUT/<frame>.parquet          the frames of :func:`study_frames`

Strong play. By default every part plays the tuned player (:func:`tuned_play`: the shipped ``tuned-<k>p`` preset
of the nearest player count that ``cardsim tune`` found, under the name of a preset it plays alike); a game without
tuned presets plays its default strategy. ``--strategy`` replaces that choice, and ``_study.json`` records it
(``inputs.tuned``).

Who sits where. Seat advantage is measured by *position* from the deal, not by seat number: each side's position
in a row is the game's ``row_position`` (0 = the side that plays first; Kamoul: the dealer's left, K3; Rami: the
dealer's right-hand neighbour who receives the 14th card, R2; Kem's counts teams, 0 = the team of the dealer's
left). A row's side wins as in :mod:`analysis.batches` (``row_winner``).

Rule options swept (:func:`option_grids`): every option of the game that is a rule played at the game's default
level: booleans and choices over all their values, numbers over the game's ``balance.values`` (or the default and
a value either side, within bounds), values that the spec refuses at ``P`` players dropped. Skipped, with the
reason, the game's ``balance.skipped``: simulation guards, options that act only across hands, rounds or
manches, the physical layer and perception models, Kem's time model.

Every frame is a pure function of the stored tables; every rate carries its 95% Wilson interval, every mean
and every paired difference (cells of a sweep play the same deals) its 95% t interval.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import polars as pl
from scipy import stats as scipy_stats

from analysis.answers import (WIDTH, Answer, Table, certainty, certainty_word, equivalence, frame_of, number, rules_text,
                             say, significance, stored_frames)
from analysis.batches import NO_EFFECT, batch_frames, cell_effects, cell_wins, rank_strategies
from analysis.kems_signals import sign_exposure
from analysis.lengths import length_column, run_lengths
from analysis.stats import games_for_half_width, mean_interval, wilson
from simulator.core.contract.game import TEAM_KEYS, GamePlugin
from simulator.core.contract.presets import plays_alike, tuned_preset
from simulator.core.errors import SpecError
from simulator.core.i18n import _, ngettext, number as written, percent, significant_figures
from simulator.core.run.batch import cell_dir, load_batch, read_batch
from simulator.core.run.designs import sweep_batch, tournament_batch
from simulator.core.run.plan import (
    Part, Plan, check_games, check_study_rules, check_study_settings, check_study_strategies, load_study_file,
)
from simulator.core.storage.spec import RunSpec, _fmt, build_spec, parse_strategy
from simulator.core.storage.store import read_manifest, read_table
from simulator.games import get_game

STUDY_NAME = "balance"
BEST, SECOND = "tops-best-random", "tops-best-second"
STRATEGIES_HELP = ("the skill tournament's strategies, two or more (default: random, the tuned player and the game's "
                   "presets); the first also plays every seat of the seats run and of the rule sweeps (default: the "
                   "tuned player, tuned-2p or tuned-4p by player count)")


def hints(game):
    """The game's :class:`~simulator.core.contract.game.BalanceHints`; :class:`SpecError` for a game without them."""
    plugin = get_game(game)
    if plugin.balance is None:
        raise SpecError("GAME", plugin.name, "a game with balance hints (its plugin's ``balance``)")
    return plugin.balance


# --- who wins from where ---------------------------------------------------------------------------------


def position_rows(finest: pl.DataFrame | pl.LazyFrame, game: str | GamePlugin, players: int) -> pl.DataFrame:
    """One row per row of the finest table and side (seat, or team: ``GamePlugin.sides``): ``row`` (its index),
    ``unit`` (the side), ``pos`` (its position from the deal, ``GamePlugin.row_position``), ``win`` (the side won
    the row, ``GamePlugin.row_winner``) and ``points``."""
    plugin = get_game(game)
    lazy = (finest.lazy() if isinstance(finest, pl.DataFrame) else finest).with_row_index("row")
    winner = plugin.row_winner(players)
    parts = [lazy.select("row", pl.lit(side.index, pl.Int64).alias("unit"),
                         plugin.row_position(side.index, players).alias("pos"), (winner == side.index).alias("win"),
                         pl.col(f"points_{side.key}").cast(pl.Float64).alias("points"))
             for side in plugin.sides(players)]
    return pl.concat(parts).collect()


def position_table(rows: pl.DataFrame, game: str | GamePlugin, by: str = "pos") -> pl.DataFrame:
    """Per position (``by="pos"``) or unit (``by="unit"``): ``n`` rows, ``wins``, ``win_rate`` with its Wilson
    interval ``win_low``/``win_high``, ``share`` of the decided rows (rows some unit won) with ``share_low``/
    ``share_high``, and ``mean_points`` with its t interval; ``label`` names the position (the game's
    ``position_names``) or the side."""
    plugin = get_game(game)
    decided = int(rows.group_by("row").agg(pl.col("win").any())["win"].sum())
    agg = (rows.group_by(by).agg(pl.len().alias("n"), pl.col("win").sum().alias("wins"),
                                 pl.col("points").sum().alias("s"), (pl.col("points") ** 2).sum().alias("q"))
           .sort(by))
    out = []
    for r in agg.iter_rows(named=True):
        rate = wilson(r["wins"], r["n"])
        share = wilson(r["wins"], decided)
        mean = mean_interval(r["s"], r["q"], r["n"])
        label = position_label(plugin, r[by], agg.height) if by == "pos" else plugin.side_label(r[by])
        out.append({by: r[by], "label": label, "n": r["n"], "wins": r["wins"], "decided": decided,
                    "win_rate": rate[0], "win_low": rate[1], "win_high": rate[2], "share": share[0],
                    "share_low": share[1], "share_high": share[2], "mean_points": mean[0], "points_low": mean[1],
                    "points_high": mean[2]})
    return pl.DataFrame(out)


def _ordinal(k: int) -> str:
    if _("{k}th") != "{k}th":  # a language with its own ordinals (French: 1er, 2e)
        return (_("{k}st") if k == 1 else _("{k}th")).format(k=k)
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def position_label(plugin: GamePlugin, pos: int, positions: int) -> str:
    """How people name position ``pos`` (0 = plays first) of ``positions``, in the reader's language (the game's
    ``position_names``)."""
    first, other, last = plugin.position_names
    name = first if pos == 0 else last if pos == positions - 1 else other
    return _(name).format(k=_ordinal(pos + 1))


def seat_test(table: pl.DataFrame, alpha: float = 0.05) -> pl.DataFrame:
    """Chi-square test that every position of :func:`position_table` wins the same share of the decided rows:
    ``units``, ``decided``, ``chi2``, ``df``, ``p_value`` and a one-line ``verdict`` at level ``alpha``."""
    wins = table["wins"].to_list()
    total, k = sum(wins), len(wins)
    expected = total / k if k else math.nan
    chi2 = sum((w - expected) ** 2 / expected for w in wins) if total else math.nan
    p = float(scipy_stats.chi2.sf(chi2, k - 1)) if total and k > 1 else math.nan
    if math.isnan(p):
        verdict = "no decided rows: nothing to test"
    elif p < alpha:
        best = table.sort("share", descending=True).row(0, named=True)
        verdict = (f"positions differ (p = {p:.3g} < {alpha:g}): the {best['label']} wins {100 * best['share']:.1f}% "
                   f"of decided rows against {100 / k:.1f}% if all were equal")
    else:
        verdict = f"no evidence of a seat advantage (p = {p:.3g} >= {alpha:g})"
    return pl.DataFrame([{"units": k, "decided": total, "chi2": chi2, "df": k - 1, "p_value": p, "verdict": verdict}])


# --- luck versus skill -----------------------------------------------------------------------------------


def upsets(matrix: pl.DataFrame, order: list[str]) -> pl.DataFrame:
    """How often the weaker of each pair wins (``order``: best first): ``stronger``, ``weaker``, ``decided``,
    ``weaker_wins``, ``rate`` (share of decided games the weaker won) with its Wilson interval, and the paired
    points gap of the weaker minus the stronger with its t interval."""
    m = {(r["strategy"], r["opponent"]): r for r in matrix.iter_rows(named=True)}
    rows = []
    for i, stronger in enumerate(order):
        for weaker in order[i + 1:]:
            r = m[(weaker, stronger)]
            rate = wilson(r["wins"], r["decided"])
            rows.append({"stronger": stronger, "weaker": weaker, "decided": r["decided"], "weaker_wins": r["wins"],
                         "rate": rate[0], "low": rate[1], "high": rate[2], "points_gap": r["points_gap"],
                         "gap_low": r["gap_low"], "gap_high": r["gap_high"]})
    return pl.DataFrame(rows, schema={"stronger": pl.Utf8, "weaker": pl.Utf8, "decided": pl.Int64,
                                      "weaker_wins": pl.Int64, "rate": pl.Float64, "low": pl.Float64,
                                      "high": pl.Float64, "points_gap": pl.Float64, "gap_low": pl.Float64,
                                      "gap_high": pl.Float64})


def level_wins(out) -> pl.DataFrame:
    """Per cell of the tournament at ``out`` and level of its run (finest first): ``a``, ``b``, ``seating``,
    ``level``, ``games``, ``a_wins``, ``b_wins``, ``undecided`` (:func:`analysis.batches.cell_wins` at that level)."""
    rows = []
    for cell in load_batch(out)["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        lab = cell["labels"]
        levels = spec.plugin.levels
        for level in levels[:levels.index(spec.level) + 1]:
            wins = cell_wins(dataclasses.replace(spec, level=level), cell_dir(out, cell["id"]), lab["a"], lab["b"],
                             lab["seating"])
            rows.append({"level": level, **wins})
    return pl.DataFrame(rows)


def skill_by_level(wins: pl.DataFrame, better: str) -> pl.DataFrame:
    """Per level (in the order of ``wins``), how often ``better`` wins over the decided games of every seating:
    ``better``, ``weaker``, ``level``, ``games``, ``decided``, ``better_wins``, ``rate`` with its Wilson interval."""
    rows = []
    for (level,), g in wins.group_by("level", maintain_order=True):
        won = sum(r["a_wins"] if r["a"] == better else r["b_wins"] for r in g.iter_rows(named=True))
        lost = sum(r["b_wins"] if r["a"] == better else r["a_wins"] for r in g.iter_rows(named=True))
        other = next(r["b"] if r["a"] == better else r["a"] for r in g.iter_rows(named=True))
        rate = wilson(won, won + lost)
        rows.append({"better": better, "weaker": other, "level": level, "games": int(g["games"].sum()),
                     "decided": won + lost, "better_wins": won, "rate": rate[0], "low": rate[1], "high": rate[2]})
    return pl.DataFrame(rows)


# --- one sweep per rule option ---------------------------------------------------------------------------


def _around(param) -> tuple:
    """The default and a value either side, within bounds."""
    d = param.default
    if param.kind == "int":
        step = max(1, round(abs(d) / 4))
        values = (d - step, d, d + step)
    else:
        step = abs(d) / 2 if d else (param.high - param.low) / 4
        values = (d - step, d, d + step)
    return tuple(v for v in values if param.low <= v <= param.high)


def option_grids(game: str, players: int, names=None, rules: dict | None = None
                 ) -> tuple[list[tuple[str, list]], dict[str, str]]:
    """``([(option, values)], skipped)``: every option swept at ``players`` players (see the module doc; ``names``:
    only those) with its values, the default always among them and values the spec refuses at ``players`` players
    dropped; ``skipped``: every option left out (the game's ``balance.skipped``, and those left with a single
    value) and why. ``rules``: the study's other rule options (each sweep changes one option of those); an
    option set there is swept around its set value."""
    rules = dict(rules or {})
    plugin, game_hints = get_game(game), hints(game)
    params = {p.name: p for p in plugin.options.params}
    if names is not None:
        for name in names:
            if name not in params or name in game_hints.skipped:
                allowed = [p for p in params if p not in game_hints.skipped]
                raise SpecError("options", name,
                                f"rule options of {plugin.name} swept by the balance study: {', '.join(allowed)}")
    out, skipped = [], dict(game_hints.skipped)
    for name, p in params.items():
        if name in game_hints.skipped or (names is not None and name not in names):
            continue
        base = rules.get(name, p.default)
        if p.kind == "bool":
            values = [False, True]
        elif p.kind == "choice":
            values = list(p.choices)
        else:
            values = sorted(set(game_hints.values.get(name, _around(p))) | {base})
        kept, refused = [], []
        for v in values:
            try:
                build_spec(plugin.name, n=1, seed=0, players=players, options={**rules, name: v})
                kept.append(v)
            except SpecError as err:
                refused.append(str(err))
        if len(kept) > 1:
            out.append((name, kept))
        else:
            skipped[name] = f"no value but the default is accepted at {players} players ({'; '.join(refused)})"
    return out, skipped


def option_games(out, game: str, players: int, option: str, rules: dict | None = None) -> pl.DataFrame:
    """Per cell and game of the option's sweep at ``out``: ``value`` (as text), ``default`` (the option's value
    in the study's ``rules``, else its default), ``game``, ``length`` (turns; Kem's: ticks), ``first`` (position 0
    won), ``decided`` (someone won)."""
    default = (rules or {}).get(option, {p.name: p.default for p in get_game(game).options.params}[option])
    frames = []
    for cell in load_batch(out)["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        finest = read_table(cell_dir(out, cell["id"]), spec.plugin.tables(spec.level)[0]).collect()
        rows = position_rows(finest, game, players)
        per = rows.group_by("row").agg((pl.col("win") & (pl.col("pos") == 0)).any().alias("first"),
                                       pl.col("win").any().alias("decided")).sort("row")
        value = cell["labels"][option]
        frames.append(finest.select(pl.col("game").cast(pl.Int64),
                                    pl.col(length_column(finest.columns)).cast(pl.Float64).alias("length"))
                      .with_columns(per["first"], per["decided"], pl.lit(_fmt(value)).alias("value"),
                                    pl.lit(value == default).alias("default")))
    return pl.concat(frames).select("value", "default", "game", "length", "first", "decided")


def _paired(diffs: pl.Series) -> tuple[float, float, float]:
    d = diffs.cast(pl.Float64)
    return mean_interval(float(d.sum()), float((d * d).sum()), d.len())


def option_effects(games: pl.DataFrame, option: str, units: int) -> pl.DataFrame:
    """Per value of one option (:func:`option_games`): ``n``, the share of decided games (``decided_rate``), the
    share of decided games won by position 0 (``first_share``; ``1/units`` when seats are equal), the mean length,
    each with its interval, and the paired change against the default value on the same deals: ``first_delta``
    (win of position 0, over all games) and ``length_delta``, with t intervals."""
    base = games.filter(pl.col("default")).select("game", pl.col("length").alias("l0"),
                                                  pl.col("first").cast(pl.Float64).alias("f0"))
    rows = []
    for (value,), g in games.group_by("value", maintain_order=True):
        n, decided, first = g.height, int(g["decided"].sum()), int(g["first"].sum())
        dec, share = wilson(decided, n), wilson(first, decided)
        length = mean_interval(float(g["length"].sum()), float((g["length"] ** 2).sum()), n)
        paired = g.join(base, on="game")
        fd = _paired(paired["first"].cast(pl.Float64) - paired["f0"])
        ld = _paired(paired["length"] - paired["l0"])
        rows.append({"option": option, "value": value, "default": bool(g["default"][0]), "units": units, "n": n,
                     "decided_rate": dec[0], "decided_low": dec[1], "decided_high": dec[2],
                     "first_share": share[0], "first_low": share[1], "first_high": share[2],
                     "length": length[0], "length_low": length[1], "length_high": length[2],
                     "first_delta": fd[0], "first_delta_low": fd[1], "first_delta_high": fd[2],
                     "length_delta": ld[0], "length_delta_low": ld[1], "length_delta_high": ld[2]})
    return pl.DataFrame(rows)


def _with_effects(effects: pl.DataFrame, sweep, option: str) -> pl.DataFrame:
    """``effects`` with each value's ``effect`` (:func:`analysis.batches.cell_effects`: ``baseline``, ``no effect:
    the strategies never reach this rule`` when every game is played as at the default, or ``changes play``)."""
    data = load_batch(sweep)
    marks = cell_effects(sweep, data)
    by_value = {_fmt(c["labels"][option]): marks[c["id"]] for c in data["cells"]}
    return effects.with_columns(pl.col("value").replace_strict(by_value, default="changes play").alias("effect"))


# --- Kamoul: what each card power is worth ---------------------------------------------------------------


def power_games(out, power: str, uses: tuple[str, ...] = ()) -> pl.DataFrame:
    """Per cell of the power's sweep at ``out`` and game: ``power``, ``off`` (the power's probability is 0),
    ``game``, seat 0's ``win`` and ``points``, and ``uses``: the power's uses at the table in the game (the sum of
    the columns ``uses``; 0 without them)."""
    used = pl.sum_horizontal([pl.col(c).cast(pl.Int64) for c in uses]) if uses else pl.lit(0, dtype=pl.Int64)
    return (read_batch(out).select(pl.lit(power).alias("power"), (pl.col(power).cast(pl.Float64) == 0).alias("off"),
                                   pl.col("game").cast(pl.Int64), (pl.col("winner").cast(pl.Int64) == 0).alias("win"),
                                   pl.col("points_0").cast(pl.Float64).alias("points"),
                                   used.cast(pl.Float64).alias("uses")).collect())


def power_values(games: pl.DataFrame) -> pl.DataFrame:
    """Per power (:func:`power_games`): seat 0's win rate with the power (``base_rate``) and without it
    (``off_rate``), Wilson intervals; its value ``value`` = base minus off win rate, paired on the same deals (t
    interval); ``points_value`` = mean points without minus with it (points it saves; lower is better); and
    ``uses_on`` / ``uses_off``: the power's mean uses per game at the table with it and without it (t intervals)."""
    rows = []
    for (power,), g in games.group_by("power", maintain_order=True):
        on, off = g.filter(~pl.col("off")), g.filter(pl.col("off"))
        pair = on.join(off, on="game", suffix="_off")
        base, without = wilson(int(on["win"].sum()), on.height), wilson(int(off["win"].sum()), off.height)
        value = _paired(pair["win"].cast(pl.Float64) - pair["win_off"].cast(pl.Float64))
        saved = _paired(pair["points_off"] - pair["points"])
        uses_on, uses_off = _paired(on["uses"]), _paired(off["uses"])
        rows.append({"power": power, "n": pair.height, "base_rate": base[0], "base_low": base[1], "base_high": base[2],
                     "off_rate": without[0], "off_low": without[1], "off_high": without[2],
                     "value": value[0], "value_low": value[1], "value_high": value[2],
                     "points_value": saved[0], "points_low": saved[1], "points_high": saved[2],
                     "uses_on": uses_on[0], "uses_on_low": uses_on[1], "uses_on_high": uses_on[2],
                     "uses_off": uses_off[0], "uses_off_low": uses_off[1], "uses_off_high": uses_off[2]})
    return pl.DataFrame(rows)


# --- Kem's: sign visibility against interception ----------------------------------------------------------


def pooled_exposure(manches: pl.DataFrame | pl.LazyFrame, players: int) -> pl.DataFrame:
    """:func:`analysis.kems_signals.sign_exposure` pooled over the teams (one row, ``team`` "all"): every team's
    manches are relabelled so that it is team A, stacked, and team A's row is kept (``manches`` counts team-manches)."""
    lazy = manches.lazy() if isinstance(manches, pl.DataFrame) else manches
    teams = players // 2
    names = TEAM_KEYS[:teams]
    cols = ("signs", "seen_partner", "seen_opp")
    caller = pl.col("caller").cast(pl.Int64)
    stacked = [lazy.select(pl.col("outcome").cast(pl.Utf8),
                           pl.when(caller >= 0).then((caller - t) % players).otherwise(-1).alias("caller"),
                           *(pl.col(f"{c}_{names[(u + t) % teams]}").alias(f"{c}_{names[u]}")
                             for u in range(teams) for c in cols))
               for t in range(teams)]
    return sign_exposure(pl.concat(stacked), players).filter(pl.col("team") == "A").with_columns(pl.lit("all").alias("team"))


def sign_cells(out) -> pl.DataFrame:
    """:func:`pooled_exposure` of every cell of the signs sweep at ``out``, the cell's grid values first."""
    frames = []
    for cell in load_batch(out)["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        exposure = pooled_exposure(read_table(cell_dir(out, cell["id"]), "manches"), spec.players)
        frames.append(exposure.select(pl.lit(cell["id"]).alias("cell"),
                                      *(pl.lit(float(v)).alias(k) for k, v in cell["labels"].items()), pl.all()))
    return pl.concat(frames)


# --- the study -------------------------------------------------------------------------------------------


def load_study(out, field: str = "--out", finished: bool = False) -> dict:
    """``out/_study.json``; with ``finished``, :class:`SpecError` on ``field`` unless every part has run."""
    data = load_study_file(out, STUDY_NAME, field)
    if finished and not data.get("complete"):
        raise SpecError(field, str(out), "a finished balance study",
                        "is not finished (re-run the same cardsim study command to resume it)")
    return data


def _lengths(run) -> tuple[pl.DataFrame, pl.DataFrame]:
    dists, means = [], []
    for table, item in run_lengths(run).items():
        tag = [pl.lit(table).alias("table"), pl.lit(item["column"]).alias("column")]
        dists.append(item["distribution"].select(*tag, pl.all()))
        means.append(pl.DataFrame([item["mean"]]).select(*tag, pl.all()))
    return pl.concat(dists), pl.concat(means, how="vertical_relaxed")


def study_frames(out) -> dict[str, pl.DataFrame]:
    """Every frame of the study at ``out`` (see the module doc), computed from its parts."""
    data = load_study(out)
    inputs, game, out = data["inputs"], data["game"], Path(out)
    players = inputs["players"]
    spec = RunSpec.from_dict(read_manifest(out / "seats")["spec"])
    rows = position_rows(read_table(out / "seats", spec.plugin.tables(spec.level)[0]), game, players)
    positions = position_table(rows, game)
    frames = {"positions": positions, "units": position_table(rows, game, by="unit"), "seat_test": seat_test(positions)}
    frames["lengths"], frames["length_means"] = _lengths(out / "seats")
    skill = batch_frames(out / "skill")
    frames["upsets"] = upsets(skill["matrix"], rank_strategies(skill["ratings"], skill["matrix"]))
    units = positions.height
    frames["options"] = pl.concat([_with_effects(option_effects(option_games(out / "options" / name, game, players,
                                                                             name, inputs.get("rules")), name, units),
                                                 out / "options" / name, name)
                                   for name, _ in inputs["option_grids"]], how="vertical_relaxed")
    if inputs["powers"]:
        uses = get_game(game).balance.extras.get("powers", {})
        frames["powers"] = power_values(pl.concat([power_games(out / "powers" / p, p, tuple(uses.get(p, ())))
                                                   for p in inputs["powers"]]))
    if inputs.get("best_of_three"):
        if "choices" not in data:
            load_study(out, "RUN", finished=True)
        best = parse_strategy(get_game(game), data["choices"]["best"]).label()  # as the tournaments' frames name it
        frames["skill_levels"] = pl.concat([skill_by_level(level_wins(out / BEST), best),
                                            skill_by_level(level_wins(out / SECOND), best)])
    if inputs["sign_grids"]:
        frames["signs"] = sign_cells(out / "signs")
    return frames


def check_study_players(game: str, players) -> int:
    """The study's one player count: the game's default for ``None``; :class:`SpecError` on ``--players``."""
    plugin = get_game(game)
    if players is None:
        return plugin.default_players
    values = list(players) if isinstance(players, (list, tuple)) else str(players).split(",")
    try:
        assert len(values) == 1 and not isinstance(values[0], bool)
        count = int(values[0])
    except (AssertionError, TypeError, ValueError):
        shown = ",".join(map(str, values)) if isinstance(players, (list, tuple)) else players
        raise SpecError("--players", shown, f"one player count, e.g. {plugin.default_players} (the balance study of "
                        f"{game} plays one table size)") from None
    plugin.check_players(count, {p.name: p.default for p in plugin.options.params})
    return count


def plan(out, *, n: int, game: str, seed: int = 0, players=None, threads: int | None = None,
         chunk_size: int | None = None, swept=None, strategies=None, sign_grids=None, rules: dict | None = None
         ) -> Plan:
    """The balance study of ``game`` (:func:`simulator.core.run.plan.execute` runs it into ``out``): ``n`` games per
    cell (at the default level; the skill tournament plays ``n`` games per seating at the level the game is won
    at, :attr:`GamePlugin.judged_level`; the seats run and the best-of-three tournaments play ``n`` games at the
    game's coarsest level). ``swept`` (option names) narrows the option sweeps (default: all); ``strategies``
    (:data:`STRATEGIES_HELP`); ``rules``: the rule options every part is played under (each option sweep
    changes one of them); ``sign_grids`` replaces the game's ``signs`` grids. The game's ``balance.extras`` add its own
    parts: ``powers`` (one sweep per card-power parameter, on seat 0), ``best_of_three`` (the best preset of the
    skill tournament against random and against the second best, at the coarsest level), ``signs`` (a sweep of
    the listed strategy-parameter and option grids)."""
    plugin = get_game(game)
    game_hints = hints(game)
    n = check_games(n, "games per cell of the sweeps and per seating of the skill tournament, and games of the "
                       "seats run (each at the level it names)")
    check_study_settings(n=n, seed=seed, threads=threads, chunk_size=chunk_size)
    players = check_study_players(game, players)
    rules = check_study_rules(game, rules, players)
    top = plugin.levels[-1]
    chosen = check_study_strategies(game, strategies, at_least=2, what=STRATEGIES_HELP)
    tuned = None if chosen is not None else tuned_play(plugin, players)
    strategies = list(chosen if chosen is not None else skill_strategies(game_hints.skill, tuned))
    seat_strategy = [chosen[0]] if chosen is not None else [tuned["played_as"]] if tuned else None
    grids, skipped = option_grids(game, players, swept, rules)
    extras = game_hints.extras
    powers = list(extras.get("powers", ()))
    signs = list(extras["signs"] if sign_grids is None else sign_grids) if "signs" in extras else []
    best_of_three = "best_of_three" in extras
    inputs = {"game": game, "n": n, "seed": seed, "players": players, "seats_level": top,
              "strategies": strategies, "option_grids": [[k, v] for k, v in grids], "skipped": skipped,
              "powers": powers, "sign_grids": signs, "rules": rules, "seat_strategy": seat_strategy, "tuned": tuned}
    if best_of_three:
        inputs["best_of_three"] = True
    common = dict(n=n, seed=seed, players=players, options=rules)
    seats = build_spec(game, level=top, strategies=seat_strategy, **common)
    parts = [Part("seats", lambda: seats),
             Part("skill", _fixed(tournament_batch(game, strategies=strategies, **common)), batch_frames)]
    parts += [Part(f"options/{name}", _fixed(sweep_batch(game, option_grids=[_grid(name, values)],
                                                         strategies=seat_strategy, **common)),
                   batch_frames) for name, values in grids]
    power_seats = None
    if powers:
        others = tuned["played_as"] if tuned else plugin.default_strategy
        power_seats = [power_user(plugin, extras["power_player"], tuned)] + [others] * (players - 1)
    parts += [Part(f"powers/{p}", _fixed(sweep_batch(game, seats=[0], grids=[f"{p}=1,0"], strategies=power_seats,
                                                     **common)), batch_frames)
              for p in powers]
    choices: dict = {}
    if best_of_three:
        parts += [Part(BEST, lambda: tournament_batch(game, strategies=[choices["best"], "random"], level=top,
                                                      **common), batch_frames),
                  Part(SECOND, lambda: tournament_batch(game, strategies=[choices["best"], choices["second"]],
                                                        level=top, **common), batch_frames)]
    if signs:
        rule_names = {p.name for p in plugin.options.params}
        param_grids = [g for g in signs if g.split("=")[0] not in rule_names]
        option_part = [g for g in signs if g not in param_grids]
        parts.append(Part("signs", _fixed(sweep_batch(game, grids=param_grids, option_grids=option_part, **common)),
                          batch_frames))

    def after(name):
        if name == "skill" and best_of_three:  # the best and second-best non-random strategies of the skill tournament
            frames = batch_frames(Path(out) / "skill")
            by_label = {parse_strategy(plugin, s).label(): s for s in strategies}  # back to what the user typed
            order = [by_label.get(s, s) for s in rank_strategies(frames["ratings"], frames["matrix"]) if s != "random"]
            choices.update(best=order[0], second=order[1] if len(order) > 1 else "random")
            return {"choices": dict(choices)}
        return None

    return Plan(STUDY_NAME, game, inputs, "same GAME, -n, --seed, --players, --option, --strategy", parts, study_frames,
                after)


def tuned_play(plugin: GamePlugin, players: int) -> dict | None:
    """The tuned player the study plays by default at ``players``: ``{"preset": "tuned-<k>p", "played_as": name}``
    (:func:`simulator.core.contract.presets.tuned_preset`), ``played_as`` being the skill strategy it plays alike when there
    is one (Rami's tuned presets kept ``open-asap``'s values: one strategy, one name), else the preset; ``None``
    for a game without tuned presets."""
    preset = tuned_preset(plugin.strategies, players)
    if preset is None:
        return None
    alike = [s for s in hints(plugin.name).skill if plays_alike(plugin.strategies, s, preset)]
    return {"preset": preset, "played_as": alike[0] if alike else preset}


def skill_strategies(skill: tuple[str, ...], tuned: dict | None) -> list[str]:
    """The skill tournament's strategies: the game's ``skill`` (``random`` first), the tuned player second unless
    one of them already plays alike."""
    if tuned is None or tuned["played_as"] in skill:
        return list(skill)
    return [skill[0], tuned["played_as"], *skill[1:]]


def power_user(plugin: GamePlugin, power_player: str, tuned: dict | None) -> str:
    """Seat 0 of the power sweeps: the game's ``power_player`` (a family with the values that make it use every
    power), played on the tuned player's other values when the tuned preset is of that family."""
    family, _sep, uses = power_player.partition(":")
    if tuned is None:
        return power_player
    own = plugin.strategies[tuned["preset"]]
    if (own.family or own.name) != family:
        return power_player
    return tuned["preset"] + (f":{uses}" if uses else "")


def _fixed(batch):
    return lambda: batch


def _grid(name, values) -> str:
    return f"{name}={','.join(_fmt(v) for v in values)}"


# --- the answer ------------------------------------------------------------------------------------------

EPSILON = 0.01  # a rule option does not matter when its effect on the first player's win chance is inside ±1 point


def _seat_numbers(frames: dict, plugin: GamePlugin) -> tuple[list[dict], str]:
    unit = f"decided {plugin.levels[0]}"
    positions, test = frames["positions"], frames["seat_test"].row(0, named=True)
    if "pos" in positions.columns:  # named in the reader's language, whatever the language it was stored in
        positions = positions.with_columns(pl.Series("label", [position_label(plugin, p, positions.height)
                                                               for p in positions["pos"]]))
    rows = [number("seat advantage", r["label"], f"share of {unit} won", r["share"], r["share_low"],
                   r["share_high"], n=r["decided"], unit=unit, kind="share") for r in positions.iter_rows(named=True)]
    fair = 1 / max(1, positions.height)
    significant = test["p_value"] < 0.05
    rows.append(number("seat advantage", "all positions", "chi-square p value of equal shares", test["p_value"],
                       n=test["decided"], unit=unit, kind="points",
                       status="significant" if significant else "not significant"))
    best = max(rows[:-1], key=lambda r: r["value"])
    p = significant_figures(test["p_value"])
    text = (_("Seats: the {position} wins {share} of decided {level} against {fair} if all were equal; ").format(
        position=best["subject"], share=say(best), level=_(plugin.levels[0]), fair=percent(fair))
        + (_("a real advantage (p = {p}).") if significant else _("no evidence of a seat advantage (p = {p}).")).format(p=p))
    return rows, text


def _skill_numbers(frames: dict, level: str, tuned: str | None = None) -> tuple[list[dict], str]:
    """Luck against skill: the best strategy's share of decided ``level`` against each other one, and the tuned
    player's too when it is not the best."""
    upsets_frame = frames["upsets"]
    if not upsets_frame.height:
        return [], _("Skill: the skill tournament has a single strategy: nothing to compare.")
    best = upsets_frame["stronger"][0]
    rows = _shares_of(upsets_frame, best, level)
    text = _("Luck against skill: the best strategy, {best}, wins {results}.").format(
        best=best, results=_results(rows, level))
    if tuned and tuned != best and tuned in set(upsets_frame["weaker"]):
        own = _shares_of(upsets_frame, tuned, level)
        rows += own
        text += " " + _("The tuned player, {tuned}, wins {results}.").format(tuned=tuned, results=_results(own, level))
    return rows, text


def _shares_of(upsets_frame: pl.DataFrame, who: str, level: str) -> list[dict]:
    """``who``'s share of decided ``level`` against every other strategy of the skill tournament, in rank order."""
    rows = []
    for r in upsets_frame.filter((pl.col("stronger") == who) | (pl.col("weaker") == who)).iter_rows(named=True):
        stronger = r["stronger"] == who
        share, low, high = (1 - r["rate"], 1 - r["high"], 1 - r["low"]) if stronger else (r["rate"], r["low"], r["high"])
        other = r["weaker"] if stronger else r["stronger"]
        rows.append(number("luck against skill", f"{who} against {other}", f"share of decided {level} the "
                           f"{'better' if stronger else 'weaker'} strategy wins", share, low, high, n=r["decided"],
                           unit=f"decided {level}", kind="share", status=significance(low, high, 0.5)))
    return rows


def _results(rows: list[dict], level: str) -> str:
    return ", ".join((_("{share} of decided {level} against {other}") if k == 0 else _("{share} against {other}")).format(
        share=say(r), level=_(level), other=r["subject"].split(" against ")[1]) for k, r in enumerate(rows))


def _length_numbers(frames: dict) -> tuple[list[dict], str]:
    rows, parts = [], []
    for r in frames["length_means"].iter_rows(named=True):
        unit_one = r["table"].removesuffix("s")
        median = number("game length", f"a {unit_one}", f"median length in {r['column']}", r["median"], n=r["n"],
                        unit=r["table"], kind="count")
        p90 = number("game length", f"a {unit_one}", f"90th percentile of the length in {r['column']}", r["p90"],
                     n=r["n"], unit=r["table"], kind="count")
        mean = number("game length", f"a {unit_one}", f"mean length in {r['column']}", r["mean"], r["low"], r["high"],
                      n=r["n"], unit=r["table"], kind="points")
        rows += [median, p90, mean]
        parts.append(_("a {unit} lasts {median} {counted} (median; 90% within {p90}; mean {mean})").format(
            unit=_(unit_one), median=say(median), counted=_(r["column"]), p90=say(p90), mean=say(mean)))
    return rows, _("Length: {parts}.").format(parts="; ".join(parts))


def _option_numbers(frames: dict) -> tuple[list[dict], str]:
    rows = []
    for r in frames["options"].filter(~pl.col("default")).iter_rows(named=True):
        status = (NO_EFFECT if r.get("effect") == NO_EFFECT
                  else equivalence(r["first_delta_low"], r["first_delta_high"], EPSILON))
        if status == "undecided":
            status += f" at this n ({more_games_text(r['first_delta_low'], r['first_delta_high'], r['n'])})"
        rows.append(number("rule option", f"{r['option']}={r['value']}", "change of the first player's win chance "
                           "against the default, same deals", r["first_delta"], r["first_delta_low"],
                           r["first_delta_high"], n=r["n"], unit="games", kind="percentage points", status=status))
    matter = sorted((r for r in rows if r["status"] == "matters"), key=lambda r: -abs(r["value"]))
    count = {k: sum(1 for r in rows if r["status"].startswith(k)) for k in ("does not matter", "undecided")}
    never = [r["subject"] for r in rows if r["status"] == NO_EFFECT]
    options = len({r["subject"].split("=")[0] for r in rows})
    text = (_("Rule options ({values} values of {options} options against their defaults; an effect inside ±{epsilon} "
              "point of the first player's win chance does not matter): {matter} matter").format(
        values=len(rows), options=options, epsilon=f"{100 * EPSILON:.0f}", matter=len(matter))
            + (" (" + ", ".join(f"{r['subject']} {say(r)}" for r in matter[:3]) + ")" if matter else "")
            + _(", {not_matter} do not, {undecided} undecided at this n").format(not_matter=count["does not matter"],
                                                                                 undecided=count["undecided"])
            + (_("; {count} have no effect, the strategies never reach them ({which})").format(
                count=len(never), which=", ".join(never[:4]) + (", ..." if len(never) > 4 else "")) if never else "")
            + ".")
    return rows, text


def _power_numbers(frames: dict) -> tuple[list[dict], str]:
    """Each card power's value to seat 0, who uses it (a win-chance change on the same deals), and its uses per
    game at the table with it and without it."""
    rows, parts = [], []
    for r in frames["powers"].iter_rows(named=True):
        status = equivalence(r["value_low"], r["value_high"], EPSILON)
        value = number("card power", r["power"], "change of seat 0's win chance when it uses the power, same deals",
                       r["value"], r["value_low"], r["value_high"], n=r["n"], unit="games", kind="percentage points",
                       status=status)
        uses = number("card power", r["power"], "uses of the power per game at the table, seat 0 using it",
                      r["uses_on"], r["uses_on_low"], r["uses_on_high"], n=r["n"], unit="games", kind="delta")
        rows += [value, uses]
        parts.append(_("{power} {value} ({on} uses a game, {off} without)").format(
            power=r["power"], value=say(value), on=written(r["uses_on"], 2), off=written(r["uses_off"], 2)))
    text = _("Card powers (seat 0 uses each, discarding a drawn J/Q or red king for it; its win chance with the power "
             "against without, same deals): {parts}.").format(parts="; ".join(parts))
    return rows, text


def more_games_text(low: float, high: float, n: int) -> str:
    """How many more games would narrow a paired interval of ``n`` games to ``±EPSILON`` (its half-width falls as
    ``1/sqrt(n)``, the arithmetic of ``cardsim plan``)."""
    more = games_for_half_width((high - low) / 2, n, EPSILON) - n
    return _("about {more} more games would decide ±{epsilon} point").format(more=written(more, 0),
                                                                               epsilon=f"{100 * EPSILON:.0f}")


def answer(out):
    """The study's verdict (:class:`analysis.answers.Answer`), one sentence per question: seat and dealer
    advantage, luck against skill, game length, the rule options (each matters, does not matter within
    ±:data:`EPSILON`, or is undecided at this n) and, where the game has them, the card powers."""
    data = load_study(out)
    game, inputs = data["game"], data["inputs"]
    plugin = get_game(game)
    frames = stored_frames(out, ("positions", "seat_test", "upsets", "length_means", "options", "powers"))
    skill_level = load_batch(Path(out) / "skill")["inputs"]["level"]
    rows, sentences = [], []
    tuned = inputs.get("tuned")
    parts = [_seat_numbers(frames, plugin), _skill_numbers(frames, skill_level, tuned and tuned["played_as"]),
             _length_numbers(frames),
             _option_numbers(frames)]
    if "powers" in frames and frames["powers"].height:
        parts.append(_power_numbers(frames))
    for numbers, text in parts:
        rows += numbers
        sentences.append(text)
    headline, table = _headline_and_table(parts, plugin, skill_level)
    holds = _("{game}, {rules}, {players} players").format(game=game, rules=rules_text(game, inputs.get("rules")),
                                                           players=inputs["players"])
    if tuned:
        holds += _("; played by the tuned player, {preset}").format(preset=tuned["preset"]) + (
            _(" (which plays as {name})").format(name=tuned["played_as"]) if tuned["played_as"] != tuned["preset"]
            else "")
    return Answer(STUDY_NAME, game, holds, tuple(sentences), frame_of(rows), headline=headline, table=table)


SHARE_MARGIN = 0.02
"""A share within ±2 points of what equal chances give (a fair seat, an even match) is even."""


def _headline_and_table(parts, plugin: GamePlugin, level: str) -> tuple[tuple[str, ...], Table]:
    """The headline (at most three sentences of at most :data:`analysis.answers.WIDTH` characters: are the seats
    fair, does skill pay, do the rule options matter) and the table (one row per question: the answer in words,
    the number it rests on with its 95% interval, and how many units), from the rows of each question."""
    seat_rows, skill_rows, length_rows, option_rows = (numbers for numbers, _text in parts[:4])
    power_rows = parts[4][0] if len(parts) > 4 else []
    headline, table, notes = [_seats_sentence(seat_rows, plugin)], [], []
    test, best_seat = seat_rows[-1], max(seat_rows[:-1], key=lambda r: r["value"])
    seat_answer = (best_seat["subject"] if test["status"] == "significant"
                   else _("fair (p = {p})").format(p=significant_figures(test["value"])))
    table.append((_("seats"), seat_answer, say(best_seat), f"{written(best_seat['n'], 0)} {_(plugin.levels[0])}"))
    if skill_rows:
        best = skill_rows[0]["subject"].split(" against ")[0]
        weakest = [r for r in skill_rows if r["subject"].startswith(f"{best} against ")][-1]
        other = weakest["subject"].split(" against ")[1]
        c = certainty(weakest["low"], weakest["high"], weakest["n"], SHARE_MARGIN, 0.5)
        words = dict(best=best, share=percent(weakest["value"], 0), level=_(level), other=other,
                     n=written(weakest["n"], 0))
        if c.decided and weakest["value"] > 0.5:
            headline.append(_("Skill pays: {best} wins {share} of decided {level} against {other}.").format(**words))
        elif c.word == "tentative":
            headline.append(_("Skill against luck is not settled: {best} won {share} of {n} {level} against {other}.")
                            .format(**words))
            notes.append(_tentative(_("skill"), c, _(level)))
        else:
            headline.append(_("Luck rules: {best} wins only {share} of decided {level} against {other}.").format(**words))
        table.append((_("skill"), _("{best} vs {other}").format(best=best, other=other),
                      f"{say(weakest)} {certainty_word(c)}".rstrip(), f"{written(weakest['n'], 0)} {_(level)}"))
    for median in length_rows[::3]:
        table.append((_("length"), _("{unit}, median").format(unit=_(median["subject"].split(" ", 1)[1])),
                      say(median), f"{written(median['n'], 0)} {_(median['unit'])}"))
    if option_rows:
        matter = sorted((r for r in option_rows if r["status"] == "matters"), key=lambda r: -abs(r["value"]))
        still = sum(1 for r in option_rows if r["status"].startswith("undecided"))
        calm = len(option_rows) - len(matter) - still
        if matter:
            headline.append(ngettext("{count} rule option value changes the first player's chances; {calm} do not.",
                                     "{count} rule option values change the first player's chances; {calm} do not.",
                                     len(matter)).format(count=len(matter), calm=calm))
            notes.append(_("rule options: the largest effect is {option} ({value}).").format(
                option=matter[0]["subject"], value=say(matter[0], interval=False)))
        else:
            headline.append(_("No rule option changes the first player's chances by a point or more.") if not still
                            else _("No rule option is shown to matter; {count} undecided at this n.").format(count=still))
        table.append((_("options"), _("{matter} matter, {calm} do not, {still} open").format(
            matter=len(matter), calm=calm, still=still), say(matter[0]) if matter else "–",
            f"{written(max(r['n'] for r in option_rows), 0)} {_('games')}"))
    if power_rows:
        values = sorted(power_rows[::2], key=lambda r: -abs(r["value"]))
        matter = [r for r in values if r["status"] == "matters"]
        names = ", ".join(r["subject"] for r in matter[:2]) + (", …" if len(matter) > 2 else "")
        table.append((_("card powers"), _("{count} of {all} matter").format(count=len(matter), all=len(values))
                      + (f" ({names})" if matter else ""), say(values[0]), f"{written(values[0]['n'], 0)} {_('games')}"))
    columns = (_("question"), _("answer"), _("value [95%]"), _("based on"))
    return tuple(headline), Table(columns, tuple(table), tuple(notes))


def _seats_sentence(seat_rows: list[dict], plugin: GamePlugin) -> str:
    """Seats matter (the chi-square test says so), are fair (every position's share within
    :data:`SHARE_MARGIN` of equal chances), or look fair on too few units to tell."""
    test, best = seat_rows[-1], max(seat_rows[:-1], key=lambda r: r["value"])
    fair = 1 / max(1, len(seat_rows) - 1)
    if test["status"] == "significant":
        sentence = _("Seats matter: the {position} wins {share} of decided {level}, not {fair}.").format(
            position=best["subject"], share=percent(best["value"], 0), level=_(plugin.levels[0]),
            fair=percent(fair, 0))
        return sentence if len(sentence) <= WIDTH else _("Seats matter: one position wins more often (see the table).")
    if all(fair - SHARE_MARGIN <= r["low"] and r["high"] <= fair + SHARE_MARGIN for r in seat_rows[:-1]):
        return _("The seats are fair: no position wins significantly more than another.")
    return _("The seats look fair, but {n} decided {level} are too few to be sure.").format(
        n=written(test["n"], 0), level=_(plugin.levels[0]))


def _tentative(what: str, c, unit: str) -> str:
    return _("{what}: tentative ({n} {unit}; about {more} more would settle it).").format(
        what=what, n=written(c.n, 0), unit=unit, more=written(c.more, 0))
