"""Cells of a report's tables, as the reader's language writes them (:mod:`simulator.core.i18n`): ``52.3% [51.0,
53.6]`` in English, ``52,3 % [51,0 ; 53,6]`` in French. Every function returns plain text (the templates escape it)
and ``–`` for a missing value (``None`` or ``nan``)."""

from __future__ import annotations

import math

from simulator.core.i18n import bounds, number, percent

MISSING = "–"

__all__ = ["MISSING", "count", "interval", "mean_cell", "number", "pct", "points_cell", "share_cell", "stacked"]


def _missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def count(n) -> str:
    """A whole number with the language's thousands separator: ``12,345`` / ``12 345``."""
    return MISSING if _missing(n) else number(int(n), 0)


def pct(x, digits: int = 1, signed: bool = False) -> str:
    """A share as a percentage: ``52.3%``."""
    return percent(x, digits, signed)


def interval(low, high, digits: int = 2, signed: bool = False, percent: bool = False) -> str:
    """A 95% interval's bounds: ``[1.20, 1.45]``; percentages of shares with ``percent``."""
    if _missing(low) or _missing(high):
        return MISSING
    scale = 100 if percent else 1
    return bounds(number(scale * float(low), digits, signed), number(scale * float(high), digits, signed))


def share_cell(rate, low, high, digits: int = 1) -> str:
    """A share with its interval in one cell: ``52.3% [51.0, 53.6]``."""
    if _missing(rate):
        return MISSING
    around = interval(low, high, digits, percent=True)
    return pct(rate, digits) + ("" if around == MISSING else " " + around)


def mean_cell(mean, low, high, digits: int = 2, signed: bool = False) -> str:
    """A mean with its interval in one cell: ``+1.32 [+1.20, +1.45]``."""
    if _missing(mean):
        return MISSING
    around = interval(low, high, digits, signed)
    return number(mean, digits, signed) + ("" if around == MISSING else " " + around)


def points_cell(mean, low, high, digits: int = 2) -> str:
    """A difference of shares in points of percentage with its interval: ``+1.2 [+0.4, +2.0]``."""
    if _missing(mean):
        return MISSING
    scaled = [x if _missing(x) else 100 * x for x in (low, high)]
    return mean_cell(100 * mean, *scaled, digits, True)


def stacked(cell: str) -> str:
    """A value and its interval on two lines (``52.3%`` then ``[51.0, 53.6]``): for a table of many such columns."""
    return cell.replace(" [", "\n[", 1)
