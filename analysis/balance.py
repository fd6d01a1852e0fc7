"""Study 3 — is this rule set balanced? (issue 5 item 6), for Kamoul, Rami or Kem's, as one directory of
ordinary runs and batches.

Layout of a study directory ``OUT`` (``P`` = the study's player count, the game's default unless ``--players``)::

    OUT/_study.json              the study's inputs, its parts and the strategies it chose (``choices``)
    OUT/seats/                   a run at the game's coarsest level (Kamoul tops, Rami and Kem's games), the
                                 game's default strategy at every seat: seat advantage and every level's length
    OUT/skill/                   a tournament of random, the default strategy and the other presets
                                 (:data:`SKILL_STRATEGIES`): luck versus skill
    OUT/options/<option>/        one sweep per rule option (:func:`option_grids`), default strategy everywhere
    OUT/powers/<power>/          Kamoul: seat 0 with one card power's probability 1 (default) and 0 (:data:`POWERS`)
    OUT/tops-best-random/        Kamoul: the best preset against random, at level tops
    OUT/tops-best-second/        Kamoul: the best preset against the second best, at level tops
    OUT/signs/                   Kem's: the sign's visibility (strategy ``visibility``, every seat) x ``kappa0``
    OUT/<frame>.parquet          the frames of :func:`study_frames`

Who sits where. Seat advantage is measured by *position* from the deal, not by seat number: Kamoul seat ``p``
plays ``(p - dealer - 1) mod P``-th (0 = the dealer's left, who starts, K3); Rami ``(first - p) mod P``-th (play
runs counter-clockwise from ``first``, the dealer's right-hand neighbour who receives the 14th card, R2); Kem's
counts teams, team ``t`` at ``(t - dealer - 1) mod T`` (0 = the team of the dealer's left, dealt first; the last
one is the dealer's team, which sweeps). A row's unit wins as in :mod:`analysis.batches` (Kem's: the team with
the strictly highest points of the manche).

Rule options swept (:func:`option_grids`): every option of ``simulator/<game>/rules.py`` that is a rule played at
the game's default level (a hand, a round, a manche): booleans and choices over all their values, numbers over
:data:`NUMERIC_VALUES` (or the default and a value either side, within bounds), values that the spec refuses at
``P`` players dropped. Skipped, with the reason (:data:`SKIPPED`):

* simulation guards (``max_turns_per_hand``, ``max_hands_per_manche``, ``max_turns_per_round``, ``max_ticks``):
  they stop runaway games, they are not rules;
* options that act only across hands, rounds or manches (Kamoul ``au_score_30``: a cumulative score; Rami and
  Kem's ``target``; Kem's ``signs_change_each_manche``): the sweeps play one hand, round or manche per game;
* the physical layer and perception models (Kamoul ``p_stick``, ``p_out_of_turn``, ``p_reorder``,
  ``swap_observed_prob``; Rami ``notice_prob``; every ``race_policy``): how people handle cards and react, not
  what the rules say;
* Kem's time model (``tick``, ``lag_ticks``, ``turn_up_time``, ``sweep_time``, ``quiet_time``, ``sign_delay``,
  ``reaction_min``/``max``, ``false_kems_rate``, ``false_contre_rate``, ``double_window``, ``rho``): parameters
  of the discrete-time model; ``kappa0`` is swept with the sign's visibility in ``OUT/signs/``.

Every frame is a pure function of the stored tables; every rate carries its 95% Wilson interval, every mean
and every paired difference (cells of a sweep play the same deals) its 95% t interval.
"""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from analysis.studies import (STUDY_FILE, check_rounds, check_same_study, check_study_settings, load_study_file,
                              open_study, run_parts)
from simulator.core.errors import SpecError

