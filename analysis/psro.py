"""``cardsim metagame DIR --grow``: a population that grows by best responses (PSRO, policy-space response oracles).

Round ``k`` (from 1) starts from the population of round ``k - 1`` (round 0: the tournament ``DIR``) and its Nash
mixture (:mod:`analysis.metagame`), then:

1. **Best response.** ``cardsim tune`` searches the family ``family`` for the player that does best against the
   mixture (the tuned population is the mixture's support, weighted: :class:`analysis.tune.TuneSpec` ``weights``),
   seeded from ``(seed, k)``, into ``OUT/round-<k>/tune/``.
2. **A new tournament.** The population plus the best response (``OUT/round-<k>/tune/best.toml``) play every pair
   on the source tournament's deals (same ``n``, seed, players, level and options), into
   ``OUT/round-<k>/tournament/``: the old pairs replay the same games, so the matrix only grows.
3. **Gain.** The best response's share of decided games against the previous mixture, minus 1/2, with a 95%
   interval from the bootstrap of the new tournament's games (the mixture held fixed). The population keeps
   growing while the gain is significant (its interval above 0); a round whose gain is not stops the growth,
   else ``rounds`` rounds are played.

Every step resumes (a tuning and a tournament resume themselves; the record is recomputed from the directories),
so a killed run re-run with the same command ends with the same rounds. ``OUT/_grow.json`` holds the inputs
(sealed), ``OUT/rounds.parquet`` one row per finished round: round, population size, the best response, its gain
and interval, the new mixture's support and weights.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analysis import metagame as mg
from analysis.batches import batch_frames
from analysis.tune import check_tune, same_player, tune as run_tune
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from simulator.core.run.batch import result_writer, run_batch
from simulator.core.run.designs import tournament_batch
from simulator.core.run.workdir import check_workdir, owned_workdir
from simulator.core.storage.spec import parse_strategy

GROW_FORMAT = "cardsim-grow/1"
META, ROUNDS = "_grow.json", "rounds.parquet"
MAX_ROUNDS = 50


@dataclass(frozen=True)
class GrowSpec:
    """A validated growth: the source tournament (``source``, absolute), the tuned ``family`` (``FAMILY[:k=v]``)
    and its searched ``params``, at most ``rounds`` rounds, each tuning ``budget`` trials of ``deals`` deals per
    opponent (``confirm_deals`` per confirmation duel), ``bootstrap`` replicates, ``seed``."""

    source: str
    family: str
    params: tuple[str, ...]
    rounds: int
    budget: int
    deals: int
    confirm_deals: int
    bootstrap: int
    seed: int

    def to_dict(self) -> dict:
        return {"format": GROW_FORMAT, "source": self.source, "family": self.family, "params": list(self.params),
                "rounds": self.rounds, "budget": self.budget, "deals": self.deals,
                "confirm_deals": self.confirm_deals, "bootstrap": self.bootstrap, "seed": self.seed}


@dataclass
class GrowRun:
    """What :func:`grow` did: its directory, whether it was interrupted, the ``rounds`` frame and the last
    round's meta-game (``final``)."""

    path: Path
    interrupted: bool
    rounds: pl.DataFrame = field(default_factory=pl.DataFrame)
    final: mg.MetaGame | None = None


