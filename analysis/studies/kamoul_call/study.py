"""Study 1 — when to call KAMOUL (issue 5 item 4): counterfactual rollouts, the call policy they imply, and
that policy's measured gain over the presets; plus :func:`advise` for one situation.

Layout of a study directory ``OUT``::

    OUT/_study.json                        the study's inputs and its parts
    OUT/samples/players=<P>/part-*.parquet one row per sampled decision (``counterfactual.COLUMNS``), Hive
                                           partitions: ``polars.scan_parquet("OUT/samples")`` adds ``players``
    OUT/call_value.parquet                 :func:`call_value`: per players x zone x unseen x known x turn
    OUT/policy.parquet                     :func:`derive_policy`: the call threshold per players x unseen
    OUT/samples-policy/players=<P>/        the same sampling from the derived policy's own play
    OUT/policy_check.parquet               :func:`policy_check`: the policy derived again from those samples
    OUT/tournament-<P>p/                   the derived policy against the strategy it comes from and every preset
    OUT/gain.parquet                       :func:`policy_gain`: the policy's results against each of them

States come from real play of :data:`STRATEGY` (the tuned players) at every seat (``simulator.kamoul.engines.counterfactual``). For each
sampled decision both branches, "call now" and "play on", are played on the same future deals. A positive
``gain`` is the points calling saves (``play_points - call_points``): calling is right where it is > 0.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import polars as pl

from analysis.answers import (WIDTH, Answer, Table, certainty, certainty_word, frame_of, number, rules_text, say,
                             significance, stored_frames)
from analysis.batches import batch_frames, tournament_frames
from analysis.stats import mean_interval, wilson
from simulator.core.contract.game import seats_of
from simulator.core.contract.presets import tuned_preset
from simulator.core.errors import SpecError
from simulator.core.i18n import _, ngettext, number as written, spoken_list
from simulator.core.progress import progress as progress_of
from simulator.core.run.designs import tournament_batch
from simulator.core.run.plan import (
    Part, Plan, Step, check_games, check_players, check_study_rules, check_study_settings, check_study_strategies,
    load_study_file,
)
from simulator.core.run.workdir import Workdir
from simulator.core.storage.ledger import checked_files
from simulator.core.storage.spec import build_spec, parse_strategy
from simulator.games import get_game
from simulator.kamoul.engines.counterfactual import COLUMNS, Situation, advise_kernel, sample_kernel
from simulator.kamoul.engines.engine import rules_of
from simulator.kamoul.vocabulary.codes import (
    FC_SPEC_MAX, OUT_FALSE, OUTCOMES, RANK_CODE_BLACK_KING, RANK_CODE_RED_KING, RANK_CODES,
)
from strategies.kamoul.call_table import MAX_UNSEEN_COLUMN, table_text

STUDY_NAME = "kamoul-call"
GAMES = ("kamoul",)  # the study and advise
KERNEL_FAMILIES = ("kamoul", "kamoul rollouts")
"""The kernels the study plays on: compiled side by side before it starts (``simulator.core.kernels.compile_apart``)."""
PLAYERS = (2, 3, 4, 6)
STRATEGY = "tuned"
"""The play the states are sampled from by default: the tuned player of each player count (:func:`played_strategy`)."""
PRESETS = ("cautious", "balanced", "aggressive")
TOURNAMENT_LEVEL = "manches"
CHUNK = 20_000  # games (manches) per sample part file
KNOWN_CAP = 15  # known points of 15 and more share one cell
TURN_EDGES = (1, 2, 3, 4, 6, 9)  # turn buckets 1, 2, 3, 4-5, 6-8, 9+
ZONES = ("low", "normal", "high")  # cumulative <= -15, in between, >= 15 (where au-score calls exist, K11)
MIN_CELL = 30  # samples a cell needs before it can overrule the strategy's own choice
KNOWN_KEYS = ("players", "unseen", "known_cell")  # the cells the policy is derived from


def sample_dir(out, players: int, folder: str = "samples") -> Path:
    return Path(out) / folder / f"players={players}"


def tournament_dir(out, players: int) -> Path:
    return Path(out) / f"tournament-{players}p"


def turn_bucket(turn: pl.Expr) -> pl.Expr:
    """``String`` label of the turn bucket of ``turn`` (``1``, ``2``, ``3``, ``4-5``, ``6-8``, ``9+``)."""
    expr = pl.lit(f"{TURN_EDGES[-1]}+")
    for lo, hi in reversed(list(zip(TURN_EDGES, TURN_EDGES[1:]))):
        label = str(lo) if hi == lo + 1 else f"{lo}-{hi - 1}"
        expr = pl.when(turn < hi).then(pl.lit(label)).otherwise(expr)
    return expr


def with_features(samples: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame:
    """Samples with the cell features: ``zone``, ``unseen`` (0…3, 3 = three or more), ``known_cell`` (points,
    ``KNOWN_CAP`` = that many or more), ``turn_bucket``, and ``gain`` = ``play_points - call_points``."""
    cum = pl.col("cum")
    return samples.lazy().with_columns(
        pl.when(cum <= -15).then(pl.lit("low")).when(cum >= 15).then(pl.lit("high")).otherwise(pl.lit("normal"))
        .alias("zone"),
        pl.col("unknown").clip(0, MAX_UNSEEN_COLUMN).alias("unseen"),
        pl.col("known").clip(None, KNOWN_CAP).alias("known_cell"),
        turn_bucket(pl.col("turn")).alias("turn_bucket"),
        (pl.col("play_points") - pl.col("call_points")).cast(pl.Float64).alias("gain"),
    )


def _sums() -> list[pl.Expr]:
    """Sufficient statistics of every interval :func:`_intervals` computes (one group)."""
    aggs = [pl.len().alias("n"), pl.col("call_won").sum().alias("call_wins"), pl.col("play_won").sum().alias("play_wins"),
            pl.col("strategy_calls").sum().alias("strategy_calls"),
            (pl.col("call_outcome") == OUTCOMES[OUT_FALSE]).sum().alias("false_calls")]
    for name in ("call_points", "play_points", "gain"):
        x = pl.col(name).cast(pl.Float64)
        aggs += [x.sum().alias(f"{name}_s"), (x * x).sum().alias(f"{name}_ss")]
    return aggs


def _intervals(sums: pl.DataFrame) -> pl.DataFrame:
    """Rates with Wilson 95% intervals and means with 95% intervals from the sums of :func:`_sums`."""
    rows = []
    for r in sums.iter_rows(named=True):
        n = r["n"]
        row = {k: v for k, v in r.items() if not k.endswith(("_s", "_ss"))}
        for name, k in (("call_win", "call_wins"), ("play_win", "play_wins"), ("false_call", "false_calls")):
            row[name], row[f"{name}_low"], row[f"{name}_high"] = wilson(int(r[k]), n)
        for name in ("call_points", "play_points", "gain"):
            row[name], row[f"{name}_low"], row[f"{name}_high"] = mean_interval(r[f"{name}_s"], r[f"{name}_ss"], n)
        row["strategy_share"] = r["strategy_calls"] / n if n else math.nan
        rows.append(row)
    return pl.DataFrame(rows, infer_schema_length=None)


def call_value(samples: pl.LazyFrame | pl.DataFrame, keys=("players", "zone", "unseen", "known_cell", "turn_bucket")
               ) -> pl.DataFrame:
    """Per cell of ``keys``: ``n``; win probability when calling and when playing on (``call_win``/``play_win``)
    and the share of false calls, with Wilson intervals; expected hand points either way and the ``gain`` of
    calling (points saved, paired on the same deals), with 95% intervals; ``strategy_share``: how often
    :data:`STRATEGY` itself called there. Sorted by ``keys``."""
    keys = list(keys)
    sums = with_features(samples).group_by(keys).agg(_sums()).sort(keys).collect()
    return _intervals(sums)


def decide(row: dict) -> str:
    """``call``, ``play on`` or the strategy's own choice where the data do not decide (``n < MIN_CELL`` or the
    gain's interval holds 0): the one-step improvement of the strategy in that cell."""
    if row["n"] >= MIN_CELL and row["gain_low"] > 0:
        return "call"
    if row["n"] >= MIN_CELL and row["gain_high"] < 0:
        return "play on"
    return "call" if row["strategy_share"] >= 0.5 else "play on"


