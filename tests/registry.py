"""Seats drawn from a game's strategy registry, for the tests that must cover every registered strategy.

The agreement and information-set tests take their tables from here instead of a hand-written list, so a new
preset, family or parameter is played in both engines without editing a test.
"""

from __future__ import annotations

import numpy as np


def drawn_params(definition, rng) -> str:
    """Every declared parameter of ``definition`` at a point drawn in its declared range, as ``name=value,...``."""
    values = []
    for p in definition.params.params:
        if p.kind == "bool":
            value = str(bool(rng.integers(0, 2))).lower()
        elif p.kind == "choice":
            value = p.choices[int(rng.integers(0, len(p.choices)))]
        elif p.kind == "int":
            value = str(int(rng.integers(int(p.low), int(p.high) + 1)))
        else:
            value = f"{rng.uniform(p.low, p.high):.3g}"
        values.append(f"{p.name}={value}")
    return ",".join(values)


def registry_seatings(strategies: dict, filler: str, table: int = 4, seed: int = 2024,
                      apart: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """Tables of ``table`` seats that play every strategy of ``strategies`` (a game's registry, name →
    definition), in registry order, then each family with all its parameters drawn in their declared ranges
    (seeded). The last table is completed with ``filler``. The families ``apart`` are left out: they are tested
    in a file of their own (a searching player replays hands: its cost grows with its parameters)."""
    rng = np.random.default_rng(seed)
    strategies = {name: s for name, s in strategies.items() if s.family not in apart}
    families = [name for name, s in strategies.items() if s.family == name]
    seats = list(strategies) + [f"{name}:{drawn_params(strategies[name], rng)}" for name in families]
    seats += [filler] * (-len(seats) % table)
    return {f"table{k // table}": seats[k:k + table] for k in range(0, len(seats), table)}