def _count(value, name: str, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SpecError(name, value, f"an integer from {low} to {high:,} ({what})")
    return value


def default_family(game: str, names: list[str]) -> str:
    """The family to grow with when none is given: that of the first of the tournament's strategies ``names`` with
    parameters to tune (Kamoul and Kem's ``heuristic``, Rami ``opening``)."""
    plugin = get_game(game)
    for name in names:
        sdef = plugin.strategies[parse_strategy(plugin, name).name]
        if any(not p.ability for p in sdef.params.params):
            return sdef.family or sdef.name
    raise SpecError("--family", None, "a strategy family to tune", "is needed: no strategy of the tournament has "
                    "parameters to tune")


def check_grow(source, *, family: str | None, params=(), rounds: int, budget: int, deals: int, confirm_deals: int,
               bootstrap: int, seed: int) -> tuple[GrowSpec, dict]:
    """Validate a growth (:class:`SpecError`, one line, nothing written); returns it and the source's batch record.
    ``family``: ``None`` for :func:`default_family`."""
    data, names = mg.tournament_record(source)
    family = family or default_family(data["inputs"]["game"], names)
    _count(rounds, "--rounds", 1, MAX_ROUNDS, "rounds of growth")
    _count(bootstrap, "--bootstrap", 1, mg.MAX_BOOTSTRAP, "replicates")
    spec = data["cells"][0]["spec"]
    try:  # the family, its parameters, the budget and the deals: checked as cardsim tune checks them
        check_tune(data["inputs"]["game"], strategy=family, params=list(params), against=names, budget=budget,
                   players=int(spec["players"]), seed=seed, deals=deals, confirm_deals=confirm_deals,
                   options=dict(data["inputs"].get("options") or {}))
    except SpecError as err:
        if err.field != "--strategy":
            raise
        raise SpecError("--family", err.value, err.allowed) from None
    return GrowSpec(str(Path(source).resolve()), family, tuple(params), rounds, budget, deals, confirm_deals,
                    bootstrap, seed), data


GROW_ALLOWED = "a new or empty directory, or the same growth to resume (same DIR and settings)"


def check_grow_dir(out: Path, spec: GrowSpec) -> None:
    """Refuse a directory that cannot hold this growth: a file, another growth, a non-empty directory that is none."""
    check_workdir(out, META, spec.to_dict(), "growth", GROW_ALLOWED)


def gain_against(wins: np.ndarray, undecided: np.ndarray, row: int, weights: np.ndarray, bootstrap: int,
                 seed: int) -> tuple[float, float, float]:
    """Strategy ``row``'s share of decided games against the mixture ``weights`` (``float64[n]``, 0 for ``row``)
    minus 1/2, and its 95% bootstrap interval (each pair's games resampled, the mixture held fixed)."""
    payoff, _ = mg.payoff_of(wins)
    point = float(payoff[row] @ weights)
    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x67726F77]))
    reps = np.array([p[row] @ weights for p in mg.replicate_payoffs(wins, undecided, bootstrap, rng)])
    return point, float(np.percentile(reps, 2.5)), float(np.percentile(reps, 97.5))


def grow(spec: GrowSpec, data: dict, out: str | Path, *, threads=None, progress: bool = True) -> GrowRun:
    """Run (or resume) the growth ``spec`` of the tournament ``data`` into ``out``; see the module doc."""
    inputs, cell = data["inputs"], data["cells"][0]["spec"]
    game, players, options = inputs["game"], int(cell["players"]), dict(inputs.get("options") or {})
    with owned_workdir(out, META, spec.to_dict(), "growth", GROW_ALLOWED) as work:
        path = work.path
        tournament = Path(spec.source)
        current = mg.metagame(tournament, bootstrap=spec.bootstrap, seed=spec.seed)
        rows = []
        try:
            for k in range(1, spec.rounds + 1):
                support = [i for i, w in enumerate(current.weights) if w > mg.SUPPORT_TOL]
                weights = current.weights[support] / current.weights[support].sum()
                tuned = check_tune(game, strategy=spec.family, params=list(spec.params),
                                   against=[current.names[i] for i in support], weights=tuple(float(w) for w in weights),
                                   players=players, budget=spec.budget, seed=spec.seed + k, deals=spec.deals,
                                   confirm_deals=spec.confirm_deals, options=options)
                best = run_tune(tuned, path / f"round-{k}" / "tune", threads=threads, progress=progress,
                                command=f"cardsim metagame {spec.source} --grow (round {k})")
                if best.interrupted:
                    return GrowRun(path, True, pl.DataFrame(rows))
                newcomer = str((path / f"round-{k}" / "tune" / "best.toml").resolve())
                population = list(current.names)
                plugin = get_game(game)
                reply = parse_strategy(plugin, newcomer)
                label = reply.label()
                if any(same_player(plugin, reply, parse_strategy(plugin, member)) for member in population):
                    # the best reply found is a member (same kernel, same values): it cannot gain against the mixture
                    rows.append(_round_row(k, len(population), label, newcomer, (0.0, 0.0, 0.0), current))
                    work.write_frame(ROUNDS, pl.DataFrame(rows))
                    break
                batch = run_batch(tournament_batch(game, strategies=population + [newcomer], n=int(inputs["n"]),
                                                   seed=int(inputs["seed"]), players=players, level=inputs["level"],
                                                   options=options),
                                  path / f"round-{k}" / "tournament", threads=threads, progress=progress,
                                  on_complete=result_writer("tournament", batch_frames))
                if batch.interrupted:
                    return GrowRun(path, True, pl.DataFrame(rows))
                _, names, wins, undecided = mg.tournament_counts(path / f"round-{k}" / "tournament")
                previous = np.zeros(len(names))
                previous[[names.index(current.names[i]) for i in support]] = weights
                gain, low, high = gain_against(wins, undecided, len(names) - 1, previous, spec.bootstrap,
                                               spec.seed + k)
                current = mg.metagame(path / f"round-{k}" / "tournament", bootstrap=spec.bootstrap, seed=spec.seed)
                rows.append(_round_row(k, len(names), names[-1], newcomer, (gain, low, high), current))
                work.write_frame(ROUNDS, pl.DataFrame(rows))
                if low <= 0:
                    break
        except KeyboardInterrupt:
            return GrowRun(path, True, pl.DataFrame(rows))
        return GrowRun(path, False, pl.DataFrame(rows), current)