def derive_policy(cells: pl.DataFrame, by=("players",)) -> pl.DataFrame:
    """The call threshold per ``by`` x ``unseen``: ``threshold`` = the highest known-points cell where
    :func:`decide` says call (``-1``: never), from ``cells`` = :func:`call_value` pooled over the other keys
    (``keys = (*by, "unseen", "known_cell")``); ``exceptions`` = cells at or below it where it says play on."""
    rows = []
    for key, group in cells.sort([*by, "unseen", "known_cell"]).group_by([*by, "unseen"], maintain_order=True):
        decisions = [(r["known_cell"], decide(r)) for r in group.iter_rows(named=True)]
        calls = [k for k, d in decisions if d == "call" and k < KNOWN_CAP]
        threshold = max(calls) if calls else -1
        exceptions = [k for k, d in decisions if d == "play on" and k <= threshold]
        rows.append({**dict(zip([*by, "unseen"], key)), "threshold": threshold, "exceptions": len(exceptions),
                     "samples": int(group["n"].sum())})
    return pl.DataFrame(rows)


def policy_check(first: pl.DataFrame, again: pl.DataFrame) -> pl.DataFrame:
    """Per players x unseen: the threshold derived from :data:`STRATEGY`'s play (``threshold``) and the one
    derived again from the policy's own play (``threshold_again``, ``samples_again``); ``stable`` when equal."""
    return first.select("players", "unseen", "threshold").join(
        again.select("players", "unseen", pl.col("threshold").alias("threshold_again"),
                     pl.col("samples").alias("samples_again")), on=["players", "unseen"], how="left"
    ).with_columns((pl.col("threshold") == pl.col("threshold_again")).alias("stable")).sort("players", "unseen")


