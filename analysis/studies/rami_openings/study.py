"""Study 2 — Rami openings (issue 5 item 5): every named opening strategy against the others at several
player counts, the 51 threshold and the joker rules, as one directory of ordinary batches.

Layout of a study directory ``OUT``::

    OUT/_study.json                  the study's inputs and its parts
    OUT/tournament-<P>p/             a tournament of :data:`STRATEGIES` at P players (a batch directory)
                                     every part plays whole games to the target (-n per seating or grid point)
    OUT/threshold/                   a sweep of ``opening_points`` (open-asap everywhere)
    OUT/jokers/                      a sweep of ``joker_swap`` x ``joker_opening_value``
    OUT/opening_turns.parquet        :func:`opening_turns` of every tournament
    OUT/rami_sec.parquet             :func:`rami_sec` of every tournament
    OUT/ratings.parquet              every tournament's Bradley–Terry ratings (strategies across player counts)
    OUT/equilibrium.parquet          every tournament's meta-game: the mix of styles no style can exploit

The rest of the play is tuned. By default each opening style is played with the tuned player's other parameters
(:func:`style_on_tuned`: the shipped ``tuned-<k>p`` preset of the nearest player count, which ``cardsim tune``
found); when those are the style's own values already, the style plays under its own name. ``_study.json`` names
the tuned presets (``inputs.tuned``) and what each tournament played (``inputs.played``).

Every part is a resumable batch, so re-running the same study resumes it. The frames are pure functions of
the tournaments' rounds tables (:func:`seat_rounds`): one row per round and seat, with the seat's strategy.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.answers import (HEADLINE_SENTENCES, WIDTH, Answer, Table, certainty, certainty_word, frame_of, number,
                             rules_text, say, significance, stored_frames)
from analysis.batches import batch_frames, leader, tournament_frames
from analysis.metagame import BOOTSTRAP, SUPPORT_TOL, metagame
from analysis.stats import mean_interval, wilson
from simulator.core.contract.presets import tuned_preset
from simulator.core.contract.registry import get_game
from simulator.core.errors import DatasetError
from simulator.core.i18n import N_, _, number as written, percent, share_interval, spoken_list
from simulator.core.run.batch import read_batch
from simulator.core.run.designs import sweep_batch, tournament_batch
from simulator.core.run.plan import (
    Part, Plan, check_games, check_players, check_study_rules, check_study_settings, check_study_strategies,
    load_study_file,
)
from simulator.core.storage.ledger import read_checked_frame
from simulator.core.storage.spec import _fmt

STUDY_NAME = "rami-openings"
GAMES = ("rami",)
STRATEGIES = ("open-asap", "open-big", "rami-sec-hunter", "joker-keeper", "open-small", "open-all", "joker-saver",
              "meld-holder")
"""The named opening strategies: when to open (the first four), what to open with (the next three) and when to lay
later melds (the last)."""
PLAYERS = (2, 3, 4, 6)
THRESHOLDS = (40, 51, 61, 71)
JOKER_GRIDS = ("joker_swap=must_reuse,free,forbidden", "joker_opening_value=zero,represented")
OFTEN = 0.05  # a style in the equilibrium of more bootstrap replicates than this cannot be ruled out of it
NEVER = -1  # open_turn of a seat that never opened in the round
LEVEL = "games"  # what every part plays and -n counts: whole games to the target, as Rami is won


def tournament_dir(out, players: int) -> Path:
    return Path(out) / f"tournament-{players}p"


def seat_rounds(rounds: pl.DataFrame | pl.LazyFrame, players: int) -> pl.DataFrame:
    """One row per round and seat: ``strategy``, ``open_turn`` (``-1``: never opened), ``points`` (lower is
    better), ``rami_sec`` (the seat won the round by a rami sec)."""
    rounds = rounds.lazy() if isinstance(rounds, pl.DataFrame) else rounds
    parts = [rounds.select(pl.col(f"strategy_{p}").cast(pl.Utf8).alias("strategy"),
                           pl.col(f"open_turn_{p}").cast(pl.Int64).alias("open_turn"),
                           pl.col(f"points_{p}").cast(pl.Float64).alias("points"),
                           ((pl.col("winner") == p) & (pl.col("outcome").cast(pl.Utf8) == "rami sec")).alias("rami_sec"))
             for p in range(players)]
    return pl.concat(parts).with_columns(pl.when(pl.col("open_turn") < 0).then(NEVER).otherwise(pl.col("open_turn"))
                                         .alias("open_turn")).collect()


def opening_turns(seats: pl.DataFrame) -> pl.DataFrame:
    """Per strategy, the distribution of its own turn of opening: ``open_turn`` (``-1``: never), ``n``, ``share``
    of the strategy's seat-rounds with its 95% Wilson interval ``low``/``high``; shares sum to 1 per strategy."""
    counts = seats.group_by("strategy", "open_turn").agg(pl.len().alias("n")).sort("strategy", "open_turn")
    totals = counts.group_by("strategy").agg(pl.col("n").sum().alias("total"))
    rows = []
    for r in counts.join(totals, on="strategy").iter_rows(named=True):
        share, low, high = wilson(r["n"], r["total"])
        rows.append({"strategy": r["strategy"], "open_turn": r["open_turn"], "n": r["n"], "share": share,
                     "low": low, "high": high})
    return pl.DataFrame(rows, schema={"strategy": pl.Utf8, "open_turn": pl.Int64, "n": pl.Int64, "share": pl.Float64,
                                      "low": pl.Float64, "high": pl.Float64})


