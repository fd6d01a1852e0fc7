"""The Rami output tables: column order of the engines' integer rows, and their conversion to polars.

Both engines produce the same raw rows: per table an ``int64[rows, cols]`` array in the column order
below (per-seat columns last, seat 0 first), plus one ``uint64`` event-trace hash per round.

* ``rounds``: one row per round: who dealt and played first, the winner (-1 without one), the outcome
  (:data:`simulator.rami.vocabulary.codes.OUTCOMES`), turns, R10 claims, R14 reshuffles, melds on the table at the end,
  jokers laid on the table (in new melds and lay-offs, an R9 re-laid joker included) and jokers taken back by
  R9 swaps; per seat the round's points, the cumulative total after it, the own turn of the opening (-1
  never), the cards left in hand and the opening's R7 points (``joker_opening_value`` applied; for a rami
  sec, R12, what its whole-hand lay-down was worth, 51 not needed; -1 never).
* ``games``: one row per game: rounds played, the first dealer (R2), the winners as a bit mask and the
  single winner (-1 on a shared win); per seat the final total (R15).
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl

from simulator.core import records
from simulator.core.kernels.named import indices
from simulator.rami.vocabulary.codes import OUTCOMES

TABLES = {"rounds": ("rounds",), "games": ("rounds", "games")}

ROUND_FIXED = ("game", "round", "dealer", "first", "winner", "outcome", "turns", "claims", "reshuffles", "melds",
               "jokers_laid", "jokers_swapped")
ROUND_SEAT = ("points", "total", "open_turn", "cards_left", "open_points")
GAME_FIXED = ("game", "rounds", "first_dealer", "winners", "winner")
GAME_SEAT = ("total",)

LAYOUT = {"rounds": (ROUND_FIXED, ROUND_SEAT), "games": (GAME_FIXED, GAME_SEAT)}
ROUND = indices("RoundColumns", ROUND_FIXED)           # rows["rounds"][:, ROUND.winner]
ROUND_PER_SEAT = indices("RoundSeatColumns", ROUND_SEAT)  # block of seat columns: see seat_column
GAME = indices("GameColumns", GAME_FIXED)
GAME_PER_SEAT = indices("GameSeatColumns", GAME_SEAT)

_DTYPES = {
    "game": pl.Int64, "round": pl.Int16, "dealer": pl.Int8, "first": pl.Int8, "winner": pl.Int8, "turns": pl.Int16,
    "claims": pl.Int16, "reshuffles": pl.Int16, "melds": pl.Int16, "jokers_laid": pl.Int16, "jokers_swapped": pl.Int16, "rounds": pl.Int16, "first_dealer": pl.Int8,
    "winners": pl.Int16,
}
_SEAT_DTYPES = {"points": pl.Int16, "total": pl.Int32, "open_turn": pl.Int16, "cards_left": pl.Int16,
                "open_points": pl.Int16}
OUTCOME_ENUM = pl.Enum(list(OUTCOMES))
_OUTCOME_LEVELS = pl.Series("outcome", list(OUTCOMES), dtype=OUTCOME_ENUM)


n_cols = partial(records.n_cols, LAYOUT)  # n_cols(table, players): the raw row's width
column_names = partial(records.column_names, LAYOUT)  # column_names(table, players)


def seat_column(table: str, players: int, name: str, seat: int) -> int:
    """Index of ``name_<seat>`` in a raw row: the per-seat columns follow the fixed ones, a block of
    ``players`` columns per name (``len(fixed) + block * players + seat``, as the kernel writes them)."""
    fixed, seats = LAYOUT[table]
    return len(fixed) + seats.index(name) * players + seat


def to_frame(table: str, rows: np.ndarray, players: int, labels: list[str],
             traces: np.ndarray | None = None) -> pl.DataFrame:
    """Typed frame of one table from its raw ``int64[rows, cols]`` array (``labels``: each seat's strategy)."""
    cols = {}
    for i, name in enumerate(column_names(table, players)):
        base = name.rsplit("_", 1)[0] if name not in _DTYPES and name[-1].isdigit() else name
        dtype = _DTYPES.get(name, _SEAT_DTYPES.get(base, pl.Int32))
        cols[name] = pl.Series(name, rows[:, i], dtype=pl.Int64).cast(dtype)
    frame = pl.DataFrame(cols)
    if table == "rounds":
        frame = frame.with_columns(_OUTCOME_LEVELS.gather(rows[:, ROUND.outcome]).alias("outcome"))
        if traces is not None:
            frame = frame.with_columns(pl.Series("trace", traces, dtype=pl.UInt64))
    strategy_cols = [pl.lit(labels[p], dtype=pl.String).alias(f"strategy_{p}") for p in range(players)]
    return frame.with_columns(strategy_cols)
