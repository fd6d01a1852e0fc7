"""Interval estimates used everywhere a number is shown: every rate and mean carries its 95% interval."""

from __future__ import annotations

import math

Z95 = 1.959963984540054


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float, float]:
    """``(rate, low, high)``: the Wilson score interval of a proportion (``nan`` when ``n == 0``)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return p, max(0.0, center - half), min(1.0, center + half)


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """``(mean, low, high)`` from the sum and sum of squares (normal approximation, fine for n >= 30)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    mean = total / n
    if n == 1:
        return mean, math.nan, math.nan
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half