def policy_strategy(policy: pl.DataFrame, players: int, base: str | None = None) -> str:
    """The ``call-table`` strategy text of the policy derived at ``players``: with ``base`` (the strategy the states
    were sampled from, of the heuristic family), its other parameters too, so that only the call rule changes."""
    rows = policy.filter(pl.col("players") == players)
    text = table_text({r["unseen"]: r["threshold"] for r in rows.iter_rows(named=True)})
    plugin = get_game("kamoul")
    sampled = parse_strategy(plugin, base) if base is not None else None
    if sampled is None or plugin.strategies[sampled.name].family != "heuristic":
        return text
    table = plugin.strategies["call-table"].params.by_name
    kept = [f"{k}={v}" for k, v in sampled.params
            if k in table and k != "call_threshold" and v != table[k].default]  # call-table's rule replaces it
    return text.replace("call-table:", "call-table:" + "".join(f"{k}," for k in kept), 1)


def policy_gain(out, players_list) -> pl.DataFrame:
    """Per player count and preset: the policy's win rate against it (Wilson 95%) and its paired points gap
    (policy minus preset per deal, negative = the policy scores fewer points; 95% interval)."""
    frames = []
    for players in players_list:
        matrix = tournament_frames(tournament_dir(out, players))["matrix"]
        policy = strategy_label(load_study(out)["policies"][str(players)])
        frames.append(matrix.filter(pl.col("strategy") == policy).select(
            pl.lit(players, pl.Int64).alias("players"), pl.col("strategy").alias("policy"),
            pl.col("opponent").alias("preset"), "decided", "win_rate", "low", "high", "deals", "points_gap",
            "gap_low", "gap_high"))
    return pl.concat(frames)


def strategy_label(text: str) -> str:
    """The label a tournament gives the strategy ``text`` (its changed parameters only)."""
    return parse_strategy(get_game("kamoul"), text).label()


def scan_samples(out, folder: str = "samples") -> pl.LazyFrame:
    """Every sample of the study at ``out`` (``samples``: from :data:`STRATEGY`'s play; ``samples-policy``: from
    the derived policy's) with its ``players`` column (a lazy scan: no need to fit in memory)."""
    files = checked_files(sorted((Path(out) / folder).glob("players=*/*.parquet")))  # checksummed, listed only
    return pl.scan_parquet([str(f) for f in files], hive_partitioning=True)


def load_study(out, field: str = "--out") -> dict:
    return load_study_file(out, STUDY_NAME, field)


def played_strategy(strategy: str, players: int) -> str:
    """The strategy whose play is sampled at ``players``: for ``tuned`` (:data:`STRATEGY`), the tuned preset of that
    player count (``tuned-2p`` at 2, ``tuned-4p`` at 3, 4 and 6); any other strategy itself."""
    if strategy != STRATEGY:
        return strategy
    return tuned_preset(get_game("kamoul").strategies, players)


def _rules_and_seats(players: int, strategy: str = STRATEGY, options: dict | None = None, seed: int = 0):
    spec = build_spec("kamoul", n=1, seed=seed, players=players, strategies=[played_strategy(strategy, players)],
                      options=options)
    return rules_of(spec), seats_of(spec)


def sample_frame(rows: np.ndarray) -> pl.DataFrame:
    """Sample rows (``int64[n, len(COLUMNS)]``) as a frame; the outcome codes become their names (``String``)."""
    frame = pl.DataFrame(rows, schema=list(COLUMNS), orient="row")
    return frame.with_columns(pl.col(c).replace_strict(list(range(len(OUTCOMES))), list(OUTCOMES), return_dtype=pl.Utf8)
                              for c in ("call_outcome", "play_outcome"))


def _run_samples(out, players: int, n: int, seed: int, threads, progress: bool, strategy: str = STRATEGY,
                 folder: str = "samples", options: dict | None = None) -> bool:
    """Sample games ``[0, n)`` of ``strategy`` at ``players`` under the rule ``options`` into part files of
    :data:`CHUNK` games (resumable)."""
    rules, seats = _rules_and_seats(players, strategy, options)
    parts = Workdir(sample_dir(out, players, folder))
    parts.path.mkdir(parents=True, exist_ok=True)
    starts = range(0, n, CHUNK)
    try:
        with progress_of(n, _("{study} rollouts {players}p {strategy}").format(study=STUDY_NAME, players=players, strategy=strategy), "manches", enabled=progress,
                         nested=True) as bar:
            for start in starts:
                stop = min(n, start + CHUNK)
                part = f"part-{start:010d}-{stop:010d}.parquet"
                if not parts.is_written(part):  # missing, damaged or never recorded
                    parts.write_frame(part, sample_frame(rows=sample_kernel(rules, seats, seed, start, stop, threads)))
                bar.update(stop - start)
    except KeyboardInterrupt:
        return False
    return True


