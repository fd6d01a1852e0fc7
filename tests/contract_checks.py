"""Shared assertions of the strategy-contract tests of every game: an illegal answer stops both engines with the
same one line."""

from __future__ import annotations

import re
from typing import Callable

import pytest

from simulator.core.faults import StrategyError, new_fault


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
