"""The Dask backend: play a run's chunks on a Dask distributed cluster (``--scheduler tcp://host:8786``).

Dask is an optional extra (``pip install cardsim[dask]``) and is imported only when this backend is
used: the local path never needs it.

How a run goes (see docs/scale-out.md):

* The client (``cardsim simulate ... --scheduler ADDR``) connects within a bounded time, or stops with
  one line (:class:`SpecError`, exit 2) before anything is written.
* Every chunk is one Dask task, submitted under a key made of the run (spec digest, run directory,
  collection mode) and the chunk's range, with ``retries``; at most ``in_flight`` tasks are queued at a
  time, topped up as they finish (:func:`distributed.as_completed`).
* On the worker the task plays the chunk with the serial kernel (numba threads = 1 unless
  ``--threads`` says otherwise; a lock keeps one kernel per worker process, since numba's default
  threading layer may not be entered by two threads at once).
* ``collect="workers"`` (the default): the worker writes the chunk's part files itself, atomically
  (:func:`simulator.core.storage.store.write_parts`: temporary name, fsync, rename; a part already in place with
  the same bytes is kept) and returns only the parts' records (size, sha256, rows); the client, which holds
  the run directory's lock (workers never take it), checks that it sees the same bytes and records the chunk.
  This needs the run directory on storage the client and the workers share, at the same path.
  ``collect="client"``: the task returns the chunk's frames and the client writes them as the local
  backend does.
* A worker that dies mid-chunk loses nothing: the scheduler runs the task again elsewhere, and a part
  is written once (or rewritten identically). A chunk that kills ``allowed-failures`` workers in a
  row, or a scheduler that goes away, stops the run with :class:`ClusterError` (one line, exit 3);
  finished chunks stay on disk and re-running the same command resumes.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from concurrent.futures import CancelledError
from itertools import islice
from typing import Iterable, Iterator

import numba

from simulator.core.errors import ClusterError, SpecError
from simulator.core.run.backends import Frames, Task

COLLECT_MODES = ("workers", "client")
ADDRESS_ALLOWED = "a reachable Dask scheduler address such as tcp://host:8786 (or host:8786)"
_ADDRESS = re.compile(r"^(?:(?P<scheme>tcp|tls|ws|wss|ucx)://)?(?P<host>\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.\-]+):(?P<port>\d{1,5})/?$")


def check_address(address) -> str:
    """``address`` as a scheme-qualified Dask address (``host:port`` means ``tcp://host:port``);
    :class:`SpecError` when it cannot be one (no port, a port out of range, an unknown scheme)."""
    match = _ADDRESS.match(str(address).strip()) if isinstance(address, str) else None
    if not match or not 1 <= int(match.group("port")) <= 65535:
        raise SpecError("--scheduler", address, ADDRESS_ALLOWED, "is not a scheduler address")
    return f"{match.group('scheme') or 'tcp'}://{match.group('host')}:{int(match.group('port'))}"


def check_collect(collect) -> str:
    if collect not in COLLECT_MODES:
        raise SpecError("--collect", collect, " | ".join(COLLECT_MODES))
    return collect


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise SpecError("--scheduler", None, "pip install 'cardsim[dask]' (dask and distributed)",
                        "needs the optional Dask extra, which is not installed") from None
    return distributed


def quiet_dask_logs() -> None:
    """Keep Dask's own log lines (reconnect attempts, lost workers, a local cluster closing) off the
    terminal. Does nothing when Dask is not installed."""
    try:
        import distributed  # noqa: F401 - importing it sets its loggers' levels, which are raised here
    except ImportError:
        return

    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name == "distributed" or name.startswith("distributed."):
            logging.getLogger(name).setLevel(logging.CRITICAL)


# --- what runs on a worker ---------------------------------------------------------------------------

_KERNEL_LOCK = threading.Lock()


def play_on_worker(task: Task, start: int, stop: int, threads: int | None, write: bool):
    """The body of one Dask task: play games ``[start, stop)`` with ``threads`` numba threads (default
    1, the serial kernel) and either write the parts (``write``: returns their
    :class:`~simulator.core.run.backends.WrittenParts`) or return the frames."""
    with _KERNEL_LOCK:
        previous = numba.get_num_threads()
        numba.set_num_threads(max(1, min(threads or 1, numba.config.NUMBA_NUM_THREADS)))
        try:
            if write:
                return task.write(start, stop, threads or 1)
            return task(start, stop, threads or 1)
        finally:
            numba.set_num_threads(previous)


# --- the client side ---------------------------------------------------------------------------------


class DaskBackend:
    """Runs chunks as tasks on the Dask cluster whose scheduler is at ``address``.

    ``collect``: ``"workers"`` (workers write the part files; the run directory must be shared at the
    same path) or ``"client"`` (frames come back to this process, which writes them).
    ``connect_timeout``: seconds to reach the scheduler. ``in_flight``: tasks queued at a time (default
    twice the cluster's worker threads, at least 4). ``retries``: extra attempts of a task that raised.
    Use as a context manager, or call :meth:`connect` / :meth:`close`.
    """

    def __init__(self, address: str, collect: str = "workers", *, connect_timeout: float = 10.0,
                 in_flight: int | None = None, retries: int = 2):
        self.address = check_address(address)
        self.collect = check_collect(collect)
        self.connect_timeout = connect_timeout
        self.in_flight = in_flight
        self.retries = retries
        self.client = None

    def connect(self):
        """Connect to the scheduler (once); :class:`SpecError` when it cannot be reached in time."""
        if self.client is not None:
            return self.client
        distributed = _import_distributed()
        try:
            self.client = distributed.Client(self.address, timeout=self.connect_timeout, set_as_default=False)
        except (OSError, TimeoutError) as err:
            reason = f"cannot be reached within {self.connect_timeout:g} s ({type(err).__name__})"
            raise SpecError("--scheduler", self.address, ADDRESS_ALLOWED, reason) from None
        return self.client

    def close(self) -> None:
        if self.client is not None:
            try:
                self.client.close(timeout=self.connect_timeout)
            except Exception:  # noqa: BLE001 - the scheduler may be gone already; nothing to keep
                pass
            self.client = None

    def __enter__(self) -> "DaskBackend":
        self.connect()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @staticmethod
    def check_threads(threads) -> int | None:
        """``--threads`` on a cluster: numba threads per task (default 1), any integer >= 1; a worker
        uses at most its own ``NUMBA_NUM_THREADS``."""
        if threads is None:
            return None
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise SpecError("--threads", threads, "an integer >= 1 (numba threads per task on a worker)")
        return threads

    def worker_threads(self) -> int:
        try:
            return sum(self.client.nthreads().values())
        except Exception:  # noqa: BLE001 - only a sizing hint
            return 0

    def run(self, task: Task, ranges: Iterable[tuple[int, int]], threads: int | None = None) -> Iterator[
        tuple[tuple[int, int], Frames | None]
    ]:
        """Yields ``((start, stop), frames)`` as chunks finish; ``frames`` is a :class:`WrittenParts` (the
        parts' records) when a worker wrote the chunk's parts itself (the runner then checks and records it)."""
        distributed = _import_distributed()
        client = self.connect()
        write = self.collect == "workers" and getattr(task, "out", None) is not None
        todo = iter(ranges)
        limit = self.in_flight or max(4, 2 * self.worker_threads())
        prefix = _key_prefix(task, "workers" if write else "client")
        chunk_of = {}

        def submit(chunk):
            start, stop = chunk
            future = client.submit(play_on_worker, task, start, stop, threads, write,
                                   key=f"{prefix}-{start:012d}-{stop:012d}", retries=self.retries, pure=False)
            chunk_of[future.key] = chunk
            return future

        pending = distributed.as_completed([submit(c) for c in islice(todo, limit)], loop=client.loop)
        try:
            for future in pending:
                chunk = chunk_of.pop(future.key)
                result = self._result(distributed, future, chunk)
                following = next(todo, None)
                if following is not None:
                    pending.add(submit(following))
                future.release()
                yield chunk, result
        finally:
            left = list(pending.futures)
            if left and client.status == "running":
                try:
                    client.cancel(left)
                except Exception:  # noqa: BLE001 - best effort: tasks already started still finish
                    pass

    def map(self, calls: list[tuple[Task, int, int]], threads: int | None = None) -> list:
        """Play every ``(task, start, stop)`` of ``calls`` as one Dask task each, all at once, and return their
        results in the order of ``calls`` (a task here returns what it computes; nothing is written). Used by
        analyses that need many small evaluations rather than a dataset (``cardsim tune --scheduler``)."""
        distributed = _import_distributed()
        client = self.connect()
        futures = [client.submit(play_on_worker, task, start, stop, threads, False, retries=self.retries, pure=False)
                   for task, start, stop in calls]
        try:
            return [self._result(distributed, future, (start, stop))
                    for future, (_, start, stop) in zip(futures, calls)]
        finally:
            if client.status == "running":
                try:
                    client.cancel(futures)
                except Exception:  # noqa: BLE001 - best effort: the results are already read
                    pass

    def _result(self, distributed, future, chunk):
        """The task's result, or :class:`ClusterError` when the cluster failed it (a lost scheduler,
        a chunk that killed its workers). Errors raised by the game itself propagate unchanged."""
        start, stop = chunk
        try:
            return future.result()
        except distributed.scheduler.KilledWorker:
            raise ClusterError(
                f"chunk {start}-{stop} was running on every worker that died (Dask's allowed-failures); "
                f"the finished chunks are kept, re-run the same command to resume"
            ) from None
        except Exception as err:  # noqa: BLE001 - sorted below
            lost = isinstance(err, distributed.comm.CommClosedError) or _is_cancelled(err)
            if lost or self.client.status not in ("running", "connecting"):
                raise ClusterError(self._lost(err)) from None
            raise

    def _lost(self, err) -> str:
        return (f"lost the Dask scheduler {self.address} mid-run ({type(err).__name__}); the finished chunks "
                f"are kept, re-run the same command to resume")


def _is_cancelled(err: BaseException) -> bool:
    return isinstance(err, CancelledError) or type(err).__name__ in ("CancelledError", "FutureCancelledError")


def _key_prefix(task, mode: str) -> str:
    """The task-key prefix of one run: the same run into the same directory the same way gets the same
    keys (a resubmitted chunk still known to the scheduler is not played twice); anything else differs."""
    spec = getattr(task, "spec", None)
    ident = f"{spec.digest() if spec is not None else id(task)}|{getattr(task, 'out', '')}|{mode}"
    game = getattr(spec, "game", "task")
    return f"cardsim-{game}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"