STRATEGY_HELP = ("the strategy whose play the states are sampled from and which plays on (default tuned: the tuned "
                 "preset of each player count, tuned-2p at 2 players, tuned-4p at 3, 4 and 6)")


def opponents(played: str) -> list[str]:
    """Who the derived policy plays in the tournaments: the strategy it was derived from (its own call rule, every
    other decision the same) and :data:`PRESETS`."""
    return [played] + [p for p in PRESETS if p != played]


def plan(out, *, n: int, game: str = "kamoul", seed: int = 0, players=None, threads: int | None = None,
         chunk_size: int | None = None, rules: dict | None = None, strategies=None) -> Plan:
    """The study's plan (:func:`simulator.core.run.plan.execute` runs it into ``out``): ``n`` sampled manches per
    player count (steps ``samples-<P>p``); the policy they imply, recorded in the study file (``policies``); the
    same sampling from the policy's own play (``samples-policy-<P>p``: is the policy a fixed point?); one
    tournament of the policy against :data:`PRESETS` per player count (``n`` manches per seating). ``rules``:
    the rule options everything is played under; ``strategies``: one strategy, :data:`STRATEGY_HELP`."""
    players = check_players(PLAYERS if players is None else players)
    n = check_games(n, "manches sampled per player count and per seating of its tournaments")
    check_study_settings(n=n, seed=seed, threads=threads, chunk_size=chunk_size)
    rules = check_study_rules(game, rules, players[0])
    named = [str(s) for s in strategies or ()] != [STRATEGY]
    strategy = ((check_study_strategies(game, strategies, at_most=1, what=STRATEGY_HELP) if named else None)
                or [STRATEGY])[0]
    out = Path(out)
    played = {str(p): played_strategy(strategy, p) for p in players}
    inputs = {"game": game, "n": n, "seed": seed, "players": list(players), "strategy": strategy, "played": played,
              "presets": list(PRESETS), "tournament_level": TOURNAMENT_LEVEL, "rules": rules}
    for p in players:  # every setting, checked before anything runs (the policy is not known yet)
        _rules_and_seats(p, strategy, rules)
        tournament_batch(game, strategies=["call-table", *opponents(played[str(p)])], n=n, seed=seed, players=p,
                         level=TOURNAMENT_LEVEL, options=rules)
    policies: dict[str, str] = {}

    def sampling(p, played, folder):
        return Step(lambda progress: _run_samples(out, p, n, seed, threads, progress, played(), folder, rules))

    def tournament(p):
        return tournament_batch(game, strategies=[policies[str(p)], *opponents(played[str(p)])], n=n, seed=seed,
                                players=p, level=TOURNAMENT_LEVEL, options=rules)

    def after(name):
        if name == f"samples-{players[-1]}p":  # every player count sampled: the policy they imply
            policy = derive_policy(call_value(scan_samples(out), keys=KNOWN_KEYS))
            policies.update({str(p): policy_strategy(policy, p, played[str(p)]) for p in players})
            return {"policies": dict(policies)}
        return None

    parts = [Part(f"samples-{p}p", lambda p=p: sampling(p, lambda: strategy, "samples")) for p in players]
    parts += [Part(f"samples-policy-{p}p", lambda p=p: sampling(p, lambda: policies[str(p)], "samples-policy"))
              for p in players]
    parts += [Part(tournament_dir(out, p).name, lambda p=p: tournament(p), stores=batch_frames) for p in players]
    return Plan(STUDY_NAME, game, inputs, "same -n, --seed, --players, --option, --strategy", parts, study_frames, after,
                record={"policies": {}})


def study_frames(out) -> dict[str, pl.DataFrame]:
    """The study's frames, from its samples and tournaments: ``call_value`` (per players x zone x unseen x known
    x turn), ``policy`` (:func:`derive_policy` of the cells pooled by known points), ``policy_check`` (the policy
    derived again from the policy's own play), ``by_known`` (pooled over zone and turn), ``by_turn`` (pooled over
    zone and known points, all-known layouts of at most 5 points), ``by_zone``, ``gain``."""
    out = Path(out)
    players = load_study(out)["inputs"]["players"]
    samples = scan_samples(out)
    by_known = call_value(samples, keys=KNOWN_KEYS)
    policy = derive_policy(by_known)
    again = derive_policy(call_value(scan_samples(out, "samples-policy"), keys=KNOWN_KEYS))
    fully_known_valid = samples.filter((pl.col("unknown") == 0) & (pl.col("known") <= 5))
    return {
        "call_value": call_value(samples),
        "policy": policy,
        "policy_check": policy_check(policy, again),
        "by_known": by_known,
        "by_turn": call_value(fully_known_valid, keys=("players", "turn_bucket")),
        "by_zone": call_value(samples, keys=("players", "zone", "unseen")),
        "gain": policy_gain(out, players),
    }


