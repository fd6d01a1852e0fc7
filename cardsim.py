"""cardsim as a library: every CLI command as one call, for notebooks and scripts. The top of the layers: it
imports the simulator, analysis and reports, and nothing but ``cli.py`` imports it.

>>> import cardsim
>>> result = cardsim.simulate("kamoul", n=100_000, seed=1, out="runs/k1")
>>> hands = cardsim.open_table("runs/k1", "hands")          # polars LazyFrame; pandas: pd.read_parquet("runs/k1/hands")
"""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from simulator.core.cards import JOKER, card_name, parse_card
from simulator.core.contract.game import reference_note, replay_parts, replay_text, trace_hashes
from simulator.core.contract.presets import default_player
from simulator.core.contract import scaffold
from simulator.core.errors import SpecError
from simulator.core.kernels.compile_apart import compile_apart
from simulator.core.kernels.compiling import NOTICES
from simulator.core.params import shown_value
from simulator.core.run.backends import check_threads
from simulator.core.run.batch import read_batch as _read_batch, result_writer, run_batch
from simulator.core.run.dask_backend import DaskBackend
from simulator.core.run.designs import sweep_batch, tournament_batch
from simulator.core.run.plan import execute
from simulator.core.run.runner import RunResult, run
from simulator.core.run.verify import verify as _verify
from simulator.core.storage.outputs import check_output_dir, check_output_file
from simulator.core.storage.spec import MAX_N, RunSpec, build_spec, play_one_game, read_spec_file
from simulator.core.storage.store import listed_files, read_manifest, read_table, write_bytes_atomic
from simulator.games import GAMES, get_game
from simulator.rami.vocabulary.melds import best_opening


def make_spec(game: str, *, n: int | None = None, seed: int | None = None, players: int | None = None,
              level: str | None = None, strategies: list[str] | None = None, options: dict | list[str] | None = None,
              spec_file: str | Path | None = None) -> RunSpec:
    """A validated :class:`RunSpec`; values given here override those of ``spec_file`` (TOML)."""
    base = read_spec_file(spec_file) if spec_file else {}
    if "game" in base and base["game"] != game:
        raise SpecError("--spec game", base["game"], f"{game} (the game named on the command line)", "does not match")
    opts = dict(base.get("options", {}))
    opts.update(_options_dict(options))
    values = {
        "n": n if n is not None else base.get("n"),
        "seed": seed if seed is not None else base.get("seed", 0),
        "players": players if players is not None else base.get("players"),
        "level": level if level is not None else base.get("level"),
        "strategies": list(strategies) if strategies else base.get("strategies"),
        "options": opts,
    }
    if values["n"] is None:
        raise SpecError("-n", None, "a number of games >= 1, on the command line or as n in --spec")
    return build_spec(game, **values)


def _options_dict(options) -> dict:
    if not options:
        return {}
    if isinstance(options, dict):
        return dict(options)
    out = {}
    for item in options:
        key, sep, value = str(item).partition("=")
        if not sep or not key.strip():
            raise SpecError("--option", item, "key=value, e.g. --option snap_chain=true")
        key, value = key.strip(), value.strip()
        if key in out and out[key] != value:
            raise SpecError(f"--option {key}", value, f"one value per option (it is also given as {out[key]})",
                            "is given twice with different values")
        out[key] = value
    return out


def simulate(game: str, *, out: str | Path, n: int | None = None, seed: int | None = None, players: int | None = None,
             level: str | None = None, strategies: list[str] | None = None, options: dict | list[str] | None = None,
             spec_file: str | Path | None = None, threads: int | None = None, chunk_size: int | None = None,
             progress: bool = True, backend=None, scheduler: str | None = None, collect: str = "workers",
             restart: bool = False) -> RunResult:
    """Run (or resume) a simulation into the run directory ``out``; see ``cardsim simulate --help``. ``restart``:
    clear a run already in ``out`` (of any spec, e.g. made with a strategy file since edited) and play it afresh.

    ``scheduler``: a Dask scheduler address (``tcp://host:8786``) to play the chunks on that cluster
    (``None`` or ``"local"``: this machine); ``collect``: who writes the part files on a cluster,
    ``"workers"`` (shared storage) or ``"client"``. See docs/scale-out.md.
    """
    spec = make_spec(game, n=n, seed=seed, players=players, level=level, strategies=strategies, options=options,
                     spec_file=spec_file)
    check_output_dir(out)
    note = reference_note(spec)
    if note:
        print(note, file=sys.stderr)
    if scheduler is None or scheduler == "local" or backend is not None:
        return run(spec, out, chunk_size=chunk_size, threads=threads, backend=backend, progress=progress,
                   restart=restart)
    with DaskBackend(scheduler, collect) as cluster:  # connects (or refuses) before anything is written
        return run(spec, out, chunk_size=chunk_size, threads=threads, backend=cluster, progress=progress,
                   restart=restart)