STUDY_NAME = "balance"
SKILL_STRATEGIES = {
    "kamoul": ("random", "balanced", "cautious", "aggressive"),
    "rami": ("random", "open-asap", "open-big", "rami-sec-hunter", "joker-keeper"),
    "kems": ("random", "balanced", "blocker", "discreet", "watcher", "sprinter"),
}
POWERS = ("peek_own", "peek_opponent", "swap", "king")  # Kamoul heuristic parameters: probability of using each power
SIGN_GRIDS = ("visibility=0.2,0.5,0.8,1.0", "kappa0=0.05,0.1,0.3")  # Kem's: strategy parameter x rule option
GUARD, ACROSS = "simulation guard, not a rule", "acts only across hands, rounds or manches (the sweeps play one)"
PHYSICAL, TIME = "physical layer or perception model, not a rule", "parameter of the discrete-time model, not a rule"
SKIPPED = {
    "kamoul": {"max_turns_per_hand": GUARD, "max_hands_per_manche": GUARD, "au_score_30": ACROSS,
               "p_stick": PHYSICAL, "p_out_of_turn": PHYSICAL, "p_reorder": PHYSICAL, "swap_observed_prob": PHYSICAL,
               "race_policy": PHYSICAL},
    "rami": {"max_turns_per_round": GUARD, "target": ACROSS, "notice_prob": PHYSICAL, "race_policy": PHYSICAL},
    "kems": {"max_ticks": GUARD, "target": ACROSS, "signs_change_each_manche": ACROSS, "race_policy": PHYSICAL,
             **{name: TIME for name in ("tick", "lag_ticks", "turn_up_time", "sweep_time", "quiet_time", "sign_delay",
                                        "reaction_min", "reaction_max", "false_kems_rate", "false_contre_rate",
                                        "double_window", "rho")},
             "kappa0": "swept with the sign's visibility (OUT/signs/)"},
}
NUMERIC_VALUES = {
    "kamoul": {"n_decks": (1, 2), "hand_size": (3, 4, 5, 6), "initial_peeks": (0, 1, 2, 3),
               "ultime_min_cards": (1, 2, 3), "min_turns_before_call": (0, 1, 2, 4)},
    "rami": {"n_decks": (0, 1, 2, 3), "hand_cards": (11, 13, 15), "opening_points": (40, 51, 61, 71),
             "rami_sec_bonus": (-100, -50, 0), "rami_sec_unopened": (100, 200, 300), "unopened_penalty": (0, 50, 100)},
    "kems": {},
}
POSITION_NAMES = {  # position 0, the others, the last one
    "kamoul": ("first to play (dealer's left)", "plays {k}", "plays {k} (the dealer)"),
    "rami": ("first to play (14 cards, dealer's right)", "plays {k}", "plays {k} (the dealer)"),
    "kems": ("team of the dealer's left", "team {k} from the dealer's left", "the dealer's team"),
}
BEST, SECOND = "tops-best-random", "tops-best-second"


# --- who wins from where ---------------------------------------------------------------------------------


def position_rows(finest: pl.DataFrame | pl.LazyFrame, game: str, players: int) -> pl.DataFrame:
    """One row per row of the finest table and unit (seat; Kem's: team): ``row`` (its index), ``unit``, ``pos``
    (position from the deal, see the module doc), ``win`` (the unit won the row) and ``points``."""
    lazy = (finest.lazy() if isinstance(finest, pl.DataFrame) else finest).with_row_index("row")
    dealer = pl.col("dealer").cast(pl.Int64)
    parts = []
    if game == "kems":
        teams = players // 2
        names = "ABC"[:teams]
        best = pl.max_horizontal([pl.col(f"points_{t}") for t in names])
        unique = pl.sum_horizontal([(pl.col(f"points_{t}") == best).cast(pl.Int64) for t in names]) == 1
        for t, name in enumerate(names):
            points = pl.col(f"points_{name}")
            parts.append(lazy.select("row", pl.lit(t, pl.Int64).alias("unit"),
                                     ((t - dealer - 1) % teams).alias("pos"), (unique & (points == best)).alias("win"),
                                     points.cast(pl.Float64).alias("points")))
    else:
        for p in range(players):
            pos = ((p - dealer - 1) % players) if game == "kamoul" else ((pl.col("first").cast(pl.Int64) - p) % players)
            parts.append(lazy.select("row", pl.lit(p, pl.Int64).alias("unit"), pos.alias("pos"),
                                     (pl.col("winner").cast(pl.Int64) == p).alias("win"),
                                     pl.col(f"points_{p}").cast(pl.Float64).alias("points")))
    return pl.concat(parts).collect()


