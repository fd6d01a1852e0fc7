"""Run specs: everything that decides a run's results, validated, from CLI options or a TOML file.

A :class:`RunSpec` is what the manifest stores and what a resumed run must match. Execution settings
(threads, chunk size, backend) are not part of it: they never change results.
"""

from __future__ import annotations

import hashlib
import json
import stat
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from simulator import __version__
from simulator.core.contract.game import GamePlugin
from simulator.core.contract.presets import (
    default_player, is_preset_reference, preset_definition, read_preset, split_preset_reference,
)
from simulator.core.contract.registry import get_game
from simulator.core.contract.strategy_trial import try_strategy
from simulator.core.contract.user_strategies import installed, load_file, split_reference
from simulator.core.errors import SpecError
from simulator.core.kernels.compiling import KernelFamily, code_of, estimate
from simulator.core.params import parse_assignments

MAX_SEED = 2**63 - 1
MAX_N = 10**12
SPEC_FILE_MAX = 1 << 20  # bytes: a TOML run spec is a few lines; anything bigger is not one


@dataclass(frozen=True)
class SeatStrategy:
    """One seat's strategy: registered name and the full resolved parameters (defaults included)."""

    name: str
    params: tuple[tuple[str, object], ...]
    overrides: tuple[tuple[str, object], ...] = field(default=(), compare=False)
    source: str = ""  # a strategy from a user's file: the file's absolute path
    digest: str = ""  # and the SHA-256 of its content

    def label(self) -> str:
        """``name`` alone when every parameter is at the strategy's default, else ``name:k=v,…``."""
        return strategy_text(self.name, dict(self.overrides))

    def reference(self, overrides: dict | None = None) -> str:
        """The text :func:`parse_strategy` reads back into this strategy (a file's path included), with
        ``overrides`` for its own parameter values when given."""
        return strategy_text(self.name, dict(self.overrides) if overrides is None else overrides, self.source)

    def to_dict(self) -> dict:
        out = {"name": self.name, "params": dict(self.params), "label": self.label()}
        if self.source:
            out.update(source=self.source, sha256=self.digest)
        return out


def strategy_text(name: str, params: dict, source: str = "") -> str:
    """``[source:]name[:k=v,...]``, the strategy text :func:`parse_strategy` reads."""
    head = f"{source}:{name}" if source else name
    return head + (":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items()) if params else "")


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v) if isinstance(v, float) else str(v)


