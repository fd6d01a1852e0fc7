"""``cardsim tune``: a strategy family's parameters optimised against a population, found rather than hand-set.

What is optimised: the tuned player's *share of deals* against each member of the population ``against``, the
same measure ``cardsim duel`` tests. A deal (game ``i`` of the seed) is played in every seating of the pair
(``ABAB…`` and its mirror, :func:`simulator.core.run.designs.tournament_batch`) at the level the game is won at
(Kamoul whole manches, Rami and Kem's whole games); it goes to the side whose seats won more of those games,
half to each on a tie. The objective is the *smallest* share over the population (maximin): a player that
crushes two presets and loses to a third is not strong, it is exploitable (a mean let Rami's tuner pick one that
won 100% of decided deals against open-big and lost 86% against open-asap).

How (every step resumes where a killed run stopped, and reaches the same result):

1. **Trials.** The first trials are the tuned family's own presets among the population (and its defaults:
   :func:`starting_points`), then optuna's TPE sampler proposes; its study lives in ``DIR/optuna.sqlite3``. The sampler
   of trial ``t`` is seeded from ``(seed, t)`` and sees the finished trials only, so a resumed run proposes what
   an uninterrupted one would; a trial a kill left running is evaluated again with its own parameters. Every
   trial plays the same deals ``[0, deals)`` (common random numbers: two trials differ by their parameters, not
   their cards).
2. **Race.** The :data:`RACE_TOP` best trials are played again on fresh deals (``[deals, deals + race_deals)``),
   so the best is not merely the luckiest of many noisy trials; the best of the race is the tuned player.
3. **Confirmation.** The tuned player meets each member of the population in ``duel``'s paired sequential test
   on deals of another seed (``seed + 1``), never seen while tuning.

With a ``cluster`` (``--scheduler``) every evaluation is played there as tasks (one per opponent, seating and slice
of deals) and summed on the client in deal order: the same numbers, so the same trials and the same best.

Layout of ``DIR``::

    _tune.json        the inputs (a resumed run must have the same), sealed like every metadata file
    optuna.sqlite3    the optimiser's study (trials, parameters, values)
    trials.parquet    one row per finished trial: trial, the parameters, deals, its smallest share, 95% interval
    race.parquet      the race: trial, opponent, deals, share and interval
    confirm.parquet   the confirmation duels: opponent, decision, deals, share of decided deals and interval
    best.toml         the tuned player as a preset: family, parameters, how and against what it was tuned
"""

from __future__ import annotations

import datetime
import math
import tomllib
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import polars as pl
import tomli_w

from analysis.duel import deal_scores_many
from analysis.duel import duel as run_duel
from analysis.stats import wilson
from simulator import __version__
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from simulator.core.i18n import _, number, share_interval
from simulator.core.params import parse_assignments
from simulator.core.progress import progress as progress_of
from simulator.core.run.designs import tournament_batch
from simulator.core.run.workdir import Workdir, check_workdir, owned_workdir
from simulator.core.storage.spec import MAX_SEED, SeatStrategy, parse_strategy

TUNE_FORMAT = "cardsim-tune/1"
META, STORAGE, TRIALS, RACE, CONFIRM, BEST = ("_tune.json", "optuna.sqlite3", "trials.parquet", "race.parquet",
                                              "confirm.parquet", "best.toml")
DEALS = 1_000  # deals per opponent and trial (each played in every seating): a Kamoul 4-player trial ~0.3 s
RACE_TOP = 5
RACE_FACTOR = 4  # the race plays this many times a trial's deals
CONFIRM_MAX = 20_000  # deals at most per confirmation duel
MAX_BUDGET = 100_000
STARTUP_TRIALS = 10  # TPE's random start (fewer when the budget is small)