def position_table(rows: pl.DataFrame, game: str, by: str = "pos") -> pl.DataFrame:
    """Per position (``by="pos"``) or unit (``by="unit"``): ``n`` rows, ``wins``, ``win_rate`` with its Wilson
    interval ``win_low``/``win_high``, ``share`` of the decided rows (rows some unit won) with ``share_low``/
    ``share_high``, and ``mean_points`` with its t interval; ``label`` names the position."""
    decided = int(rows.group_by("row").agg(pl.col("win").any())["win"].sum())
    agg = (rows.group_by(by).agg(pl.len().alias("n"), pl.col("win").sum().alias("wins"),
                                 pl.col("points").sum().alias("s"), (pl.col("points") ** 2).sum().alias("q"))
           .sort(by))
    first, other, last = POSITION_NAMES[game]
    out = []
    for r in agg.iter_rows(named=True):
        rate = wilson(r["wins"], r["n"])
        share = wilson(r["wins"], decided)
        mean = mean_interval(r["s"], r["q"], r["n"])
        name = first if r[by] == 0 else last if r[by] == agg.height - 1 else other
        label = name.format(k=_ordinal(r[by] + 1)) if by == "pos" else (
            f"team {'ABC'[r[by]]}" if game == "kems" else f"seat {r[by]}")
        out.append({by: r[by], "label": label, "n": r["n"], "wins": r["wins"], "decided": decided,
                    "win_rate": rate[0], "win_low": rate[1], "win_high": rate[2], "share": share[0],
                    "share_low": share[1], "share_high": share[2], "mean_points": mean[0], "points_low": mean[1],
                    "points_high": mean[2]})
    return pl.DataFrame(out)


