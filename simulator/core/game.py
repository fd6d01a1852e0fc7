"""What a game package hands to the core: its options, strategies, levels and chunk kernel.

The runner, the store, the spec validation and the CLI only ever talk to a :class:`GamePlugin`, so a
new game or a new backend plugs in without either knowing the other.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import numpy as np

from simulator.core.errors import SpecError
from simulator.core.params import ParamSet

GAMES = ("kamoul", "rami", "kems")


@dataclass(frozen=True)
class StrategyDef:
    """A registered strategy: ``name`` as users type it, the kernel's integer ``kernel_id``, and its
    declared parameters (a preset is the same kernel with other defaults)."""

    name: str
    kernel_id: int
    params: ParamSet
    doc: str
    family: str = ""


@dataclass
class Seat:
    """A seat's strategy as the engines see it: kernel id and parameter array."""

    sid: int
    prm: np.ndarray


def params_array(strategy: StrategyDef, values: dict) -> np.ndarray:
    """``float64[K]``: the parameter values in the order the kernel indexes them (booleans as 0/1)."""
    return np.array([float(values[p.name]) for p in strategy.params.params], dtype=np.float64)


def default_params(strategy: StrategyDef) -> np.ndarray:
    """The parameter array of a registered strategy with its declared defaults."""
    return params_array(strategy, {p.name: p.default for p in strategy.params.params})


def seat_list(seats, strategies: dict[str, StrategyDef]) -> list[Seat]:
    """Seats as :class:`Seat`: from ``Seat`` objects, ``(kernel_id, params)`` pairs or names registered in
    ``strategies`` (with their defaults)."""
    out = []
    for s in seats:
        if isinstance(s, Seat):
            out.append(s)
        elif isinstance(s, str):
            out.append(Seat(strategies[s].kernel_id, default_params(strategies[s])))
        else:
            sid, prm = s
            out.append(Seat(int(sid), np.asarray(prm, dtype=np.float64)))
    return out


def replay_hooks(game: str) -> tuple[Callable, Callable]:
    """``(replay, trace_hashes)`` for a plugin: ``simulator.<game>.replay``'s ``replay_text`` and
    ``trace_hashes``, imported on first use (replaying needs the reference engine, simulating does not)."""

    def replay(spec, index: int) -> str:
        return importlib.import_module(f"simulator.{game}.replay").replay_text(spec, index)

    def trace_hashes(spec, index: int) -> list[int]:
        return importlib.import_module(f"simulator.{game}.replay").trace_hashes(spec, index)

    return replay, trace_hashes


def seats_of(spec) -> list[Seat]:
    """The :class:`Seat` of every seat of a run spec (its game's registered strategies, resolved parameters)."""
    strategies = spec.plugin.strategies
    return [Seat(strategies[s.name].kernel_id, params_array(strategies[s.name], dict(s.params)))
            for s in spec.strategies]


def seat_arrays(seats: list[Seat]) -> tuple[np.ndarray, np.ndarray]:
    """What a kernel reads of the seats: ``sids`` (``int64[P]``, kernel ids) and ``prm`` (``float64[P, K]``, each
    seat's parameters, zero-padded to the longest)."""
    sids = np.array([s.sid for s in seats], dtype=np.int64)
    prm = np.zeros((len(seats), max(len(s.prm) for s in seats)), dtype=np.float64)
    for p, s in enumerate(seats):
        prm[p, : len(s.prm)] = s.prm
    return sids, prm


@dataclass(frozen=True)
class GamePlugin:
    """The contract between one game package and the core.

    * ``simulate_chunk(spec, start, stop, threads)`` plays games ``start <= i < stop`` of the run and
      returns ``{table_name: polars.DataFrame}`` whose rows are sorted by game index; game ``i``
      depends only on ``(spec, i)``.
    * ``tables(level)`` names the tables a run at that level writes, the first one being the
      finest (e.g. ``("hands", "manches")``).
    """

    name: str
    levels: tuple[str, ...]
    default_level: str
    options: ParamSet
    strategies: dict[str, StrategyDef]
    default_strategy: str
    default_players: int
    check_players: Callable[[int, dict], None]
    tables: Callable[[str], tuple[str, ...]]
    simulate_chunk: Callable
    default_chunk_size: Callable[[str], int]
    replay: Callable | None = None
    trace_hashes: Callable | None = None
    """``trace_hashes(spec, index)``: the event-trace hash of each row of game ``index`` in the finest table
    (its ``trace`` column, in row order), replayed with the reference engine; ``None`` if the game has none."""

    def strategy(self, name: str, field: str = "--strategy") -> StrategyDef:
        try:
            return self.strategies[name]
        except KeyError:
            raise SpecError(field, name, ", ".join(self.strategies), "is not a strategy of " + self.name) from None


def get_game(name: str) -> GamePlugin:
    """The plugin of game ``name`` (imported on first use)."""
    if name not in GAMES:
        raise SpecError("game", name, ", ".join(GAMES))
    return importlib.import_module(f"simulator.{name}.plugin").PLUGIN