@dataclass(frozen=True)
class Dimension:
    """One searched parameter: ``name``, ``kind`` (``int`` | ``float`` | ``bool`` | ``choice``) and its range
    (``low``/``high`` for numbers, ``choices`` otherwise)."""

    name: str
    kind: str
    low: float | None = None
    high: float | None = None
    choices: tuple = ()

    def suggest(self, trial):
        """The value optuna's ``trial`` proposes for this parameter."""
        if self.kind == "int":
            return trial.suggest_int(self.name, int(self.low), int(self.high))
        if self.kind == "float":
            return trial.suggest_float(self.name, float(self.low), float(self.high))
        return trial.suggest_categorical(self.name, list(self.choices))


@dataclass(frozen=True)
class TuneSpec:
    """A validated tuning: the ``game``, the ``family`` and its ``fixed`` parameters, the searched ``space``, the
    population ``against``, the table size, the ``budget`` of trials, the ``seed``, ``deals`` per opponent and
    trial, the rule ``options``, and the most deals a confirmation duel plays (``confirm_deals``). ``weights``: the
    population as a mixture (one weight per member of ``against``, summing to 1): the objective is then the share
    against the mixture, a best response's, instead of the smallest share (``cardsim metagame --grow``)."""

    game: str
    family: str
    fixed: dict
    space: tuple[Dimension, ...]
    against: tuple[str, ...]
    players: int
    budget: int
    seed: int
    deals: int
    options: dict = field(default_factory=dict)
    confirm_deals: int = CONFIRM_MAX
    weights: tuple[float, ...] | None = None

    @cached_property
    def plugin(self):
        """The game (looked up once)."""
        return get_game(self.game)

    @cached_property
    def opponents(self) -> tuple[SeatStrategy, ...]:
        """``against`` parsed once: the opponents every evaluation compares a candidate with."""
        return tuple(parse_strategy(self.plugin, text) for text in self.against)

    @property
    def level(self) -> str:
        return self.plugin.judged_level

    def to_dict(self) -> dict:
        return {"format": TUNE_FORMAT, "game": self.game, "family": self.family, "fixed": self.fixed,
                "space": [{"name": d.name, "kind": d.kind, "low": d.low, "high": d.high, "choices": list(d.choices)}
                          for d in self.space],
                "against": list(self.against), "players": self.players, "budget": self.budget, "seed": self.seed,
                "deals": self.deals, "level": self.level, "options": self.options, "confirm_deals": self.confirm_deals,
                **({"weights": list(self.weights)} if self.weights is not None else {})}

    def score(self, rows: list[dict]) -> float:
        """A trial's objective from its rows (one per member of ``against``, in order): the smallest share, or the
        share against the mixture ``weights``."""
        if self.weights is None:
            return objective(rows)
        return float(sum(w * r["share"] for w, r in zip(self.weights, rows)))

    def strategy(self, values: dict) -> str:
        """The tuned player with ``values`` as a strategy text (``family:k=v,...``)."""
        merged = {**self.fixed, **values}
        return self.family + (":" + ",".join(f"{k}={_text(v)}" for k, v in sorted(merged.items())) if merged else "")


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


# --- validation: everything before anything is written ------------------------------------------------------


def _dimension(param, bounds: str | None, field_name: str) -> Dimension:
    """The searched range of ``param``: its declared one, or ``bounds`` ("LO:HI") inside it."""
    if param.kind in ("bool", "choice"):
        if bounds:
            raise SpecError(field_name, f"{param.name}={bounds}", f"{param.name} alone ({param.allowed()}: every value "
                            "is tried)")
        return Dimension(param.name, param.kind, choices=(False, True) if param.kind == "bool" else param.choices)
    low, high = param.low, param.high
    if bounds:
        lo_text, sep, hi_text = bounds.partition(":")
        try:
            low, high = (param.parse(lo_text.strip(), field_name), param.parse(hi_text.strip(), field_name))
        except SpecError:
            raise SpecError(field_name, f"{param.name}={bounds}", f"LO:HI within {param.allowed()}") from None
        if not sep or low > high:
            raise SpecError(field_name, f"{param.name}={bounds}", f"LO:HI with LO <= HI, within {param.allowed()}")
    if low == high:
        raise SpecError(field_name, param.name, "a parameter with a range to search",
                        f"admits only {low}" + ("" if bounds else " (fix it, or leave it out)"))
    return Dimension(param.name, param.kind, low, high)


