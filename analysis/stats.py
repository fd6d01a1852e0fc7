"""Interval estimates used everywhere a number is shown: every rate and mean carries its 95% interval."""

from __future__ import annotations

import math
from dataclasses import dataclass

from scipy import stats as scipy_stats

Z95 = float(scipy_stats.norm.ppf(0.975))


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float, float]:
    """``(rate, low, high)``: the Wilson score interval of a proportion (``nan`` when ``n == 0``)."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    p = successes / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # the interval always holds p; the clamps only undo rounding (at p = 0, center - half can be 3e-17)
    return p, max(0.0, min(p, center - half)), min(1.0, max(p, center + half))


def t_quantile(n: int, level: float = 0.95) -> float:
    """The two-sided Student t quantile of a mean of ``n`` observations (``n - 1`` degrees of freedom)."""
    return float(scipy_stats.t.ppf(0.5 + level / 2, n - 1))


def mean_interval(total: float, total_sq: float, n: int, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` from the sum and sum of squares: the Student t interval at ``level`` (``n - 1``
    degrees of freedom), ``nan`` bounds below two observations."""
    if n <= 0:
        return math.nan, math.nan, math.nan
    mean = total / n
    if n == 1:
        return mean, math.nan, math.nan
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = t_quantile(n, level) * math.sqrt(var / n)
    return mean, mean - half, mean + half


def paired_difference(a, b, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)`` of ``a - b`` over paired observations (the same deals played by A and by B).

    ``a`` and ``b`` are equal-length sequences (e.g. points per deal, or 1/0 wins); pairing removes the
    deal-to-deal luck both share, which is why comparisons use common random numbers.
    """
    if len(a) != len(b):
        raise ValueError("paired samples must have the same length")
    diffs = [float(x) - float(y) for x, y in zip(a, b)]
    return mean_interval(sum(diffs), sum(d * d for d in diffs), len(diffs), level)


def games_needed(p1: float, p2: float, alpha: float = 0.05, power: float = 0.8, paired_rho: float = 0.0) -> int:
    """Games per strategy to tell win rates ``p1`` and ``p2`` apart (two-sided test at ``alpha`` with ``power``).

    ``paired_rho`` is the correlation between the two strategies' results on the same deal (0 for
    independent samples); pairing divides the variance by ``1 - rho`` roughly, which is the point of
    common random numbers.
    """
    if p1 == p2:
        raise ValueError("p1 and p2 must differ")
    za = float(scipy_stats.norm.ppf(1 - alpha / 2))
    zb = float(scipy_stats.norm.ppf(power))
    var = p1 * (1 - p1) + p2 * (1 - p2) - 2 * paired_rho * math.sqrt(p1 * (1 - p1) * p2 * (1 - p2))
    return math.ceil((za + zb) ** 2 * var / (p1 - p2) ** 2)


@dataclass
class SequentialComparison:
    """Wald's sequential probability ratio tests on paired duels: does A beat B, B beat A, or neither by ``delta``?

    Feed one paired result at a time (``+1`` A did better on that deal, ``-1`` B did, ``0`` a tie, which
    is ignored). With ``p`` = P(A does better | not a tie), two SPRTs run side by side: H0 ``p = 1/2``
    against H1 ``p = 1/2 + delta`` and against H1' ``p = 1/2 - delta``. The comparison stops with
    ``"A beats B"`` or ``"B beats A"`` when one H1 is accepted, or ``"within delta"`` when both H0s are;
    each test has type I error ``alpha`` and type II error ``beta`` (Wald's bounds, slightly conservative).
    """

    delta: float = 0.05
    alpha: float = 0.05
    beta: float = 0.05
    n: int = 0
    llr_up: float = 0.0
    llr_down: float = 0.0
    decision: str | None = None

    def __post_init__(self):
        if not 0 < self.delta < 0.5:
            raise ValueError("delta must be in (0, 0.5)")
        self.upper = math.log((1 - self.beta) / self.alpha)
        self.lower = math.log(self.beta / (1 - self.alpha))
        self.win = (math.log(2 * (0.5 + self.delta)), math.log(2 * (0.5 - self.delta)))
        self.up_done = self.down_done = False

    def add(self, outcome: int) -> str | None:
        """Record one paired result; returns the decision once made (and keeps returning it)."""
        if self.decision is not None or outcome == 0:
            return self.decision
        self.n += 1
        a_better = outcome > 0
        if not self.up_done:
            self.llr_up += self.win[0] if a_better else self.win[1]
        if not self.down_done:
            self.llr_down += self.win[1] if a_better else self.win[0]
        if self.llr_up >= self.upper:
            self.decision = "A beats B"
        elif self.llr_down >= self.upper:
            self.decision = "B beats A"
        else:
            self.up_done = self.up_done or self.llr_up <= self.lower
            self.down_done = self.down_done or self.llr_down <= self.lower
            if self.up_done and self.down_done:
                self.decision = "within delta"
        return self.decision


def games_for_half_width(half: float, n: int, target: float) -> int:
    """The games at which a 95% interval of half-width ``half`` measured on ``n`` games narrows to ``target``
    (the half-width of a mean falls as ``1/sqrt(n)``: ``n * (half / target)^2``, rounded up; at least ``n``)."""
    if not (half > 0 and target > 0 and n > 0):
        return n
    return max(n, math.ceil(n * (half / target) ** 2))