def open_table(run_dir: str | Path, table: str = "hands", lazy: bool = True) -> pl.LazyFrame | pl.DataFrame:
    """One table of a run directory as a polars (Lazy)Frame."""
    return read_table(run_dir, table, lazy=lazy)


def verify(path: str | Path, repair: bool = False) -> dict:
    """Check (and with ``repair`` set right) a run, tournament, sweep or study directory against its manifests;
    see ``cardsim verify --help`` and :mod:`simulator.core.run.verify`. ``result["sound"]`` is ``True`` only when
    nothing is missing, damaged, foreign or unlisted."""
    return _verify(path, repair=repair)


def run_spec(run_dir: str | Path) -> RunSpec:
    return RunSpec.from_dict(read_manifest(run_dir, field="--run")["spec"])


def replay(game: str, *, seed: int | None = None, index: int, run_dir: str | Path | None = None,
           players: int | None = None, level: str | None = None, strategies: list[str] | None = None,
           options: dict | list[str] | None = None) -> str:
    """The play-by-play of game ``index``: from a stored run's spec, or from the given settings."""
    spec = _replay_spec(game, seed, index, run_dir, players, level, strategies, options)
    text = replay_text(spec, index)
    if run_dir is not None:
        text += "\n" + _check_against_run(spec, run_dir, index)[1]
    return text


def replay_data(game: str, *, seed: int | None = None, index: int, run_dir: str | Path | None = None,
                players: int | None = None, level: str | None = None, strategies: list[str] | None = None,
                options: dict | list[str] | None = None) -> dict:
    """:func:`replay` as data (``cardsim replay --json``): ``{"game", "seed", "index", "level", "players", "seats",
    "legend", "events"`` (the play-by-play's lines), ``"spec"``, and with ``run_dir`` ``"check": {"matches": bool
    or None (nothing to check), "detail"}}``."""
    spec = _replay_spec(game, seed, index, run_dir, players, level, strategies, options)
    seats, legend, events = replay_parts(spec, index)
    data = {"game": spec.game, "seed": spec.seed, "index": index, "level": spec.level, "players": spec.players,
            "seats": seats, "legend": legend, "events": events, "spec": spec.to_dict()}
    if run_dir is not None:
        matches, detail = _check_against_run(spec, run_dir, index)
        data["check"] = {"matches": matches, "detail": detail}
    return data


def _replay_spec(game, seed, index, run_dir, players, level, strategies, options) -> RunSpec:
    """The spec game ``index`` is replayed from (a stored run's, or one made of the settings), validated."""
    get_game(game)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < MAX_N:
        raise SpecError("--index", index, f"a game index in [0, {MAX_N - 1}]")
    if run_dir is not None:
        spec = run_spec(run_dir)
        if spec.game != game:
            raise SpecError("--run", str(run_dir), f"a {game} run", f"holds a {spec.game} run")
        if seed is not None and seed != spec.seed:
            raise SpecError("--seed", seed, f"{spec.seed} (the seed of {run_dir}) or nothing")
    else:
        spec = make_spec(game, n=max(index + 1, 1), seed=seed if seed is not None else 0, players=players,
                         level=level, strategies=strategies, options=options)
    if index < 0 or (run_dir is not None and index >= spec.n):
        raise SpecError("--index", index, f"a game index in [0, {spec.n - 1}]" if run_dir else "a game index >= 0")
    return spec


def _check_against_run(spec: RunSpec, run_dir, index: int) -> tuple[bool | None, str]:
    """Whether the replay's event traces match the stored run's rows of game ``index`` (``None``: nothing to
    check), and the line that says so."""
    plugin = spec.plugin
    tables = plugin.tables(spec.level)
    for each in tables:  # every part checked, not only those read: a damaged run is not vouched for
        listed_files(run_dir, each)
    if plugin.reference_play is None:
        return None, "(this game has no event trace: nothing to check against)"
    table = tables[0]
    stored = read_table(run_dir, table).filter(pl.col("game") == index)
    if table in plugin.row_order:
        stored = stored.sort(plugin.row_order[table])
    stored = stored.select("trace").collect()
    if stored.height == 0:
        return None, f"(game {index} is not on disk yet in {run_dir}: nothing to check against)"
    replayed = trace_hashes(spec, index)
    same = replayed == [int(t) for t in stored["trace"]]
    return same, (f"replay check: the event trace matches the stored run for every row of {table}" if same
                  else "replay check: MISMATCH between this replay and the stored run (different cardsim version?)")


