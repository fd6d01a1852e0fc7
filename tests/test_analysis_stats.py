"""Interval and test statistics against published values and against simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scipy import stats as scipy_stats

from analysis.stats import SequentialComparison, games_needed, mean_interval, paired_difference, t_quantile, wilson


@pytest.mark.parametrize("k,n,low,high", [
    # Newcombe (1998), Statistics in Medicine 17:857-872, Table I, method 3 (Wilson score interval)
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
    (29, 29, 0.8830, 1.0),
])
def test_wilson_matches_newcombe_1998(k, n, low, high):
    rate, lo, hi = wilson(k, n)
    assert rate == k / n
    assert lo == pytest.approx(low, abs=1e-4) and hi == pytest.approx(high, abs=1e-4)


def test_wilson_covers_the_true_rate_95_percent_of_the_time():
    rng = np.random.default_rng(12)
    trials, n, p = 4000, 200, 0.3
    hits = sum(lo <= p <= hi for _, lo, hi in (wilson(int(k), n) for k in rng.binomial(n, p, trials)))
    sd = math.sqrt(0.95 * 0.05 / trials)
    assert abs(hits / trials - 0.95) < 4 * sd + 0.01  # Wilson's coverage oscillates around 95% by ~1 point


@pytest.mark.parametrize("n, t", [(2, 12.706204736174705), (5, 2.7764451051977987), (30, 2.045229642132703)])
def test_t_quantile_is_students_for_small_n(n, t):
    """Published two-sided 95% quantiles of Student's t with n - 1 degrees of freedom."""
    assert t_quantile(n) == pytest.approx(t, rel=1e-12)


@pytest.mark.parametrize("values", [[3.0, 5.0], [1.0, 4.0, 2.0, 5.0, 3.5], [0.0] * 7 + [1.0] * 3])
def test_mean_interval_is_the_t_interval_of_scipy(values):
    mean, lo, hi = mean_interval(total=sum(values), total_sq=sum(v * v for v in values), n=len(values))
    expected = scipy_stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=scipy_stats.sem(values))
    assert mean == pytest.approx(np.mean(values)) and (lo, hi) == pytest.approx(expected, rel=1e-12)


def test_mean_interval_and_paired_difference():
    mean, lo, hi = mean_interval(total=10.0, total_sq=30.0, n=5)  # values with mean 2, sample variance 2.5
    assert mean == 2.0 and hi - mean == pytest.approx(2.7764451051977987 * math.sqrt(2.5 / 5))
    assert all(math.isnan(bound) for bound in mean_interval(total=2.0, total_sq=4.0, n=1)[1:])
    d, lo, hi = paired_difference([3, 5, 4, 6], [1, 4, 2, 5])
    assert d == 1.5 and lo < 1.5 < hi


def test_games_needed_matches_the_textbook_formula_and_shrinks_with_pairing():
    # (1.959964 + 0.841621)^2 * (0.5*0.5 + 0.55*0.45) / 0.05^2 = 1561.9 -> 1562
    assert games_needed(0.5, 0.55) == 1562
    assert games_needed(0.5, 0.55, paired_rho=0.5) < games_needed(0.5, 0.55) / 1.8


def _run(p, delta, seed, cap=200_000):
    rng = np.random.default_rng(seed)
    test = SequentialComparison(delta=delta, alpha=0.05, beta=0.05)
    while test.decision is None and test.n < cap:
        test.add(1 if rng.random() < p else -1)
    return test.decision, test.n


def test_sequential_error_rates_by_simulation():
    """Under H0 it wrongly declares a winner at most ~2*alpha; under H1 it finds the winner >= 1-beta."""
    runs = 400
    wrong = sum(_run(0.5, 0.05, s)[0] != "within delta" for s in range(runs))
    right = sum(_run(0.55, 0.05, 10_000 + s)[0] == "A beats B" for s in range(runs))
    back = sum(_run(0.45, 0.05, 20_000 + s)[0] == "B beats A" for s in range(runs))
    sd = math.sqrt(0.1 * 0.9 / runs)
    assert wrong / runs <= 0.10 + 4 * sd
    assert right / runs >= 0.95 - 4 * math.sqrt(0.05 * 0.95 / runs)
    assert back / runs >= 0.95 - 4 * math.sqrt(0.05 * 0.95 / runs)


def test_sequential_stops_early_on_a_large_difference():
    decision, n = _run(0.8, 0.05, 3)
    assert decision == "A beats B" and n < 200
