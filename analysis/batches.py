"""Frames of a tournament or sweep directory (:mod:`simulator.core.run.batch`): what the terminal prints and
what a report draws.

* :func:`tournament_frames` → ``matrix`` (one row per ordered pair: share of decided games the strategy won
  against the opponent, Wilson 95% interval; and ``points_gap``, the paired difference of mean points per
  seat or team and per row of the finest table (hand, round, manche), strategy minus opponent, per deal averaged
  over the pair's seatings, t 95% interval:
  lower is better in Kamoul and Rami, higher in Kem's), ``ratings`` (Bradley–Terry, :mod:`analysis.ratings`) and
  ``wins`` (the raw counts per cell).
* :func:`sweep_frames` → ``summary`` (per cell and seat or team: win rate and mean points with 95%
  intervals, the cell's grid values as columns) and ``outcomes`` (per cell: outcome shares).

Who won a game. At the game's default level, the finest table's row winner as its plugin reads it
(``GamePlugin.row_winner``: a seat or a team, ``-1`` for none). At a coarser level, the level's own table and its
``winners`` bit mask over the sides (seats or teams). A game counts as won by a
strategy when every winning unit played it; games with no winner, a tie, or winners of both strategies
are *undecided*: left out of the rates and counted.
"""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl

from analysis.labels import shown
from analysis.ratings import ratings_frame
from analysis.stats import mean_interval, wilson
from analysis.summary import outcome_table, side_table
from simulator.core.i18n import N_, _, bounds, number, percent, share_interval
from simulator.core.run.batch import cell_dir, load_batch
from simulator.core.storage.spec import RunSpec, _fmt, parse_strategy
from simulator.core.storage.store import read_table
from simulator.games import get_game


def winning_units(spec: RunSpec, run_dir) -> pl.LazyFrame:
    """One row per game of the level: ``game`` and ``mask`` (bit ``u`` set when unit ``u`` won; 0 for no winner)."""
    return winning_units_of(spec, lambda table: read_table(run_dir, table))


def winning_units_of(spec: RunSpec, read) -> pl.LazyFrame:
    """:func:`winning_units` from tables given by ``read(table) -> LazyFrame`` (a run directory or frames in memory)."""
    tables = spec.plugin.tables(spec.level)
    if spec.level != spec.plugin.default_level:
        return read(tables[-1]).select("game", pl.col("winners").cast(pl.Int64).alias("mask"))
    w = spec.plugin.row_winner(spec.players)
    # polars evaluates both branches: the power of an undecided row's -1 is refused (polars >= 2.2), so it is 2^0
    mask = pl.lit(2, pl.Int64).pow(w.clip(lower_bound=0)).cast(pl.Int64)
    return read(tables[0]).select("game", pl.when(w >= 0).then(mask).otherwise(0).alias("mask"))


def seating_masks(spec: RunSpec, pattern: str) -> tuple[int, int]:
    """Bit masks of the units (seats or teams) that strategy A and strategy B hold in the seating ``pattern``."""
    n_units = len(spec.plugin.sides(spec.players))
    a_mask = sum(1 << u for u in range(n_units) if pattern[u] == "A")
    return a_mask, ((1 << n_units) - 1) ^ a_mask


def cell_wins(spec: RunSpec, run_dir, a: str, b: str, pattern: str) -> dict:
    """Decided games won by ``a`` and by ``b`` in one tournament cell, and the undecided ones."""
    a_mask, b_mask = seating_masks(spec, pattern)
    m = pl.col("mask")
    row = winning_units(spec, run_dir).select(
        pl.len().alias("games"),
        ((m != 0) & ((m & b_mask) == 0)).sum().alias("a_wins"),
        ((m != 0) & ((m & a_mask) == 0)).sum().alias("b_wins"),
    ).collect().row(0, named=True)
    return {"a": a, "b": b, "seating": pattern, "games": row["games"], "a_wins": row["a_wins"],
            "b_wins": row["b_wins"], "undecided": row["games"] - row["a_wins"] - row["b_wins"]}