def check_tune(game: str, *, strategy: str, params=(), against, players: int | None = None, budget: int,
               seed: int = 0, deals: int = DEALS, options: dict | None = None,
               confirm_deals: int = CONFIRM_MAX, weights=None) -> TuneSpec:
    """Validate a tuning (:class:`SpecError`, one line naming the field, nothing written) and return it.

    ``strategy``: ``FAMILY[:k=v,...]``, a built-in family (or preset) whose declared parameters are searched,
    ``k=v`` fixing some; ``params``: ``NAME`` or ``NAME=LO:HI`` (default: every decision parameter: not the
    abilities a player cannot choose, such as reaction speed or memory, nor a fixed one); ``against``: the
    population (strategy texts, or one comma-separated string); ``weights``: the population as a mixture (one
    weight >= 0 per member, summing to 1; see :class:`TuneSpec`)."""
    plugin = get_game(game)
    name, _sep, rest = str(strategy).partition(":")
    if name.strip() not in plugin.strategies:
        raise SpecError("--strategy", strategy, "a built-in strategy family to tune: "
                        + ", ".join(sorted({s.family or s.name for s in plugin.strategies.values()})))
    sdef = plugin.strategies[name.strip()]
    fixed_raw = parse_assignments(rest, "--strategy") if rest else {}
    fixed = sdef.params.resolve(fixed_raw, field_prefix=f"--strategy {sdef.name}: ")
    fixed = {k: fixed[k] for k in fixed_raw}
    preset = {k: v for k, v in sdef.params.resolve({}).items() if v != sdef.params.by_name[k].default}
    wanted = {}
    for text in params or ():
        pname, _sep, bounds = str(text).partition("=")
        pname = pname.strip()
        if pname not in sdef.params.by_name:
            raise SpecError("--param", text, f"a parameter of {sdef.name}: " + ", ".join(sdef.params.names()))
        if pname in fixed:
            raise SpecError("--param", text, "a parameter not fixed by --strategy", f"{pname} is fixed there")
        if pname in wanted:
            raise SpecError("--param", text, "each parameter once", "is given twice")
        wanted[pname] = bounds or None
    if not wanted:
        wanted = {p.name: None for p in sdef.params.params
                  if not p.ability and p.name not in fixed and (p.kind in ("bool", "choice") or p.low != p.high)}
    space = tuple(_dimension(sdef.params.by_name[n], b, "--param") for n, b in wanted.items())
    if not space:
        raise SpecError("--param", ",".join(params or ()) or None, f"at least one parameter of {sdef.name} to search")
    # a string is comma-separated (the CLI's); a list holds whole strategy texts, which may contain commas
    texts = [t.strip() for t in (against.split(",") if isinstance(against, str) else map(str, against or ()))
             if t.strip()]
    if not texts:
        raise SpecError("--against", against or "", "one or more strategies, comma-separated (the population)")
    labels = [parse_strategy(plugin, t, "--against").label() for t in texts]
    if len(set(labels)) != len(labels):
        raise SpecError("--against", ",".join(texts), "different strategies", "names one twice")
    if isinstance(budget, bool) or not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
        raise SpecError("--budget", budget, f"a number of trials in [1, {MAX_BUDGET:,}]")
    if isinstance(deals, bool) or not isinstance(deals, int) or not 10 <= deals <= 10**7:
        raise SpecError("--deals", deals, "a number of deals per opponent and trial in [10, 10^7]")
    if isinstance(confirm_deals, bool) or not isinstance(confirm_deals, int) or not 10 <= confirm_deals <= 10**7:
        raise SpecError("--confirm-deals", confirm_deals, "a number of deals per confirmation duel in [10, 10^7]")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED - 1:
        raise SpecError("--seed", seed, f"an integer in [0, {MAX_SEED - 1}]")
    if weights is not None:
        allowed = f"{len(labels)} weights >= 0 summing to 1, one per member of --against"
        try:  # a string is comma-separated (the CLI's), else a sequence of numbers
            weights = tuple(float(w) for w in (weights.split(",") if isinstance(weights, str) else weights))
        except (TypeError, ValueError):
            raise SpecError("--weights", weights, allowed) from None
        if (len(weights) != len(labels) or not all(math.isfinite(w) and w >= 0 for w in weights)
                or abs(sum(weights) - 1) > 1e-6):
            raise SpecError("--weights", ",".join(f"{w:g}" for w in weights), allowed)
    players = players or plugin.default_players
    searched = {d.name for d in space}
    kept = {k: v for k, v in {**preset, **fixed}.items() if k not in searched}  # a preset's values not searched
    spec = TuneSpec(game, sdef.family or sdef.name, kept, space, tuple(labels), players, budget, seed, deals, {})
    probe = spec.strategy({d.name: _middle(d) for d in space})
    batches = [tournament_batch(game, strategies=[probe, opponent], n=deals, seed=seed, players=players,
                                level=spec.level, options=options)
               for opponent in labels]  # the tables, validated as a tournament's (players, level, options, seating)
    resolved = dict(batches[0].cells[0].spec.options)
    return replace(spec, options={k: resolved[k] for k in sorted(options or {})}, confirm_deals=confirm_deals,
                   weights=weights)


