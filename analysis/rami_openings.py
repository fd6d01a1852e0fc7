"""Study 2 — Rami openings (issue 5 item 5): every named opening strategy against the others at several
player counts, the 51 threshold and the joker rules, as one directory of ordinary batches.

Layout of a study directory ``OUT``::

    OUT/_study.json                  the study's inputs and its parts
    OUT/tournament-<P>p/             a tournament of :data:`STRATEGIES` at P players (a batch directory)
    OUT/threshold/                   a sweep of ``opening_points`` (open-asap everywhere)
    OUT/jokers/                      a sweep of ``joker_swap`` x ``joker_opening_value``
    OUT/opening_turns.parquet        :func:`opening_turns` of every tournament
    OUT/rami_sec.parquet             :func:`rami_sec` of every tournament
    OUT/ratings.parquet              every tournament's Bradley–Terry ratings (strategies across player counts)

Every part is a resumable batch, so re-running the same study resumes it. The frames are pure functions of
the tournaments' rounds tables (:func:`seat_rounds`): one row per round and seat, with the seat's strategy.
"""

from __future__ import annotations

from pathlib import Path

import polars as pl

from analysis.stats import mean_interval, wilson
from analysis.studies import (STUDY_FILE, check_players, check_rounds, check_same_study, check_study_settings,
                              load_study_file, open_study, run_parts)

STUDY_NAME = "rami-openings"
STRATEGIES = ("open-asap", "open-big", "rami-sec-hunter", "joker-keeper")
PLAYERS = (2, 3, 4, 6)
THRESHOLDS = (40, 51, 61, 71)
JOKER_GRIDS = ("joker_swap=must_reuse,free,forbidden", "joker_opening_value=zero,represented")
NEVER = -1  # open_turn of a seat that never opened in the round


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


def study_frames(out) -> dict[str, pl.DataFrame]:
    """``opening_turns``, ``rami_sec`` and ``ratings`` (each tournament's Bradley–Terry ratings, for the strategies
    across player counts) of every tournament of the study at ``out``, a ``players`` column first."""
    from analysis.batches import tournament_frames
    from simulator.core.batch import read_batch

    turns, secs, ratings = [], [], []
    for players in load_study(out)["inputs"]["players"]:
        seats = seat_rounds(read_batch(tournament_dir(out, players), "rounds"), players)
        tag = pl.lit(players, pl.Int64).alias("players")
        turns.append(opening_turns(seats).select(tag, pl.all()))
        secs.append(rami_sec(seats).select(tag, pl.all()))
        ratings.append(tournament_frames(tournament_dir(out, players))["ratings"].select(tag, pl.all()))
    return {"opening_turns": pl.concat(turns), "rami_sec": pl.concat(secs), "ratings": pl.concat(ratings)}


def load_study(out, field: str = "--out") -> dict:
    return load_study_file(out, STUDY_NAME, field)


def run(out, *, n: int, game: str = "rami", seed: int = 0, players=None, thresholds=THRESHOLDS,
        sweep_players: int = 4, threads: int | None = None, chunk_size: int | None = None,
        progress: bool = True) -> dict:
    """Run (or resume) the study into ``out``: one tournament of :data:`STRATEGIES` per player count, the
    ``opening_points`` sweep and the joker-rules sweep at ``sweep_players`` players; then write the frames.
    Returns ``{"path", "interrupted", "frames"}`` (``frames`` ``None`` when interrupted)."""
    from simulator import api
    from simulator.core.batch import _write_json_atomic, write_frame

    players = check_players(PLAYERS if players is None else players)
    n = check_rounds(n)
    check_study_settings(n=n, seed=seed, threads=threads, chunk_size=chunk_size)
    out = Path(out)
    inputs = {"game": "rami", "n": n, "seed": seed, "players": list(players), "strategies": list(STRATEGIES),
              "thresholds": list(thresholds), "joker_grids": list(JOKER_GRIDS), "sweep_players": sweep_players}
    check_same_study(out, STUDY_NAME, inputs, "same -n, --seed, --players")
    with open_study(out, STUDY_NAME, inputs, "same -n, --seed, --players"):
        parts = [(f"tournament-{p}p", lambda p=p: api.tournament(
            "rami", strategies=list(STRATEGIES), out=tournament_dir(out, p), n=n, seed=seed, players=p, threads=threads,
            chunk_size=chunk_size, progress=progress)) for p in players]
        parts.append(("threshold", lambda: api.sweep(
            "rami", out=out / "threshold", n=n, seed=seed, players=sweep_players,
            seats=[0], option_grids=[f"opening_points={','.join(str(t) for t in thresholds)}"], threads=threads,
            chunk_size=chunk_size, progress=progress)))
        parts.append(("jokers", lambda: api.sweep(
            "rami", out=out / "jokers", n=n, seed=seed, players=sweep_players, seats=[0], option_grids=list(JOKER_GRIDS),
            threads=threads, chunk_size=chunk_size, progress=progress)))
        _write_json_atomic(out / STUDY_FILE, {"study": STUDY_NAME, "game": "rami", "inputs": inputs,
                                              "parts": [name for name, _ in parts]})
        if not run_parts(parts, f"study {STUDY_NAME}", progress):
            return {"path": out, "interrupted": True, "frames": None}
        frames = study_frames(out)
        for name, frame in frames.items():
            write_frame(out / f"{name}.parquet", frame)
        return {"path": out, "interrupted": False, "frames": frames}
