"""Glue between the Kem's engines and their inputs: rules and seats in, raw rows out, frames out.

``raw_kernel`` and ``raw_reference`` return the same structure (``{"manches": int64[rows, cols], "games":
int64[rows, cols], "traces": uint64[rows]}``, layout of :mod:`simulator.kems.vocabulary.records`) so tests can compare
them exactly; ``to_frames`` makes the typed tables.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.contract.seats import Seat, kernel_seats, seat_list
from simulator.core.kernels.blocks import first_fault_in_game_order, gather, play_in_blocks
from simulator.core.kernels.compiling import compile_notice
from simulator.core.storage.spec import simulation_kernels
from simulator.kems.engines import kernels
from simulator.kems.engines.reference import LEVELS, play_games, seat_model
from simulator.kems.vocabulary import records
from simulator.kems.vocabulary.answers import raise_fault
from simulator.kems.vocabulary.rules import Rules, check_players, rules_arrays
from strategies.kems import STRATEGIES

KERNELS, COMPILE_SECONDS = "Kem's", 55  # what the compile notice names, and its measured time (54 s, 2026-12-07)

# first guess of rows per game, per level and table (manches, games); a block that overflows is re-run bigger
_ROWS_PER_GAME = {"manches": (1, 1), "games": (16, 1)}


def seats_of(seats) -> list[Seat]:
    """Seats as :class:`Seat`: from ``Seat`` objects, ``(kernel_id, params)`` pairs or registered names."""
    return seat_list(seats, STRATEGIES)


def raw_reference(rules: Rules, seats, seed: int, start: int, stop: int, level: str = "games") -> dict:
    seats = seats_of(seats)
    check_players(len(seats), {})
    return play_games(rules, seats, seed, start, stop, level)


def raw_kernel(rules: Rules, seats, seed: int, start: int, stop: int, level: str = "games",
               threads: int | None = None) -> dict:
    """Play games ``[start, stop)`` with the numba engine; rows in game order whatever the thread count. A user
    strategy's illegal answer raises :class:`~simulator.core.kernels.faults.StrategyError` for the first one in game
    order (the chunk is played again on one thread to find it)."""
    assert level in LEVELS, level
    seats = seats_of(seats)
    P = len(seats)
    check_players(P, {})  # KM1: the kernel has no bounds checks
    int_rules, float_rules = rules_arrays(rules)
    model = seat_model(seats, rules)
    packed = kernel_seats(seats)
    deck = np.array(rules.cards(), dtype=np.int64)
    level_id = LEVELS.index(level)
    n_cols = np.array([records.n_cols(t, P) for t in LEVELS], dtype=np.int64)

    def kernel(n_blocks, caps):
        return kernels.simulate(seed, start, stop, level_id, int_rules, float_rules, deck, packed, model, n_blocks,
                                caps, n_cols)

    with compile_notice(kernels.simulate, KERNELS, COMPILE_SECONDS):
        (manches, traces, games), counts = play_in_blocks(kernel, stop - start, threads, _ROWS_PER_GAME[level])
    first_fault_in_game_order(packed.fault, lambda: play_in_blocks(kernel, stop - start, threads,
                                                                   _ROWS_PER_GAME[level]))
    raise_fault(packed.fault, [s.label or f"kernel id {s.sid}" for s in seats])
    manches, traces, games = gather((manches, traces, games), counts, (0, 0, 1))
    return {"manches": manches, "games": games, "traces": traces}


def to_frames(raw: dict, players: int, labels: list[str], level: str = "games") -> dict[str, pl.DataFrame]:
    return {table: records.to_frame(table, raw[table], players, labels, raw["traces"] if table == "manches" else None)
            for table in records.TABLES[level]}


KERNEL_FAMILY = simulation_kernels("kems", KERNELS, COMPILE_SECONDS, lambda: kernels.simulate)
"""The simulation kernels as ``cardsim warm`` and :mod:`simulator.core.kernels.compile_apart` see them."""
