"""The second Ctrl-C ends a run within a second, even while compiled code holds the main thread.

Python runs a signal handler only between two bytecodes of the main thread; a numba kernel playing a chunk (a
strategy file's decision that loops, or only a long chunk) holds it for as long as it runs, so Ctrl-C would wait
for the kernel. The signal's number is still written at once to the wakeup file descriptor
(:func:`signal.set_wakeup_fd`), and the kernels release the GIL: a watcher thread reads it, and when a second
Ctrl-C has not reached the Python handler one second later, it removes the run's temporary folder (the chunk in
flight; every finished chunk is already on disk, listed or adopted by the next open) and ends the process, exit
130. The run then resumes like any interrupted one.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

GRACE = 1.0
"""Seconds the Python handler has to take the second Ctrl-C before the watcher ends the process."""

PRESSES = 2
"""The Ctrl-C that stops at once (the first lets the chunk in flight finish)."""


class Presses:
    """How many Ctrl-C the Python handler has taken (``handled``): the watcher compares it with what it saw."""

    def __init__(self):
        self.handled = 0


@contextmanager
def watching(presses: Presses, tmp: Path, line: str):
    """While the block runs in the main thread, a Ctrl-C past :data:`PRESSES` that the handler has not taken within
    :data:`GRACE` seconds removes ``tmp`` and ends the process with ``line`` on stderr."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # another owner of the wakeup descriptor (an event loop): leave it to them
        os.close(read_end)
        os.close(write_end)
        yield
        return
    done = threading.Event()
    watcher = threading.Thread(target=_watch, args=(read_end, done, presses, tmp, line), daemon=True,
                               name="cardsim-ctrl-c")
    watcher.start()
    try:
        yield
    finally:
        done.set()
        signal.set_wakeup_fd(previous)
        watcher.join(timeout=1.0)
        os.close(read_end)
        os.close(write_end)


def _watch(read_end: int, done: threading.Event, presses: Presses, tmp: Path, line: str) -> None:
    seen, deadline = 0, None
    while not done.is_set():
        ready, _, _ = select.select([read_end], [], [], 0.1)
        if ready:
            seen += os.read(read_end, 256).count(bytes([signal.SIGINT]))
        if seen >= PRESSES and presses.handled < seen:
            deadline = deadline or time.monotonic() + GRACE
            if time.monotonic() >= deadline and not done.is_set():
                _end(tmp, line)
        else:
            deadline = None


def _end(tmp: Path, line: str) -> None:
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    finally:
        os._exit(130)