def rami_sec(seats: pl.DataFrame) -> pl.DataFrame:
    """Per strategy: ``rounds`` (seat-rounds), ``sec`` (those it won by a rami sec), ``rate`` with its 95% Wilson
    interval, and its mean points in those rounds (``sec_points``) and in its other rounds (``other_points``),
    each with a 95% t interval (``nan`` when there is none)."""
    rows = []
    for (strategy,), g in seats.sort("strategy").group_by("strategy", maintain_order=True):
        sec = g.filter(pl.col("rami_sec"))["points"]
        other = g.filter(~pl.col("rami_sec"))["points"]
        rate, low, high = wilson(sec.len(), g.height)
        sp = mean_interval(float(sec.sum()), float((sec * sec).sum()), sec.len())
        op = mean_interval(float(other.sum()), float((other * other).sum()), other.len())
        rows.append({"strategy": strategy, "rounds": g.height, "sec": sec.len(), "rate": rate, "low": low, "high": high,
                     "sec_points": sp[0], "sec_low": sp[1], "sec_high": sp[2],
                     "other_points": op[0], "other_low": op[1], "other_high": op[2]})
    return pl.DataFrame(rows)


def style_on_tuned(style: str, tuned: str | None, game: str = "rami") -> str:
    """The opening style ``style`` with the rest of the play tuned: ``tuned``'s values (a preset of the same family)
    for every parameter the style does not set itself. ``style`` when its own values are those already, else the
    strategy text ``tuned:k=v,...`` with the values that define the style; ``style`` as it is when ``tuned`` is
    ``None`` or of another family."""
    strategies = get_game(game).strategies
    own, other = strategies[style], strategies.get(tuned)
    family = strategies[own.family or own.name]
    if other is None or (other.family or other.name) != family.name:
        return style
    values = {p.name: p.default for p in own.params.params}
    defining = {p.name: values[p.name] for p in family.params.params if values[p.name] != p.default}
    if {p.name: p.default for p in other.params.params} | defining == values:
        return style
    return tuned + "".join((":" if i == 0 else ",") + f"{k}={_fmt(v)}" for i, (k, v) in enumerate(defining.items()))


def style_names(inputs: dict, players: int) -> dict[str, str]:
    """What the tournament at ``players`` played (``inputs.played``) mapped to the style each one is, for the
    texts that differ (``tuned-4p:opening_style=2`` -> ``open-all``): the answer, the frames and the report name
    each style, as the user chose it, not the strategy text that played it."""
    played = (inputs.get("played") or {}).get(str(players)) or []
    return {text: style for text, style in zip(played, inputs["strategies"]) if text != style}


def named(frame: pl.DataFrame, names: dict[str, str], columns=("strategy",)) -> pl.DataFrame:
    """``frame`` with each of ``columns`` read through ``names`` (:func:`style_names`); a text not in it stays."""
    if not names:
        return frame
    return frame.with_columns(pl.col(c).replace(names) for c in columns if c in frame.columns)


def equilibrium(out, players: int, seed: int) -> pl.DataFrame:
    """The meta-game of the tournament at ``players`` (:func:`analysis.metagame.metagame`, :data:`BOOTSTRAP`
    replicates): per strategy its equilibrium ``weight`` with its 95% interval, the share of replicates that keep it
    in the support (``in_support``), its share of decided games against the mixture (``value`` + 1/2, interval)
    and how much its best reply in the population beats it (``exploitability``, interval, ``best_reply``)."""
    m = metagame(tournament_dir(out, players), bootstrap=BOOTSTRAP, seed=seed)
    return m.mixture.join(m.members, on="strategy").sort("weight", descending=True)