def cell_point_gaps(spec: RunSpec, run_dir, pattern: str) -> pl.LazyFrame:
    """:func:`point_gaps_of` the finest table of one tournament cell's run directory."""
    return point_gaps_of(spec, read_table(run_dir, spec.plugin.tables(spec.level)[0]), pattern)


def point_gaps_of(spec: RunSpec, finest: pl.LazyFrame, pattern: str) -> pl.LazyFrame:
    """Per game: ``game`` and ``gap`` = mean points per seat (Kem's: per team) of strategy A minus that of
    strategy B in seating ``pattern``, averaged over the game's rows of the finest table ``finest`` (points per
    hand, round or manche, however many a game has)."""
    cols = {side.index: f"points_{side.key}" for side in spec.plugin.sides(spec.players)}
    side_a = [c for u, c in cols.items() if pattern[u] == "A"]
    side_b = [c for u, c in cols.items() if pattern[u] == "B"]
    mean = lambda names: pl.sum_horizontal([pl.col(c).cast(pl.Float64) for c in names]) / len(names)  # noqa: E731
    return finest.group_by("game", maintain_order=True).agg((mean(side_a) - mean(side_b)).mean().alias("gap"))


def paired_gap(cells: list[tuple[RunSpec, object, str]]) -> tuple[float, float, float, int]:
    """``(mean, low, high, n)`` of A's points minus B's over the deals of a pair: each deal's gap averaged over
    the pair's seatings (they play the same deals), then a t interval over deals."""
    frames = [cell_point_gaps(spec, run_dir, pattern).with_columns(pl.lit(k).alias("cell"))
              for k, (spec, run_dir, pattern) in enumerate(cells)]
    # in a fixed order before the sums (polars' group_by and its parallel sums follow no fixed order, and float
    # sums depend on it): the same stored games give the same numbers to the last bit
    per_deal = pl.concat(frames).sort("game", "cell").group_by("game", maintain_order=True).agg(
        pl.col("gap").mean(), pl.len().alias("k")).filter(pl.col("k") == len(cells)).collect()
    gaps = np.sort(per_deal["gap"].to_numpy())
    return (*mean_interval(float(gaps.sum()), float((gaps * gaps).sum()), len(gaps)), len(gaps))


