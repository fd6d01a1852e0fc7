"""Progress on long work, wherever its output goes: a bar in a terminal or a notebook, log lines elsewhere.

tqdm alone draws nothing when stderr is not a terminal (``nohup``, a cluster job's log, a pipe, CI), and a bar
that moves once per chunk says little. :func:`progress` returns one object with tqdm's ``update``,
``set_postfix_str``, ``finish`` (the stage ended before its total) and ``close`` that is

* in a terminal, or in a Jupyter kernel: a ``tqdm.auto`` bar (a widget in a notebook), labelled with the stage;
  bars of nested stages (a cell of a tournament, a part of a study) vanish when done instead of leaving one
  ``100%`` line each;
* anywhere else: :class:`LogLines`, one line to stderr when a top stage first moves (after any compile notice:
  the notice says what the wait is) and one when it ends, and in between at most one line every
  :data:`LOG_INTERVAL` seconds (``CARDSIM_PROGRESS_INTERVAL`` overrides it) for all stages together, from the
  stage that just moved:
  ``[cardsim] tournament cell 3/6 (a=balanced, b=cautious, seating=0): 120k/250k hands (48%), 410k hands/s,
  about 1 s left``.

The rate and the time left count from the end of the last compile (:func:`compile_finished`, called by
:mod:`simulator.core.kernels.compiling`): a first run's minute of compiling is not work, and an ETA that included it
would be wrong for the rest of the run.
"""

from __future__ import annotations

import os
import sys
import time
from functools import lru_cache
from simulator.core.i18n import _

LOG_INTERVAL = 10.0
_ACTIVE: list = []  # the open progress objects, whose clocks a finished compile restarts (kept by identity:
# tqdm's == compares bar positions)
_LAST_LINE = [0.0]  # when the last log line was written, by any stage (monotonic seconds)


def in_notebook() -> bool:
    """True inside a Jupyter kernel (where stderr is no terminal, yet a widget bar is what people expect)."""
    shell = sys.modules.get("IPython")
    if shell is None or "ipykernel" not in sys.modules:
        return False
    try:
        return "IPKernelApp" in shell.get_ipython().config
    except Exception:  # noqa: BLE001 — any odd IPython state: not a notebook
        return False


def draws_bars() -> bool:
    """Whether progress is drawn as bars (a terminal or a notebook) rather than written as log lines."""
    try:
        return sys.stderr.isatty() or in_notebook()
    except (AttributeError, ValueError):  # stderr replaced by an object without isatty, or closed
        return False


def _forget(bar) -> bool:
    """Take ``bar`` out of :data:`_ACTIVE`; whether it was there."""
    kept = [b for b in _ACTIVE if b is not bar]
    found = len(kept) < len(_ACTIVE)
    _ACTIVE[:] = kept
    return found


def compile_finished() -> None:
    """A kernel finished compiling: restart the rate and ETA clock of every open progress."""
    for bar in list(_ACTIVE):
        bar.restart_clock()


def _interval() -> float:
    try:
        return max(0.0, float(os.environ.get("CARDSIM_PROGRESS_INTERVAL", LOG_INTERVAL)))
    except ValueError:
        return LOG_INTERVAL


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def _count(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.3g}"


class LogLines:
    """Progress as log lines on stderr (see the module doc); ``total`` may be ``None`` (no percentage, no ETA)."""

    def __init__(self, total: int | None, label: str, unit: str, initial: int = 0, nested: bool = False):
        self.total, self.label, self.unit, self.nested = total, label, unit, nested
        self.n = initial
        self.postfix = ""
        self.interval = _interval()
        self.restart_clock()
        self._moved = nested  # a top stage's first move is always written
        _ACTIVE.append(self)

    def restart_clock(self) -> None:
        self._clock, self._clock_n = time.monotonic(), self.n

    def update(self, k: int = 1) -> None:
        self.n += k
        if not self._moved or time.monotonic() - _LAST_LINE[0] >= self.interval:
            self._moved = True
            self._say(self._line())

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self.postfix = text

    def finish(self) -> None:
        """The stage ended before its total (a duel decided early): it closes at ``done``, with no time left."""
        self.total = self.n

    def _line(self, done: bool = False) -> str:
        unit = _(self.unit)
        what = f"{self.n:,}" + (f"/{self.total:,}" if self.total else "") + f" {unit}"
        if self.total:
            what += f" ({100 * self.n / self.total:.0f}%)"
        elapsed = time.monotonic() - self._clock
        rate = (self.n - self._clock_n) / elapsed if elapsed > 0 else 0.0
        if rate > 0:
            what += f", {_count(rate)} {unit}/s"
            if self.total and not done and self.n < self.total:
                what += ", " + _("about {duration} left").format(duration=_duration((self.total - self.n) / rate))
        if done:
            what += ", " + _("done")
        return f"[cardsim] {self.label}: {what}" + (f" [{self.postfix}]" if self.postfix else "")

    @staticmethod
    def _say(line: str) -> None:
        _LAST_LINE[0] = time.monotonic()
        print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        if _forget(self):
            if not self.nested:
                self._say(self._line(done=self.total is None or self.n >= self.total))

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Silent:
    """Progress switched off (``--quiet``, ``progress=False``): every call does nothing."""

    n = 0

    def update(self, k: int = 1) -> None:
        self.n += k

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        pass

    def restart_clock(self) -> None:
        pass

    def finish(self) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        pass


def progress(total: int | None, label: str, unit: str, *, enabled: bool = True, initial: int = 0,
             nested: bool = False, unit_scale: bool = False):
    """The progress of one stage of ``total`` ``unit`` (``initial`` already done); see the module doc. ``nested``:
    a stage inside another (its bar vanishes when done)."""
    if not enabled:
        return Silent()
    if not draws_bars():
        return LogLines(total, label, unit, initial, nested)

    bar = _bar_class()(total=total, initial=initial, desc=label, unit=_(unit), unit_scale=unit_scale,
                       dynamic_ncols=True, leave=not nested)
    _ACTIVE.append(bar)
    return bar


@lru_cache(maxsize=None)
def _bar_class():
    """``tqdm.auto``'s bar (the terminal's, or the notebook widget) that restarts its clock and leaves
    :data:`_ACTIVE` when closed."""
    from tqdm.auto import tqdm

    class Bar(tqdm):
        def restart_clock(self) -> None:
            """Count the rate from now (tqdm's rate is ``(n - initial) / (now - start_t)``)."""
            self.start_t = self.last_print_t = self._time()
            self.initial = self.last_print_n = self.n

        def finish(self) -> None:
            """The stage ended before its total: the bar closes full."""
            self.total = self.n
            self.refresh()

        def close(self) -> None:
            _forget(self)
            super().close()

    return Bar