def parse_known(text: str) -> tuple[int, ...]:
    """``"2 3 RK"`` (spaces or commas) → rank codes; :class:`SpecError` on ``--known`` otherwise."""
    allowed = " ".join(RANK_CODES)
    codes = []
    for token in str(text).replace(",", " ").split():
        t = token.upper()
        t = "A" if t in ("1", "AS") else ("10" if t == "T" else t)
        if t == "K":
            raise SpecError("--known", token, "RK (red king, 0 points) or BK (black king, 15 points)",
                            "is ambiguous")
        if t not in RANK_CODES:
            raise SpecError("--known", token, f"cards among {allowed}, separated by spaces or commas")
        codes.append(RANK_CODES.index(t))
    return tuple(codes)


def check_situation(known: str, unknown: int, turn: int, cumulative: int) -> Situation:
    codes = parse_known(known)
    if isinstance(unknown, bool) or not isinstance(unknown, int) or unknown < 0:
        raise SpecError("--unknown", unknown, "a number of own cards not seen, >= 0")
    if not 1 <= len(codes) + unknown <= FC_SPEC_MAX:
        raise SpecError("--known/--unknown", f"{len(codes)}+{unknown} cards",
                        f"between 1 and {FC_SPEC_MAX} own cards in all")
    if isinstance(turn, bool) or not isinstance(turn, int) or not 1 <= turn <= 100:
        raise SpecError("--turn", turn, "your own turn number in the hand, 1 to 100")
    if isinstance(cumulative, bool) or not isinstance(cumulative, int) or not -30 <= cumulative <= 31:
        raise SpecError("--cumulative", cumulative, "a cumulative score from -30 to 31 (the manche is still on)")
    return Situation(codes, unknown, turn, cumulative)


def check_possible(situation: Situation, hand_size: int, decks: int) -> None:
    """:class:`SpecError` for a situation no deal can reach: more own cards than the hand is dealt (K2; a hand grows
    only by penalty cards, which the sampled play never gives before a call), or more copies of a rank than the
    decks hold (4 per deck, 2 red and 2 black kings)."""
    total = len(situation.known) + situation.unknown
    if total > hand_size:
        raise SpecError("--known/--unknown", f"{len(situation.known)}+{situation.unknown} cards",
                        f"at most hand_size = {hand_size} own cards in all (--option hand_size=N for another deal)")
    for code in set(situation.known):
        count = situation.known.count(code)
        most = (2 if code in (RANK_CODE_RED_KING, RANK_CODE_BLACK_KING) else 4) * decks
        if count > most:
            raise SpecError("--known", " ".join(RANK_CODES[c] for c in situation.known),
                            f"at most {most} {RANK_CODES[code]} with {decks} deck(s)", f"holds {count}")


def advise(*, known: str, unknown: int, turn: int, players: int, cumulative: int = 0, strategy: str = STRATEGY,
           options: dict | None = None, seed: int = 0, samples: int = 20_000, max_games: int = 1_000_000,
           threads: int | None = None) -> dict:
    """Call KAMOUL now or play on, in one situation: rollouts of both branches on the same deals, from hands
    of ``strategy`` at every seat in which your own turn ``turn`` comes with nobody having called, your layout
    then being the ``known`` cards and ``unknown`` unseen ones. Plays batches of games until ``samples``
    situations (or ``max_games`` games). Returns the estimates with 95% intervals and the advice."""
    situation = check_situation(known, unknown, turn, cumulative)
    if isinstance(samples, bool) or not isinstance(samples, int) or not 100 <= samples <= max_games:
        raise SpecError("--samples", samples, f"a number of sampled situations from 100 to {max_games:,} (at most one "
                        "per hand, and advise plays at most that many hands)")
    rules, seats = _rules_and_seats(players, strategy, options, seed)
    check_possible(situation, rules.hand_size, rules.n_decks)
    parts, games, batch = [], 0, 50_000
    while games < max_games and sum(len(p) for p in parts) < samples:
        stop = min(max_games, games + batch)
        parts.append(advise_kernel(rules, seats, situation, seed, games, stop, threads))
        games, batch = stop, min(batch * 2, 800_000)
    rows = np.concatenate(parts)
    frame = sample_frame(rows)
    n = frame.height
    result = {"situation": situation.text(), "players": players, "strategy": strategy, "seed": seed,
              "rules": rules_text("kamoul", check_study_rules("kamoul", options, players)),
              "games": games, "samples": n, "reach_rate": n / games}
    if n == 0:
        return {**result, "advice": "no answer", "reason": f"in {games:,} hands somebody always called before "
                                                           f"your turn {turn}"}
    s = call_value(frame.with_columns(pl.lit(players).alias("players")), keys=("players",)).row(0, named=True)
    result.update({k: s[k] for k in s if k not in ("players", "n")})
    result["advice"] = ("call" if s["gain_low"] > 0 else "play on" if s["gain_high"] < 0 else
                        "either (the difference is within the noise)")
    return result


