"""``cardsim metagame``: which strategy, or mixture of strategies, no opponent in the population can exploit.

A tournament's win-rate matrix is a symmetric two-player zero-sum game: the payoff of strategy ``i`` against ``j``
is ``r[i, j] - 1/2``, where ``r[i, j]`` is the share of the pair's decided games that ``i``'s side won (so
``r[i, j] + r[j, i] = 1``). Its Nash equilibrium (von Neumann's minimax, solved as the linear programme "maximise
``v`` such that the mixture ``x`` scores at least ``v`` against every pure strategy", scipy's HiGHS) is the
mixture a thoughtful table would settle on: nothing in the population beats it, and its value is 0. Each member's
*exploitability* is how much the best reply in the population beats it (the best win rate any strategy gets against
it, minus 1/2); the mixture's own exploitability is 0 up to the matrix's noise.

More than two players. A tournament seats two strategies at a time, each on its side of the table (``ABAB`` and
its mirror at four players: :func:`simulator.core.run.designs.tournament_batch`), and a game goes to the side whose
seats won more. So the game solved here is the *game between two clubs*, each filling its side of the table with
one strategy: a sound symmetric two-player zero-sum reduction of the many-player game (no approximation of a
many-player equilibrium, which has no such linear programme). The report says so.

Uncertainty. The matrix is measured, not known: a bootstrap over the tournament's games (each pair's games
resampled with replacement, i.e. its wins, losses and undecided games drawn from a multinomial with the observed
shares, ``bootstrap`` times, seeded) re-solves the game each time and gives 95% percentile intervals on every
mixture weight, every member's value against the mixture and exploitability, and how often each strategy is in
the support (weight above :data:`SUPPORT_TOL`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analysis.batches import tournament_frames
from simulator.core.errors import SpecError
from simulator.core.i18n import _, bounds, number, percent, share_interval
from simulator.core.run.batch import load_batch

SUPPORT_TOL = 1e-6  # a weight above this counts as in the support (the solver's vertices have exact zeros)
BOOTSTRAP = 1_000
MAX_BOOTSTRAP = 100_000


def solve(payoff) -> tuple[np.ndarray, float]:
    """The row player's maximin mixture of the zero-sum game ``payoff`` (``float64[n, n]``, the row's gain) and
    the game's value: ``(float64[n] weights summing to 1, value)``. For a symmetric game (``payoff = -payoff.T``)
    the value is 0 and the mixture is a symmetric Nash equilibrium."""
    from scipy.optimize import linprog

    a = np.asarray(payoff, dtype=np.float64)
    n = a.shape[0]
    if a.ndim != 2 or a.shape != (n, n) or n < 1:
        raise ValueError(f"payoff must be a square matrix, not of shape {a.shape}")
    # variables (x_1..x_n, v): minimise -v subject to v - sum_i x_i a[i, j] <= 0 for every column j, sum x = 1
    cost = np.zeros(n + 1)
    cost[-1] = -1.0
    upper = np.hstack([-a.T, np.ones((n, 1))])
    equal = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * n + [(None, None)]
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(n), A_eq=equal, b_eq=[1.0], bounds=bounds, method="highs")
    if result.status != 0:  # a finite zero-sum game always has a value: only a numerical failure lands here
        raise RuntimeError(f"the linear programme failed: {result.message}")
    weights = np.clip(result.x[:n], 0.0, None)
    return weights / weights.sum(), float(result.x[-1])


def reply_values(payoff, weights) -> np.ndarray:
    """``float64[n]``: each pure strategy's payoff against the mixture ``weights``."""
    return np.asarray(payoff, dtype=np.float64) @ np.asarray(weights, dtype=np.float64)


def exploitabilities(payoff) -> tuple[np.ndarray, np.ndarray]:
    """Per strategy ``j``: how much the best reply in the population gains against it (``max_i payoff[i, j]``,
    ``float64[n]``, at least 0: ``j`` itself draws) and which strategy that is (``int64[n]``)."""
    a = np.asarray(payoff, dtype=np.float64)
    return a.max(axis=0), a.argmax(axis=0)


