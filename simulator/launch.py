"""The ``cardsim`` console script: starts the command line so that nothing at start-up prints a traceback.

Importing the command line loads numpy, numba, polars and the games, which takes a second or more: a Ctrl-C in
that time, or a memory limit the imports hit, would otherwise end in a long ``KeyboardInterrupt`` or
``MemoryError`` traceback. This module imports nothing heavy itself; it imports :mod:`cli` inside the handlers
and gives those cases the command line's own one-line endings (Ctrl-C: ``aborted``, exit 130; out of memory or
a broken installation: one line, exit 1). Everything after start-up is :func:`cli.main`'s.
"""

from __future__ import annotations

import os
import signal
import sys
import warnings
from pathlib import Path


def _say(line: str) -> None:
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed or broken stderr: nothing more to do
        pass


CACHE_ENV = "CARDSIM_CACHE_DIR"


def cache_dir_problem() -> str | None:
    """What makes ``$CARDSIM_CACHE_DIR`` unusable as the compiled kernels' cache (``None``: unset, or a directory
    cardsim can write, made if missing). A cache that cannot be written would make every run compile again."""
    value = os.environ.get(CACHE_ENV)
    if not value:
        return None
    path = Path(value).expanduser()
    if path.exists() and not path.is_dir():
        return "is a file, not a directory"
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        return f"cannot be made ({err.strerror})"
    if not os.access(path, os.W_OK | os.X_OK):
        return "is not writable"
    return None


ADDRESS_SPACE_FLOOR = 1_800_000 * 1024
"""The least address space (``ulimit -v``) cardsim starts with: measured on 2026-12-07, ``simulate`` and ``report``
run at 1,800,000 KB and fail at 1,536,000 (polars cannot start its threads, an image codec cannot load)."""


def memory_problem() -> str | None:
    """What makes the address-space limit too low to start (``None``: no limit, or enough)."""
    try:
        import resource
    except ImportError:  # not a POSIX system: no such limit
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY or soft >= ADDRESS_SPACE_FLOOR:
        return None
    return (f"the address-space limit (ulimit -v) is {soft // 1024:,} KB; cardsim needs at least "
            f"{ADDRESS_SPACE_FLOOR // 1024:,} KB: raise it (ulimit -v {ADDRESS_SPACE_FLOOR // 1024}), then re-run")


def start(argv: list[str] | None = None) -> int:
    """Import the command line and run it; the exit code, with start-up interruptions and failures as one line."""
    problem = cache_dir_problem()
    if problem:
        _say(f"Error: {CACHE_ENV}: {os.environ[CACHE_ENV]!r} {problem}; allowed: a directory cardsim can write its "
             "compiled kernels into, or unset (~/.cache/cardsim)")
        return 2
    problem = memory_problem()
    if problem:
        _say(f"Error: {problem}")
        return 1
    # polars' allocator (jemalloc) starts background threads; under a tight memory limit each failed start printed a
    # line (55,396 in one run): without them it allocates in the calling thread. OpenBLAS reserves a buffer per
    # thread when numpy loads (a report failed at 1.5 GB for it); cardsim's linear algebra is small.
    os.environ.setdefault("_RJEM_MALLOC_CONF", "background_thread:false")
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    interrupted: list[bool] = []
    previous = sys.unraisablehook

    def unraisable(report) -> None:
        # A Ctrl-C that lands in a callback of the import machinery (a module lock's cleanup) cannot propagate:
        # Python would print it as "Exception ignored ... KeyboardInterrupt" with a traceback and go on.
        if isinstance(report.exc_value, KeyboardInterrupt):
            interrupted.append(True)
        else:
            previous(report)

    sys.unraisablehook = unraisable
    try:
        with warnings.catch_warnings():  # a library's import-time warning (polars under a memory limit) is not
            warnings.simplefilter("ignore")  # the user's business; the failure that follows is reported below
            from cli import main
    except KeyboardInterrupt:
        _say("aborted")
        return 130
    except MemoryError:
        _say("Error: cardsim could not start (out of memory); free some memory or raise the limit, then re-run")
        return 1
    except (ImportError, OSError) as err:
        first = (str(err).strip().splitlines() or [""])[0][:160]
        _say(f"Error: cardsim could not start ({type(err).__name__}: {first}): too little memory or a broken "
             "installation; raise the memory limit, or reinstall with python3 scripts/dev.py setup")
        return 1
    finally:
        sys.unraisablehook = previous
    if interrupted:
        _say("aborted")
        return 130
    try:
        return main(argv)
    except KeyboardInterrupt:  # between the command's own handlers
        _say("aborted")
        return 130


def console() -> None:
    """Console-script entry point (``[project.scripts] cardsim``)."""
    code = start()
    try:
        # The command is over: a Ctrl-C now has nothing left to stop, and landing in the interpreter's shutdown
        # (threading._shutdown) it would print "Exception ignored" with a traceback.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except KeyboardInterrupt:
        pass
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    sys.exit(code)
