"""Shared assertions of the strategy-contract tests of every game: an illegal answer stops both engines with the
same one line."""

from __future__ import annotations

import re
from typing import Callable

import pytest

from simulator.core.errors import StrategyCodeError
from simulator.core.kernels.faults import StrategyError, new_fault


def accepts(check, *args) -> bool:
    """Whether the answer check ``check(fault, me=0, *args)`` accepts; a refusal always leaves its fault record."""
    fault = new_fault()
    ok = bool(check(fault, 0, *args))
    assert ok == (fault[0] == 0)
    return ok


def assert_both_engines_stop_with_one_line(fast: Callable[[], object], reference: Callable[[], object],
                                           label: str, seat: int, says: str) -> str:
    """``fast()`` (the compiled engine) and ``reference()`` both raise :class:`StrategyError` with the same line:
    one line, naming strategy ``label`` at ``seat``, matching the regular expression ``says``; returns it."""
    with pytest.raises(StrategyError) as compiled:
        fast()
    with pytest.raises(StrategyError) as ref:
        reference()
    line = str(compiled.value)
    assert line == str(ref.value)  # the first fault in game order, described the same way
    assert "\n" not in line and line.startswith(f"strategy {label!r} (seat {seat}) answered "), line
    assert re.search(says, line), line
    return line


def assert_both_engines_name_the_raise(fast: Callable[[], object], reference: Callable[[], object], label: str,
                                       seat: int, decision: str, file: str) -> None:
    """A file's ``decision`` that raises ``ZeroDivisionError`` stops both engines with a
    :class:`StrategyCodeError` (exit 1, never a run going on with a made-up answer): the compiled one names the
    strategy, seat and decision (numba does not say which exception), the reference one the file, the decision and
    the exception (and its line, for Python code: the reference engine calls a numba function as compiled)."""
    with pytest.raises(StrategyCodeError) as compiled:
        fast()
    line = str(compiled.value)
    assert "\n" not in line and line.startswith(f"strategy {label!r} (seat {seat}): its {decision}() raised an "
                                                "exception in the compiled engine"), line
    with pytest.raises(StrategyCodeError) as ref:
        reference()
    line = str(ref.value)
    assert "\n" not in line, line
    assert re.fullmatch(rf"strategy file {re.escape(file)}, {decision}\(\)( \(line \d+\))?: ZeroDivisionError: .*", line)
