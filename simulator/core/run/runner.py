"""The chunked runner: play a run's missing games chunk by chunk and store each chunk as it finishes.

``run(spec, out)`` is the whole life of a run: validate the execution settings, open the run
directory (which refuses a different spec before anything is written), split the games not yet on
disk into chunks, hand them to a backend, write every finished chunk, and mark the run complete.

Interrupting is safe at any moment. Ctrl-C lets the chunk in flight finish and be written, then the
run stops with ``interrupted=True``; a second Ctrl-C stops at once, within a second even while a compiled
kernel holds the main thread (:mod:`simulator.core.run.stuck`). A killed run loses at most the
chunks in flight. Re-running the same spec on the same directory plays only the missing games (with
any chunk size), so the final dataset is the one an uninterrupted run writes.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import closing, contextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from simulator.core.contract.file_code import GUARD, Interrupted, watched
from simulator.core.contract.game import seats_of
from simulator.core.contract.seats import runs_on_reference
from simulator.core.errors import SpecError, StrategyCodeError
from simulator.core.progress import Silent
from simulator.core.progress import progress as progress_of
from simulator.core.run.backends import Backend, ChunkTask, LocalBackend, WrittenParts, check_threads
from simulator.core.run.stuck import Presses, watching
from simulator.core.storage.spec import RunSpec
from simulator.core.storage.store import TMP_NAME, open_run


@dataclass
class RunResult:
    """What one call of :func:`run` did. ``games_done`` and ``chunks_written`` count this call's work
    only; the run is complete when ``interrupted`` is false."""

    path: Path
    spec: RunSpec
    games_done: int
    chunks_written: int
    interrupted: bool
    seconds: float
    repairs: list[str] = field(default_factory=list)


MAX_CHUNKS = 1_000_000  # chunks of one run: the manifest lists each (and every table has a part per chunk)


def iter_chunks(ranges, chunk_size: int) -> Iterator[tuple[int, int]]:
    """Cut each ``[start, stop)`` into consecutive chunks of at most ``chunk_size`` games, lazily (a run of
    ``10**12`` games never holds its chunk list)."""
    for start, stop in ranges:
        for a in range(start, stop, chunk_size):
            yield a, min(a + chunk_size, stop)


def split_ranges(ranges: list[tuple[int, int]], chunk_size: int) -> list[tuple[int, int]]:
    """:func:`iter_chunks` as a list (for small runs and tests)."""
    return list(iter_chunks(ranges, chunk_size))


def check_chunk_size(chunk_size, field: str = "--chunk-size") -> int:
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise SpecError(field, chunk_size, "an integer >= 1")
    return chunk_size


def chunk_size_for(spec: RunSpec, chunk_size: int | None, field: str = "--chunk-size") -> int:
    """The chunk size of a run of ``spec``: ``chunk_size`` validated, or the game's default for the level,
    raised when needed to keep the run within :data:`MAX_CHUNKS` chunks (the chunk size never changes
    results). A given size that makes more than :data:`MAX_CHUNKS` chunks is refused."""
    least = -(-spec.n // MAX_CHUNKS)
    if chunk_size is None:
        return max(check_chunk_size(spec.plugin.default_chunk_size(spec.level)), least)
    check_chunk_size(chunk_size, field)
    if chunk_size < least:
        raise SpecError(field, chunk_size, f"an integer >= {least:,} for -n {spec.n:,} (at most {MAX_CHUNKS:,} "
                        "chunks in one run)", f"makes {-(-spec.n // chunk_size):,} chunks")
    return chunk_size


def check_execution(spec: RunSpec, chunk_size: int | None, threads, backend=None) -> tuple[int, int | None]:
    """The chunk size and thread count of a run of ``spec``, validated (:class:`SpecError`) before anything
    is written."""
    size = chunk_size_for(spec, chunk_size)
    return size, getattr(backend, "check_threads", check_threads)(threads)  # a cluster's workers have their own cores


class _StopFlag:
    """Set by the first Ctrl-C, which lets the chunk in play finish; the second one, or the first while a strategy
    file's code is running (a chunk on the reference engine could take long), raises
    :class:`~simulator.core.contract.file_code.Interrupted`: what was finished is kept."""

    def __init__(self):
        self.set = False
        self.presses = Presses()

    def handle(self, signum, frame):
        self.presses.handled += 1
        if self.set or GUARD.inside is not None:
            raise Interrupted
        self.set = True


@contextmanager
def _sigint_sets(flag: _StopFlag, out: Path):
    """Route SIGINT to ``flag`` for the duration (main thread only), then restore the old handler; a second Ctrl-C
    that compiled code keeps from the handler ends the process (:mod:`simulator.core.run.stuck`)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, flag.handle)
    line = (f"aborted: the chunk in flight was dropped, the finished ones are kept in {out}; re-run the same command "
            "to resume")
    try:
        with watching(flag.presses, out / TMP_NAME, line):
            yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run(
    spec: RunSpec,
    out: str | Path,
    *,
    chunk_size: int | None = None,
    threads: int | None = None,
    backend: Backend | None = None,
    progress: bool = True,
    label: str | None = None,
    nested: bool = False,
    restart: bool = False,
) -> RunResult:
    """Play every game of ``spec`` not yet stored in ``out`` and store it; see the module doc.

    ``chunk_size`` defaults to the game's own; ``threads`` (numba threads per chunk) defaults to all;
    ``backend`` defaults to :class:`LocalBackend`. Raises :class:`SpecError` on bad settings or a
    directory that cannot hold this run, before anything is written. ``label`` names the stage in the progress
    (default: the game and level), ``nested`` says it runs inside another stage (a batch's cell, a study's part).
    ``restart``: a run already in ``out`` (of any spec) is cleared and played afresh.
    """
    began = time.perf_counter()
    chunk_size, threads = check_execution(spec, chunk_size, threads, backend)
    store = open_run(out, spec, spec.plugin.tables(spec.level), restart=restart)
    try:
        bar = progress_of(spec.n, label or f"{spec.game} {spec.level}", spec.level, enabled=progress,
                          initial=store.games_done(), nested=nested, unit_scale=True)
        try:
            games, written, interrupted = _play(store, spec, chunk_size, threads, backend or LocalBackend(), bar)
        except StrategyCodeError as err:
            again = "use a new --out" if nested else "run the same command with --restart (or a new --out)"
            raise StrategyCodeError(f"{err}; the games finished before it are kept in {out}: fix the file, then "
                                    f"{again}") from None
        if interrupted:
            store.close()
        else:
            store.finish()
    finally:
        _close_quietly(store)
    return RunResult(Path(out), spec, games, written, interrupted, time.perf_counter() - began, store.repairs)


