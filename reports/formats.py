"""Numbers as the reader's language writes them (babel): ``52.3%`` and ``[51.0, 53.6]`` in English, ``52,3%`` and
``[51,0 ; 53,6]`` in French. Every function returns plain text (the templates escape it) and ``–`` for a missing
value (``None`` or ``nan``)."""

from __future__ import annotations

import math

from babel.numbers import format_decimal

from simulator.core.i18n import current_language

MISSING = "–"


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def _decimal(x: float, digits: int, signed: bool = False) -> str:
    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    if signed:
        pattern = f"+{pattern};-{pattern}"
    return format_decimal(x, pattern, locale=current_language())


def _bounds(low: str, high: str) -> str:
    return f"[{low} ; {high}]" if current_language() == "fr" else f"[{low}, {high}]"


def count(n) -> str:
    """A whole number with the language's thousands separator: ``12,345`` / ``12 345``."""
    return MISSING if _missing(n) else _decimal(int(n), 0)


def number(x, digits: int = 2, signed: bool = False) -> str:
    """``x`` with ``digits`` decimals (a sign when ``signed``)."""
    return MISSING if _missing(x) else _decimal(float(x), digits, signed)


def pct(x, digits: int = 1, signed: bool = False) -> str:
    """A share as a percentage: ``52.3%``."""
    return MISSING if _missing(x) else _decimal(100 * float(x), digits, signed) + "%"


def interval(low, high, digits: int = 2, signed: bool = False, percent: bool = False) -> str:
    """A 95% interval's bounds: ``[1.20, 1.45]``; percentages of shares with ``percent``."""
    if _missing(low) or _missing(high):
        return MISSING
    scale = 100 if percent else 1
    return _bounds(_decimal(scale * float(low), digits, signed), _decimal(scale * float(high), digits, signed))


def share_cell(rate, low, high, digits: int = 1) -> str:
    """A share with its interval in one cell: ``52.3% [51.0, 53.6]``."""
    if _missing(rate):
        return MISSING
    bounds = interval(low, high, digits, percent=True)
    return pct(rate, digits) + ("" if bounds == MISSING else " " + bounds)


def mean_cell(mean, low, high, digits: int = 2, signed: bool = False) -> str:
    """A mean with its interval in one cell: ``+1.32 [+1.20, +1.45]``."""
    if _missing(mean):
        return MISSING
    bounds = interval(low, high, digits, signed)
    return number(mean, digits, signed) + ("" if bounds == MISSING else " " + bounds)


def points_cell(mean, low, high, digits: int = 2) -> str:
    """A difference of shares in points of percentage with its interval: ``+1.2 [+0.4, +2.0]``."""
    if _missing(mean):
        return MISSING
    return mean_cell(100 * mean, 100 * low if not _missing(low) else low, 100 * high if not _missing(high) else high,
                     digits, True)