@dataclass
class MetaGame:
    """The answer of :func:`metagame`: the population (``names``), the measured ``rates`` (``float64[n, n]``, share
    of decided games the row won; NaN on the diagonal and for pairs without a decided game), the equilibrium
    ``weights`` and each member's ``values`` against it, and the bootstrap's frames: ``mixture`` (per strategy:
    weight with 95% interval and share of replicates in the support) and ``members`` (value against the mixture,
    exploitability and the best reply, each number with its interval)."""

    path: Path
    game: str
    players: int
    level: str
    names: list[str]
    rates: np.ndarray
    weights: np.ndarray
    values: np.ndarray
    bootstrap: int
    seed: int
    mixture: pl.DataFrame = field(default_factory=pl.DataFrame)
    members: pl.DataFrame = field(default_factory=pl.DataFrame)
    html: Path | None = None  # the report, once written (``api.metagame``)

    @property
    def support(self) -> list[str]:
        return [n for n, w in zip(self.names, self.weights) if w > SUPPORT_TOL]


def tournament_record(out) -> tuple[dict, list[str]]:
    """The tournament at ``out``: its batch record and its strategies, from ``_batch.json`` alone.
    :class:`SpecError` when ``out`` is no tournament or holds fewer than two strategies."""
    data = load_batch(out, "DIR")
    allowed = "a tournament directory of at least two strategies (cardsim tournament ... --out DIR)"
    if data["kind"] != "tournament":
        raise SpecError("DIR", str(out), allowed, f"is a {data['kind']}, not a tournament")
    names = list(data["inputs"]["strategies"])
    if len(names) < 2:
        raise SpecError("DIR", str(out), allowed, f"is a tournament of {len(names)} strategy")
    return data, names


def tournament_counts(out) -> tuple[dict, list[str], np.ndarray, np.ndarray]:
    """:func:`tournament_record`, and per ordered pair the games won (``int64[n, n]``, row over column) and
    undecided (``int64[n, n]``, symmetric), from the games on disk."""
    data, names = tournament_record(out)
    index = {s: k for k, s in enumerate(names)}
    wins = np.zeros((len(names), len(names)), dtype=np.int64)
    undecided = np.zeros_like(wins)
    for r in tournament_frames(out)["matrix"].iter_rows(named=True):
        i, j = index[r["strategy"]], index[r["opponent"]]
        wins[i, j], undecided[i, j] = r["wins"], r["undecided"]
    return data, names, wins, undecided


def payoff_of(wins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The zero-sum payoff ``rates - 1/2`` (``float64[n, n]``; 0 on the diagonal and for a pair without a decided
    game) and the rates themselves (NaN there)."""
    decided = wins + wins.T
    with np.errstate(invalid="ignore", divide="ignore"):
        rates = np.where(decided > 0, wins / np.where(decided > 0, decided, 1), np.nan)
    np.fill_diagonal(rates, np.nan)
    return np.nan_to_num(rates - 0.5, nan=0.0), rates


def resample(wins: np.ndarray, undecided: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One bootstrap replicate of ``wins``: each unordered pair's games drawn again with replacement (wins of the
    row, of the column and undecided games from a multinomial with the observed shares)."""
    out = np.zeros_like(wins)
    n = wins.shape[0]
    for i in range(n):
        for j in range(i + 1, n):
            counts = np.array([wins[i, j], wins[j, i], undecided[i, j]], dtype=np.int64)
            games = int(counts.sum())
            if games:
                out[i, j], out[j, i], _undecided = rng.multinomial(games, counts / games)
    return out


def replicate_payoffs(wins: np.ndarray, undecided: np.ndarray, bootstrap: int, rng: np.random.Generator):
    """``bootstrap`` payoff matrices (:func:`payoff_of`) of :func:`resample` d tournaments, one at a time."""
    for _replicate in range(bootstrap):
        yield payoff_of(resample(wins, undecided, rng))[0]


def metagame(out, *, bootstrap: int = BOOTSTRAP, seed: int = 0) -> MetaGame:
    """Solve the meta-game of the tournament at ``out`` (see the module doc)."""
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, int) or not 1 <= bootstrap <= MAX_BOOTSTRAP:
        raise SpecError("--bootstrap", bootstrap, f"an integer from 1 to {MAX_BOOTSTRAP:,} (replicates)")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise SpecError("--seed", seed, "an integer >= 0")
    data, names, wins, undecided = tournament_counts(out)
    payoff, rates = payoff_of(wins)
    weights, _value = solve(payoff)
    values = reply_values(payoff, weights)
    exploits, best = exploitabilities(payoff)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x6D657461]))
    n = len(names)
    w_rep, v_rep, e_rep = np.empty((bootstrap, n)), np.empty((bootstrap, n)), np.empty((bootstrap, n))
    for b, p in enumerate(replicate_payoffs(wins, undecided, bootstrap, rng)):
        w_rep[b] = solve(p)[0]
        v_rep[b] = reply_values(p, w_rep[b])
        e_rep[b] = exploitabilities(p)[0]
    low, high = 2.5, 97.5
    mixture = pl.DataFrame({
        "strategy": names, "weight": weights, "weight_low": np.percentile(w_rep, low, axis=0),
        "weight_high": np.percentile(w_rep, high, axis=0), "in_support": (w_rep > SUPPORT_TOL).mean(axis=0)})
    members = pl.DataFrame({
        "strategy": names, "value": values, "value_low": np.percentile(v_rep, low, axis=0),
        "value_high": np.percentile(v_rep, high, axis=0), "exploitability": exploits,
        "exploit_low": np.percentile(e_rep, low, axis=0), "exploit_high": np.percentile(e_rep, high, axis=0),
        "best_reply": [names[k] if e > 0 else None for k, e in zip(best, exploits)]})
    spec = data["cells"][0]["spec"]
    return MetaGame(Path(out), data["inputs"]["game"], int(spec["players"]), spec["level"], names, rates, weights,
                    values, bootstrap, seed, mixture, members)


