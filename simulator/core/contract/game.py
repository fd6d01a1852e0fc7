"""The game contract: what a game package hands to the core, to analysis and to reports.

The runner, the store, spec validation, analysis, reports and the CLI only ever talk to a :class:`GamePlugin`:
its options, strategies, levels and tables, its chunk kernel, who results are counted for (seats or teams,
:meth:`GamePlugin.sides`), which way points go, how a row's winner and each side's position from the deal are
read, what the balance study sweeps, and how a game is replayed. So nothing outside a game's own packages
needs to know which game it is handling, and a new game is its package plus one line in ``simulator.games``.

The core never imports a game: ``simulator.games`` (a layer above) registers the plugins with
:func:`simulator.core.contract.registry.register_games`, and :func:`~simulator.core.contract.registry.get_game` reads them; a
:class:`~simulator.core.storage.spec.RunSpec` carries its plugin. Seats are :mod:`simulator.core.contract.seats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import polars as pl

from simulator.core.contract.registry import _restore
from simulator.core.contract.seats import USER_KERNEL_BASE, Seat, StrategyDef, params_array, runs_on_reference
from simulator.core.contract.user_strategies import load_seat_strategy
from simulator.core.errors import SpecError
from simulator.core.kernels.compiling import KernelFamily
from simulator.core.params import ParamSet

TEAM_KEYS = "ABCDEFGH"


def seats_of(spec) -> list[Seat]:
    """The :class:`Seat` of every seat of a run spec: a registered strategy or one from a user's file (kernel ids
    from :data:`USER_KERNEL_BASE`, one per distinct file strategy), with its resolved parameters."""
    user_ids: dict[tuple[str, str], int] = {}
    out = []
    for s in spec.strategies:
        if not s.source:
            sdef = spec.plugin.strategies[s.name]
            out.append(Seat(sdef.kernel_id, params_array(sdef, dict(s.params)), label=s.label()))
            continue
        user = load_seat_strategy(spec.plugin, s)
        sid = user_ids.setdefault((s.source, s.name), USER_KERNEL_BASE + len(user_ids))
        out.append(Seat(sid, params_array(user.definition(sid), dict(s.params)), user, s.label()))
    return out


def reference_note(spec) -> str | None:
    """The one line a user reads when ``spec`` runs on the reference engine because of a plain-Python strategy."""
    seats = seats_of(spec)
    if not runs_on_reference(seats):
        return None
    names = sorted({s.user.label for s in seats if s.user is not None and not s.user.compiled})
    return (f"note: {', '.join(names)} is plain Python (its decisions are not numba functions): this run plays on "
            "the reference engine, some hundred times slower than the compiled one")


@dataclass(frozen=True)
class Side:
    """One unit results are counted for: a seat, or a team of seats. ``key`` suffixes its per-side columns
    (``points_0``, ``points_A``), ``label`` names it for people."""

    index: int
    key: str
    label: str
    seats: tuple[int, ...]


# why the balance study leaves an option out (BalanceHints.skipped), in the same words for every game
SKIP_GUARD = "simulation guard, not a rule"
SKIP_ACROSS = "acts only across hands, rounds or manches (the sweeps play one)"
SKIP_PHYSICAL = "physical layer or perception model, not a rule"
SKIP_TIME = "parameter of the discrete-time model, not a rule"


@dataclass(frozen=True)
class BalanceHints:
    """What the balance study needs to know of a game.

    ``skill``: the strategies of its luck-versus-skill tournament (``random`` first); ``skipped``: the rule
    options it does not sweep, each with the reason; ``values``: the values swept for numeric options (others: the
    default and a value either side); ``extras``: the game's own parts by name, with their settings (e.g.
    ``{"powers": {"peek_own": ("peeks",), ...}, "power_player": "heuristic:..."}``: Kamoul's card powers, one sweep
    per parameter of seat 0's ``power_player``, each with the columns that count the power's uses)."""

    skill: tuple[str, ...]
    skipped: dict[str, str] = field(default_factory=dict)
    values: dict[str, tuple] = field(default_factory=dict)
    extras: dict[str, tuple] = field(default_factory=dict)


@dataclass(frozen=True)
class GamePlugin:
    """The contract between one game package and everything else.

    Playing:

    * ``simulate_chunk(spec, start, stop, threads)`` plays games ``start <= i < stop`` of the run with the kernel
      and returns ``{table_name: polars.DataFrame}`` whose rows are sorted by game index; game ``i`` depends only
      on ``(spec, i)``;
    * ``level_tables[level]`` names the tables a run at that level writes, the finest first
      (:meth:`tables`); ``chunk_sizes[level]`` the default games per chunk; ``row_order[table]`` the column that
      orders a game's rows in a table when it has several (``hand``, ``round``);
    * ``reference_play(spec, index, log, seats=None)`` plays game ``index`` with the reference engine (its own
      ``seats`` if given: a strategy file's trial, :mod:`simulator.core.contract.strategy_trial`), appending its
      play-by-play to ``log`` (a list, or ``None``), and returns the event-trace hash of each row of its finest
      table; ``replay_legend(spec)`` is the line that explains the play-by-play's notation.

    Reading results (analysis and reports):

    * :meth:`sides`: seats, or with ``team_count`` teams of interleaved seats (seat ``p`` plays for team
      ``p mod T``, partners opposite);
    * ``lower_is_better``: which way points go;
    * ``scored_level``: the level whose games decide who wins the game as people play it (Kamoul: manches;
      Rami, Kem's: games; empty: the coarsest level): what duels and tournaments judge by unless told otherwise
      (:meth:`judged_level`);
    * ``row_winner(players)``: a polars expression, over the finest table, of the index of the side that won the
      row (-1: none); coarser tables carry a ``winners`` bit mask over the sides;
    * ``row_position(side, players)``: a polars expression of that side's position from the deal in each row of
      the finest table (0 = the side that plays first); ``position_names`` = the names of the first position,
      of another one (``{k}`` = its ordinal) and of the last;
    * ``balance``: :class:`BalanceHints`; ``report_sections``: the game's own sections of a run report, by name;
    * ``kernels``: the simulation kernels (:class:`~simulator.core.kernels.compiling.KernelFamily`, the engine module's
      ``KERNEL_FAMILY``); ``warm_extra``: the game's other kernel families, which ``cardsim warm`` compiles beside
      them (Kamoul: the rollout kernels of its call study and ``advise``); :attr:`kernel_families`: all of them.

    ``home`` is the name of the module whose ``PLUGIN`` this is: a plugin is pickled as that name, so a run spec
    travels to a cluster's workers without copying the game. :func:`declare_game` builds a plugin from a game
    package laid out like cardsim's own.
    """

    name: str
    levels: tuple[str, ...]
    default_level: str
    options: ParamSet
    strategies: dict[str, StrategyDef]
    default_strategy: str
    default_players: int
    check_players: Callable[[int, dict], None]
    level_tables: dict[str, tuple[str, ...]]
    simulate_chunk: Callable
    chunk_sizes: dict[str, int]
    home: str
    reference_play: Callable | None = None
    replay_legend: Callable | None = None
    row_order: dict[str, str] = field(default_factory=dict)
    team_count: Callable[[int], int] | None = None
    lower_is_better: bool = True
    scored_level: str = ""
    row_winner: Callable[[int], pl.Expr] = lambda players: pl.col("winner").cast(pl.Int64)
    row_position: Callable[[int, int], pl.Expr] | None = None
    position_names: tuple[str, str, str] = ("first to play", "plays {k}", "plays {k} (the dealer)")
    balance: BalanceHints | None = None
    report_sections: tuple[str, ...] = ()
    kernels: KernelFamily | None = None
    warm_extra: tuple[KernelFamily, ...] = ()
    contract: object = None  # the strategy contract (simulator.core.contract.decisions.Contract); None: built-ins only
    strategy_template: str | None = None  # the jinja2 template of `cardsim new-strategy` (a path); None: not yet
    leading_params: tuple[str, ...] = ()  # the parameters a strategy from a file declares first (engines read them)

    def __post_init__(self):
        if self.contract is not None:  # the dispatch is exhaustive: a family without its branch is refused here
            undispatched = {s.name: s.kernel_id for s in self.strategies.values()
                            if s.kernel_id not in self.contract.builtin_ids}
            if undispatched:
                raise ValueError(f"{self.name}: strategies {undispatched} have kernel ids the contract's dispatch "
                                 f"does not handle (its built-in ids: {self.contract.builtin_ids})")

    def __reduce__(self):
        return (_restore, (self.home,))

    @property
    def decisions(self) -> dict:
        """The decisions of the game's strategy contract (name -> Decision); empty for a game without one."""
        return self.contract.decisions if self.contract is not None else {}

    @property
    def kernel_families(self) -> tuple[KernelFamily, ...]:
        """Every compiled kernel family of the game: its simulation kernels, then ``warm_extra``."""
        return ((self.kernels,) if self.kernels is not None else ()) + self.warm_extra

    @property
    def judged_level(self) -> str:
        """The level strategies are judged by when none is asked for (``scored_level``, else the coarsest)."""
        return self.scored_level or self.levels[-1]

    @property
    def finest_unit(self) -> str:
        """One game of the finest level, singular ("hand", "round", "manche"): what mean points are counted per."""
        return self.levels[0].removesuffix("s")

    def tables(self, level: str) -> tuple[str, ...]:
        return self.level_tables[level]

    def default_chunk_size(self, level: str) -> int:
        return self.chunk_sizes[level]

    def sides(self, players: int) -> tuple[Side, ...]:
        """Who results are counted for at a table of ``players``: every seat, or the teams."""
        if self.team_count is None:
            return tuple(Side(p, str(p), self.side_label(p), (p,)) for p in range(players))
        teams = self.team_count(players)
        return tuple(Side(t, TEAM_KEYS[t], self.side_label(t), tuple(range(t, players, teams))) for t in range(teams))

    def side_label(self, index: int) -> str:
        """``seat 2``, ``team B``: a side as people name it."""
        return f"seat {index}" if self.team_count is None else f"team {TEAM_KEYS[index]}"

    def side_of_seat(self, players: int) -> list[int]:
        """The index of the side each seat plays for."""
        out = [0] * players
        for side in self.sides(players):
            for seat in side.seats:
                out[seat] = side.index
        return out

    @property
    def side_kind(self) -> str:
        return "seat" if self.team_count is None else "team"

    def strategy(self, name: str, field: str = "--strategy") -> StrategyDef:
        try:
            return self.strategies[name]
        except KeyError:
            raise SpecError(field, name, ", ".join(self.strategies), "is not a strategy of " + self.name,
                            choices=self.strategies, see=f"cardsim strategies {self.name}") from None


@dataclass(frozen=True)
class EnginePair:
    """A game's two engines in the shape Rami and Kem's share, giving its plugin ``simulate_chunk`` and
    ``reference_play`` (written once here instead of once per game):

    * ``rules_of(options)``: the engines' rules from the spec's options (``{name: value}``);
    * ``kernel(rules, seats, seed, start, stop, level, threads)``: the raw rows of games ``[start, stop)``;
    * ``frames(raw, players, labels, level)``: the typed tables;
    * ``reference()``: the reference engine's game class, imported when first needed (simulating does not need
      it), called as ``Game(rules, seats, seed, index, level, log).play()`` whose ``traces`` are its rows' hashes;
    * ``reference_rows(rules, seats, seed, start, stop, level)``: the raw rows from the reference engine, played
      instead of the kernel when a seat's strategy is plain Python (``None``: the game has no file strategies).
    """

    rules_of: Callable[[dict], object]
    kernel: Callable
    frames: Callable
    reference: Callable[[], Callable]
    reference_rows: Callable | None = None

    def simulate_chunk(self, spec, start: int, stop: int, threads: int | None = None) -> dict[str, pl.DataFrame]:
        seats = seats_of(spec)
        if self.reference_rows is not None and runs_on_reference(seats):
            raw = self.reference_rows(self.rules_of(dict(spec.options)), seats, spec.seed, start, stop, spec.level)
        else:
            raw = self.kernel(self.rules_of(dict(spec.options)), seats, spec.seed, start, stop, spec.level, threads)
        return self.frames(raw, spec.players, [s.label() for s in spec.strategies], spec.level)

    def reference_play(self, spec, index: int, log: list[str] | None, seats: list[Seat] | None = None) -> list[int]:
        game = self.reference()
        return game(self.rules_of(dict(spec.options)), seats or seats_of(spec), spec.seed, index, spec.level,
                    log).play().traces


def game_of_home(home: str) -> str:
    """The game a plugin module declares, named by its package: ``simulator.<game>.engines.plugin`` (cardsim's
    layout) or ``<package>.<game>.plugin``."""
    parts = home.split(".")[:-1]
    return parts[-2] if parts[-1] == "engines" else parts[-1]


def declare_game(home: str, *, rules, records, strategies, engines, **fields) -> GamePlugin:
    """The plugin of a game package laid out like cardsim's own, from what its modules already declare:

    * ``home``: the plugin module's ``__name__`` (``simulator.<game>.engines.plugin``: its package names the game);
    * ``rules``: the rules module (``OPTIONS``, ``check_players``);
    * ``records``: the records module (``TABLES``: ``{level: tables}``, the levels in order);
    * ``strategies``: the strategies package (``STRATEGIES``, ``DEFAULT_STRATEGY``);
    * ``engines``: anything with ``simulate_chunk`` and ``reference_play`` (an :class:`EnginePair`, an engine module);
    * ``fields``: the rest of :class:`GamePlugin`, what only the game can say (and any of the above to override).
    """
    derived = dict(name=game_of_home(home), levels=tuple(records.TABLES), options=rules.OPTIONS,
                   check_players=rules.check_players, strategies=strategies.STRATEGIES,
                   default_strategy=strategies.DEFAULT_STRATEGY, level_tables=records.TABLES,
                   simulate_chunk=engines.simulate_chunk, reference_play=engines.reference_play, home=home,
                   kernels=getattr(engines, "KERNEL_FAMILY", None))
    return GamePlugin(**{**derived, **fields})


def replay_parts(spec, index: int) -> tuple[list[str], str, list[str]]:
    """Game ``index`` of ``spec`` replayed with its game's reference engine: ``(seats, legend, events)``, each seat
    as ``"P0=balanced"`` (and its team), the legend of the card notation, one line per event."""
    plugin = spec.plugin
    log: list[str] = []
    plugin.reference_play(spec, index, log)
    side = plugin.side_of_seat(spec.players)
    sides = plugin.sides(spec.players)
    seats = [f"P{p}={s.label()}" + (f" ({sides[side[p]].label})" if plugin.team_count else "")
             for p, s in enumerate(spec.strategies)]
    return seats, plugin.replay_legend(spec) if plugin.replay_legend else "", log


def replay_text(spec, index: int) -> str:
    """The play-by-play of game ``index`` of ``spec``, replayed with its game's reference engine."""
    seats, legend, log = replay_parts(spec, index)
    head = [f"{spec.game} game {index} of seed {spec.seed} ({spec.level}, {spec.players} players: {', '.join(seats)})"]
    return "\n".join(head + ([legend] if legend else []) + log)


def trace_hashes(spec, index: int) -> list[int]:
    """The event-trace hash of each row of game ``index`` in the finest table (its ``trace`` column, in row
    order), replayed with the reference engine."""
    return [int(t) for t in spec.plugin.reference_play(spec, index, None)]