@dataclass(frozen=True)
class StrategyCheck:
    """What :func:`check_strategy` found: games and rows played, whether the compiled engine played the reference
    engine's games (``None``: not asked) and, if not, the first game that differs."""

    games: int
    rows: int
    engines_agree: bool | None
    first_difference: str = ""


def check_strategy(game: str, strategy: str, *, n: int = 40, seed: int = 1, players: int | None = None,
                   against: str | None = None, engines: tuple[str, ...] = ("reference", "compiled"),
                   threads: int | None = None) -> StrategyCheck:
    """Play ``n`` games of ``strategy`` (seat 0) against ``against`` (default: the game's default strategy) on the
    reference engine, which checks every answer (an illegal one raises
    :class:`~simulator.core.errors.SpecError` naming it), and, with ``"compiled"`` in ``engines``, on the compiled
    engine too, comparing each row's event trace (``cardsim new-strategy``'s generated test)."""
    plugin = get_game(game)
    if not engines or set(engines) - {"reference", "compiled"}:
        raise SpecError("engines", engines, "'reference', 'compiled' or both")
    players = players or plugin.default_players
    spec = make_spec(game, n=n, seed=seed, players=players,
                     strategies=[strategy] + [against or default_player(plugin, players)] * (players - 1))
    if "compiled" in engines and reference_note(spec):
        raise SpecError("--strategy", strategy, "numba functions for the compiled engine",
                        "is plain Python: only the reference engine plays it")
    reference = [trace_hashes(spec, i) for i in range(n)]
    rows = sum(len(r) for r in reference)
    if "compiled" not in engines:
        return StrategyCheck(n, rows, None)
    table = plugin.tables(spec.level)[0]
    frame = plugin.simulate_chunk(spec, 0, n, threads)[table]
    for i, expected in enumerate(reference):
        played = frame.filter(pl.col("game") == i)
        if table in plugin.row_order:
            played = played.sort(plugin.row_order[table])
        if [int(t) for t in played["trace"]] != expected:
            return StrategyCheck(n, rows, False, f"game {i}: the engines' {table} differ (cardsim replay {game} "
                                                 f"--seed {seed} --game {i} ... shows the reference engine's play)")
    return StrategyCheck(n, rows, True)


def new_strategy(game: str, name: str, out: str | Path):
    """``cardsim new-strategy``: write ``<out>/<name>.py`` and its test; see :mod:`simulator.core.contract.scaffold`."""
    return scaffold.new_strategy(game, name, check_output_dir(out))


def warm(games: list[str] | None = None, *, quiet: bool = False) -> list[str]:
    """``cardsim warm``: compile the kernels of ``games`` (default: every game; each game's ``warm_extra`` too, e.g.
    Kamoul's rollout kernels for ``study kamoul-call`` and ``advise``) into the on-disk cache, those not compiled
    yet side by side, one process per core (:mod:`simulator.core.kernels.compile_apart`), with the compile notice
    (:mod:`simulator.core.kernels.compiling`); returns what was warmed. A kernel already cached costs a load."""
    names = list(dict.fromkeys(games)) if games else list(GAMES)
    for name in names:
        get_game(name)  # an unknown game: SpecError before anything compiles
    previous, NOTICES["enabled"] = NOTICES["enabled"], not quiet
    try:
        families = [f for name in names for f in GAMES[name].kernel_families]
        compile_apart(families)
        for family in families:
            family.compile()  # loads what was compiled ahead; compiles, with its notice, what was not
        undeclared = [name for name in names if GAMES[name].kernels is None]
        for name in undeclared:  # a game that declares no kernel family: one game compiles its simulation kernels
            play_one_game(name)
        return [f.name for f in families] + undeclared
    finally:
        NOTICES["enabled"] = previous


def compile_family(game: str, name: str) -> None:
    """Compile (or load) the kernel family ``name`` of ``game``, silently: what a child process of
    :func:`simulator.core.kernels.compile_apart.compile_apart` runs. Its compile time is kept for the next notices (``compile-seconds.json``)."""
    NOTICES["enabled"] = False
    family = {f.name: f for f in get_game(game).kernel_families}[name]
    family.compile()


def default_players_text(plugin) -> str:
    """Who plays by default, per table size: ``tuned-2p at 2 players, tuned-4p at 3-6`` (the game's counts)."""
    counts: dict[str, list[int]] = {}
    for players in range(2, 9):
        try:
            plugin.check_players(players, plugin.options.resolve({}))
        except SpecError:
            continue
        counts.setdefault(default_player(plugin, players), []).append(players)
    def spans(ps: list[int]) -> str:
        contiguous = ps == list(range(ps[0], ps[-1] + 1))
        return f"{ps[0]}-{ps[-1]}" if contiguous and len(ps) > 2 else " and ".join(map(str, ps))

    return ", ".join(f"{name} at {spans(ps)} players" for name, ps in counts.items())


