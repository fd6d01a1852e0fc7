"""A seat as the engines see it: which strategy plays there (a registered one, or one from a user's file) and with
which parameters, and the arrays a kernel reads of the seats."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simulator.core.contract.inlined import user_field
from simulator.core.contract.registry import get_game
from simulator.core.contract.user_table import NO_TABLE, KernelSeats
from simulator.core.errors import SpecError
from simulator.core.kernels.faults import new_fault
from simulator.core.params import ParamSet


@dataclass(frozen=True)
class StrategyDef:
    """A registered strategy: ``name`` as users type it, the kernel's integer ``kernel_id``, and its
    declared parameters (a preset is the same kernel with other defaults); ``provenance``, for a preset from a
    file (:mod:`simulator.core.contract.presets`), says how it was found."""

    name: str
    kernel_id: int
    params: ParamSet
    doc: str
    family: str = ""
    provenance: dict | None = field(default=None, compare=False, hash=False)


USER_KERNEL_BASE = 1000
"""Kernel ids from here on are the user strategies of a run, numbered in the order of their first seat."""


@dataclass
class Seat:
    """A seat's strategy as the engines see it: kernel id and parameter array; ``user`` is the
    :class:`~simulator.core.contract.user_strategies.UserStrategy` behind a strategy from a user's file (``None`` for a
    built-in); ``label`` the strategy as the run's spec names it (for messages)."""

    sid: int
    prm: np.ndarray
    user: object = None
    label: str = ""


def params_array(strategy: StrategyDef, values: dict) -> np.ndarray:
    """``float64[K]``: the parameter values in the order the kernel indexes them (booleans as 0/1), read-only (a
    strategy that wrote them would make a game depend on the games played before it in the same chunk)."""
    prm = np.array([float(values[p.name]) for p in strategy.params.params], dtype=np.float64)
    prm.flags.writeable = False
    return prm


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


def runs_on_reference(seats: list[Seat]) -> bool:
    """True when a seat's strategy is plain Python (from a user's file): the run plays on the reference engine."""
    return any(s.user is not None and not s.user.compiled for s in seats)


def kernel_seats(seats: list[Seat], kernel=None, hands: int = 0):
    """The seats as the kernels take them (:class:`~simulator.core.contract.user_table.KernelSeats`): ids, parameters and
    the function table of the run's strategies from files (their functions compiled for the contract's
    signatures; empty when every seat is built-in), or, for ``kernel`` (a numba dispatcher that can be compiled
    for the files) and a run of ``hands`` hands, the files themselves (:func:`simulator.core.contract.inlined.user_field`)."""
    families: dict[int, object] = {}
    for s in seats:
        if s.user is not None:
            families.setdefault(s.sid, s.user)
    if any(not s.user.compiled for s in seats if s.user is not None):
        raise SpecError("--strategy", next(s.user.label for s in seats if s.user is not None and not s.user.compiled),
                        "a strategy whose decisions are numba functions, or the reference engine",
                        "is plain Python: it has no compiled engine")
    sids, prm = seat_arrays(seats)
    strategies = [families[sid] for sid in sorted(families)]
    if sorted(families) != list(range(USER_KERNEL_BASE, USER_KERNEL_BASE + len(families))):
        raise ValueError(f"file strategies' kernel ids {sorted(families)} do not count up from {USER_KERNEL_BASE}")
    table = (user_field(get_game(strategies[0].game).contract, strategies, kernel, hands) if strategies
             else NO_TABLE)
    snaps = np.array([s.user is not None and s.user.snaps_on_belief for s in seats], dtype=np.bool_)
    return KernelSeats(sids, prm, table, new_fault(), snaps)


def seat_arrays(seats: list[Seat]) -> tuple[np.ndarray, np.ndarray]:
    """What a kernel reads of the seats: ``sids`` (``int64[P]``, kernel ids) and ``prm`` (``float64[P, K]``, each
    seat's parameters, zero-padded to the longest)."""
    sids = np.array([s.sid for s in seats], dtype=np.int64)
    prm = np.zeros((len(seats), max(len(s.prm) for s in seats)), dtype=np.float64)
    for p, s in enumerate(seats):
        prm[p, : len(s.prm)] = s.prm
    return sids, prm
