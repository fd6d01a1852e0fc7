"""Glue between a :class:`RunSpec` and the two Kamoul engines: arrays in, raw rows out, frames out.

``raw_kernel`` and ``raw_reference`` return the same structure (``{table: int64[rows, cols]}`` plus
``estimates`` and ``traces``) so tests can compare them exactly; ``to_frames`` makes the typed tables.
"""

from __future__ import annotations

import numba
import numpy as np
import polars as pl

from simulator.core.game import seat_arrays, seats_of  # noqa: F401  (seats_of re-exported for replay and tests)
from simulator.core.records import gather_blocks
from simulator.core.spec import RunSpec
from simulator.kamoul import kernels, records
from simulator.kamoul.reference import LEVELS, play_games
from simulator.kamoul.rules import Rules, rules_arrays

# first guess of rows per game, per level and table; a block that overflows is re-run with more room
_ROWS_PER_GAME = {
    "hands": (1, 0, 0, 0),
    "manches": (24, 1, 0, 0),
    "parties": (60, 3, 1, 0),
    "tops": (150, 8, 3, 1),
}


def rules_of(spec: RunSpec) -> Rules:
    return Rules.from_options(dict(spec.options))


def raw_reference(spec: RunSpec, start: int, stop: int) -> dict:
    return play_games(rules_of(spec), seats_of(spec), spec.seed, start, stop, spec.level)


def raw_kernel(spec: RunSpec, start: int, stop: int, threads: int | None = None) -> dict:
    """Play games ``[start, stop)`` with the numba engine; rows in game order whatever the thread count."""
    ri, rf = rules_arrays(rules_of(spec))
    seats = seats_of(spec)
    sids, prm = seat_arrays(seats)
    P = spec.players
    n = stop - start
    threads = threads or numba.get_num_threads()
    n_blocks = max(1, min(n, 4 * threads))
    per_block = -(-n // n_blocks)
    level_id = LEVELS.index(spec.level)
    factors = np.array(_ROWS_PER_GAME[spec.level], dtype=np.int64)
    n_cols = np.array([records.n_cols(t, P) for t in LEVELS], dtype=np.int64)
    while True:
        caps = np.maximum(factors * per_block, 1)
        hands, est, trace, manches, parties, tops, counts = kernels.simulate(
            spec.seed, start, stop, level_id, ri, rf, sids, prm, n_blocks, caps, n_cols
        )
        if (counts <= caps[None, :]).all():
            break
        factors = factors * 2
    out = {}
    for k, (table, arr) in enumerate(zip(LEVELS, (hands, manches, parties, tops))):
        out[table] = gather_blocks(arr, counts[:, k])
    out["estimates"] = gather_blocks(est, counts[:, 0])
    out["traces"] = gather_blocks(trace, counts[:, 0])
    return out


def to_frames(spec: RunSpec, raw: dict) -> dict[str, pl.DataFrame]:
    labels = [s.label() for s in spec.strategies]
    frames = {}
    for table in records.TABLES[spec.level]:
        frames[table] = records.to_frame(
            table, raw[table], spec.players, labels,
            raw["estimates"] if table == "hands" else None, raw["traces"] if table == "hands" else None,
        )
    return frames


def simulate_chunk(spec: RunSpec, start: int, stop: int, threads: int | None = None) -> dict[str, pl.DataFrame]:
    return to_frames(spec, raw_kernel(spec, start, stop, threads))