def strategies_text(game: str, *, full: bool = False) -> str:
    """Registered strategies of ``game``: each family with its declared parameters once and, per preset, only the
    parameter values where it differs from its family (``full``: every strategy with every parameter); numbers at
    three significant digits (the preset files keep every digit)."""
    plugin = get_game(game)
    lines = [f"{game} strategies (use --strategy NAME or NAME:param=value,...; default: {default_players_text(plugin)})"]
    shown: list = []  # the families listed in full so far
    listed: list = []  # every strategy listed so far (a family may take a preset's values as its defaults)
    for s in plugin.strategies.values():
        family = plugin.strategies.get(s.family)
        listed.append(s)
        if full or family is None or family is s:
            lines.append(f"\n{s.name}: {s.doc}")
            names = {p.name: p for p in s.params.params}
            built_on = next((f for f in shown + listed[:-1] if f.params.params and all(
                q.name in names and names[q.name].default == q.default for q in f.params.params)), None)
            own = [p for p in s.params.params if built_on is None or p.name not in built_on.params.by_name]
            if built_on is not None and not full:
                values = "same defaults" if built_on in shown else "its values"
                lines.append(f"    the parameters of {built_on.name} (above, {values}), and:")
            lines += [f"    {p.describe()}" for p in (s.params.params if full else own)]
            shown.append(s)
            continue
        base = {p.name: p.default for p in family.params.params}
        changed = [f"{p.name}={shown_value(p.default)}" for p in s.params.params if base.get(p.name) != p.default]
        lines.append(f"\n{s.name}: {s.doc}\n    = {family.name}" + (f" with {', '.join(changed)}" if changed else
                                                                        " (the family's defaults)"))
        if s.provenance:
            lines.append("    " + provenance_text(s.provenance))
    if not full:
        lines.append("\n(cardsim strategies GAME --all lists every parameter of every strategy; --json too)")
    return "\n".join(lines)


def provenance_text(provenance: dict) -> str:
    """How a preset was found, in one line: ``tuned against A, B at 4 players (budget 200, seed 0, 2026-12-04;
    cardsim tune ...)``."""
    against = ", ".join(provenance.get("against", [])) or "?"
    facts = [f"{k} {provenance[k]}" for k in ("budget", "seed") if k in provenance]
    facts += [str(provenance[k]) for k in ("date",) if k in provenance]
    command = provenance.get("command")
    return (f"tuned against {against} at {provenance.get('players', '?')} players ({', '.join(facts)})"
            + (f"; reproduce: {command}" if command else ""))


def strategies_data(game: str) -> list[dict]:
    """``cardsim strategies --json``: every strategy with its family, every parameter (name, kind, default,
    bounds or choices, meaning, rule) and, for a preset from a file, its provenance."""
    plugin = get_game(game)
    return [{"name": s.name, "family": s.family or s.name, "doc": s.doc, "params": _param_rows(s.params),
             **({"provenance": s.provenance} if s.provenance else {})} for s in plugin.strategies.values()]


def rules_data(game: str) -> list[dict]:
    """``cardsim rules --json``: every rule option (name, kind, default, bounds or choices, meaning, rule)."""
    return _param_rows(get_game(game).options)


def _param_rows(params) -> list[dict]:
    return [{"name": p.name, "kind": p.kind, "default": p.default, "low": p.low, "high": p.high,
             "choices": list(p.choices), "doc": p.doc, "rule": p.rule} for p in params.params]


def rules_text(game: str) -> str:
    """Variant options of ``game``: name, default, allowed values, rule number."""
    plugin = get_game(game)
    lines = [f"{game} rule options (use --option name=value; rules in docs/rules/{game}.md):", ""]
    for p in plugin.options.params:
        lines.append(f"  {p.describe()}")
    ruled: dict[str, tuple] = {}  # strategy parameters that model a rule (e.g. K13's misremembering)
    for strategy in plugin.strategies.values():
        for p in strategy.params.params:
            if p.rule:
                ruled.setdefault(p.name, (p, []))[1].append(strategy.name)
    if ruled:
        lines += ["", "player parameters that model a rule (use --strategy NAME:param=value):"]
        for p, names in ruled.values():
            lines.append(f"  {p.describe()}  (strategies: {', '.join(names)})")
    lines.append("")
    lines.append(f"levels: {', '.join(plugin.levels)} (default {plugin.default_level}); "
                 f"players: default {plugin.default_players}")
    return "\n".join(lines)