def study_frames(out) -> dict[str, pl.DataFrame]:
    """``opening_turns``, ``rami_sec``, ``ratings`` (each tournament's Bradley–Terry ratings, for the strategies
    across player counts) and ``equilibrium`` (:func:`equilibrium`) of every tournament of the study at ``out``, a
    ``players`` column first."""
    inputs = load_study(out)["inputs"]
    turns, secs, ratings, mixes = [], [], [], []
    for players in inputs["players"]:
        seats = seat_rounds(read_batch(tournament_dir(out, players), "rounds"), players)
        tag = pl.lit(players, pl.Int64).alias("players")
        names = style_names(inputs, players)
        turns.append(named(opening_turns(seats), names).select(tag, pl.all()))
        secs.append(named(rami_sec(seats), names).select(tag, pl.all()))
        ratings.append(named(tournament_frames(tournament_dir(out, players))["ratings"], names).select(tag, pl.all()))
        mixes.append(named(equilibrium(out, players, inputs["seed"]), names, ("strategy", "best_reply"))
                     .select(tag, pl.all()))
    return {"opening_turns": pl.concat(turns), "rami_sec": pl.concat(secs), "ratings": pl.concat(ratings),
            "equilibrium": pl.concat(mixes)}


def load_study(out, field: str = "--out") -> dict:
    return load_study_file(out, STUDY_NAME, field)


STRATEGIES_HELP = ("the opening strategies of the tournaments, two or more, played as given (default: every opening "
                   "style, each with the rest of the play tuned); the first also plays every seat of the threshold "
                   "and joker sweeps")


def plan(out, *, n: int, game: str = "rami", seed: int = 0, players=None, thresholds=THRESHOLDS,
         sweep_players: int = 4, threads: int | None = None, chunk_size: int | None = None,
         rules: dict | None = None, strategies=None) -> Plan:
    """The study's plan (:func:`simulator.core.run.plan.execute` runs it into ``out``): one tournament of the
    strategies (:data:`STRATEGIES`, or ``strategies``: :data:`STRATEGIES_HELP`) per player count, the
    ``opening_points`` sweep and the joker-rules sweep at ``sweep_players`` players, all under the rule options
    ``rules``, every batch validated before anything is written; then :func:`study_frames`."""
    players = check_players(PLAYERS if players is None else players)
    n = check_games(n, "whole games per seating or grid point")
    check_study_settings(n=n, seed=seed, threads=threads, chunk_size=chunk_size)
    rules = check_study_rules(game, rules, sweep_players)
    given = check_study_strategies(game, strategies, at_least=2, what=STRATEGIES_HELP)
    chosen = given or list(STRATEGIES)
    counts = sorted({*players, sweep_players})
    tuned = None if given else {str(p): tuned_preset(get_game(game).strategies, p) for p in counts}
    played = {str(p): chosen if tuned is None else [style_on_tuned(s, tuned[str(p)], game) for s in chosen]
              for p in counts}
    inputs = {"game": game, "n": n, "seed": seed, "players": list(players), "strategies": chosen, "tuned": tuned,
              "played": played, "thresholds": list(thresholds), "joker_grids": list(JOKER_GRIDS),
              "sweep_players": sweep_players, "rules": rules}
    batches = [(tournament_dir(out, p).name, tournament_batch(game, strategies=played[str(p)], n=n, seed=seed,
                                                              players=p, level=LEVEL, options=rules)) for p in players]
    sweep = dict(n=n, seed=seed, players=sweep_players, seats=[0], level=LEVEL,
                 strategies=[played[str(sweep_players)][0]], options=rules)
    batches.append(("threshold", sweep_batch(game, option_grids=[
        f"opening_points={','.join(str(t) for t in thresholds)}"], **sweep)))
    batches.append(("jokers", sweep_batch(game, option_grids=list(JOKER_GRIDS), **sweep)))
    parts = [Part(name, lambda batch=batch: batch, stores=batch_frames) for name, batch in batches]
    return Plan(STUDY_NAME, game, inputs, "same -n, --seed, --players, --option, --strategy", parts, study_frames)


def _checked(path) -> pl.DataFrame:
    """A tournament's result frame, checked against the study's ledger (missing: the line that says what to run)."""
    frame = read_checked_frame(path)
    if frame is None:
        raise DatasetError(f"{path} is missing or not recorded; run `cardsim verify {path.parent}`, or the study's "
                           "command again to write it")
    return frame


