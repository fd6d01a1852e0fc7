"""The chunked runner: play a run's missing games chunk by chunk and store each chunk as it finishes.

``run(spec, out)`` is the whole life of a run: validate the execution settings, open the run
directory (which refuses a different spec before anything is written), split the games not yet on
disk into chunks, hand them to a backend, write every finished chunk, and mark the run complete.

Interrupting is safe at any moment. Ctrl-C lets the chunk in flight finish and be written, then the
run stops with ``interrupted=True``; a second Ctrl-C stops at once. A killed run loses at most the
chunks in flight. Re-running the same spec on the same directory plays only the missing games (with
any chunk size), so the final dataset is the one an uninterrupted run writes.
"""

from __future__ import annotations

import signal
import threading
import time
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from simulator.core.backends import Backend, ChunkTask, LocalBackend, check_threads
from simulator.core.errors import SpecError
from simulator.core.spec import RunSpec
from simulator.core.store import open_run


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


def split_ranges(ranges: list[tuple[int, int]], chunk_size: int) -> list[tuple[int, int]]:
    """Cut each ``[start, stop)`` into consecutive chunks of at most ``chunk_size`` games."""
    return [(a, min(a + chunk_size, stop)) for start, stop in ranges for a in range(start, stop, chunk_size)]


def check_chunk_size(chunk_size, field: str = "--chunk-size") -> int:
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise SpecError(field, chunk_size, "an integer >= 1")
    return chunk_size


class _StopFlag:
    """Set by the first Ctrl-C; the second one raises ``KeyboardInterrupt``."""

    def __init__(self):
        self.set = False

    def handle(self, signum, frame):
        if self.set:
            raise KeyboardInterrupt
        self.set = True


@contextmanager
def _sigint_sets(flag: _StopFlag):
    """Route SIGINT to ``flag`` for the duration (main thread only), then restore the old handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, flag.handle)
    try:
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
) -> RunResult:
    """Play every game of ``spec`` not yet stored in ``out`` and store it; see the module doc.

    ``chunk_size`` defaults to the game's own; ``threads`` (numba threads per chunk) defaults to all;
    ``backend`` defaults to :class:`LocalBackend`. Raises :class:`SpecError` on bad settings or a
    directory that cannot hold this run, before anything is written.
    """
    began = time.perf_counter()
    plugin = spec.plugin
    chunk_size = check_chunk_size(plugin.default_chunk_size(spec.level) if chunk_size is None else chunk_size)
    threads = getattr(backend, "check_threads", check_threads)(threads)  # a cluster's workers have their own cores
    store = open_run(out, spec, plugin.tables(spec.level))
    chunks = split_ranges(store.missing_ranges(), chunk_size)
    backend = backend or LocalBackend()
    flag = _StopFlag()
    games = written = 0
    bar = tqdm(total=spec.n, initial=store.games_done(), unit=spec.level, disable=None if progress else True,
               unit_scale=True, dynamic_ncols=True)
    task = ChunkTask(spec, store.path.resolve())
    with bar, _sigint_sets(flag), closing(backend.run(task, chunks, threads)) as finished:
        for (start, stop), frames in finished:
            done = store.record_chunk(start, stop) if frames is None else store.write_chunk(start, stop, frames)
            if done:
                games += stop - start
                written += 1
                bar.update(stop - start)
            if flag.set:
                break
    interrupted = bool(store.missing_ranges())
    if interrupted:
        store.close()
    else:
        store.finish()
    return RunResult(Path(out), spec, games, written, interrupted, time.perf_counter() - began)