def _share(x: float, low: float, high: float) -> str:
    """A payoff ``x`` in [-1/2, 1/2] (and its interval) as the share of decided games it is: ``52.3% [51.0, 53.6]``."""
    return share_interval(0.5 + x, 0.5 + low, 0.5 + high)


def verdict(m: MetaGame, aliases: dict[str, str] | None = None) -> list[str]:
    """The answer in a few sentences with numbers and 95% intervals, before any table. ``aliases`` gives short
    names to long strategy texts (a growth's best replies)."""
    aliases = aliases or {}
    mix = m.mixture.sort("weight", descending=True).filter(pl.col("weight") > SUPPORT_TOL)
    mix = mix.with_columns(pl.col("strategy").replace(aliases))
    parts = [f"{number(r['weight'], 2)} {r['strategy']} {bounds(number(r['weight_low'], 2), number(r['weight_high'], 2))}"
             for r in mix.iter_rows(named=True)]
    pure = mix.height == 1
    if pure:
        lead = _("{strategy} is unexploitable within this population (weight 1 {around})").format(
            strategy=mix["strategy"][0], around=bounds(number(mix["weight_low"][0], 2), number(mix["weight_high"][0], 2)))
    else:
        lead = _("The mixture {mixture} is unexploitable within this population").format(mixture=" + ".join(parts))
    lines = [_("{lead}: no strategy of the tournament wins more than half of its decided {level} against it ({game}, "
               "{players} players; {bootstrap} bootstrap replicates of the tournament's games give the 95% "
               "intervals).").format(lead=lead, level=_(m.level), game=m.game, players=m.players,
                                     bootstrap=number(m.bootstrap, 0))]
    out_of = m.members.filter(~pl.col("strategy").is_in(m.support)).sort("value").with_columns(
        pl.col("strategy").replace(aliases), pl.col("best_reply").replace(aliases))
    for r in out_of.iter_rows(named=True):
        against = _("{strategy} wins {share} of decided {level} against the equilibrium").format(
            strategy=r["strategy"], share=_share(r["value"], r["value_low"], r["value_high"]), level=_(m.level))
        lines.append(against + (_("; its best reply, {reply}, beats it {share}.").format(
            reply=r["best_reply"], share=_share(r["exploitability"], r["exploit_low"], r["exploit_high"]))
            if r["best_reply"] else _("; no member beats it.")))
    often = m.mixture.filter((pl.col("in_support") > 0.05) & (pl.col("weight") <= SUPPORT_TOL)).with_columns(
        pl.col("strategy").replace(aliases))
    if often.height:
        lines.append(_("Also in the support of some replicates (the data do not rule them out): {which}.").format(
            which=", ".join(_("{strategy} ({share} of replicates)").format(strategy=r["strategy"],
                                                                          share=percent(r["in_support"], 0))
                            for r in often.iter_rows(named=True))))
    if m.players > 2:
        lines.append(_("At {players} players this is the game between two clubs, each filling its side of the table "
                       "with one strategy (the tournament's seatings), not a many-player equilibrium.").format(
            players=m.players))
    return lines


def to_dict(m: MetaGame) -> dict:
    """The answer as plain data (``--json``)."""
    return {"verdict": verdict(m), "game": m.game, "players": m.players, "level": m.level, "strategies": m.names,
            "support": m.support, "bootstrap": m.bootstrap, "seed": m.seed,
            "rates": [[None if np.isnan(x) else float(x) for x in row] for row in m.rates],
            "mixture": m.mixture.to_dicts(), "members": m.members.to_dicts()}
