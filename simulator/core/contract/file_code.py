"""Running the code of a user's strategy file: whatever it does is the file's fault, said in one line, and it cannot
hang cardsim.

Every call of the reference engine into a file's decision (the generated ``ask`` of
:class:`simulator.core.contract.decisions.ReferenceDispatch`) and the file's import go through here: any exception, a
``SystemExit`` or a ``KeyboardInterrupt`` raised by the file's code becomes a :class:`StrategyCodeError` naming the
file, the decision, the line and the exception; a write into ``prm`` (read-only) says so; a call that runs longer
than :data:`DECISION_SECONDS` is stopped by :func:`watched`'s alarm. A real Ctrl-C
(:class:`simulator.core.run.runner.Interrupted`) passes through unchanged.
"""

from __future__ import annotations

import signal
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

from simulator.core.errors import StrategyCodeError

DECISION_SECONDS = 10
"""The longest one decision of a file may run (a decision of the built-in families takes microseconds)."""

IMPORT_SECONDS = 30
"""The longest a file's import may run."""

TICK = 0.5
"""Seconds between two looks of the watchdog."""


class Interrupted(KeyboardInterrupt):
    """The user's own Ctrl-C (raised by cardsim's handler): never blamed on a strategy file."""


class OverTime(BaseException):
    """Raised into a file's code that ran past its limit (a ``BaseException``, so that the file's ``except
    Exception`` does not swallow it)."""


class BudgetSpent(BaseException):
    """Raised into cardsim's own code when a watched block's budget is spent (:func:`watched`)."""


class Guard:
    """Which file call is running (``inside``: a description, ``None`` between calls), counted by ``calls``; the
    watchdog reads both."""

    def __init__(self):
        self.inside: str | None = None
        self.calls = 0


GUARD = Guard()


@contextmanager
def watched(limit: float | None = None, sigint: bool = True, budget: float | None = None):
    """While the block runs (in the main thread; elsewhere it is not watched), a file's call that has run ``limit``
    seconds (default :data:`DECISION_SECONDS`) is interrupted with :class:`OverTime`, and, with ``sigint``, a Ctrl-C
    raises :class:`Interrupted` (the user's, not the file's). With ``budget``, cardsim's own code (between the file's
    calls) is interrupted with :class:`BudgetSpent` once the block has run that many seconds. Nested blocks keep
    the outer watchdog."""
    limit = DECISION_SECONDS if limit is None else limit
    if threading.current_thread() is not threading.main_thread() or _WATCH["on"]:
        yield
        return
    state = {"calls": -1, "since": 0.0, "ends": None if budget is None else time.monotonic() + budget}

    def tick(signum, frame):
        if GUARD.inside is None and state["ends"] is not None and time.monotonic() >= state["ends"]:
            state["ends"] = None  # once
            raise BudgetSpent
        if GUARD.inside is None or GUARD.calls != state["calls"]:
            state["calls"], state["since"] = GUARD.calls, 0.0
            return
        state["since"] += TICK
        if state["since"] >= limit:
            raise OverTime

    previous = signal.signal(signal.SIGALRM, tick)
    previous_sigint = signal.signal(signal.SIGINT, _interrupt) if sigint else None
    signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
    _WATCH["on"] = True
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if sigint:
            signal.signal(signal.SIGINT, previous_sigint)
        _WATCH["on"] = False


def _interrupt(signum, frame):
    raise Interrupted


_WATCH = {"on": False}


def fault_line(path: str, where: str, err: BaseException, limit: float | None = None) -> str:
    """``strategy file NAME.py, WHERE (line N): what happened``: one line for an exception ``err`` raised by the
    file's code at ``where`` (``"contre()"``, ``"import"``)."""
    limit = DECISION_SECONDS if limit is None else limit
    line = _line_in(path, err)
    head = f"strategy file {Path(path).name}, {where}" + (f" (line {line})" if line else "")
    if isinstance(err, OverTime):
        what = (f"still running after {limit:g} s (a loop that never ends?); "
                f"{'an import' if where == 'import' else 'a decision'} may take {limit:g} s at most")
    elif isinstance(err, SystemExit):
        what = f"SystemExit({err.code!r}): a strategy file may not end cardsim"
    elif isinstance(err, KeyboardInterrupt):
        what = "KeyboardInterrupt raised by the file"
    elif isinstance(err, ValueError) and "read-only" in str(err):
        what = "writes into prm, its parameters, which are read-only during a run"
    else:
        first = (str(err).strip().splitlines() or [""])[0][:200]
        what = f"{type(err).__name__}: {first}" if first else type(err).__name__
    return f"{head}: {what}"


def _line_in(path: str, err: BaseException) -> int | None:
    """The line of ``path`` the exception was raised from (its deepest frame in that file)."""
    found = None
    for frame in traceback.extract_tb(err.__traceback__):
        if Path(frame.filename).resolve() == Path(path).resolve():
            found = frame.lineno
    return found


def file_fault(path: str, decision: str, err: BaseException):
    """Raise the :class:`StrategyCodeError` of ``err``, raised by the file at ``path`` in ``decision``; a real Ctrl-C
    goes on as it is."""
    if isinstance(err, (Interrupted, BudgetSpent)):
        raise err
    raise StrategyCodeError(fault_line(path, f"{decision}()", err)) from None