def rami_opening(hand_text: str, *, decks: int = 2, opening_points: int = 51) -> dict:
    """R7: can this Rami hand open, for how many points, with which melds (exact, :func:`melds.best_opening`).

    ``hand_text``: card names separated by spaces or commas (``"7H 8H 9H KS KH KD JK"``; JK = joker). With
    ``decks`` 54-card decks a hand holds at most ``decks`` copies of a natural card and ``2 * decks`` jokers.
    Returns ``{"can_open", "points", "threshold", "melds"}``, melds as lists of card names (a joker as
    ``"JK=AH"``: the card it stands for).
    """
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 3:
        raise SpecError("--decks", decks, "1, 2 or 3")
    if isinstance(opening_points, bool) or not isinstance(opening_points, int) or not 0 <= opening_points <= 200:
        raise SpecError("--opening-points", opening_points, "an integer in [0, 200]")
    tokens = hand_text.replace(",", " ").split()
    if not tokens:
        raise SpecError("--hand", hand_text, 'card names separated by spaces or commas, e.g. "7H 8H 9H KS KH KD JK"',
                        "holds no card")
    cards, read = [], []
    for tok in tokens:
        try:
            cards.append(parse_card(tok))
        except ValueError:
            raise SpecError("--hand", tok, "cards such as AH 10D KS JK (rank A 2-10 J Q K, suit C D H S; JK joker)",
                            "is not a card") from None
        if card_name(cards[-1]) != tok:
            read.append(f"{tok} as {card_name(cards[-1])}")
    for card, count in Counter(cards).items():
        most = 2 * decks if card == JOKER else decks
        if count > most:
            raise SpecError("--hand", card_name(card), f"at most {most} of it with {decks} deck(s) (--decks)",
                            f"appears {count} times")
    result = best_opening(cards, threshold=opening_points)
    melds = [[("JK=" + card_name(c)) if i == m.joker else card_name(c) for i, c in enumerate(m.cards)]
             for m in result.melds]
    if result.can_open:
        reason = ""
    elif result.melds:
        reason = f"the best opening is worth {result.points} points, short of {opening_points}"
    elif best_opening(cards, threshold=0, opening_single_meld=True).melds:
        reason = ("the hand holds a tierce franche but no second combination beside it (R7: a tierce franche and "
                  "at least one more meld)")
    else:
        reason = "the hand holds no tierce franche (a run of three natural cards of one suit)"
    return {"hand": [card_name(c) for c in cards], "read": read, "decks": decks, "threshold": opening_points,
            "can_open": result.can_open, "points": result.points, "melds": melds, "why_not": reason}


