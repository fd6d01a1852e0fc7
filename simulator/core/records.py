"""Helpers shared by every game's output tables: raw ``int64`` rows with fixed columns, then per-seat ones."""

from __future__ import annotations

import numpy as np


def n_cols(layout: dict, table: str, players: int) -> int:
    """Columns of ``table``'s raw rows: ``layout[table] = (fixed names, per-seat names)``."""
    fixed, seat = layout[table]
    return len(fixed) + len(seat) * players


def column_names(layout: dict, table: str, players: int) -> list[str]:
    """Fixed columns, then ``<name>_<seat>`` for every per-seat name, seat 0 first."""
    fixed, seat = layout[table]
    return list(fixed) + [f"{name}_{p}" for name in seat for p in range(players)]


def gather_blocks(arr: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """A kernel's per-block rows ``arr[b, :counts[b]]`` one after another; a view, not a copy, when every
    block before the last non-empty one is full (always so when each game makes one row)."""
    cap = arr.shape[1]
    used = np.flatnonzero(counts)
    last = used[-1] if used.size else 0
    if (counts[:last] == cap).all():
        return arr.reshape((-1,) + arr.shape[2:])[: last * cap + counts[last]]
    return np.concatenate([arr[b, : counts[b]] for b in range(arr.shape[0])])


def stack_rows(games, tables, width, extras: dict) -> dict:
    """A reference engine's raw output: the ``rows[table]`` of every played game in order, as
    ``int64[rows, width(table)]`` per table, plus each attribute named in ``extras`` (e.g. ``traces``)
    concatenated as an array of the dtype it maps to."""
    rows = {t: [] for t in tables}
    more = {k: [] for k in extras}
    for g in games:
        for t in tables:
            rows[t].extend(g.rows[t])
        for k in extras:
            more[k].extend(getattr(g, k))
    out = {t: np.array(rows[t], dtype=np.int64).reshape(-1, width(t)) for t in tables}
    out.update({k: np.array(v, dtype=extras[k]) for k, v in more.items()})
    return out
