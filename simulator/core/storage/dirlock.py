"""One writer per directory: an exclusive OS advisory lock on ``DIR/.lock``.

Every writer of a run, batch or study directory holds the lock of that directory while it writes (a batch
or study holds its own while its cells take theirs). The lock is ``fcntl.flock`` on the file ``DIR/.lock``,
whose content names the holder (``pid host``): the kernel releases it when the process ends, however it
ends, so a killed writer never leaves a stale lock (the file stays, the lock does not). A second process is
refused at once with one line naming the holder's pid (:class:`SpecError`, exit 2). Readers take no lock.

Within one process the lock is re-entrant (a study holds its directory's lock and its ``run`` takes it
again): it is counted per directory and released when the last holder lets go. It keeps processes apart,
not threads. On NFS, Linux maps ``flock`` to a POSIX byte-range lock, which the NFS lock manager shares
between machines; Dask workers never take it (the client holding it is the run's one writer).
"""

from __future__ import annotations

import fcntl
import os
import socket
import threading
from pathlib import Path

from simulator.core.errors import SpecError

LOCK_NAME = ".lock"
_HELD: dict[str, list] = {}  # resolved directory -> [fd, count]
_GUARD = threading.Lock()


def holder_of(directory: str | Path) -> str:
    """What ``DIR/.lock`` says about its last holder (``"pid 123 on host"``), or ``"unknown"``."""
    try:
        words = (Path(directory) / LOCK_NAME).read_text(encoding="utf-8", errors="replace").split()
    except OSError:
        return "unknown"
    return f"pid {words[0]} on {words[1]}" if len(words) >= 2 else "unknown"


class DirLock:
    """The exclusive lock of one directory (which must exist). ``acquire()`` raises :class:`SpecError` on
    ``field`` when another process holds it; use as a context manager or pair with ``release()``."""

    def __init__(self, directory: str | Path, field: str = "--out"):
        self.directory = Path(directory)
        self.field = field
        self.key = str(self.directory.resolve())
        self.held = False

    def acquire(self) -> "DirLock":
        with _GUARD:
            entry = _HELD.get(self.key)
            if entry is not None:
                entry[1] += 1
                self.held = True
                return self
            lock = self.directory / LOCK_NAME
            if lock.is_symlink():  # never follow it: opening it would create or truncate a file elsewhere
                os.unlink(lock)
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                raise SpecError(self.field, str(self.directory), "a directory no other process is writing "
                                "(wait for that one to finish, or stop it)",
                                f"is being written by another cardsim process ({holder_of(self.directory)})") from None
            except BaseException:
                os.close(fd)
                raise
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)
            _HELD[self.key] = [fd, 1]
            self.held = True
            return self

    def release(self) -> None:
        if not self.held:
            return
        self.held = False
        with _GUARD:
            entry = _HELD.get(self.key)
            if entry is None:
                return
            entry[1] -= 1
            if entry[1] == 0:
                del _HELD[self.key]
                os.close(entry[0])  # closing the descriptor releases the flock

    def __enter__(self) -> "DirLock":
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def is_locked_here(directory: str | Path) -> bool:
    """``True`` when this process holds the lock of ``directory``."""
    return str(Path(directory).resolve()) in _HELD