def plan(*, p1: float, p2: float, alpha: float = 0.05, power: float = 0.8, paired_rho: float = 0.0) -> dict:
    """How many games per strategy tell win rates ``p1`` and ``p2`` apart (``analysis.stats.games_needed``); see
    ``cardsim plan --help``. Returns ``{"games", "games_unpaired", …}``."""
    from analysis.stats import games_needed

    for field, value, lo, hi in (("--p1", p1, 0.0, 1.0), ("--p2", p2, 0.0, 1.0), ("--alpha", alpha, 0.0, 0.5),
                                 ("--power", power, 0.5, 1.0), ("--rho", paired_rho, -1e-300, 1.0)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not lo < value < hi:
            allowed = "a correlation in [0, 1)" if field == "--rho" else f"a number strictly between {lo:g} and {hi:g}"
            raise SpecError(field, value, allowed)
    if p1 == p2:
        raise SpecError("--p2", p2, "a win rate other than --p1", "equals --p1")
    try:
        games = games_needed(p1, p2, alpha, power, paired_rho), games_needed(p1, p2, alpha, power)
    except (ZeroDivisionError, OverflowError, ValueError):
        games = None
    if games is None or min(games) < 0:
        raise SpecError("--p2", p2, "a win rate far enough from --p1 for a finite number of games",
                        "is too close to --p1")
    return {"p1": p1, "p2": p2, "alpha": alpha, "power": power, "paired_rho": paired_rho,
            "games": games[0], "games_unpaired": games[1]}


def tune(game: str, *, strategy: str, against, budget: int, out: str | Path, params=(), players: int | None = None,
         seed: int = 0, deals: int | None = None, options: dict | list[str] | None = None, threads: int | None = None,
         progress: bool = True, command: str = "", confirm_deals: int | None = None, scheduler: str | None = None,
         weights=None):
    """Optimise a strategy family's parameters against a population (``analysis.tune``; ``cardsim tune --help``):
    everything validated first (one-line :class:`SpecError`, nothing written), then the trials, the race of the
    best and the confirmation duels into ``out`` (resumable). ``scheduler``: a Dask scheduler address on which
    every evaluation is played (the same result); ``weights``: the population as a mixture (a best response to it
    is sought). Returns an ``analysis.tune.TuneRun``."""
    from analysis.tune import CONFIRM_MAX, DEALS, check_tune
    from analysis.tune import tune as _tune

    local = scheduler is None or scheduler == "local"
    if local:
        check_threads(threads)
    spec = check_tune(game, strategy=strategy, params=params, against=against, players=players, budget=budget,
                      seed=seed, deals=DEALS if deals is None else deals, options=_options_dict(options),
                      confirm_deals=CONFIRM_MAX if confirm_deals is None else confirm_deals, weights=weights)
    out = check_output_dir(out)
    if local:
        result = _tune(spec, out, threads=threads, progress=progress, command=command)
    else:
        from analysis.tune import check_tune_dir

        threads = DaskBackend.check_threads(threads)
        cluster = DaskBackend(scheduler, "client")
        check_tune_dir(out, spec)
        with cluster:  # connects (or refuses) before anything is written
            result = _tune(spec, out, threads=threads, progress=progress, command=command, cluster=cluster)
    if not result.interrupted:
        from reports.tune_report import build_tune_report

        build_tune_report(result.path, result.path / "report.html")
    return result


def duel(game: str, *, strategies: list[str], delta: float = 0.05, alpha: float = 0.05, beta: float = 0.05,
         max_games: int = 200_000, seed: int = 0, players: int | None = None, level: str | None = None,
         options: dict | list[str] | None = None, threads: int | None = None, progress: bool = True) -> dict:
    """Does the first strategy beat the second? Paired deals until a sequential test decides
    (``analysis.duel``); see ``cardsim duel --help``."""
    from analysis.duel import duel as _duel

    check_threads(threads)
    strategies = list(strategies or [])
    if len(strategies) == 1:  # A against the default player
        strategies.append(default_player(get_game(game), players))
    if len(strategies) != 2:
        raise SpecError("--strategy", len(strategies), "1 strategy (against the default player) or 2 (A then B)",
                        "strategies given")
    if isinstance(max_games, bool) or not isinstance(max_games, int) or max_games < 1:
        raise SpecError("--max-games", max_games, "a number of deals >= 1")
    return _duel(game, a=strategies[0], b=strategies[1], delta=delta, alpha=alpha, beta=beta, max_games=max_games,
                 seed=seed, players=players, level=level, options=_options_dict(options), threads=threads,
                 progress=progress)


def advise(game: str, *, known: str, unknown: int = 0, turn: int, players: int | None = None, cumulative: int = 0,
           strategy: str | None = None, options: dict | list[str] | None = None, samples: int = 20_000,
           seed: int | None = None, threads: int | None = None, spec_file: str | Path | None = None) -> dict:
    """Call KAMOUL now or play on, in one situation (``analysis.studies.kamoul_call.study.advise``); see ``cardsim advise
    --help``. ``spec_file``: a TOML file with any of ``players``, ``seed``, one ``strategies`` entry and
    ``[options]`` (the arguments given here override it). Returns the win probability, expected points and
    points saved by calling, with 95% intervals."""
    from analysis.studies.kamoul_call.study import GAMES as ADVISE_GAMES
    from analysis.studies.kamoul_call.study import advise as _advise

    if game not in ADVISE_GAMES:
        raise SpecError("GAME", game, f"{', '.join(ADVISE_GAMES)} (the games advise knows)")
    base = _study_spec_file(spec_file, game)
    unused = sorted(set(base) & {"n"})
    if unused:
        raise SpecError(f"--spec {unused[0]}", base[unused[0]], "players, seed, strategies, [options] (advise "
                        "samples --samples situations)")
    listed = base.get("strategies") or []
    if len(listed) > 1:
        raise SpecError("--spec strategies", ",".join(listed), "one strategy (everyone plays it)")
    players = players if players is not None else (base["players"][0] if base.get("players") else 4)
    rules = dict(base.get("options", {}))
    rules.update(_options_dict(options))
    check_threads(threads)
    return _advise(known=known, unknown=unknown, turn=turn, players=players, cumulative=cumulative,
                   strategy=strategy or (listed[0] if listed else default_player(get_game(game), players)),
                   options=rules,
                   seed=seed if seed is not None else base.get("seed", 0), samples=samples, threads=threads)


def report(run: str | Path, out: str | Path, pdf: str | Path | None = None, *, title: str | None = None) -> dict:
    """Write the self-contained HTML report of the run directory ``run`` (or of a tournament or sweep directory,
    which holds ``_batch.json``) to ``out`` and, with ``pdf``, print it
    to that PDF with headless Chromium. Every input is checked before anything is written. Returns
    ``{"html": Path, "pdf": Path | None}``; see ``cardsim report --help``."""
    from analysis.studies.dispatch import build_any_report, check_source
    from reports.output import check_output, print_pdf, require_chromium

    check_source(run)
    check_output(check_output_file(out, "--out"), "--out")
    if pdf is not None:
        check_output(check_output_file(pdf, "--pdf"), "--pdf")
        if Path(pdf).resolve() == Path(out).resolve():
            raise SpecError("--pdf", str(pdf), "a path other than --out", "is the HTML file's path")
        require_chromium(pdf)
    html_existed = Path(out).exists()
    html_path = build_any_report(run, out, title=title)
    if pdf is None:
        return {"html": html_path, "pdf": None}
    try:
        return {"html": html_path, "pdf": print_pdf(html_path, pdf)}
    except BaseException:
        if not html_existed:  # a refused or failed --pdf leaves nothing behind
            Path(html_path).unlink(missing_ok=True)
        raise


# --- batches: tournaments and sweeps (simulator/core/run/batch.py, docs/architecture.md) -------------------


def tournament(game: str, *, strategies: list[str], out: str | Path, n: int, seed: int = 0, players: int | None = None,
               level: str | None = None, options: dict | list[str] | None = None, threads: int | None = None,
               chunk_size: int | None = None, progress: bool = True):
    """Play every pair of ``strategies`` with seats rotated on identical deals into ``out`` (resumable); see
    ``cardsim tournament --help``. Returns the :class:`~simulator.core.run.batch.BatchRun` with ``frames``
    (``matrix``, ``ratings``, ``wins``; also written to ``out/matrix.parquet`` and ``out/ratings.parquet``)
    once complete, else ``frames = None``."""
    batch = tournament_batch(game, strategies=list(strategies), n=n, seed=seed, players=players, level=level,
                             options=_options_dict(options))
    return _run_and_store(batch, out, threads, chunk_size, progress)


def metagame(path: str | Path, *, bootstrap: int | None = None, seed: int = 0, report: bool = True):
    """The meta-game of the tournament at ``path`` (``analysis.metagame``; ``cardsim metagame --help``): the Nash
    equilibrium of its win-rate matrix, each member's exploitability, and bootstrap intervals. With ``report``,
    writes ``path/metagame.html`` (``result.html``). Returns an ``analysis.metagame.MetaGame``."""
    from analysis.metagame import BOOTSTRAP
    from analysis.metagame import metagame as _metagame

    result = _metagame(path, bootstrap=BOOTSTRAP if bootstrap is None else bootstrap, seed=seed)
    if report:
        from reports.metagame_report import build_metagame_report

        result.html = build_metagame_report(result)
    return result


def metagame_grow(path: str | Path, *, rounds: int, budget: int, out: str | Path | None = None,
                  family: str | None = None, params=(), deals: int | None = None, confirm_deals: int | None = None,
                  bootstrap: int | None = None, seed: int = 0, threads: int | None = None, progress: bool = True):
    """Grow the population of the tournament at ``path`` by best responses (``analysis.psro``; ``cardsim metagame
    --grow``) into ``out`` (default: the sibling directory ``<path>.grow``), resumable. Returns an
    ``analysis.psro.GrowRun``."""
    from analysis.metagame import BOOTSTRAP
    from analysis.psro import check_grow, grow
    from analysis.tune import DEALS

    check_threads(threads)
    spec, data = check_grow(path, family=family, params=params, rounds=rounds, budget=budget,
                            deals=DEALS if deals is None else deals,
                            confirm_deals=2_000 if confirm_deals is None else confirm_deals,
                            bootstrap=BOOTSTRAP if bootstrap is None else bootstrap, seed=seed)
    target = check_output_dir(Path(out) if out is not None else Path(str(Path(path).resolve()) + ".grow"))
    return grow(spec, data, target, threads=threads, progress=progress)


def sweep(game: str, *, out: str | Path, n: int, grids: list[str] | None = None, option_grids: list[str] | None = None,
          seats: list[int] | None = None, seed: int = 0, players: int | None = None, level: str | None = None,
          strategies: list[str] | None = None, options: dict | list[str] | None = None, threads: int | None = None,
          chunk_size: int | None = None, progress: bool = True):
    """Run a grid of strategy parameters (``grids``, on ``seats``) and rule options (``option_grids``) on
    identical deals into ``out`` (resumable); see ``cardsim sweep --help``. ``frames`` (``summary``,
    ``outcomes``; also ``out/summary.parquet``, ``out/outcomes.parquet``) once complete."""
    batch = sweep_batch(game, n=n, grids=grids, option_grids=option_grids, seats=seats, seed=seed, players=players,
                        level=level, strategies=strategies, options=_options_dict(options))
    return _run_and_store(batch, out, threads, chunk_size, progress)


def _run_and_store(batch, out, threads, chunk_size, progress):
    from analysis.batches import batch_frames

    return run_batch(batch, check_output_dir(out), chunk_size=chunk_size, threads=threads, progress=progress,
                     on_complete=result_writer(batch.kind, batch_frames))


def batch_frames(out: str | Path) -> dict:
    """The frames of a tournament (``matrix``, ``ratings``, ``wins``) or sweep (``summary``, ``outcomes``)
    directory, computed from its cells (``analysis.batches.batch_frames``)."""
    from analysis.batches import batch_frames as _batch_frames

    return _batch_frames(out)


def read_batch(out: str | Path, table: str | None = None) -> pl.LazyFrame:
    """Every cell of a tournament or sweep as one LazyFrame with ``cell`` and label columns."""
    return _read_batch(out, table)


# --- studies: compositions of batches with their own frames and report (analysis/studies.py) ----------


def study(name: str, game: str | None = None, *, out: str | Path, n: int | None = None, seed: int | None = None,
          players=None, options: dict | list[str] | None = None, strategies: list[str] | None = None,
          spec_file: str | Path | None = None, threads: int | None = None, chunk_size: int | None = None,
          progress: bool = True, report: bool = True, **settings) -> dict:
    """Run (or resume) the study ``name`` on ``game`` into ``out`` and, once complete, write
    ``out/report.html``; see ``cardsim study --help``. ``options``: rule options everything is played under;
    ``strategies``: what each study lets you choose (its module's ``STRATEGY_HELP``/``STRATEGIES_HELP``);
    ``spec_file``: a TOML file with any of ``n``, ``seed``, ``players``, ``strategies`` and ``[options]`` (the
    arguments given here override it). ``settings``: the study's own keyword arguments (e.g. the balance study's
    ``swept``). Returns ``{"path", "interrupted", "frames", "html", "answer"}`` (the
    :class:`~analysis.answers.Answer`, also written to ``out/answer.md`` and ``out/answer.json``)."""
    from analysis.studies import check_game, study_def

    definition = study_def(name)
    game = check_game(definition, game)
    check_output_dir(out)
    base = _study_spec_file(spec_file, game)
    rules = dict(base.get("options", {}))
    rules.update(_options_dict(options))
    n = n if n is not None else base.get("n")
    if n is None:
        raise SpecError("-n", None, "a number of games >= 1, on the command line or as n in --spec")
    plan = definition.module.plan(out, game=game, n=n, seed=seed if seed is not None else base.get("seed", 0),
                                  players=players if players is not None else base.get("players"), threads=threads,
                                  chunk_size=chunk_size, rules=rules, strategies=strategies or base.get("strategies"),
                                  **settings)
    kernels = getattr(definition.module, "KERNEL_FAMILIES", ())
    if kernels:  # a study that needs several kernel families compiles them side by side first
        compile_apart([f for f in get_game(game).kernel_families if f.name in kernels])
    done = execute(plan, out, threads=threads, chunk_size=chunk_size, progress=progress)
    result = {"path": done.path, "interrupted": done.interrupted, "frames": done.frames, "html": None, "answer": None}
    if not done.interrupted:
        result["answer"] = write_answer(name, out)
        if report:
            result["html"] = definition.report(out, Path(out) / "report.html", frames=done.frames)
    return result


def _study_spec_file(spec_file, game: str) -> dict:
    """The keys of a study's ``--spec`` TOML file (those of a run spec but ``level``: a study plays its own)."""
    if not spec_file:
        return {}
    base = read_spec_file(spec_file)
    if "game" in base and base["game"] != game:
        raise SpecError("--spec game", base["game"], f"{game} (the game of the study)", "does not match")
    if "level" in base:
        raise SpecError("--spec level", base["level"], "no level: each study plays its own units (see -n)")
    if isinstance(base.get("players"), int) and not isinstance(base.get("players"), bool):
        base["players"] = [base["players"]]
    return base


def write_answer(name: str, out: str | Path):
    """The finished study's answer (``analysis.<study>.answer``), written to ``out/answer.md`` and
    ``out/answer.json`` (schema: docs/studies.md); returns the :class:`~analysis.answers.Answer`."""
    from analysis.studies import study_def

    answer = study_def(name).module.answer(out)
    write_bytes_atomic(Path(out) / "answer.md", answer.markdown().encode("utf-8"))
    write_bytes_atomic(Path(out) / "answer.json", (answer.json() + "\n").encode("utf-8"))
    return answer