def format_advice(r: dict) -> str:
    """The answer of :func:`advise` as a few lines of text."""
    head = f"Kamoul, {r['rules']}, {r['players']} players, assuming {r['strategy']} play: {r['situation']}"
    if r["samples"] == 0:
        return f"{head}\n  no answer: {r['reason']}"

    def pct(k):
        return f"{100 * r[k]:5.1f}% [{100 * r[k + '_low']:.1f}, {100 * r[k + '_high']:.1f}]"

    def pts(k):
        return f"{r[k]:+6.2f} [{r[k + '_low']:+.2f}, {r[k + '_high']:+.2f}]"

    return "\n".join([
        head,
        f"  advice: {r['advice'].upper()}: calling saves {pts('gain').strip()} points on average (95% interval; "
        "negative = it costs points)",
        f"  call now: win the hand {pct('call_win')}   expected points {pts('call_points')}   "
        f"false call {pct('false_call')}",
        f"  play on : win the hand {pct('play_win')}   expected points {pts('play_points')}",
        f"  ({r['samples']:,} situations from {r['games']:,} hands, seed {r['seed']}; "
        f"the situation arose in {100 * r['reach_rate']:.1f}% of hands)",
    ])


# --- the answer ------------------------------------------------------------------------------------------


def call_region_gain(samples: pl.LazyFrame | pl.DataFrame, policy: pl.DataFrame) -> pl.DataFrame:
    """Per player count: the points per hand calling saves against playing on (``gain`` with its 95% interval,
    ``n`` sampled decisions) over the decisions the policy says to call in (known total at most its threshold for
    that many unseen cards)."""
    rules = policy.select("players", "unseen", "threshold").lazy()
    region = with_features(samples).join(rules, on=["players", "unseen"]).filter(
        pl.col("known") <= pl.col("threshold"))
    sums = region.group_by("players").agg(pl.len().alias("n"), pl.col("gain").sum().alias("s"),
                                           (pl.col("gain") ** 2).sum().alias("q")).sort("players").collect()
    rows = []
    for r in sums.iter_rows(named=True):
        gain, low, high = mean_interval(r["s"], r["q"], r["n"])
        rows.append({"players": r["players"], "n": r["n"], "gain": gain, "gain_low": low, "gain_high": high})
    return pl.DataFrame(rows, schema={"players": pl.Int64, "n": pl.Int64, "gain": pl.Float64,
                                      "gain_low": pl.Float64, "gain_high": pl.Float64})


def _same_play(points: dict) -> bool:
    """Whether a paired points gap is exactly zero on every deal (interval [0, 0]): the rule and that player made
    the same decisions in every game, so the comparison cannot change anything."""
    return points["value"] == 0 and points["low"] == 0 and points["high"] == 0


def _rule_words(rule: list[tuple[int, dict]]) -> str:
    """The call rule of one player count in words, from its ``(unseen, call rule row)`` pairs: each unseen
    count's highest known total, the counts from which on it never pays said once."""
    rule = sorted(rule, key=lambda pair: pair[0])
    never_from = len(rule)
    while never_from > 0 and rule[never_from - 1][1]["value"] < 0:
        never_from -= 1

    def cards(u: int) -> str:
        return _("every own card seen") if u == 0 else ngettext("{count} unseen card", "{count} unseen cards", u).format(count=u)

    parts = [_("at most {total} with {cards}").format(total=say(r), cards=cards(u)) if r["value"] >= 0
             else _("never with {cards}").format(cards=cards(u)) for u, r in rule[:never_from]]
    if never_from < len(rule):
        u = rule[never_from][0]
        parts.append(_("never with an unseen card") if u == 1 else
                     _("never with {count} or more unseen cards").format(count=u))
    return _("call KAMOUL when the known total is {rule}").format(rule=", ".join(parts))