def answer(out):
    """The study's verdict (:class:`analysis.answers.Answer`): per player count, the opening styles ranked by
    whole games (Bradley–Terry, Elo scale with 95% intervals), the winner, and its share of decided games against
    the second best with the interval and whether it is significant; then the mix of styles no style can exploit
    (the meta-game's equilibrium weights, 95% bootstrap intervals)."""
    data = load_study(out)
    mixes = stored_frames(out, ["equilibrium"]).get("equilibrium")
    rows, sentences, clauses, tops = [], [], [], []
    for players in data["inputs"]["players"]:
        folder = tournament_dir(out, players)
        names = style_names(data["inputs"], players)
        frames = {name: named(_checked(folder / f"{name}.parquet"), names, ("strategy", "opponent"))
                  for name in ("matrix", "ratings")}
        top = leader(frames)
        ranked = []
        for r in frames["ratings"].iter_rows(named=True):
            ranked.append(number("ranking", f"{players} players, {r['strategy']}", "Bradley–Terry rating, Elo "
                                 "scale (mean 0)", r["elo"], r["elo_low"], r["elo_high"], n=r["games"],
                                 unit="decided games", kind="rating"))
        pair = top["pair"]
        best, second = top["order"][0], top["order"][1]
        margin = number("margin", f"{players} players, {best} against {second}", "share of decided games the "
                        "winner wins against the second", pair["win_rate"], pair["low"], pair["high"],
                        n=pair["decided"], unit="decided games", kind="share",
                        status=significance(pair["low"], pair["high"], 0.5))
        rows += ranked + [margin]
        elo = next(r for r in ranked if r["subject"].endswith(f", {best}"))
        tops.append({"players": players, "best": best, "second": second, "elo": elo, "margin": margin,
                     "certainty": certainty(margin["low"], margin["high"], margin["n"], SHARE_MARGIN, 0.5),
                     "mix": None})
        verdict = (_("{best} wins") if margin["status"] == "significant" and pair["win_rate"] > 0.5
                   else _("{best} leads, not significantly")).format(best=best)
        sentences.append(_("{players} players: {verdict} (Elo {elo}), then {others}; against {second} it wins {share} "
                           "of {n} decided games ({status}).").format(
            players=players, verdict=verdict, elo=say(elo), others=", ".join(top["order"][1:]), second=second,
            share=say(margin), n=written(margin["n"], 0), status=_(margin["status"])))
        if mixes is not None:
            mix = named(mixes.filter(pl.col("players") == players), names, ("strategy", "best_reply"))
            mix_rows, clause = _equilibrium(mix, players)
            tops[-1]["mix"] = [(r["subject"].split(", ", 1)[1], r["value"]) for r in mix_rows if r["value"] > SUPPORT_TOL]
            rows += mix_rows
            clauses.append(clause)
    if clauses:
        sentences.append(_("The mix of styles no style can exploit (meta-game: weights, and shares of decided games, "
                           "with 95% bootstrap intervals): {clauses}.").format(clauses="; ".join(clauses)))
    holds = _("Rami, {rules}, whole games to the target").format(rules=rules_text("rami", data["inputs"].get("rules")))
    tuned = data["inputs"].get("tuned")
    if tuned:
        by_preset: dict[str, list[str]] = {}
        for players in data["inputs"]["players"]:
            by_preset.setdefault(tuned[str(players)], []).append(str(players))
        holds += _("; every style plays the rest of the game as the tuned player ({tuned})").format(
            tuned=", ".join(_("{preset} at {players} players").format(preset=k, players=", ".join(v))
                            for k, v in by_preset.items()))
    return Answer(STUDY_NAME, "rami", holds, tuple(sentences), frame_of(rows), headline=_headline(tops),
                  table=_table(tops))


SHARE_MARGIN = 0.02
"""Two styles whose share of decided games against each other lies within 50% ± 2 points are even."""
STYLE_ADVICE = {
    "open-asap": N_("Open as soon as you reach 51"),
    "open-big": N_("Wait for an opening of 80 points or more"),
    "rami-sec-hunter": N_("Hold everything for a rami sec"),
    "joker-keeper": N_("Keep your jokers in hand"),
    "open-small": N_("Open with the fewest cards that reach 51"),
    "open-all": N_("Open with all you can lay down"),
    "joker-saver": N_("Open without your jokers when you can"),
    "meld-holder": N_("Open small, then hold your melds back"),
}
"""Each named opening style as a player would say it (the headline's advice)."""


