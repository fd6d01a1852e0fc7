"""Run specs: everything that decides a run's results, validated, from CLI options or a TOML file.

A :class:`RunSpec` is what the manifest stores and what a resumed run must match. Execution settings
(threads, chunk size, backend) are not part of it: they never change results.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from simulator import __version__
from simulator.core.errors import SpecError
from simulator.core.game import GamePlugin, get_game
from simulator.core.params import parse_assignments

MAX_SEED = 2**63 - 1


@dataclass(frozen=True)
class SeatStrategy:
    """One seat's strategy: registered name and the full resolved parameters (defaults included)."""

    name: str
    params: tuple[tuple[str, object], ...]
    overrides: tuple[tuple[str, object], ...] = field(default=(), compare=False)

    def label(self) -> str:
        """``name`` alone when every parameter is at the strategy's default, else ``name:k=v,…``."""
        return self.name if not self.overrides else self.name + ":" + ",".join(
            f"{k}={_fmt(v)}" for k, v in self.overrides
        )


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
            "strategies": [{"name": s.name, "params": dict(s.params), "label": s.label()} for s in self.strategies],
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
        strategies = [
            s["name"] + (":" + ",".join(f"{k}={_fmt(v)}" for k, v in s["params"].items()) if s["params"] else "")
            for s in data["strategies"]
        ]
        return build_spec(
            data["game"], n=data["n"], seed=data["seed"], players=data["players"], level=data["level"],
            strategies=strategies, options={k: v for k, v in data["options"].items()},
        )


def parse_strategy(plugin: GamePlugin, text: str, field: str = "--strategy") -> SeatStrategy:
    """``"name"`` or ``"name:k=v,k2=v2"`` → a validated :class:`SeatStrategy`."""
    name, _, rest = str(text).partition(":")
    sdef = plugin.strategy(name.strip(), field)
    overrides = parse_assignments(rest, field) if rest else {}
    values = sdef.params.resolve(overrides, field_prefix=f"{field} {sdef.name}: ")
    changed = tuple((k, v) for k, v in values.items() if v != sdef.params.by_name[k].default)
    return SeatStrategy(sdef.name, tuple(values.items()), changed)


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

    ``strategies`` has one entry for all seats or one per seat; ``options`` maps option names to raw
    values (strings from the CLI or TOML values). Raises :class:`SpecError` on the first bad field.
    """
    plugin = get_game(game)
    n = _int_field("n", n, 1, 10**12)
    seed = _int_field("seed", seed, 0, MAX_SEED)
    level = plugin.default_level if level is None else level
    if level not in plugin.levels:
        raise SpecError("--level", level, " | ".join(plugin.levels))
    resolved = plugin.options.resolve(dict(options or {}), field_prefix="--option ")
    players = plugin.default_players if players is None else _int_field("--players", players, -(2**31), 2**31)
    plugin.check_players(players, resolved)
    texts = list(strategies or [plugin.default_strategy])
    if len(texts) not in (1, players):
        raise SpecError("--strategy", len(texts), f"1 (for every seat) or {players} (one per seat)", "strategies given")
    seats = [parse_strategy(plugin, t) for t in texts]
    if len(seats) == 1:
        seats = seats * players
    return RunSpec(game, n, seed, players, level, tuple(seats), tuple(resolved.items()))


def _int_field(name: str, value, low: int, high: int) -> int:
    try:
        if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
            raise ValueError
        out = int(value)
    except (TypeError, ValueError):
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
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SpecError("--spec", str(p), "an existing TOML file", "does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise SpecError("--spec", str(p), "a valid TOML run spec", f"is not valid TOML ({err})") from None
    unknown = sorted(set(data) - set(TOML_KEYS))
    if unknown:
        raise SpecError(f"--spec {p.name}", unknown[0], ", ".join(TOML_KEYS), "is not a spec key")
    out: dict = {k: data[k] for k in ("game", "n", "seed", "players", "level") if k in data}
    raw = data.get("strategies", data.get("strategy"))
    if raw is not None:
        if not isinstance(raw, list):
            raw = [raw]
        items = []
        for item in raw:
            if isinstance(item, str):
                items.append(item)
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                params = item.get("params", {}) or {}
                items.append(item["name"] + (":" + ",".join(f"{k}={_fmt(v)}" for k, v in params.items()) if params else ""))
            else:
                raise SpecError(f"--spec {p.name}: strategies", item, '"name:k=v" strings or {name, params} tables')
        out["strategies"] = items
    if "options" in data:
        if not isinstance(data["options"], dict):
            raise SpecError(f"--spec {p.name}: options", data["options"], "a table of option = value")
        out["options"] = {k: (_fmt(v) if isinstance(v, bool) else v) for k, v in data["options"].items()}
    return out


def version() -> str:
    return __version__
