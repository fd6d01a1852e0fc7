"""The Kem's output tables: column order of the engines' integer rows, and their conversion to polars.

Both engines produce the same raw rows: per table an ``int64[rows, cols]`` array with the fixed columns, then
the per-team columns (team A first; ``<name>_A``, ``_B``, ``_C``), then the per-seat ones (``<name>_0`` …),
plus one ``uint64`` event-trace hash per manche. Teams: seat ``p`` plays for team ``p mod (P/2)`` (KM1).

* ``manches``: game and manche index, dealer, how it ended (:data:`simulator.kems.vocabulary.codes.OUTCOMES`), the seat
  whose call ended it and why it called (a sign it saw, an inference, a false alarm), ticks, sweeps,
  exchanges, KM7 reshuffles, KM3 re-deals, calls made, wrong contres; per team the points of the manche, the
  total after it, the signs it made, how many its partner saw and how many sightings by opponents; per seat
  its exchanges and the first tick it held four of a kind (-1 never).
* ``games``: game, manches played, first dealer, the winning teams as a bit mask and the single winning team
  (-1 on a shared win); per team the final total.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.kernels.named import indices
from simulator.kems.vocabulary.codes import OUTCOMES

TABLES = {"manches": ("manches",), "games": ("manches", "games")}
TEAM_NAMES = "ABC"
WHY = ("sign", "inference", "false alarm")

MANCHE_FIXED = ("game", "manche", "dealer", "outcome", "caller", "why", "ticks", "sweeps", "exchanges", "reshuffles",
                "redeals", "calls", "wrong_contres")
MANCHE_TEAM = ("points", "total", "signs", "seen_partner", "seen_opp")
MANCHE_SEAT = ("exchanges", "four_tick")
GAME_FIXED = ("game", "manches", "first_dealer", "winners", "winner")
GAME_TEAM = ("total",)

LAYOUT = {"manches": (MANCHE_FIXED, MANCHE_TEAM, MANCHE_SEAT), "games": (GAME_FIXED, GAME_TEAM, ())}
MANCHE = indices("MancheColumns", MANCHE_FIXED)   # rows[:, MANCHE.ticks]
GAME = indices("GameColumns", GAME_FIXED)

_DTYPES = {"outcome": pl.Int8, "why": pl.Int8, "game": pl.Int64, "manche": pl.Int32, "dealer": pl.Int8, "caller": pl.Int8, "ticks": pl.Int32,
           "sweeps": pl.Int32, "exchanges": pl.Int32, "reshuffles": pl.Int16, "redeals": pl.Int16, "calls": pl.Int16,
           "wrong_contres": pl.Int16, "manches": pl.Int32, "first_dealer": pl.Int8, "winners": pl.Int8,
           "winner": pl.Int8}
_GROUP_DTYPES = {"points": pl.Int16, "total": pl.Int32, "signs": pl.Int32, "seen_partner": pl.Int32,
                 "seen_opp": pl.Int32, "exchanges": pl.Int32, "four_tick": pl.Int32}
OUTCOME_ENUM = pl.Enum(list(OUTCOMES))
WHY_ENUM = pl.Enum(list(WHY))


def n_cols(table: str, players: int) -> int:
    fixed, team, seat = LAYOUT[table]
    return len(fixed) + len(team) * (players // 2) + len(seat) * players


def column_names(table: str, players: int) -> list[str]:
    fixed, team, seat = LAYOUT[table]
    return (list(fixed) + [f"{name}_{TEAM_NAMES[t]}" for name in team for t in range(players // 2)]
            + [f"{name}_{p}" for name in seat for p in range(players)])


def team_column(table: str, players: int, name: str, team: int) -> int:
    """Index of ``name_<team letter>`` in a raw row."""
    return column_names(table, players).index(f"{name}_{TEAM_NAMES[team]}")


def seat_column(table: str, players: int, name: str, seat: int) -> int:
    return column_names(table, players).index(f"{name}_{seat}")


def to_frame(table: str, rows: np.ndarray, players: int, labels: list[str],
             traces: np.ndarray | None = None) -> pl.DataFrame:
    """Typed frame of one table from its raw ``int64[rows, cols]`` array (``labels``: each seat's strategy)."""
    fixed = LAYOUT[table][0]
    cols = {}
    for i, name in enumerate(column_names(table, players)):
        dtype = _DTYPES[name] if name in fixed else _GROUP_DTYPES[name.rsplit("_", 1)[0]]
        cols[name] = pl.Series(name, rows[:, i], dtype=pl.Int64).cast(dtype)
    frame = pl.DataFrame(cols)
    if table == "manches":
        why = rows[:, MANCHE.why]
        frame = frame.with_columns(
            pl.Series("outcome", list(OUTCOMES), dtype=OUTCOME_ENUM).gather(rows[:, MANCHE.outcome]).alias("outcome"),
            pl.Series("why", [WHY[w] if w >= 0 else None for w in why], dtype=WHY_ENUM),
        )
        if traces is not None:
            frame = frame.with_columns(pl.Series("trace", traces, dtype=pl.UInt64))
    strategy_cols = [pl.lit(labels[p], dtype=pl.String).alias(f"strategy_{p}") for p in range(players)]
    return frame.with_columns(strategy_cols)