def _round_row(k: int, population: int, best: str, file: str, gain: tuple[float, float, float],
               current: mg.MetaGame) -> dict:
    """Round ``k``'s record: the population's size, the best reply (text and file), its gain against the previous
    mixture ``(gain, low, high)``, and the new equilibrium ``current``'s support and weights."""
    return {"round": k, "population": population, "best_response": best, "best_response_file": file,
            "gain": gain[0], "gain_low": gain[1], "gain_high": gain[2], "significant": gain[1] > 0,
            "support": json.dumps(current.support),
            "weights": json.dumps({n: float(w) for n, w in zip(current.names, current.weights) if w > mg.SUPPORT_TOL})}


def aliases(run: GrowRun) -> dict[str, str]:
    """``{strategy text: "best reply <k>"}`` for the best replies the growth added."""
    return {r["best_response"]: f"best reply {r['round']}" for r in run.rounds.iter_rows(named=True)
            if not (r["gain_low"] == r["gain_high"] == 0.0)}


def _short(text: str) -> str:
    """A strategy text with its numbers to three significant digits (for reading; the files hold them exactly)."""
    family, _, rest = text.partition(":")
    values = []
    for item in filter(None, rest.split(",")):
        key, _, value = item.partition("=")
        try:
            values.append(f"{key}={float(value):.3g}")
        except ValueError:
            values.append(item)
    return family + (":" + ",".join(values) if values else "")


def grow_verdict(run: GrowRun) -> list[str]:
    """The growth's answer: each round's gain with its interval, and where it stopped; then who each best reply
    is, its numbers rounded."""
    names = aliases(run)
    lines = []
    for r in run.rounds.iter_rows(named=True):
        if r["gain_low"] == r["gain_high"] == 0.0:
            lines.append(f"Round {r['round']}: the best reply the family finds plays as a member of the population "
                         "already: it gains nothing against the mixture.")
            continue
        word = "gains" if r["significant"] else "no longer gains significantly:"
        support = ", ".join(names.get(s, s) for s in json.loads(r["support"]))
        lines.append(f"Round {r['round']}: the best response to the mixture ({names[r['best_response']]}) {word} "
                     f"{100 * r['gain']:+.1f} points [{100 * r['gain_low']:+.1f}, {100 * r['gain_high']:+.1f}] of "
                     f"decided games against it; the new equilibrium's support: {support}.")
    if run.rounds.height and not run.rounds["significant"][-1]:
        lines.append(f"The population stopped growing after round {run.rounds['round'][-1]}: no best reply the "
                     "family can find beats the mixture.")
    lines += [f"{short} = {_short(text)} ({run.rounds['best_response_file'][int(short.split()[-1]) - 1]})"
              for text, short in names.items()]
    return lines