def _headline(tops: list[dict]) -> tuple[str, ...]:
    """At most three sentences of at most :data:`analysis.answers.WIDTH` characters: the best style (as advice,
    per player count where they differ), where that is even or tentative, and where no single style is safe."""
    by_best: dict[str, list[int]] = {}
    for t in tops:
        by_best.setdefault(t["best"], []).append(t["players"])
    if len(by_best) == 1:
        best, counts = next(iter(by_best.items()))
        advice = STYLE_ADVICE.get(best)
        sentence = (_("{advice} ({best}): the best opening style at {players} players.").format(
            advice=_(advice), best=best, players=spoken_list(counts)) if advice else
            _("{best} is the best opening style at {players} players.").format(best=best, players=spoken_list(counts)))
    else:
        sentence = _("Best opening style: {styles}.").format(styles="; ".join(
            _("{best} at {players}").format(best=b, players=spoken_list(ps)) for b, ps in by_best.items()))
    if len(sentence) > WIDTH:
        sentence = _("The best opening style depends on the table size: see below.")
    sentences = [sentence]
    for word, template in (("even", _("At {players} players {best} and {second} are even.")),
                           ("tentative", _("At {players} players it is tentative: {best} leads {second} by little."))):
        for t in (t for t in tops if t["certainty"].word == word):
            text = template.format(players=t["players"], best=t["best"], second=t["second"])
            if len(sentences) < HEADLINE_SENTENCES and len(text) <= WIDTH:
                sentences.append(text)
    mixed = [t["players"] for t in tops if t["mix"] and len(t["mix"]) > 1]
    if mixed and len(sentences) < HEADLINE_SENTENCES:
        sentences.append(_("No single style is safe {where}: mixing styles is (see answer.md).").format(
            where=_("at {players} players").format(players=spoken_list(mixed))))
    return tuple(sentences)


def _table(tops: list[dict]) -> Table:
    """One row per player count: the best style, its rating, its share of decided games against the second best
    (95% interval, even or tentative) and the second best; the notes say what a tentative cell needs."""
    rows, notes = [], []
    for t in tops:
        c = t["certainty"]
        rows.append((str(t["players"]), t["best"], say(t["elo"]), f"{say(t['margin'])} {certainty_word(c)}".rstrip(),
                     t["second"]))
        if c.word == "tentative":
            notes.append(_("{players} players: tentative ({n} decided games; about {more} more would settle it).")
                         .format(players=t["players"], n=written(c.n, 0), more=written(c.more, 0)))
    columns = (_("players"), _("best style"), _("Elo"), _("wins vs second"), _("second"))
    return Table(columns, tuple(rows), tuple(notes))


def _equilibrium(mix: pl.DataFrame, players: int) -> tuple[list[dict], str]:
    """The equilibrium's rows of the answer (each style's weight, 95% bootstrap interval) and its clause: the mix,
    the styles the data cannot tell from it (in the equilibrium of more than :data:`OFTEN` of the bootstrap
    replicates) and the closest of the styles that lose to it."""
    rows, parts, doubtful = [], [], []
    for r in mix.iter_rows(named=True):
        row = number("equilibrium", f"{players} players, {r['strategy']}", "weight in the mix of styles no style "
                     "can exploit (95% bootstrap interval)", r["weight"], r["weight_low"], r["weight_high"],
                     n=BOOTSTRAP, unit="bootstrap replicates", kind="share")
        rows.append(row)
        if r["weight"] > SUPPORT_TOL:
            parts.append(f"{r['strategy']} {say(row)}")
        elif r["in_support"] > OFTEN:
            doubtful.append(f"{r['strategy']} {percent(r['in_support'], 0)}")
    clause = _("at {players} players {mix}").format(players=players, mix=" + ".join(parts))
    if doubtful:
        clause += " " + _("(not told apart from {styles} of replicates)").format(styles=", ".join(doubtful))
    losers = mix.filter((pl.col("weight") <= SUPPORT_TOL) & (pl.col("in_support") <= OFTEN)).sort("value",
                                                                                                  descending=True)
    if losers.height:
        r = losers.row(0, named=True)
        share = share_interval(0.5 + r["value"], 0.5 + r["value_low"], 0.5 + r["value_high"])
        clause += _(", the closest other style {style} winning {share} against it").format(style=r["strategy"],
                                                                                          share=share)
    return rows, clause