def _middle(d: Dimension):
    if d.kind == "int":
        return int((d.low + d.high) // 2)
    if d.kind == "float":
        return (d.low + d.high) / 2
    return d.choices[0]


# --- evaluation -------------------------------------------------------------------------------------------


def evaluate(spec: TuneSpec, candidate: str, start: int, stop: int, seed: int, threads=None,
             cluster=None) -> list[dict]:
    """The candidate against each opponent on deals ``[start, stop)`` of ``seed``: one row per opponent with the
    deals it won, lost and tied, and its share (ties count half) with a 95% interval. ``cluster``: a connected
    :class:`~simulator.core.run.dask_backend.DaskBackend` that plays every opponent's deals at once (the same rows)."""
    jobs, played = [], []
    seat = parse_strategy(spec.plugin, candidate)
    for opponent, parsed in zip(spec.against, spec.opponents):
        if not same_player(spec.plugin, seat, parsed):  # one strategy in both seats: every deal is a tie
            batch = tournament_batch(spec.game, strategies=[candidate, opponent], n=stop, seed=seed,
                                     players=spec.players, level=spec.level, options=spec.options)
            jobs.append((batch.cells, start, stop))
            played.append(opponent)
    scores = dict(zip(played, (score for score, _ in deal_scores_many(jobs, threads, cluster))))
    rows = []
    for opponent in spec.against:
        score = scores.get(opponent)
        won, lost = (0, 0) if score is None else (int((score > 0).sum()), int((score < 0).sum()))
        rows.append(share_row(opponent, won, lost, stop - start))
    return rows


def same_player(plugin, a: SeatStrategy, b: SeatStrategy) -> bool:
    """Whether parsed strategies ``a`` and ``b`` are one player of the game ``plugin``: the same kernel with the same
    values (a family with a preset's values plays as the preset)."""
    strategies = plugin.strategies
    return strategies[a.name].kernel_id == strategies[b.name].kernel_id and a.params == b.params


def share_row(opponent: str, won: int, lost: int, deals: int) -> dict:
    """A share of ``deals`` (ties half) with its 95% interval: Wilson's on the half-counted wins."""
    share = (won + (deals - won - lost) / 2) / deals
    _rate, low, high = wilson(round(share * deals), deals)
    return {"opponent": opponent, "deals": deals, "won": won, "lost": lost, "share": share, "low": low, "high": high}


def objective(rows: list[dict]) -> float:
    """The smallest share over the population (see the module doc)."""
    return float(min(r["share"] for r in rows))


def sampler_seed(seed: int, trial: int) -> int:
    """The seed of trial ``trial``'s sampler (a 32-bit integer from ``(seed, trial)``)."""
    return int(np.random.SeedSequence([seed, trial]).generate_state(1)[0])


# --- the run ----------------------------------------------------------------------------------------------


@dataclass
class TuneRun:
    """What :func:`tune` did: its directory, whether it was interrupted, the tuned player (``best``: its strategy
    text, parameters and trial), and the frames (``trials``, ``race``, ``confirm``)."""

    path: Path
    interrupted: bool
    best: dict | None = None
    frames: dict = field(default_factory=dict)


TUNE_ALLOWED = "a new or empty directory, or the same tuning to resume (same GAME and options)"


def check_tune_dir(out: Path, spec: TuneSpec) -> None:
    """Refuse (:class:`SpecError`, nothing written) a directory that cannot hold this tuning: a file, a dataset,
    another tuning, a non-empty directory that is no tuning."""
    check_workdir(out, META, spec.to_dict(), "tuning", TUNE_ALLOWED)


def tune(spec: TuneSpec, out: str | Path, *, threads: int | None = None, progress: bool = True,
         command: str = "", cluster=None) -> TuneRun:
    """Run (or resume) the tuning ``spec`` into ``out``; see the module doc. ``command`` is recorded in
    ``best.toml`` (how to reproduce it). ``cluster``: a connected :class:`~simulator.core.run.dask_backend.DaskBackend`
    on which every evaluation is played (the same trials, race and confirmation as locally)."""
    with owned_workdir(out, META, spec.to_dict(), "tuning", TUNE_ALLOWED) as work:
        try:
            study = _trials(spec, work, threads, progress, cluster)
            race = _race(spec, work, study, threads, progress, cluster)
            best = _best(spec, study, race)
            confirm = _confirm(spec, work, best["strategy"], threads, progress, cluster)
        except KeyboardInterrupt:
            return TuneRun(work.path, True)
        _write_best(spec, work, best, confirm, command)
        return TuneRun(work.path, False, best, {"trials": work.read_frame(TRIALS), "race": race, "confirm": confirm})


def _study(spec: TuneSpec, work: Workdir, trial_number: int):
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    sampler = optuna.samplers.TPESampler(seed=sampler_seed(spec.seed, trial_number),
                                         n_startup_trials=min(STARTUP_TRIALS, max(1, spec.budget // 4)))
    return optuna.create_study(study_name="tune", storage=f"sqlite:///{work / STORAGE}", direction="maximize",
                               sampler=sampler, load_if_exists=True)


def _trials(spec: TuneSpec, work: Workdir, threads, progress: bool, cluster=None):
    """Every trial of the budget, finished (a trial a kill left running is played again with its parameters)."""
    import optuna

    study = _study(spec, work, 0)
    if not study.trials:  # a new study starts from the family's own presets among the population
        for params in starting_points(spec)[:spec.budget]:
            study.enqueue_trial(params)
    done = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    label = f"tune {spec.game} {spec.family} against {', '.join(spec.against)}"
    with progress_of(spec.budget, label, "trials", enabled=progress, initial=len(done)) as bar:
        while True:
            study = _study(spec, work, len(study.trials))
            running = [t for t in study.trials if t.state == optuna.trial.TrialState.RUNNING]
            finished = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
            if running:
                trial, values = running[0].number, dict(running[0].params)
            elif finished >= spec.budget:
                break
            else:
                asked = study.ask()
                trial, values = asked.number, {d.name: d.suggest(asked) for d in spec.space}
            rows = evaluate(spec, spec.strategy(values), 0, spec.deals, spec.seed, threads, cluster)
            study.tell(trial, spec.score(rows))
            _write_trials(spec, work, study)
            bar.update(1)
            bar.set_postfix_str(f"best {study.best_value:.1%}")
    return study


def starting_points(spec: TuneSpec) -> list[dict]:
    """The first trials: the searched values of every member of the population that belongs to the tuned family
    (in the order given, each inside the searched ranges), then the family's defaults. Without them TPE's random
    start rarely lands near a preset in a dozen dimensions: a 200-trial Kamoul run at 2 players never matched
    aggressive, one of its opponents and a point of its own space."""
    plugin = spec.plugin
    points: list[dict] = []
    for seat in [*spec.opponents, parse_strategy(plugin, spec.family)]:
        if (plugin.strategies[seat.name].family or seat.name) != spec.family:
            continue
        values = dict(seat.params)
        point = {d.name: values[d.name] for d in spec.space}
        inside = all(d.low <= point[d.name] <= d.high if d.kind in ("int", "float") else point[d.name] in d.choices
                     for d in spec.space)
        if inside and point not in points and all(values[k] == v for k, v in spec.fixed.items()):
            points.append(point)
    return points


def _write_trials(spec: TuneSpec, work: Workdir, study) -> None:
    import optuna

    rows = []
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)):
        share = t.value  # against the opponent it did worst against, on spec.deals deals
        _rate, low, high = wilson(round(share * spec.deals), spec.deals)
        rows.append({"trial": t.number, **{d.name: t.params[d.name] for d in spec.space},
                     "deals": spec.deals, "share": share, "low": low, "high": high})
    work.write_frame(TRIALS, pl.DataFrame(rows))


def _race(spec: TuneSpec, work: Workdir, study, threads, progress: bool, cluster=None) -> pl.DataFrame:
    """The :data:`RACE_TOP` best trials on fresh deals; each candidate's rows written as it finishes."""
    import optuna

    trials = sorted(study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.COMPLETE,)),
                    key=lambda t: (-t.value, t.number))[:RACE_TOP]
    previous = work.read_frame(RACE)
    rows = previous.to_dicts() if previous is not None else []
    raced = {r["trial"] for r in rows}
    start, stop = spec.deals, spec.deals * (1 + RACE_FACTOR)
    with progress_of(len(trials), f"tune {spec.game}: race of the {len(trials)} best", "trials", enabled=progress,
                     initial=len(raced & {t.number for t in trials})) as bar:
        for t in trials:
            if t.number in raced:
                continue
            found = evaluate(spec, spec.strategy(dict(t.params)), start, stop, spec.seed, threads, cluster)
            rows += [{"trial": t.number, "trial_share": t.value, **r} for r in found]
            work.write_frame(RACE, pl.DataFrame(rows))
            bar.update(1)
    return pl.DataFrame(rows).filter(pl.col("trial").is_in([t.number for t in trials]))