def answer(out):
    """The study's verdict (:class:`analysis.answers.Answer`): per player count, the call rule (the highest known
    total at which calling pays, by number of unseen own cards), the points per hand calling saves there against
    playing on, and the rule's result against each preset in whole manches (points per hand beside)."""
    out = Path(out)
    data = load_study(out)
    frames = stored_frames(out, ("policy", "gain"))
    policy, gain = frames["policy"], frames["gain"]
    region = call_region_gain(scan_samples(out), policy)
    rows, sentences = [], []
    for players in data["inputs"]["players"]:
        rule = [(r["unseen"], number("call rule", f"{players} players, {r['unseen']} unseen", "highest known total "
                                     "at which calling pays (-1: never)", r["threshold"], n=r["samples"],
                                     unit="sampled decisions", kind="count"))
                for r in policy.filter(pl.col("players") == players).iter_rows(named=True)]
        saved = region.filter(pl.col("players") == players)
        if saved.height:
            s = saved.row(0, named=True)
            saved_row = number("points saved by calling", f"{players} players", "points per hand saved against "
                               "playing on, where the rule calls", s["gain"], s["gain_low"], s["gain_high"], n=s["n"],
                               unit="sampled decisions", kind="delta",
                               status=significance(s["gain_low"], s["gain_high"]))
        else:
            saved_row = None
        against = []
        for g in gain.filter(pl.col("players") == players).iter_rows(named=True):
            won = number("against the presets", f"{players} players, against {g['preset']}", "share of decided "
                         "manches the rule wins", g["win_rate"], g["low"], g["high"], n=g["decided"],
                         unit="decided manches", kind="share", status=significance(g["low"], g["high"], 0.5))
            points = number("against the presets", f"{players} players, against {g['preset']}", "points per hand, "
                            "rule minus preset (lower is better)", g["points_gap"], g["gap_low"], g["gap_high"],
                            n=g["deals"], unit="deals", kind="delta", status=significance(g["gap_low"], g["gap_high"]))
            against.append((g["preset"], won, points))
        rows += [r for _, r in rule] + ([saved_row] if saved_row else []) + [r for _, w, p in against for r in (w, p)]
        text = _("{players} players: {rule}").format(players=players, rule=_rule_words(rule))
        if saved_row:
            text += _("; there calling saves {saved} points per hand against playing on ({n} decisions)").format(
                saved=say(saved_row), n=written(saved_row["n"], 0))
        if against:
            text += _("; the rule wins, of decided manches (points per hand beside, lower is better), against "
                      "{results}").format(results=", ".join(
                          f"{preset} " + (_("50% (the same games: it already plays this rule)") if _same_play(p)
                                          else f"{say(w)} ({say(p)})") for preset, w, p in against))
        sentences.append(text + ".")
    played = data["inputs"].get("played") or {}
    strategy = "/".join(dict.fromkeys(played.values())) or data["inputs"]["strategy"]
    holds = _("Kamoul, {rules}, {strategy} play").format(rules=rules_text("kamoul", data["inputs"].get("rules")),
                                                         strategy=strategy)
    limits = _limits(out, data["inputs"]["players"], policy, gain, played)
    return Answer(STUDY_NAME, "kamoul", holds, tuple(sentences), frame_of(rows), headline=_headline(limits),
                  table=_table(limits))


POINTS_MARGIN = 0.25
"""Points per hand within which calling and playing on are even: a saving whose 95% interval lies inside ±0.25 is
break-even; one whose interval is wider and holds 0 is tentative (a quarter point a hand is about 5 points over a
manche of twenty hands, less than one card)."""
SHARE_MARGIN = 0.02
"""A share of decided manches within 50% ± 2 points is even between two players."""


def _limits(out, players_list, policy: pl.DataFrame, gain: pl.DataFrame, played: dict) -> list[dict]:
    """Per player count, what the headline and the table say: ``rule`` ({unseen: threshold}), ``limit`` (the
    :data:`analysis.answers.SCHEMA`-like row of the points calling saves at the highest all-seen total the rule
    calls at, or ``None`` when it never calls) with its :class:`Certainty`, and ``own`` (the rule's share of decided
    manches against the player it was derived from, or ``None`` when both played the same games)."""
    by_known = stored_frames(out, ("by_known",)).get("by_known")
    if by_known is None:
        by_known = call_value(scan_samples(out), keys=KNOWN_KEYS)
    limits = []
    for players in players_list:
        rule = {r["unseen"]: r["threshold"] for r in policy.filter(pl.col("players") == players).iter_rows(named=True)}
        limit = certain = None
        if rule.get(0, -1) >= 0:
            cell = by_known.filter((pl.col("players") == players) & (pl.col("unseen") == 0)
                                   & (pl.col("known_cell") == rule[0]))
            if cell.height:
                c = cell.row(0, named=True)
                limit = number("call rule", f"{players} players", "points per hand calling saves at the limit",
                               c["gain"], c["gain_low"], c["gain_high"], n=c["n"], unit="sampled decisions",
                               kind="delta")
                certain = certainty(c["gain_low"], c["gain_high"], c["n"], POINTS_MARGIN)
        own = None
        sampled = played.get(str(players))
        rows = gain.filter((pl.col("players") == players) & (pl.col("preset") == strategy_label(sampled))) \
            if sampled else gain.head(0)
        if rows.height:
            g = rows.row(0, named=True)
            same = g["points_gap"] == 0 and g["gap_low"] == 0 and g["gap_high"] == 0
            if not same:
                own = number("against the presets", f"{players} players", "share of decided manches the rule wins",
                             g["win_rate"], g["low"], g["high"], n=g["decided"], unit="decided manches", kind="share")
                own["certainty"] = certainty(g["low"], g["high"], g["decided"], SHARE_MARGIN, 0.5)
        limits.append({"players": players, "rule": rule, "limit": limit, "certainty": certain, "own": own})
    return limits


def _at_most(threshold: int) -> str:
    return _("never") if threshold < 0 else _("{total} or less").format(total=threshold)