@dataclass(frozen=True)
class RunSpec:
    """A validated run: game, number of games at ``level``, seed, seats and rule options."""

    game: str
    n: int
    seed: int
    players: int
    level: str
    strategies: tuple[SeatStrategy, ...]
    options: tuple[tuple[str, object], ...]

    @property
    def plugin(self) -> GamePlugin:
        return get_game(self.game)

    def option(self, name: str):
        return dict(self.options)[name]

    def to_dict(self) -> dict:
        return {
            "game": self.game,
            "n": self.n,
            "seed": self.seed,
            "players": self.players,
            "level": self.level,
            "strategies": [s.to_dict() for s in self.strategies],
            "options": dict(self.options),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def digest(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()[:16]

    def with_n(self, n: int) -> "RunSpec":
        return RunSpec(self.game, n, self.seed, self.players, self.level, self.strategies, self.options)

    @classmethod
    def from_dict(cls, data: dict) -> "RunSpec":
        """Rebuild (and re-validate) a spec from :meth:`to_dict` output, e.g. a manifest."""
        strategies = [strategy_text(s["name"], s["params"], s.get("source", "")) for s in data["strategies"]]
        spec = build_spec(
            data["game"], n=data["n"], seed=data["seed"], players=data["players"], level=data["level"],
            strategies=strategies, options={k: v for k, v in data["options"].items()},
        )
        for seat, stored in zip(spec.strategies, data["strategies"]):
            if stored.get("source") and seat.digest != stored.get("sha256"):
                raise SpecError("--strategy", stored["source"], f"the file as it was when the run was made (sha256 "
                                f"{str(stored.get('sha256'))[:12]}…)", f"has changed since (sha256 {seat.digest[:12]}…)")
        return spec


_SPEC_FIELDS = (("game", str), ("n", int), ("seed", int), ("players", int), ("level", str), ("strategies", list),
                ("options", dict))


def spec_dict_problem(data) -> tuple[str, str] | None:
    """``(field, reason)`` when ``data`` (a stored :meth:`RunSpec.to_dict`, e.g. a manifest's ``spec``) does not
    have the shape of one (a missing key, a number that is text, a strategy without a name), else ``None``.
    Only the shape: whether the game and strategies still exist is for :meth:`RunSpec.from_dict` to say."""
    if not isinstance(data, dict):
        return "spec", "is not an object"
    for key, kind in _SPEC_FIELDS:
        value = data.get(key)
        if key not in data:
            return f"spec.{key}", "is missing"
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"spec.{key}", f"is {value!r}, not a{'n' if kind is int else ''} {kind.__name__}"
    if data["n"] < 1 or data["players"] < 1:
        return ("spec.n" if data["n"] < 1 else "spec.players"), "is not a positive number"
    for seat, stored in enumerate(data["strategies"]):
        if not (isinstance(stored, dict) and isinstance(stored.get("name"), str)
                and isinstance(stored.get("params", {}), dict)):
            return f"spec.strategies[{seat}]", "is not a strategy (a name and its params)"
    return None


def parse_strategy(plugin: GamePlugin, text: str, field: str = "--strategy") -> SeatStrategy:
    """``"name"``, ``"name:k=v,k2=v2"``, ``"path/to/file.py:NAME[:k=v,...]"`` (a strategy from a user's file, or
    one an installed package adds) or ``"path/to/preset.toml[:k=v,...]"`` (a preset file,
    :mod:`simulator.core.contract.presets`) → a validated :class:`SeatStrategy`."""
    if is_preset_reference(text):
        return _preset_strategy(plugin, str(text), field)
    source = split_reference(str(text))
    name, _, rest = str(text).partition(":")
    if source is None and name.strip() not in plugin.strategies and name.strip() in installed(plugin.name):
        path, inner = installed(plugin.name)[name.strip()]
        source = (path, inner, rest)
    if source is None:
        sdef = plugin.strategy(name.strip(), field)
        path = digest = ""
    else:
        user = load_file(plugin, source[0], source[1], field)
        try_strategy(plugin, user, field, build_spec)
        sdef, rest, path, digest = user.definition(-1), source[2], user.path, user.digest
    overrides = parse_assignments(rest, field) if rest else {}
    values = sdef.params.resolve(overrides, field_prefix=f"{field} {sdef.name}: ",
                                 see=f"cardsim strategies {plugin.name}")
    changed = tuple((k, v) for k, v in values.items() if v != sdef.params.by_name[k].default)
    return SeatStrategy(sdef.name, tuple(values.items()), changed, path, digest)


def _preset_strategy(plugin: GamePlugin, text: str, field: str) -> SeatStrategy:
    """A preset file's strategy: its family with the file's values, then ``k=v`` overrides; the seat records the
    family and every value, so the run never needs the file again."""
    path, rest = split_preset_reference(text)
    sdef = preset_definition(plugin.strategies, plugin.name, read_preset(path, field), Path(path).stem, path, field)
    family = plugin.strategies[sdef.family]
    overrides = parse_assignments(rest, field) if rest else {}
    values = sdef.params.resolve(overrides, field_prefix=f"{field} {path}: ", see=f"cardsim strategies {plugin.name}")
    changed = tuple((k, v) for k, v in values.items() if v != family.params.by_name[k].default)
    return SeatStrategy(family.name, tuple(values.items()), changed)


def build_spec(
    game: str,
    *,
    n: int,
    seed: int,
    players: int | None = None,
    level: str | None = None,
    strategies: list[str] | tuple[str, ...] | None = None,
    options: dict | None = None,
) -> RunSpec:
    """Validate everything a user can give and return the :class:`RunSpec`.

    ``strategies`` has one entry for all seats or one per seat (none: the default player at every seat,
    :func:`simulator.core.contract.presets.default_player`); ``options`` maps option names to raw
    values (strings from the CLI or TOML values). Raises :class:`SpecError` on the first bad field.
    """

    plugin = get_game(game)
    n = _int_field("n", n, 1, MAX_N)
    seed = _int_field("seed", seed, 0, MAX_SEED)
    level = plugin.default_level if level is None else level
    if not isinstance(level, str) or level not in plugin.levels:
        raise SpecError("--level", level, " | ".join(plugin.levels))
    if not isinstance(options or {}, dict):
        raise SpecError("--option", options, "name=value settings (see `cardsim rules GAME`)")
    resolved = plugin.options.resolve(dict(options or {}), field_prefix="--option ", see=f"cardsim rules {plugin.name}")
    players = plugin.default_players if players is None else _players_field(plugin, players, resolved)
    plugin.check_players(players, resolved)
    if strategies is not None and not isinstance(strategies, (list, tuple)):
        raise SpecError("--strategy", strategies, '"name:k=v" strategy texts, one for all seats or one per seat')
    texts = list(strategies or [default_player(plugin, players)])
    if len(texts) not in (1, players):
        raise SpecError("--strategy", len(texts), f"1 (for every seat) or {players} (one per seat)", "strategies given")
    seats = [parse_strategy(plugin, t) for t in texts]
    if len(seats) == 1:
        seats = seats * players
    return RunSpec(plugin.name, n, seed, players, level, tuple(seats), tuple(resolved.items()))


def _players_field(plugin: GamePlugin, players, options: dict) -> int:
    """``players`` as an integer; anything else (a fraction, text, a huge number) is refused with the game's
    own allowed range (what ``check_players`` says of a number outside it)."""
    try:
        if isinstance(players, bool) or (isinstance(players, float) and not players.is_integer()):
            raise ValueError
        value = int(players)
    except (TypeError, ValueError, OverflowError):
        value = None
    if value is None or abs(value) > 2**31:
        try:
            plugin.check_players(10**6, options)  # raises with the allowed range
        except SpecError as err:
            raise SpecError("--players", players, err.allowed) from None
        raise SpecError("--players", players, "a number of players")
    return value


def _int_field(name: str, value, low: int, high: int) -> int:
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        out = int(value)
    except (TypeError, ValueError, OverflowError):
        raise SpecError(name, value, f"an integer in [{low}, {high}]") from None
    if not low <= out <= high:
        raise SpecError(name, value, f"an integer in [{low}, {high}]")
    return out


TOML_KEYS = ("game", "n", "seed", "players", "level", "strategies", "strategy", "options")


def read_spec_file(path: str | Path) -> dict:
    """Read a TOML run spec into the keyword arguments of :func:`build_spec` (not yet validated).

    Keys: ``game``, ``n``, ``seed``, ``players``, ``level``, ``strategies`` (a list of
    ``"name:k=v"`` strings, or ``[[strategy]]`` tables with ``name`` and ``params``) and an
    ``[options]`` table.
    """
    p = Path(path)
    data = _load_toml(p)
    unknown = sorted(set(data) - set(TOML_KEYS))
    if unknown:
        raise SpecError(f"--spec {p.name}", unknown[0], ", ".join(TOML_KEYS), "is not a spec key")
    kinds = {"game": (str,), "n": (int,), "seed": (int,), "players": (int, list), "level": (str,)}
    for key, types in kinds.items():
        value = data.get(key)
        if key in data and (isinstance(value, bool) or not isinstance(value, types) or
                            (isinstance(value, list) and not all(isinstance(v, int) and not isinstance(v, bool)
                                                                 for v in value))):
            what = {"game": "a game name in quotes", "n": "a whole number, without quotes",
                    "seed": "a whole number, without quotes",
                    "players": "a whole number without quotes (a study: or a list of them, [2, 4])",
                    "level": "a level name in quotes"}[key]
            raise SpecError(f"--spec {p.name}: {key}", value, what, f"is a TOML {type(value).__name__}")
    if "strategies" in data and "strategy" in data:
        raise SpecError(f"--spec {p.name}: strategy", "[[strategy]]", "either strategies = [...] or [[strategy]] "
                        "tables, not both", "is given beside strategies")
    out: dict = {k: data[k] for k in ("game", "n", "seed", "players", "level") if k in data}
    raw = data.get("strategies", data.get("strategy"))
    if raw is not None:
        if not isinstance(raw, list):
            raw = [raw]
        if not raw:
            raise SpecError(f"--spec {p.name}: strategies", raw, 'one "name:k=v" strategy for all seats or one per '
                            "seat (leave strategies out for the game's default)", "is empty")
        out["strategies"] = [_toml_strategy(p, item) for item in raw]
    if "options" in data:
        if not isinstance(data["options"], dict):
            raise SpecError(f"--spec {p.name}: options", data["options"], "a table of option = value")
        out["options"] = {k: (_fmt(v) if isinstance(v, bool) else v) for k, v in data["options"].items()}
    return out


def _load_toml(p: Path) -> dict:
    """The TOML table of the spec file ``p``, checked before it is read: a regular file of at most
    :data:`SPEC_FILE_MAX` bytes (not a directory, a device or a pipe), UTF-8 TOML."""
    allowed = f"a TOML run spec file (a regular file of at most {SPEC_FILE_MAX // 1024} KiB)"
    try:
        info = p.stat()
    except FileNotFoundError:
        raise SpecError("--spec", str(p), "an existing TOML file", "does not exist") from None
    except OSError as err:
        raise SpecError("--spec", str(p), allowed, f"cannot be read ({err.strerror})") from None
    if stat.S_ISDIR(info.st_mode):
        raise SpecError("--spec", str(p), allowed, "is a directory")
    if not stat.S_ISREG(info.st_mode):
        raise SpecError("--spec", str(p), allowed, "is not a regular file (a device, a pipe or a socket)")
    if info.st_size > SPEC_FILE_MAX:
        raise SpecError("--spec", str(p), allowed, f"is {info.st_size:,} bytes")
    try:
        with open(p, "rb") as handle:
            raw = handle.read(SPEC_FILE_MAX + 1)
        return tomllib.loads(raw.decode("utf-8"))
    except OSError as err:
        raise SpecError("--spec", str(p), allowed, f"cannot be read ({err.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as err:
        raise SpecError("--spec", str(p), "a valid TOML run spec", f"is not valid TOML ({err})") from None


def _toml_strategy(p: Path, item) -> str:
    """One ``strategies`` entry of a TOML spec (a ``"name:k=v"`` string or a ``{name, params}`` table) as text."""
    allowed = '"name:k=v" strings or {name = "...", params = {k = v}} tables'
    if isinstance(item, str):
        return item
    if isinstance(item, dict) and isinstance(item.get("name"), str) and set(item) <= {"name", "params"}:
        params = item.get("params", {}) or {}
        if isinstance(params, dict) and all(isinstance(v, (str, int, float, bool)) for v in params.values()):
            return strategy_text(item["name"], params)
    raise SpecError(f"--spec {p.name}: strategies", item, allowed)


def version() -> str:
    return __version__


def play_one_game(game: str) -> None:
    """One game of ``game`` at its finest level, on the compiled engine: compiles (or loads) its simulation kernels."""
    spec = build_spec(game, n=1, seed=0, level=get_game(game).levels[0])
    spec.plugin.simulate_chunk(spec, 0, 1, 1)


def simulation_kernels(game: str, label: str, seconds: int, kernel) -> KernelFamily:
    """The simulation kernels of ``game`` as ``cardsim warm`` and :mod:`simulator.core.kernels.compile_apart` see them:
    named ``label`` in the notices, ``seconds`` to compile on the reference machine, ``kernel()`` their numba entry
    point, compiled by :func:`play_one_game`."""
    return KernelFamily(game, game, label, kernel=kernel,
                        seconds=lambda: estimate(label, seconds, code_of(kernel())),
                        compile=lambda: play_one_game(game))
