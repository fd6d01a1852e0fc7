"""The Kamoul output tables: column order of the kernel's integer rows, and their conversion to polars.

Both engines produce the same raw rows: per table an ``int64[rows, cols]`` array in the column order
below (per-seat columns last, seat 0 first), plus for hands ``float64`` call estimates and ``uint64``
event-trace hashes. :func:`to_frames` turns them into typed polars frames.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import polars as pl

from simulator.core import records
from simulator.core.kernels.named import indices
from simulator.kamoul.vocabulary.codes import OUTCOMES, POWER_USES

LEVELS = ("hands", "manches", "parties", "tops")
"""A game is one hand, one manche (K15), one partie or one TOP (K16); each level writes its table and those below."""
LEVEL = indices("Levels", LEVELS)
TABLES = {"hands": ("hands",), "manches": ("hands", "manches"), "parties": ("hands", "manches", "parties"),
          "tops": ("hands", "manches", "parties", "tops")}

HAND_FIXED = ("game", "partie", "manche", "hand", "hand_in_manche", "dealer", "winner", "outcome", "caller",
              "call_turn", "call_true", "call_unknown", "contre_seats", "turns", "snaps", "wrong_snaps",
              "penalty_cards") + POWER_USES
HAND_SEAT = ("points", "cum")
MANCHE_FIXED = ("game", "partie", "manche", "hands", "winners", "winner", "credit")
MANCHE_SEAT = ("cum",)
PARTIE_FIXED = ("game", "partie", "manches", "winners", "winner")
PARTIE_SEAT = ("manche_wins", "total")
TOP_FIXED = ("game", "parties", "winners", "winner")
TOP_SEAT = ("partie_wins", "total")

LAYOUT = {
    "hands": (HAND_FIXED, HAND_SEAT),
    "manches": (MANCHE_FIXED, MANCHE_SEAT),
    "parties": (PARTIE_FIXED, PARTIE_SEAT),
    "tops": (TOP_FIXED, TOP_SEAT),
}
HAND = indices("HandColumns", HAND_FIXED)
"""Positions of the fixed columns of a raw ``hands`` row (``rows[r, HAND.winner]``); then points and cum per seat."""
MANCHE = indices("MancheColumns", MANCHE_FIXED)
PARTIE = indices("PartieColumns", PARTIE_FIXED)
TOP = indices("TopColumns", TOP_FIXED)
H = {name: i for i, name in enumerate(HAND_FIXED)}
M = {name: i for i, name in enumerate(MANCHE_FIXED)}
PT = {name: i for i, name in enumerate(PARTIE_FIXED)}
T = {name: i for i, name in enumerate(TOP_FIXED)}

_DTYPES = {
    "game": pl.Int64, "hand": pl.Int32, "partie": pl.Int16, "manche": pl.Int16, "hand_in_manche": pl.Int16,
    "dealer": pl.Int8, "winner": pl.Int8, "caller": pl.Int8, "call_turn": pl.Int16, "call_true": pl.Int16,
    "call_unknown": pl.Int8, "contre_seats": pl.Int16, "turns": pl.Int16, "snaps": pl.Int16,
    "wrong_snaps": pl.Int16, "penalty_cards": pl.Int16, "peeks": pl.Int16,
    "jq_swaps": pl.Int16, "red_king_looks": pl.Int16, "black_king_looks": pl.Int16, "king_swaps": pl.Int16, "hands": pl.Int16, "winners": pl.Int16, "credit": pl.Int8,
    "manches": pl.Int8, "parties": pl.Int8,
}
OUTCOME_ENUM = pl.Enum(list(OUTCOMES))
_OUTCOME_LEVELS = pl.Series("outcome", list(OUTCOMES), dtype=OUTCOME_ENUM)


n_cols = partial(records.n_cols, LAYOUT)  # n_cols(table, players): the raw row's width
column_names = partial(records.column_names, LAYOUT)  # column_names(table, players)


def to_frame(table: str, rows: np.ndarray, players: int, labels: list[str],
             estimates: np.ndarray | None = None, traces: np.ndarray | None = None) -> pl.DataFrame:
    """Typed frame of one table from its raw ``int64[rows, cols]`` array.

    ``labels`` is each seat's strategy label (``strategy_<seat>`` columns). Hands also get
    ``call_estimate`` (``float32``, null without a call), ``outcome`` as an enum and ``trace``.
    """
    names = column_names(table, players)
    cols = {}
    for i, name in enumerate(names):
        base = name.rsplit("_", 1)[0] if name not in _DTYPES and name[-1].isdigit() else name
        dtype = _DTYPES.get(name, pl.Int16 if base in ("points", "cum", "manche_wins", "partie_wins") else pl.Int32)
        cols[name] = pl.Series(name, rows[:, i], dtype=pl.Int64).cast(dtype)
    frame = pl.DataFrame(cols)
    if table == "hands":
        frame = frame.with_columns(
            _OUTCOME_LEVELS.gather(rows[:, HAND.outcome]).alias("outcome"),
            pl.Series("call_estimate", estimates, dtype=pl.Float32).fill_nan(None),
            pl.Series("trace", traces, dtype=pl.UInt64),
        )
    strategy_cols = [pl.lit(labels[p], dtype=pl.String).alias(f"strategy_{p}") for p in range(players)]
    return frame.with_columns(strategy_cols)