def _where(players: list[int]) -> str:
    return _("heads-up") if players == [2] else _("at {players} players").format(players=spoken_list(players))


def _headline(limits: list[dict]) -> tuple[str, ...]:
    """At most three sentences of at most :data:`analysis.answers.WIDTH` characters: the all-seen rule (the most
    common one, the other player counts in brackets), the rule with unseen cards, and where the limit is break-even
    or tentative."""
    seen: dict[int, list[int]] = {}
    for item in limits:
        seen.setdefault(item["rule"].get(0, -1), []).append(item["players"])
    common = max(seen, key=lambda t: (len(seen[t]), 4 in seen[t], t))
    others = [_("{rule} {where}").format(rule=_at_most(t), where=_where(ps)) for t, ps in seen.items() if t != common]
    if common < 0:
        first = _("Never call KAMOUL, even with every own card seen")
    else:
        first = _("Call KAMOUL once all your cards are seen and total {total} or less").format(total=common)
    sentence = first + (" (" + "; ".join(others) + ")." if others else ".")
    if len(sentence) > WIDTH:
        sentence = first + _(" (other table sizes: see below).")
    sentences = [sentence, _unseen_sentence(limits)]
    even = [i["players"] for i in limits if i["certainty"] and i["certainty"].word == "even"]
    unsure = [i["players"] for i in limits if i["certainty"] and i["certainty"].word == "tentative"]
    if even and unsure:
        sentences.append(_("Break-even at the limit at {even} players; tentative at {unsure}: too few decisions.")
                         .format(even=spoken_list(even), unsure=spoken_list(unsure)))
    elif even:
        sentences.append(_("At the limit it is break-even at {players} players: calling or playing on, the same.")
                         .format(players=spoken_list(even)))
    elif unsure:
        sentences.append(_("Tentative at {players} players: too few decisions to be sure (see below).").format(
            players=spoken_list(unsure)))
    return tuple(sentences)


def _unseen_sentence(limits: list[dict]) -> str:
    """The rule with unseen own cards: "Never with an unseen card." or each unseen count's limit."""
    counts = sorted({u for i in limits for u in i["rule"] if u > 0})
    calling = [u for u in counts if any(i["rule"].get(u, -1) >= 0 for i in limits)]
    if not calling:
        return _("Never with an unseen card.")
    parts = []
    for u in calling:
        by_total: dict[int, list[int]] = {}
        for i in limits:
            by_total.setdefault(i["rule"].get(u, -1), []).append(i["players"])
        where = "; ".join(_("{rule} {where}").format(rule=_at_most(t), where=_where(ps)) if len(by_total) > 1
                          else _at_most(t) for t, ps in by_total.items())
        parts.append(ngettext("with {count} unseen card: {rule}", "with {count} unseen cards: {rule}", u).format(
            count=u, rule=where))
    sentence = "; ".join(parts)
    sentence = sentence[0].upper() + sentence[1:] + "."
    return sentence if len(sentence) <= WIDTH else _("With unseen cards the limit is lower: see the table.")


def _table(limits: list[dict]) -> Table:
    """One row per player count: the limit with every own card seen, with unseen cards, what calling saves at the
    limit (95% interval, even or tentative) and the rule's share of decided manches against the tuned player it was
    derived from; the notes say what a tentative cell needs."""
    rows, notes = [], []
    for i in limits:
        unseen = [(u, t) for u, t in sorted(i["rule"].items()) if u > 0 and t >= 0]
        limit, own = i["limit"], i["own"]
        saved = "–"
        if limit is not None:
            saved = f"{say(limit)} {certainty_word(i['certainty'])}".rstrip()
            if i["certainty"].word == "even":
                notes.append(_("{players} players: at {total} it is even: calling saves {saved} points a hand.").format(
                    players=i["players"], total=i["rule"][0], saved=say(limit)))
            elif i["certainty"].word == "tentative":
                notes.append(_tentative_note(i["players"], i["certainty"], _("decisions")))
        against = _("same play")
        if own is not None:
            against = f"{say(own)} {certainty_word(own['certainty'])}".rstrip()
            if own["certainty"].word == "tentative":
                notes.append(_tentative_note(i["players"], own["certainty"], _("manches")))
        rows.append((str(i["players"]), "≤ " + str(i["rule"][0]) if i["rule"].get(0, -1) >= 0 else _("never"),
                     ", ".join(f"{u}: ≤ {t}" for u, t in unseen) or _("never"), saved, against,
                     written(limit["n"], 0) if limit is not None else "0"))
    columns = (_("players"), _("all seen"), _("unseen"), _("saved at the limit (points)"), _("vs own rule"), _("decisions"))
    return Table(columns, tuple(rows), tuple(notes))


def _tentative_note(players: int, certain, unit: str) -> str:
    return _("{players} players: tentative ({n} {unit}; about {more} more would settle it).").format(
        players=players, n=written(certain.n, 0), unit=unit, more=written(certain.more, 0))