def _best(spec: TuneSpec, study, race: pl.DataFrame) -> dict:
    """The race's winner: the highest smallest share over the population on the race's deals (then the trial's)."""
    if spec.weights is not None:
        weight = pl.col("opponent").replace_strict(dict(zip(spec.against, spec.weights)), return_dtype=pl.Float64)
        reach = (pl.col("share") * weight).sum()
    else:
        reach = pl.col("share").min()
    means = race.group_by("trial").agg(reach.alias("race_share"),
                                       pl.col("trial_share").first()).sort(
        ["race_share", "trial_share", "trial"], descending=[True, True, False])
    number = int(means["trial"][0])
    params = dict(study.trials[number].params)
    return {"trial": number, "params": {**spec.fixed, **params}, "strategy": spec.strategy(params),
            "race_share": float(means["race_share"][0]), "trial_share": float(means["trial_share"][0])}


def _confirm(spec: TuneSpec, work: Workdir, best: str, threads, progress: bool, cluster=None) -> pl.DataFrame:
    """``duel``'s paired sequential test of the tuned player against each opponent, on deals of ``seed + 1``."""
    previous = work.read_frame(CONFIRM)
    rows = previous.to_dicts() if previous is not None else []
    seat = parse_strategy(spec.plugin, best)
    for opponent, parsed in zip(spec.against, spec.opponents):
        if any(r["opponent"] == opponent for r in rows):
            continue
        if same_player(spec.plugin, seat, parsed):
            rows.append({"opponent": opponent, "decision": "within delta", "deals": 0, "duels": 0, "rate": math.nan,
                         "low": math.nan, "high": math.nan})
        else:
            r = run_duel(spec.game, a=best, b=opponent, max_games=spec.confirm_deals, seed=spec.seed + 1,
                         players=spec.players, level=spec.level, options=spec.options, threads=threads,
                         progress=progress, cluster=cluster)
            rows.append({"opponent": opponent, "decision": r["decision"], "deals": r["deals"], "duels": r["duels"],
                         "rate": r["rate"], "low": r["low"], "high": r["high"]})
        work.write_frame(CONFIRM, pl.DataFrame(rows))
    return pl.DataFrame(rows)


