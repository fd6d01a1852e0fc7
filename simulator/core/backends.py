"""Backends: where chunks of games are played. The runner hands a backend a task and the ranges.

A backend knows nothing of games and a game knows nothing of backends: the task is a picklable
callable ``task(start, stop, threads) -> {table: polars.DataFrame}`` (a :class:`ChunkTask` over a
run spec), and a backend only decides where and in what order tasks run. :class:`LocalBackend` plays
the chunks one after another in this process, each chunk using numba's threads; a cluster backend
implements the same :class:`Backend` protocol (:class:`simulator.core.dask_backend.DaskBackend`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Protocol

import numba
import polars as pl

from simulator.core.errors import SpecError
from simulator.core.spec import RunSpec

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
        from simulator.core.store import write_parts

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


class LocalBackend:
    """Plays chunks one after another in this process; a chunk uses ``threads`` numba threads."""

    def run(self, task: Task, ranges: Iterable[tuple[int, int]], threads: int | None = None) -> Iterator[
        tuple[tuple[int, int], Frames]
    ]:
        threads = check_threads(threads)
        previous = numba.get_num_threads()
        if threads is not None:
            numba.set_num_threads(threads)
        try:
            for start, stop in ranges:
                yield (start, stop), task(start, stop, threads)
        finally:
            numba.set_num_threads(previous)
