"""Glue between the Rami engines and their inputs: rules and seats in, raw rows out, frames out.

``raw_kernel`` and ``raw_reference`` return the same structure (``{"rounds": int64[rows, cols], "games":
int64[rows, cols], "traces": uint64[rows]}``, layout of :mod:`simulator.rami.vocabulary.records`) so tests can compare
them exactly; ``to_frames`` makes the typed tables.

Both take the pieces a spec holds (``simulator.rami.engines.plugin`` builds them from a :class:`RunSpec`): a
:class:`~simulator.rami.vocabulary.rules.Rules`, the seats (each a :class:`~simulator.rami.engines.reference.Seat` or a
``(kernel_id, params array)`` pair), the run seed, the game range and the level.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.contract.seats import kernel_seats, seat_list
from simulator.core.errors import SpecError
from simulator.core.kernels.blocks import first_fault_in_game_order, gather, play_in_blocks
from simulator.core.kernels.compiling import compile_notice
from simulator.core.storage.spec import simulation_kernels
from simulator.rami.engines import kernels
from simulator.rami.engines.reference import LEVELS, Seat, play_games
from simulator.rami.vocabulary import records
from simulator.rami.vocabulary.answers import raise_fault
from simulator.rami.vocabulary.rules import Rules, check_players, kernel_rules_of
from strategies.rami import STRATEGIES

KERNELS, COMPILE_SECONDS = "Rami", 75  # what the compile notice names, and its measured time (75 s, 2026-12-07)

# first guess of rows per game, per level and table (rounds, games); a block that overflows is re-run bigger
_ROWS_PER_GAME = {"rounds": (1, 1), "games": (16, 1)}


def seats_of(seats) -> list[Seat]:
    """Seats as :class:`Seat`: from ``Seat`` objects, ``(kernel_id, params)`` pairs or registered names."""
    return seat_list(seats, STRATEGIES)


def raw_reference(rules: Rules, seats, seed: int, start: int, stop: int, level: str = "games") -> dict:
    return play_games(rules, seats_of(seats), seed, start, stop, level)


def raw_kernel(rules: Rules, seats, seed: int, start: int, stop: int, level: str = "games",
               threads: int | None = None) -> dict:
    """Play games ``[start, stop)`` with the numba engine; rows in game order whatever the thread count. A user
    strategy's illegal answer raises :class:`~simulator.core.kernels.faults.StrategyError` for the first one in game
    order (the chunk is played again on one thread to find it)."""
    if rules.opening_cumulative:  # R7: refused as in reference.Round
        raise SpecError("--option opening_cumulative", True, "false (an opening spread over several turns "
                        "is not implemented yet)")
    assert level in LEVELS, level
    seats = seats_of(seats)
    P = len(seats)
    check_players(P, {"n_decks": rules.n_decks, "hand_cards": rules.hand_cards})  # R1/R2: the kernel has no bounds checks
    variant = kernel_rules_of(rules, P)
    packed = kernel_seats(seats)
    level_id = LEVELS.index(level)
    n_cols = np.array([records.n_cols(t, P) for t in LEVELS], dtype=np.int64)

    def kernel(n_blocks, caps):
        return kernels.simulate(seed, start, stop, level_id, variant, packed, n_blocks, caps, n_cols)

    with compile_notice(kernels.simulate, KERNELS, COMPILE_SECONDS):
        (rounds, traces, games), counts = play_in_blocks(kernel, stop - start, threads, _ROWS_PER_GAME[level])
    first_fault_in_game_order(packed.fault, lambda: play_in_blocks(kernel, stop - start, threads,
                                                                   _ROWS_PER_GAME[level]))
    raise_fault(packed.fault, [s.label or f"kernel id {s.sid}" for s in seats])
    rounds, traces, games = gather((rounds, traces, games), counts, (kernels.TABLE_ROUNDS, kernels.TABLE_ROUNDS,
                                                                     kernels.TABLE_GAMES))
    return {"rounds": rounds, "games": games, "traces": traces}


def to_frames(raw: dict, players: int, labels: list[str], level: str = "games") -> dict[str, pl.DataFrame]:
    return {table: records.to_frame(table, raw[table], players, labels, raw["traces"] if table == "rounds" else None)
            for table in records.TABLES[level]}


KERNEL_FAMILY = simulation_kernels("rami", KERNELS, COMPILE_SECONDS, lambda: kernels.simulate)
"""The simulation kernels as ``cardsim warm`` and :mod:`simulator.core.kernels.compile_apart` see them."""