def _play(store, spec: RunSpec, chunk_size: int, threads, backend, bar) -> tuple[int, int, bool]:
    """Play the store's missing chunks through ``backend`` and record each as it finishes, ``bar`` counting the
    games (a local backend reports slices of a chunk as they are played); ``(games, chunks written,
    interrupted)``."""
    chunks = iter_chunks(store.missing_ranges(), chunk_size)
    flag = _StopFlag()
    games = written = in_flight = 0

    def on_games(k: int) -> None:
        nonlocal in_flight
        in_flight += k
        bar.update(k)

    task = ChunkTask(spec, store.path.resolve())
    sliced = {"on_games": on_games} if isinstance(backend, LocalBackend) and not isinstance(bar, Silent) else {}
    watchdog = watched(sigint=False) if runs_on_reference(seats_of(spec)) else nullcontext()  # a decision cannot hang
    playing = closing(backend.run(task, chunks, threads, **sliced))
    with bar, _sigint_sets(flag, store.path), watchdog, playing as finished:
        for (start, stop), frames in finished:
            if isinstance(frames, WrittenParts):
                done = store.record_chunk(start, stop, frames.records)
            elif frames is None:
                done = store.record_chunk(start, stop)
            else:
                done = store.write_chunk(start, stop, frames)
            bar.update((stop - start if done else 0) - in_flight)
            in_flight = 0
            if done:
                games += stop - start
                written += 1
            if flag.set:
                break
    return games, written, bool(store.missing_ranges())


def _close_quietly(store) -> None:
    """Release the store when an error is on its way out: record what is finished if the disk lets us."""
    if store.lock is None:
        return
    try:
        store.close()
    except OSError:
        if store.lock is not None:
            store.lock.release()
            store.lock = None