def tournament_frames(out) -> dict[str, pl.DataFrame]:
    """``wins`` (per cell), ``matrix`` (per ordered pair) and ``ratings`` of the tournament at ``out``
    (over the games on disk: a partial tournament gives partial frames)."""
    data = load_batch(out)
    if data["kind"] != "tournament":
        raise ValueError(f"{out} holds a {data['kind']}, not a tournament")
    names = list(data["inputs"]["strategies"])
    rows, by_pair = [], {}
    for cell in data["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        lab = cell["labels"]
        rows.append({"cell": cell["id"], **cell_wins(spec, cell_dir(out, cell["id"]), lab["a"], lab["b"], lab["seating"])})
        by_pair.setdefault((lab["a"], lab["b"]), []).append((spec, cell_dir(out, cell["id"]), lab["seating"]))
    gaps = {pair: paired_gap(cells) for pair, cells in by_pair.items()}
    wins = pl.DataFrame(rows)
    index = {s: k for k, s in enumerate(names)}
    counts = np.zeros((len(names), len(names)), dtype=np.int64)
    undecided = np.zeros_like(counts)
    for r in rows:
        i, j = index[r["a"]], index[r["b"]]
        counts[i, j] += r["a_wins"]
        counts[j, i] += r["b_wins"]
        undecided[i, j] += r["undecided"]
        undecided[j, i] += r["undecided"]
    matrix = []
    for i, s in enumerate(names):
        for j, o in enumerate(names):
            if i == j:
                continue
            decided = int(counts[i, j] + counts[j, i])
            rate, lo, hi = wilson(int(counts[i, j]), decided)
            gap, glo, ghi, deals = gaps[(s, o)] if (s, o) in gaps else (lambda g: (-g[0], -g[2], -g[1], g[3]))(gaps[(o, s)])
            matrix.append({"strategy": s, "opponent": o, "wins": int(counts[i, j]), "losses": int(counts[j, i]),
                           "decided": decided, "undecided": int(undecided[i, j]), "win_rate": rate, "low": lo,
                           "high": hi, "deals": deals, "points_gap": gap, "gap_low": glo, "gap_high": ghi})
    return {"wins": wins, "matrix": pl.DataFrame(matrix), "ratings": ratings_frame(names, counts)}


def batch_frames(out) -> dict[str, pl.DataFrame]:
    """The frames of a tournament (``matrix``, ``ratings``, ``wins``) or sweep (``summary``, ``outcomes``)
    directory, computed from its cells (what a report draws)."""
    kind = load_batch(out, "--batch")["kind"]
    return tournament_frames(out) if kind == "tournament" else sweep_frames(out)


def _gap(mean: float, low: float, high: float) -> str:
    return f"{number(mean, 2, True)} {bounds(number(low, 2, True), number(high, 2, True))}"


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


def leader(frames: dict) -> dict:
    """The strongest strategy of a tournament's frames and its margin over the next best: ``order`` (best first:
    by Bradley–Terry rating, or by share of won games when the ratings are undefined), ``how`` (which of the
    two, :func:`rank_strategies`), ``row`` (the best's ratings row: ``wins`` of ``games`` decided), ``share`` (``(rate, low, high)`` of
    those, Wilson 95%) and ``pair`` (the matrix row of the best against the second)."""
    ratings = frames["ratings"]
    order = rank_strategies(ratings, frames["matrix"])
    how = (_("rated first (Bradley–Terry)") if ratings["fitted"].all() else
           _("first by mean win rate against the others (ratings undefined: some strategy never won or never lost)"))
    row = ratings.filter(pl.col("strategy") == order[0]).row(0, named=True)
    pair = frames["matrix"].filter((pl.col("strategy") == order[0]) & (pl.col("opponent") == order[1])).row(
        0, named=True)
    return {"order": order, "how": how, "row": row, "share": wilson(int(row["wins"]), int(row["games"])),
            "pair": pair}


def margin_call(pair: dict) -> str:
    """Whether the best's share of decided games against the next best leaves out one half."""
    return (_("significantly better") if pair["low"] > 0.5 else _("significantly worse") if pair["high"] < 0.5
            else _("not significantly different at this n"))


def tournament_verdict(frames: dict, inputs: dict) -> str:
    """The tournament's answer in two sentences (:func:`leader`): which strategy is strongest by whole games of
    the level played (its share of decided games with its 95% interval, and the count), and how it fares against
    the next best: share of decided games, whether that is significant, and the mean points gap beside. Strategies
    by their short labels (:mod:`analysis.labels`)."""
    frames, inputs, _labels = shown(frames, inputs)
    plugin = get_game(inputs["game"])
    level = inputs["level"]
    top = leader(frames)
    best, second, pair = top["order"][0], top["order"][1], top["pair"]
    if pair["decided"] == 0:
        against = _("No {level} between {best} and {second} were decided.").format(level=_(level), best=best,
                                                                                   second=second)
    else:
        better = _("lower is better") if plugin.lower_is_better else _("higher is better")
        against = _("Against {second}, the next best, it wins {share} of {decided} decided {level} ({margin}); its "
                    "mean points per {unit} and {side} minus {second}'s: {gap} ({better}).").format(
            second=second, share=share_interval(pair["win_rate"], pair["low"], pair["high"]), decided=number(pair["decided"], 0),
            level=_(level), margin=margin_call(pair), unit=_(plugin.finest_unit), side=_(plugin.side_kind),
            gap=_gap(pair["points_gap"], pair["gap_low"], pair["gap_high"]), better=better)
    lead = _("verdict, by whole {level}: {best} is the strongest of {count}, {how}; it wins {share} of its {games} "
             "decided {level}.").format(level=_(level), best=best, count=len(top["order"]), how=top["how"],
                                        share=share_interval(*top["share"]), games=number(int(top["row"]["games"]), 0))
    return f"{lead}\n  {against}"


def format_tournament(frames: dict, inputs: dict) -> str:
    """The verdict (:func:`tournament_verdict`), then the win-rate matrix (row strategy's share of decided games
    against the column), the points gap and the ratings; strategies by their short labels."""
    frames, inputs, _labels = shown(frames, inputs)
    names = list(inputs["strategies"])
    m = {(r["strategy"], r["opponent"]): r for r in frames["matrix"].iter_rows(named=True)}
    width = max(12, *(len(s) for s in names)) + 1
    cellw = 24
    n_games = int(frames["wins"]["games"].sum())
    undecided = int(frames["wins"]["undecided"].sum())
    level = _(inputs["level"])
    lines = [tournament_verdict(frames, inputs), "",
             _("{game} tournament: {count} strategies, {players} players, {n} {level} per seating, seed {seed} (same "
               "deals in every seating)").format(game=inputs["game"], count=len(names), players=inputs["players"],
                                                 n=number(inputs["n"], 0), level=level, seed=inputs["seed"]),
             _("{played} {level} played, {undecided} undecided (no winner or a shared win) left out").format(
                 played=number(n_games, 0), level=level, undecided=number(undecided, 0)), "",
             _("win rate of the row against the column over decided games (95% interval):"),
             " " * width + "".join(f"{o[:cellw - 1]:>{cellw}}" for o in names)]
    for s in names:
        cells = []
        for o in names:
            if s == o:
                cells.append(f"{'—':>{cellw}}")
            else:
                r = m[(s, o)]
                cells.append(share_interval(r["win_rate"], r["low"], r["high"]).rjust(cellw))
        lines.append(f"{s:<{width}}" + "".join(cells))
    plugin = get_game(inputs["game"])
    better = _("lower is better") if plugin.lower_is_better else _("higher is better")
    lines += ["", _("mean points per {unit} and {side}, row minus column, paired on the same deals ({better}; 95% "
                    "interval):").format(unit=_(plugin.finest_unit), side=_(plugin.side_kind), better=better),
              " " * width + "".join(f"{o[:cellw - 1]:>{cellw}}" for o in names)]
    for s in names:
        cells = [f"{'—':>{cellw}}" if s == o else
                 _gap(m[(s, o)]["points_gap"], m[(s, o)]["gap_low"], m[(s, o)]["gap_high"]).rjust(cellw)
                 for o in names]
        lines.append(f"{s:<{width}}" + "".join(cells))
    ratings = frames["ratings"]
    lines += ["", _("Bradley–Terry ratings from {decided} decided {level} (log-strength, mean 0; Elo scale; 95% "
                    "interval):").format(decided=number(n_games - undecided, 0), level=level)]
    for r in ratings.iter_rows(named=True):
        rating = f"{number(r['rating'], 3, True)} {bounds(number(r['low'], 3, True), number(r['high'], 3, True))}"
        elo = f"{number(r['elo'], 1, True):>7} {bounds(number(r['elo_low'], 1, True), number(r['elo_high'], 1, True))}"
        lines.append(f"  {r['strategy']:<{width}} {rating}   Elo {elo}   " + _("{wins}/{games} won").format(
            wins=number(r["wins"], 0), games=number(r["games"], 0)))
    if not ratings["fitted"].all():
        lines.append("  " + _("(ratings undefined: some strategy never won or never lost against the others; play more "
                              "games)"))
    return "\n".join(lines)


NO_EFFECT = N_("no effect: the strategies never reach this rule")


def play_digest(spec: RunSpec, run_dir) -> str:
    """SHA-256 of the event trace of every row of the run's finest table in game order: two runs with the same
    digest played the same games move for move (a rule or parameter their play never reaches)."""
    table = spec.plugin.tables(spec.level)[0]
    order = ["game", *([spec.plugin.row_order[table]] if table in spec.plugin.row_order else [])]
    traces = read_table(run_dir, table).select(*order, "trace").sort(order).collect()
    return hashlib.sha256(traces["game"].to_numpy().tobytes() + traces["trace"].to_numpy().tobytes()).hexdigest()


def baseline_cell(data: dict) -> str:
    """The id of a sweep's baseline: the cell whose grid values are those of the sweep without its grids (the
    rule defaults and the seats' own parameter values), else the first cell."""
    inputs = data["inputs"]
    plugin = get_game(inputs["game"])
    defaults = {p.name: p.default for p in plugin.options.params}
    options = inputs["options"]  # the sweep's own rule options, resolved (a grid's option at its --option value)
    seat = inputs["seats"][0] if inputs.get("seats") else 0
    seat_text = inputs["strategies"][seat] if len(inputs["strategies"]) > seat else inputs["strategies"][0]
    own = parse_strategy(plugin, seat_text)
    params = dict(own.params)
    expected = {k: (options.get(k, defaults.get(k)) if kind == "option" else params.get(k))
                for k, kind in inputs["kinds"].items()}
    for cell in data["cells"]:
        if all(cell["labels"].get(k) == v for k, v in expected.items()):
            return cell["id"]
    return data["cells"][0]["id"]


def cell_effects(out, data: dict | None = None) -> dict[str, str]:
    """Per cell id of the sweep at ``out``: ``baseline``, :data:`NO_EFFECT` (every game played move for move as
    the baseline's, :func:`play_digest`) or ``changes play``."""
    data = data or load_batch(out)
    base = baseline_cell(data)
    digests = {c["id"]: play_digest(RunSpec.from_dict(c["spec"]), cell_dir(out, c["id"])) for c in data["cells"]}
    return {cid: "baseline" if cid == base else NO_EFFECT if d == digests[base] else "changes play"
            for cid, d in digests.items()}


def sweep_frames(out) -> dict[str, pl.DataFrame]:
    """``summary`` and ``outcomes`` of the sweep at ``out`` (see the module doc), grid values as columns, and
    each cell's ``effect`` (:func:`cell_effects`)."""
    data = load_batch(out)
    if data["kind"] != "sweep":
        raise ValueError(f"{out} holds a {data['kind']}, not a sweep")
    effects = cell_effects(out, data)
    summaries, outcomes = [], []
    for cell in data["cells"]:
        spec = RunSpec.from_dict(cell["spec"])
        finest = read_table(cell_dir(out, cell["id"]), spec.plugin.tables(spec.level)[0])
        labels = [s.label() for s in spec.strategies]
        side = side_table(finest, spec.plugin, spec.players, labels)
        tag = ([pl.lit(cell["id"]).alias("cell")] + [pl.lit(v).alias(k) for k, v in cell["labels"].items()]
               + [pl.lit(effects[cell["id"]]).alias("effect")])
        summaries.append(side.select(*tag, pl.all()))
        outcomes.append(outcome_table(finest).select(*tag, pl.all()))
    return {"summary": pl.concat(summaries, how="vertical_relaxed"),
            "outcomes": pl.concat(outcomes, how="diagonal_relaxed")}


def _swept_rows(frames: dict, inputs: dict) -> tuple[pl.DataFrame, str]:
    summary = frames["summary"]
    side = "team" if "team" in summary.columns else "seat"
    return (summary if side == "team" else summary.filter(pl.col("seat").is_in(inputs["seats"]))), side


def sweep_verdict(frames: dict, inputs: dict) -> list[str]:
    """The sweep's answer, one sentence per swept seat (or team): the cell where it wins the most of the finest
    rows, against the baseline cell (the sweep's own values), each share with its 95% interval, and whether the
    two intervals separate; then the cells that play exactly as the baseline."""
    shown, side = _swept_rows(frames, inputs)
    names = [k for k, _ in inputs["grids"]]
    sentences = []
    for (value,), rows in shown.group_by(side, maintain_order=True):
        best = rows.sort("win_rate", descending=True).row(0, named=True)
        base = rows.filter(pl.col("effect") == "baseline") if "effect" in rows.columns else rows.head(0)
        values = " ".join(f"{k}={_fmt(best[k])}" for k in names)
        who = (_("team {key}") if side == "team" else _("seat {key}")).format(key=value)
        lead = _("{who} ({strategy}) wins the most with {values}: {share} of {n} rows").format(
            who=who, strategy=best["strategy"], values=values,
            share=share_interval(best["win_rate"], best["win_low"], best["win_high"]), n=number(best["n"], 0))
        if base.height and base["cell"][0] != best["cell"]:
            b = base.row(0, named=True)
            apart = best["win_low"] > b["win_high"]
            lead += _(", against {share} at the baseline ({values}): ").format(
                share=share_interval(b["win_rate"], b["win_low"], b["win_high"]), values=" ".join(f"{k}={_fmt(b[k])}" for k in names))
            lead += (_("the intervals separate, a real gain.") if apart else
                     _("the intervals overlap, no gain shown at this n."))
        elif base.height:
            lead += _(", which is the baseline: no swept value beats it.")
        else:
            lead += "."
        sentences.append(lead)
    same = sorted(set(shown.filter(pl.col("effect") == NO_EFFECT)["cell"].to_list())) if "effect" in shown.columns else []
    if same:
        sentences.append(_("{count} cell(s) ({cells}) play every game move for move as the baseline: {no_effect}, not "
                           "a finding that it does not matter.").format(count=len(same), cells=", ".join(same),
                                                                        no_effect=_(NO_EFFECT)))
    return sentences


def format_sweep(frames: dict, inputs: dict) -> str:
    """The verdict (:func:`sweep_verdict`), then one line per cell and swept seat (every team for Kem's): grid
    values, win rate, mean points."""
    summary = frames["summary"]
    names = [k for k, _ in inputs["grids"]]
    shown, side = _swept_rows(frames, inputs)
    lines = [*sweep_verdict(frames, inputs), "",
             _("{game} sweep: {cells} cells x {n} {level}, seed {seed} (same deals in every cell); seats {seats}").format(
                 game=inputs["game"], cells=summary["cell"].n_unique(), n=number(inputs["n"], 0),
                 level=_(inputs["level"]), seed=inputs["seed"], seats=inputs["strategies"]),
             (_("per cell: win rate (95% interval) and mean points of the swept seats") if side == "seat" else
              _("per cell: win rate (95% interval) and mean points of the swept teams")), ""]
    for r in shown.iter_rows(named=True):
        grid = " ".join(f"{k}={_fmt(r[k])}" for k in names)
        mark = {"baseline": "   (" + _("baseline") + ")", NO_EFFECT: f"   ({_(NO_EFFECT)})"}.get(r.get("effect", ""), "")
        who = (_("team {key}") if side == "team" else _("seat {key}")).format(key=r[side])
        points = f"{number(r['mean_points'], 3, True):>7} {bounds(number(r['points_low'], 3, True), number(r['points_high'], 3, True))}"
        lines.append(f"  {r['cell']} {grid:<36} {who} {r['strategy'][:28]:<28} "
                     f"{percent(r['win_rate'], 2):>7} {bounds(number(100 * r['win_low'], 2), number(100 * r['win_high'], 2))}   "
                     + _("points {points}").format(points=points)
                     + mark)
    same = summary.filter(pl.col("effect") == NO_EFFECT)["cell"].unique().sort().to_list() if "effect" in \
        summary.columns else []
    if same:
        lines += ["", _("{count} cell(s) played every game move for move as the baseline ({cells}): {no_effect}, not "
                        "a finding that it does not matter").format(count=len(same), cells=", ".join(same),
                                                                    no_effect=_(NO_EFFECT))]
    return "\n".join(lines)