def _write_best(spec: TuneSpec, work: Workdir, best: dict, confirm: pl.DataFrame, command: str) -> None:
    preset = {
        "game": spec.game, "family": spec.family, "params": dict(sorted(best["params"].items())),
        "doc": f"{spec.family} tuned against {', '.join(spec.against)} at {spec.players} players",
        "provenance": {
            "against": list(spec.against), "players": spec.players, "budget": spec.budget, "seed": spec.seed,
            "deals": spec.deals, "level": spec.level, "options": spec.options, "trial": best["trial"],
            "race_share": best["race_share"],
            "confirmed": {r["opponent"]: {"decision": r["decision"], "deals": r["deals"], "duels": r["duels"],
                                          **({"share": r["rate"], "low": r["low"], "high": r["high"]}
                                             if r["duels"] else {})}
                          for r in confirm.to_dicts()},
            "date": datetime.date.today().isoformat(), "cardsim": __version__, "command": command,
        },
    }
    work.write_bytes(BEST, tomli_w.dumps(preset).encode("utf-8"))


# --- the answer -------------------------------------------------------------------------------------------


def verdict(out: str | Path) -> list[str]:
    """The tuning's answer in sentences, numbers first: the tuned parameters (three significant digits; exact in
    ``best.toml``), and per opponent the share of decided deals the tuned player won in the confirmation duel, with
    its 95% interval."""
    path = Path(out)
    if not (path / BEST).is_file():
        raise SpecError("DIR", str(out), "a finished tuning directory (best.toml)", "is not finished")
    best = tomllib.loads((path / BEST).read_text(encoding="utf-8"))
    prov = best["provenance"]
    params = ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={_text(v)}" for k, v in best["params"].items())
    lines = [_("Tuned {family} ({budget} trials, {players} players, judged by whole {level}): {params}.").format(
        family=best["family"], budget=prov["budget"], players=prov["players"], level=_(prov["level"]), params=params)]
    for opponent, r in prov["confirmed"].items():
        if "share" not in r and not r["deals"]:
            lines.append(_("Against {opponent}: the same strategy, parameter for parameter.").format(opponent=opponent))
            continue
        if "share" not in r:
            lines.append(_("Against {opponent}: it plays alike (every one of {deals} deals a tie: where they differ "
                           "never comes up).").format(opponent=opponent, deals=number(r["deals"], 0)))
            continue
        word = {"A beats B": _("it beats it"), "B beats A": _("it loses to it"), "within delta": _("it is level with it"),
                "undecided": _("it is not told apart from it")}[r["decision"]]
        share = share_interval(r["share"], r["low"], r["high"])
        lines.append(_("Against {opponent}: {outcome}, winning {share} of the decided deals (paired duel on unseen "
                       "deals, 95% interval).").format(opponent=opponent, outcome=word, share=share))
    return lines
