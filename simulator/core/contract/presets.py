"""Presets as data: a strategy preset is a small TOML file, a family and the values it gives its parameters.

    game = "kamoul"
    family = "heuristic"
    doc = "heuristic tuned against balanced, cautious, aggressive at 4 players"
    [params]
    call_threshold = 28.04
    ...
    [provenance]            # optional: how it was found (cardsim tune writes it)
    against = ["balanced", "cautious", "aggressive"]
    players = 4
    budget = 200
    command = "cardsim tune kamoul ..."

``cardsim tune`` writes one (``DIR/best.toml``). ``--strategy path/to/preset.toml[:k=v,...]`` plays it wherever a
strategy is accepted (the run's spec stores the family and every value, so it never needs the file again), and
the files in ``strategies/<game>/presets/`` ship with the package as named strategies (``--strategy tuned-4p``),
listed by ``cardsim strategies GAME`` with their provenance.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from simulator.core.contract.seats import StrategyDef
from simulator.core.errors import SpecError

SUFFIX = ".toml"
MAX_BYTES = 1 << 20
ALLOWED = "a preset TOML file: game, family (a built-in strategy family), [params], optional doc and [provenance]"


def is_preset_reference(text: str) -> bool:
    """Whether ``text`` (``path.toml`` or ``path.toml:k=v,...``) names a preset file."""
    _, sep, tail = str(text).partition(SUFFIX)
    return bool(sep) and (not tail or tail.startswith(":"))


def split_preset_reference(text: str) -> tuple[str, str]:
    """``"dir/p.toml:k=v"`` → ``("dir/p.toml", "k=v")``."""
    head, sep, tail = str(text).partition(SUFFIX)
    return head + sep, tail[1:] if tail.startswith(":") else tail


def read_preset(path: str | Path, field: str = "--strategy") -> dict:
    """The preset file at ``path``, its shape checked; :class:`SpecError` naming the file and what is wrong."""
    file = Path(path)
    if not file.is_file():
        raise SpecError(field, str(path), ALLOWED, "is not a file")
    if file.stat().st_size > MAX_BYTES:
        raise SpecError(field, str(path), ALLOWED, "is larger than 1 MiB")
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise SpecError(field, str(path), ALLOWED, f"is not valid TOML ({err})") from None
    for key, kind, what in (("game", str, "text"), ("family", str, "text"), ("params", dict, "table")):
        if not isinstance(data.get(key), kind):
            raise SpecError(field, str(path), ALLOWED, f"has no {key} {what}" if key not in data else
                            f"has {key} = {data[key]!r}, not a {what}")
    for key, kind, what in (("doc", str, "text"), ("provenance", dict, "table")):
        if key in data and not isinstance(data[key], kind):
            raise SpecError(field, str(path), ALLOWED, f"has {key} = {data[key]!r}, not a {what}")
    return data


def preset_definition(strategies: dict, game: str, data: dict, name: str, source: str,
                      field: str = "--strategy") -> StrategyDef:
    """The :class:`StrategyDef` a preset file's ``data`` declares among ``strategies`` (the game's registry): its
    family's kernel and parameters, with the file's values as defaults; :class:`SpecError` when the file is for
    another game, names no family, or gives a parameter a bad value."""
    if data["game"] != game:
        raise SpecError(field, source, f"a {game} preset", f"is a preset of {data['game']}")
    family = strategies.get(data["family"])
    if family is None or (family.family or family.name) != family.name:
        families = sorted({s.family or s.name for s in strategies.values()})
        raise SpecError(field, source, f"a preset of a {game} family: {', '.join(families)}",
                        f"names family {data['family']!r}")
    values = family.params.resolve(data["params"], field_prefix=f"{field} {source}: ")
    return StrategyDef(name, family.kernel_id, family.params.with_defaults(**values),
                       data.get("doc") or f"{family.name} preset from {Path(source).name}", family.name,
                       provenance=data.get("provenance"))


def shipped_presets(folder: Path, strategies: dict, game: str) -> list[StrategyDef]:
    """The presets shipped in ``folder`` (``strategies/<game>/presets/*.toml``), each named after its file."""
    if not folder.is_dir():
        return []
    found = [preset_definition(strategies, game, read_preset(file), file.stem, str(file))
             for file in sorted(folder.glob(f"*{SUFFIX}"))]
    clash = sorted({s.name for s in found} & set(strategies))
    if clash:
        raise ValueError(f"{folder}: presets named like built-in strategies: {', '.join(clash)}")
    return found


TUNED_PREFIX = "tuned-"


def tuned_preset(strategies: dict, players: int) -> str | None:
    """The shipped tuned preset (``tuned-<k>p``, :data:`TUNED_PREFIX`) of the game whose registry is ``strategies``
    for a table of ``players``: the one tuned at the nearest player count, the larger on a tie (Kamoul at 3 players
    plays ``tuned-4p``); ``None`` when the game ships none."""
    tuned = {}
    for name in strategies:
        count = name[len(TUNED_PREFIX):-1] if name.startswith(TUNED_PREFIX) and name.endswith("p") else ""
        if count.isdigit():
            tuned[int(count)] = name
    if not tuned:
        return None
    return tuned[min(tuned, key=lambda k: (abs(k - players), -k))]


def default_player(plugin, players: int | None = None) -> str:
    """The one default player of every command that plays (simulate, advise, duel, tournament, the studies): the
    shipped tuned preset for a table of ``players`` (:func:`tuned_preset`; the game's default count when ``None``),
    else the game's default strategy when it ships none."""
    players = plugin.default_players if players is None else players
    return tuned_preset(plugin.strategies, players) or plugin.default_strategy


def plays_alike(strategies: dict, first: str, second: str) -> bool:
    """Whether the registered strategies ``first`` and ``second`` are one family with the same parameter values
    (a tuned preset that kept a preset's values plays its very games)."""
    a, b = strategies[first], strategies[second]
    return ((a.family or a.name) == (b.family or b.name)
            and [(p.name, p.default) for p in a.params.params] == [(p.name, p.default) for p in b.params.params])
