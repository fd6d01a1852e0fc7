"""Bradley–Terry ratings from pairwise win counts, with 95% intervals.

Model: P(i beats j) = p_i / (p_i + p_j). The strengths are fitted by maximum likelihood with Hunter's
MM iteration (Zermelo's), reported as ``rating = log p_i`` normalised to mean 0 across strategies, and
their 95% intervals come from the inverse Fisher information under that sum-zero constraint (the
Moore–Penrose inverse of the information matrix in log-strengths). ``elo`` is the same rating on the
Elo scale (``400 / ln 10`` per unit of log-strength).

The MLE exists only when every strategy both wins and loses against the rest in a way that links them
all (the "beat" graph is strongly connected); otherwise ratings are not finite and every rating is
returned as ``nan`` with ``fitted = False``.
"""

from __future__ import annotations

import math

import numpy as np
import polars as pl

from analysis.stats import Z95

ELO_PER_UNIT = 400.0 / math.log(10.0)


def _strongly_connected(wins: np.ndarray) -> bool:
    """Every strategy reaches every other along "beat at least once" edges, and back."""
    k = wins.shape[0]
    beat = wins > 0

    def reach(adj) -> set[int]:
        seen, todo = {0}, [0]
        while todo:
            i = todo.pop()
            for j in np.flatnonzero(adj[i]):
                if int(j) not in seen:
                    seen.add(int(j))
                    todo.append(int(j))
        return seen

    return len(reach(beat)) == k and len(reach(beat.T)) == k


def bradley_terry(wins, tol: float = 1e-12, max_iter: int = 100_000, z: float = Z95):
    """Fit strengths to ``wins[i, j]`` = games ``i`` won against ``j`` (diagonal ignored).

    Returns ``(rating, se, fitted)``: log-strengths with mean 0, their standard errors, and whether the
    MLE exists (see the module doc; when it does not, ``rating`` and ``se`` are ``nan``).
    """
    w = np.array(wins, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1] or w.shape[0] < 2:
        raise ValueError("wins must be a square matrix of at least 2 x 2")
    if (w < 0).any():
        raise ValueError("win counts must be >= 0")
    np.fill_diagonal(w, 0.0)
    k = w.shape[0]
    if not _strongly_connected(w):
        return np.full(k, np.nan), np.full(k, np.nan), False
    games = w + w.T
    won = w.sum(axis=1)
    p = np.ones(k)
    for _ in range(max_iter):
        denom = (games / (p[:, None] + p[None, :])).sum(axis=1)
        new = won / denom
        new /= math.exp(np.log(new).mean())
        done = np.max(np.abs(np.log(new) - np.log(p))) < tol
        p = new
        if done:
            break
    theta = np.log(p)
    theta -= theta.mean()
    pi = p[:, None] / (p[:, None] + p[None, :])
    info = -games * pi * pi.T
    np.fill_diagonal(info, 0.0)
    np.fill_diagonal(info, -info.sum(axis=1))
    cov = np.linalg.pinv(info)
    se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
    return theta, se, True


def ratings_frame(names: list[str], wins, z: float = Z95) -> pl.DataFrame:
    """One row per strategy: ``strategy``, ``games`` (decided games played), ``wins``, ``rating`` (log-strength,
    mean 0), ``low``, ``high`` (95%), ``elo``, ``elo_low``, ``elo_high``, ``fitted`` (the MLE exists); sorted by
    rating, best first."""
    w = np.array(wins, dtype=np.float64)
    np.fill_diagonal(w, 0.0)
    theta, se, fitted = bradley_terry(w, z=z)
    frame = pl.DataFrame({
        "strategy": list(names),
        "games": (w.sum(axis=1) + w.sum(axis=0)).astype(np.int64),
        "wins": w.sum(axis=1).astype(np.int64),
        "rating": theta,
        "low": theta - z * se,
        "high": theta + z * se,
    }).with_columns(
        (pl.col(c) * ELO_PER_UNIT).alias(f"elo{s}") for c, s in (("rating", ""), ("low", "_low"), ("high", "_high"))
    ).with_columns(pl.lit(fitted).alias("fitted"))
    return frame.sort("rating", descending=True, nulls_last=True)
