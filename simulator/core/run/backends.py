"""Backends: where chunks of games are played. The runner hands a backend a task and the ranges.

A backend knows nothing of games and a game knows nothing of backends: the task is a picklable
callable ``task(start, stop, threads) -> {table: polars.DataFrame}`` (a :class:`ChunkTask` over a
run spec), and a backend only decides where and in what order tasks run. :class:`LocalBackend` plays
the chunks one after another in this process, each chunk using numba's threads; a cluster backend
implements the same :class:`Backend` protocol (:class:`simulator.core.run.dask_backend.DaskBackend`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Protocol

import numba
import polars as pl

from simulator.core.errors import SpecError
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import write_parts

Frames = dict[str, pl.DataFrame]
Task = Callable[[int, int, "int | None"], Frames]


@dataclass(frozen=True)
class WrittenParts:
    """What a backend yields for a chunk whose parts were written where it ran (``task.write``, as Dask
    workers do): each table's part record (``store.part_record``: size, sha256, rows). The runner then
    only checks and records the chunk."""

    records: dict


class ChunkTask:
    """Plays games ``start <= i < stop`` of ``spec`` through its game plugin. Picklable: it holds the spec,
    the plugin (pickled as a reference to its game's module, which the worker imports) and the run directory
    ``out``, for backends whose workers write their own parts."""

    def __init__(self, spec: RunSpec, out: str | Path | None = None):
        self.spec = spec
        self.plugin = spec.plugin
        self.out = None if out is None else str(out)

    def __call__(self, start: int, stop: int, threads: int | None = None) -> Frames:
        return self.plugin.simulate_chunk(self.spec, start, stop, threads)

    def write(self, start: int, stop: int, threads: int | None = None) -> WrittenParts:
        """Play the chunk and write its parts into ``out`` (atomically, once); their records."""
        if self.out is None:
            raise ValueError("ChunkTask.write needs the run directory (out)")
        tables = self.plugin.tables(self.spec.level)
        return WrittenParts(write_parts(self.out, self.spec, tables, start, stop, self(start, stop, threads)))

    def __repr__(self) -> str:
        return f"ChunkTask({self.spec.game}, digest={self.spec.digest()})"


class Backend(Protocol):
    """Runs ``task`` over ``ranges`` and yields ``((start, stop), frames)`` as chunks finish, in any
    order, taking ``ranges`` lazily (a run may have a million chunks). Stopping iteration early (``close()``
    on the generator) must not lose a yielded chunk. ``frames`` is a :class:`WrittenParts` when the backend
    had the chunk's parts written already (``task.write``, as Dask workers do); the runner then only checks
    and records the chunk."""

    def run(self, task: Task, ranges: Iterable[tuple[int, int]], threads: int | None) -> Iterator[
        tuple[tuple[int, int], Frames]
    ]: ...


def max_threads() -> int:
    """The most threads numba can use in this process (``NUMBA_NUM_THREADS``)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def check_threads(threads: int | None, field: str = "--threads") -> int | None:
    """``threads`` validated against ``1..max_threads()`` (``None`` means all of them)."""
    if threads is None:
        return None
    high = max_threads()
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= high:
        raise SpecError(field, threads, f"an integer in [1, {high}] (NUMBA_NUM_THREADS)")
    return threads


PROGRESS_SLICES = 8  # at most, a chunk played in this many calls when someone watches its progress
MIN_SLICE = 64  # games: below this a chunk is played in one call
SLICE_SECONDS = 10.0  # a slice is cut to last about this long, from the previous chunk's pace. Each call ends
# with threads waiting for its last block, which costs where games differ in length: Rami measured 0.94x with
# chunks of 2 s in two slices (bench/progress_slices.py), so only chunks slower than a log line's interval are cut


def slices(start: int, stop: int, count: int = PROGRESS_SLICES) -> list[tuple[int, int]]:
    """``[start, stop)`` cut into at most ``count`` contiguous ranges of at least :data:`MIN_SLICE` games."""
    count = max(1, min(count, (stop - start) // MIN_SLICE))
    bounds = [start + (stop - start) * k // count for k in range(count + 1)]
    return list(zip(bounds[:-1], bounds[1:]))


def slice_count(games: int, seconds_per_game: float | None) -> int:
    """How many slices a chunk of ``games`` is played in: :data:`PROGRESS_SLICES` before any pace is known, then
    enough for slices of about :data:`SLICE_SECONDS` (a short chunk is one call: each call costs a little)."""
    if seconds_per_game is None:
        return PROGRESS_SLICES
    return max(1, min(PROGRESS_SLICES, math.ceil(games * seconds_per_game / SLICE_SECONDS)))


def play_sliced(task: Task, start: int, stop: int, threads: int | None, on_games: Callable[[int], None],
                count: int = PROGRESS_SLICES) -> Frames:
    """``task(start, stop, threads)`` played as :func:`slices`, ``on_games(k)`` after each: the same rows (game
    ``i`` depends only on ``i``; each table concatenated into one contiguous frame, so its part is the same bytes)."""
    pieces = []
    for a, b in slices(start, stop, count):
        pieces.append(task(a, b, threads))
        on_games(b - a)
    if len(pieces) == 1:
        return pieces[0]
    return {table: pl.concat([piece[table] for piece in pieces], rechunk=True) for table in pieces[0]}


class LocalBackend:
    """Plays chunks one after another in this process; a chunk uses ``threads`` numba threads. With ``on_games``
    (a progress callback: games just played), each chunk is played in slices (:func:`play_sliced`)."""

    def run(self, task: Task, ranges: Iterable[tuple[int, int]], threads: int | None = None,
            on_games: Callable[[int], None] | None = None) -> Iterator[tuple[tuple[int, int], Frames]]:
        threads = check_threads(threads)
        previous = numba.get_num_threads()
        if threads is not None:
            numba.set_num_threads(threads)
        pace = None  # seconds per game of the last chunk
        try:
            for start, stop in ranges:
                if on_games is None:
                    yield (start, stop), task(start, stop, threads)
                    continue
                began = time.perf_counter()
                frames = play_sliced(task, start, stop, threads, on_games, slice_count(stop - start, pace))
                pace = (time.perf_counter() - began) / (stop - start)
                yield (start, stop), frames
        finally:
            numba.set_num_threads(previous)
