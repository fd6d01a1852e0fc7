"""Glue between a :class:`RunSpec` and the two Kamoul engines: arrays in, raw rows out, frames out.

``raw_kernel`` and ``raw_reference`` return the same structure (``{table: int64[rows, cols]}`` plus
``estimates`` and ``traces``) so tests can compare them exactly; ``to_frames`` makes the typed tables.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from simulator.core.contract.game import seats_of  # noqa: F401  (seats_of re-exported for replay and tests)
from simulator.core.contract.inlined import InlinedStrategies
from simulator.core.contract.seats import runs_on_reference
from simulator.core.kernels.blocks import first_fault_in_game_order, gather, play_in_blocks
from simulator.core.kernels.buffers import reusable
from simulator.core.kernels.compiling import compile_notice
from simulator.core.storage.spec import RunSpec, simulation_kernels
from simulator.kamoul.engines import kernels
from simulator.kamoul.engines.kernel_state import BlockRows
from simulator.kamoul.engines.match import Game, play_games
from simulator.kamoul.engines.search_seats import SearchSeats, kamoul_seats
from simulator.kamoul.vocabulary import records
from simulator.kamoul.vocabulary.answers import raise_fault
from simulator.kamoul.vocabulary.records import LEVEL, LEVELS
from simulator.kamoul.vocabulary.rules import Rules

KERNELS, COMPILE_SECONDS = "Kamoul", 62  # what the compile notice names, and its measured time (62.3 s, 2026-12-07)
INLINED_COMPILE_SECONDS = 71  # the simulation kernel compiled for a run's strategy files (71.1 s measured, 2026-12-07)
SEARCH_KERNELS, SEARCH_COMPILE_SECONDS = "Kamoul search", 230  # a table with a searching seat (229.8 s, 2026-12-08)

# first guess of rows per game, per level and table; a block that overflows is re-run with more room
_ROWS_PER_GAME = {
    "hands": (1, 0, 0, 0),
    "manches": (24, 1, 0, 0),
    "parties": (60, 3, 1, 0),
    "tops": (150, 8, 3, 1),
}
# the kernel's outputs (hands, estimates, traces, manches, parties, tops) and the table whose count each follows
_TABLE_OF = (LEVEL.hands, LEVEL.hands, LEVEL.hands, LEVEL.manches, LEVEL.parties, LEVEL.tops)


def rules_of(spec: RunSpec) -> Rules:
    return Rules.from_options(dict(spec.options))


def reference_play(spec: RunSpec, index: int, log: list[str] | None, seats: list | None = None) -> list[int]:
    """Game ``index`` of ``spec`` played by the reference engine (play-by-play into ``log``; ``seats``: the spec's
    unless given); its hands' trace hashes."""
    return Game(rules_of(spec), seats or seats_of(spec), spec.seed, index, spec.level, log).play().traces


_ROWS_TYPES = BlockRows(np.zeros((1, 1, 1), np.int64), np.zeros((1, 1)), np.zeros((1, 1), np.uint64),
                        *(np.zeros((1, 1, 1), np.int64) for _ in range(3)), np.zeros((1, 1), np.int64))
"""Arrays of :func:`run_rows`'s types (not its sizes): what the compile check types a call with."""


def run_rows(n_blocks: int, caps: np.ndarray, n_cols: np.ndarray) -> BlockRows:
    """The arrays the kernel writes every block's rows into (``kernels.simulate``): ``n_blocks`` blocks of
    ``caps[t]`` rows of ``n_cols[t]`` columns per table ``t``, taken from :func:`simulator.core.kernels.buffers.reusable`
    (the pages of a previous chunk whose rows nobody holds any more); ``counts`` zero."""
    hands = (n_blocks, int(caps[LEVEL.hands]))
    return BlockRows(
        reusable("kamoul.hands", hands + (int(n_cols[LEVEL.hands]),), np.int64),
        reusable("kamoul.estimates", hands, np.float64),
        reusable("kamoul.traces", hands, np.uint64),
        *(reusable(f"kamoul.{LEVELS[t]}", (n_blocks, int(caps[t]), int(n_cols[t])), np.int64)
          for t in (LEVEL.manches, LEVEL.parties, LEVEL.tops)),
        np.zeros((n_blocks, len(LEVELS)), dtype=np.int64),
    )


def raw_reference(spec: RunSpec, start: int, stop: int) -> dict:
    return play_games(rules_of(spec), seats_of(spec), spec.seed, start, stop, spec.level)


def raw_kernel(spec: RunSpec, start: int, stop: int, threads: int | None = None, seats=None) -> dict:
    """Play games ``[start, stop)`` with the numba engine; rows in game order whatever the thread count.
    ``seats``: :class:`~simulator.core.contract.user_table.KernelSeats` to play instead of the spec's (tests). A user
    strategy's illegal answer raises :class:`~simulator.kamoul.vocabulary.answers.StrategyError` for the first one in game
    order (the chunk is played again on one thread to find it)."""
    rules = rules_of(spec).kernel()
    labels = [s.label() for s in spec.strategies]
    if seats is None:
        seats = kamoul_seats(seats_of(spec), kernels.simulate, spec.n * _ROWS_PER_GAME[spec.level][0])
    level = LEVELS.index(spec.level)
    n_cols = np.array([records.n_cols(t, spec.players) for t in LEVELS], dtype=np.int64)

    def kernel(n_blocks, caps):
        return kernels.simulate(spec.seed, start, stop, level, rules, seats, run_rows(n_blocks, caps, n_cols))

    inlined = seats.user if isinstance(seats.user, InlinedStrategies) else None
    line = (f"compiling a Kamoul kernel for {inlined.labels} (once per content of the files, about "
            f"{INLINED_COMPILE_SECONDS} s)…"
            if inlined is not None and not inlined.is_compiled(kernels.simulate) else None)
    searching = isinstance(seats, SearchSeats)
    with compile_notice(kernels.simulate, SEARCH_KERNELS if searching else KERNELS,
                        SEARCH_COMPILE_SECONDS if searching else COMPILE_SECONDS, line,
                        args=(spec.seed, start, stop, level, rules, seats, _ROWS_TYPES) if searching else None):
        outputs, counts = play_in_blocks(kernel, stop - start, threads, _ROWS_PER_GAME[spec.level])
    if line is not None:  # compiled just now (not found marked): mark it once, not after every chunk
        inlined.mark_compiled(kernels.simulate)
    first_fault_in_game_order(seats.fault, lambda: play_in_blocks(kernel, stop - start, threads,
                                                                  _ROWS_PER_GAME[spec.level]))
    raise_fault(seats.fault, labels)
    hands, estimates, traces, manches, parties, tops = gather(outputs, counts, _TABLE_OF)
    return {"hands": hands, "manches": manches, "parties": parties, "tops": tops, "estimates": estimates,
            "traces": traces}


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
    """The typed tables of games ``[start, stop)``: the numba engine, or the reference engine when a seat's strategy
    is plain Python (:func:`simulator.core.contract.seats.runs_on_reference`)."""
    if runs_on_reference(seats_of(spec)):
        return to_frames(spec, raw_reference(spec, start, stop))
    return to_frames(spec, raw_kernel(spec, start, stop, threads))


KERNEL_FAMILY = simulation_kernels("kamoul", KERNELS, COMPILE_SECONDS, lambda: kernels.simulate)
"""The simulation kernels as ``cardsim warm`` and :mod:`simulator.core.kernels.compile_apart` see them."""
