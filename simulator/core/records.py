"""Helpers shared by every game's output tables: raw ``int64`` rows with fixed columns, then per-seat ones."""

from __future__ import annotations


def n_cols(layout: dict, table: str, players: int) -> int:
    """Columns of ``table``'s raw rows: ``layout[table] = (fixed names, per-seat names)``."""
    fixed, seat = layout[table]
    return len(fixed) + len(seat) * players


def column_names(layout: dict, table: str, players: int) -> list[str]:
    """Fixed columns, then ``<name>_<seat>`` for every per-seat name, seat 0 first."""
    fixed, seat = layout[table]
    return list(fixed) + [f"{name}_{p}" for name in seat for p in range(players)]