def _ordinal(k: int) -> str:
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def chi2_sf(x: float, df: int) -> float:
    """P(X >= x) for a chi-square variable with ``df`` (an integer >= 1) degrees of freedom (closed forms)."""
    if x <= 0:
        return 1.0
    half = x / 2.0
    if df % 2 == 0:
        term, total = 1.0, 1.0
        for i in range(1, df // 2):
            term *= half / i
            total += term
        return min(1.0, math.exp(-half) * total)
    term, total = math.sqrt(x), 0.0  # x^(i - 1/2) / (1·3···(2i-1)), i = 1…
    for i in range(1, (df - 1) // 2 + 1):
        total += term
        term *= x / (2 * i + 1)
    return min(1.0, math.erfc(math.sqrt(half)) + math.sqrt(2.0 / math.pi) * math.exp(-half) * total)


def seat_test(table: pl.DataFrame, alpha: float = 0.05) -> pl.DataFrame:
    """Chi-square test that every position of :func:`position_table` wins the same share of the decided rows:
    ``units``, ``decided``, ``chi2``, ``df``, ``p_value`` and a one-line ``verdict`` at level ``alpha``."""
    wins = table["wins"].to_list()
    total, k = sum(wins), len(wins)
    expected = total / k if k else math.nan
    chi2 = sum((w - expected) ** 2 / expected for w in wins) if total else math.nan
    p = chi2_sf(chi2, k - 1) if total and k > 1 else math.nan
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


def rank_strategies(ratings: pl.DataFrame, matrix: pl.DataFrame) -> list[str]:
    """Strategies best first: by Bradley–Terry rating when the fit exists, else by mean win rate against the others
    (an undefined rate counts as 1/2); ties keep the ratings' order."""
    names = ratings["strategy"].to_list()
    if ratings.height and bool(ratings["fitted"].all()):
        score = dict(zip(names, ratings["rating"].to_list()))
    else:
        mean = matrix.group_by("strategy").agg(pl.col("win_rate").fill_nan(0.5).fill_null(0.5).mean())
        score = dict(mean.iter_rows())
    return sorted(names, key=lambda s: -score.get(s, 0.0))


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
    from analysis.batches import cell_wins
    from simulator.core.batch import cell_dir, load_batch
    from simulator.core.spec import RunSpec

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


def option_grids(game: str, players: int, names=None) -> tuple[list[tuple[str, list]], dict[str, str]]:
    """``([(option, values)], skipped)``: every option swept at ``players`` players (see the module doc; ``names``:
    only those) with its values, the default always among them and values the spec refuses at ``players`` players
    dropped; ``skipped``: every option left out (:data:`SKIPPED`, and those left with a single value) and why."""
    from simulator.api import make_spec
    from simulator.core.game import get_game

    params = {p.name: p for p in get_game(game).options.params}
    if names is not None:
        for name in names:
            if name not in params or name in SKIPPED[game]:
                allowed = [p for p in params if p not in SKIPPED[game]]
                raise SpecError("options", name, f"rule options of {game} swept by the balance study: {', '.join(allowed)}")
    out, skipped = [], dict(SKIPPED[game])
    for name, p in params.items():
        if name in SKIPPED[game] or (names is not None and name not in names):
            continue
        if p.kind == "bool":
            values = [False, True]
        elif p.kind == "choice":
            values = list(p.choices)
        else:
            values = sorted(set(NUMERIC_VALUES[game].get(name, _around(p))) | {p.default})
        kept, refused = [], []
        for v in values:
            try:
                make_spec(game, n=1, players=players, options={name: v})
                kept.append(v)
            except SpecError as err:
                refused.append(str(err))
        if len(kept) > 1:
            out.append((name, kept))
        else:
            skipped[name] = f"no value but the default is accepted at {players} players ({'; '.join(refused)})"
    return out, skipped


def option_games(out, game: str, players: int, option: str) -> pl.DataFrame:
    """Per cell and game of the option's sweep at ``out``: ``value`` (as text), ``default`` (the option's default
    value), ``game``, ``length`` (turns; Kem's: ticks), ``first`` (position 0 won), ``decided`` (someone won)."""
    from analysis.lengths import length_column
    from simulator.core.batch import cell_dir, load_batch
    from simulator.core.game import get_game
    from simulator.core.spec import RunSpec, _fmt
    from simulator.core.store import read_table

    default = {p.name: p.default for p in get_game(game).options.params}[option]
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


# --- Kamoul: what each card power is worth ---------------------------------------------------------------


def power_games(out, power: str) -> pl.DataFrame:
    """Per cell of the power's sweep at ``out`` and game: ``power``, ``off`` (the power's probability is 0),
    ``game``, seat 0's ``win`` and ``points``."""
    from simulator.core.batch import read_batch

    return (read_batch(out).select(pl.lit(power).alias("power"), (pl.col(power).cast(pl.Float64) == 0).alias("off"),
                                   pl.col("game").cast(pl.Int64), (pl.col("winner").cast(pl.Int64) == 0).alias("win"),
                                   pl.col("points_0").cast(pl.Float64).alias("points")).collect())


def power_values(games: pl.DataFrame) -> pl.DataFrame:
    """Per power (:func:`power_games`): seat 0's win rate with the power (``base_rate``) and without it
    (``off_rate``), Wilson intervals; its value ``value`` = base minus off win rate, paired on the same deals (t
    interval); and ``points_value`` = mean points without minus with it (points it saves; lower is better)."""
    rows = []
    for (power,), g in games.group_by("power", maintain_order=True):
        on, off = g.filter(~pl.col("off")), g.filter(pl.col("off"))
        pair = on.join(off, on="game", suffix="_off")
        base, without = wilson(int(on["win"].sum()), on.height), wilson(int(off["win"].sum()), off.height)
        value = _paired(pair["win"].cast(pl.Float64) - pair["win_off"].cast(pl.Float64))
        saved = _paired(pair["points_off"] - pair["points"])
        rows.append({"power": power, "n": pair.height, "base_rate": base[0], "base_low": base[1], "base_high": base[2],
                     "off_rate": without[0], "off_low": without[1], "off_high": without[2],
                     "value": value[0], "value_low": value[1], "value_high": value[2],
                     "points_value": saved[0], "points_low": saved[1], "points_high": saved[2]})
    return pl.DataFrame(rows)


# --- Kem's: sign visibility against interception ----------------------------------------------------------


def pooled_exposure(manches: pl.DataFrame | pl.LazyFrame, players: int) -> pl.DataFrame:
    """:func:`analysis.kems_signals.sign_exposure` pooled over the teams (one row, ``team`` "all"): every team's
    manches are relabelled so that it is team A, stacked, and team A's row is kept (``manches`` counts team-manches)."""
    from analysis.kems_signals import sign_exposure
    from analysis.summary import TEAM_NAMES

    lazy = manches.lazy() if isinstance(manches, pl.DataFrame) else manches
    teams = players // 2
    names = TEAM_NAMES[:teams]
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
    from simulator.core.batch import cell_dir, load_batch
    from simulator.core.spec import RunSpec
    from simulator.core.store import read_table

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
    from analysis.lengths import run_lengths

    dists, means = [], []
    for table, item in run_lengths(run).items():
        tag = [pl.lit(table).alias("table"), pl.lit(item["column"]).alias("column")]
        dists.append(item["distribution"].select(*tag, pl.all()))
        means.append(pl.DataFrame([item["mean"]]).select(*tag, pl.all()))
    return pl.concat(dists), pl.concat(means, how="vertical_relaxed")


def study_frames(out) -> dict[str, pl.DataFrame]:
    """Every frame of the study at ``out`` (see the module doc), computed from its parts."""
    from simulator.api import batch_frames
    from simulator.core.spec import RunSpec
    from simulator.core.store import read_manifest, read_table

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
    frames["options"] = pl.concat([option_effects(option_games(out / "options" / name, game, players, name), name, units)
                                   for name, _ in inputs["option_grids"]], how="vertical_relaxed")
    if game == "kamoul":
        frames["powers"] = power_values(pl.concat([power_games(out / "powers" / p, p) for p in inputs["powers"]]))
        if "choices" not in data:
            load_study(out, "RUN", finished=True)
        best = data["choices"]["best"]
        frames["skill_levels"] = pl.concat([skill_by_level(level_wins(out / BEST), best),
                                            skill_by_level(level_wins(out / SECOND), best)])
    if game == "kems":
        frames["signs"] = sign_cells(out / "signs")
    return frames


def check_study_players(game: str, players) -> int:
    """The study's one player count: the game's default for ``None``; :class:`SpecError` on ``--players``."""
    from simulator.core.game import get_game

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


def run(out, *, n: int, game: str, seed: int = 0, players=None, threads: int | None = None,
        chunk_size: int | None = None, progress: bool = True, options=None, strategies=None,
        sign_grids=SIGN_GRIDS) -> dict:
    """Run (or resume) the balance study of ``game`` into ``out`` and write its frames; ``n`` games per cell (at
    the default level; the seats run and the Kamoul TOP tournaments play ``n`` games at their coarsest level).
    ``options`` (names) and ``strategies`` narrow the option sweeps and the skill tournament (default: all).
    Returns ``{"path", "interrupted", "frames"}`` (``frames`` ``None`` when interrupted)."""
    from simulator import api
    from simulator.core.batch import _write_json_atomic, write_frame
    from simulator.core.game import get_game

    if game not in SKILL_STRATEGIES:
        raise SpecError("GAME", game, f"{', '.join(SKILL_STRATEGIES)} (the games of the balance study)")
    n = check_rounds(n)
    check_study_settings(n=n, seed=seed, threads=threads, chunk_size=chunk_size)
    players = check_study_players(game, players)
    plugin = get_game(game)
    top = plugin.levels[-1]
    strategies = list(SKILL_STRATEGIES[game] if strategies is None else strategies)
    grids, skipped = option_grids(game, players, options)
    out = Path(out)
    inputs = {"game": game, "n": n, "seed": seed, "players": players, "seats_level": top,
              "strategies": strategies, "option_grids": [[k, v] for k, v in grids], "skipped": skipped,
              "powers": list(POWERS) if game == "kamoul" else [],
              "sign_grids": list(sign_grids) if game == "kems" else []}
    check_same_study(out, STUDY_NAME, inputs, "same GAME, -n, --seed, --players")
    common = dict(seed=seed, players=players, threads=threads, chunk_size=chunk_size, progress=progress)
    choices: dict = {}

    def grid(name, values):
        from simulator.core.spec import _fmt

        return f"{name}={','.join(_fmt(v) for v in values)}"

    def choose():  # the best and second-best non-random strategies of the skill tournament
        frames = api.batch_frames(out / "skill")
        order = [s for s in rank_strategies(frames["ratings"], frames["matrix"]) if s != "random"]
        choices.update(best=order[0], second=order[1] if len(order) > 1 else "random")

    parts = [("seats", lambda: api.simulate(game, out=out / "seats", n=n, level=top, **common)),
             ("skill", lambda: api.tournament(game, strategies=strategies, out=out / "skill", n=n, **common))]
    parts += [(f"options/{name}", lambda name=name, values=values: api.sweep(
        game, out=out / "options" / name, n=n, option_grids=[grid(name, values)], **common)) for name, values in grids]
    if game == "kamoul":
        parts += [(f"powers/{p}", lambda p=p: api.sweep(game, out=out / "powers" / p, n=n, seats=[0],
                                                        grids=[f"{p}=1,0"], **common)) for p in POWERS]
        parts += [(BEST, lambda: api.tournament(game, strategies=[choices["best"], "random"], out=out / BEST, n=n,
                                                level="tops", **common)),
                  (SECOND, lambda: api.tournament(game, strategies=[choices["best"], choices["second"]],
                                                  out=out / SECOND, n=n, level="tops", **common))]
    if game == "kems":
        param_grids = [g for g in sign_grids if g.split("=")[0] not in {p.name for p in plugin.options.params}]
        parts.append(("signs", lambda: api.sweep(game, out=out / "signs", n=n, grids=param_grids,
                                                 option_grids=[g for g in sign_grids if g not in param_grids],
                                                 **common)))
    with open_study(out, STUDY_NAME, inputs, "same GAME, -n, --seed, --players"):
        study = {"study": STUDY_NAME, "game": game, "inputs": inputs, "parts": [name for name, _ in parts]}
        _write_json_atomic(out / STUDY_FILE, study)

        def after(name):
            if name == "skill" and game == "kamoul":
                choose()
                _write_json_atomic(out / STUDY_FILE, {**study, "choices": choices})

        if not run_parts(parts, f"study {STUDY_NAME} {game}", progress, after):
            return {"path": out, "interrupted": True, "frames": None}
        frames = study_frames(out)
        for name, frame in frames.items():
            write_frame(out / f"{name}.parquet", frame)
        _write_json_atomic(out / STUDY_FILE, {**study, **({"choices": choices} if choices else {}), "complete": True})
        return {"path": out, "interrupted": False, "frames": frames}
