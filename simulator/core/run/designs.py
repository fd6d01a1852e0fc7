"""The cells of a tournament and of a sweep (see :mod:`simulator.core.run.batch`), validated up front.

Tournament seatings. The *units* a strategy is given are seats (Kamoul, Rami) or teams (Kem's: seat
``p`` plays for team ``p mod (P/2)``, and every seat of a team plays the team's strategy). For each pair
``(A, B)`` with ``U`` units, the cells are the distinct cyclic rotations of the alternating pattern
``ABAB…`` and of its mirror ``BABA…``: ``U = 2``: AB, BA; ``U = 4``: ABAB, BABA; ``U = 3``: ABA, BAA, AAB,
BAB, ABB, BBA. So each strategy holds each unit equally often, and when ``U`` is odd each strategy is in
the majority equally often. Every cell has the batch's seed: the same deals for every seating.

Sweeps. ``--grid "param=v1,v2"`` sets a strategy parameter on the seats named by ``--seat`` (default:
every seat); each of those seats' strategies must declare it. ``--option-grid "option=v1,v2"`` sets a
rule option (it overrides the same ``--option``). The cells are the cartesian product of all grids, the
first grid varying slowest.
"""

from __future__ import annotations

from simulator.core.contract.presets import default_player
from simulator.core.contract.registry import get_game
from simulator.core.errors import SpecError
from simulator.core.params import Param
from simulator.core.run.batch import Batch, Cell, cartesian, cell_ids
from simulator.core.storage.spec import _fmt, build_spec, parse_strategy

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def units_of(game: str, players: int) -> list[int]:
    """The unit of each seat: the side it plays for (:meth:`GamePlugin.side_of_seat`: itself, or its team)."""
    return get_game(game).side_of_seat(players)


def seatings(units: int) -> list[str]:
    """Distinct cyclic rotations of ``ABAB…`` and of ``BABA…`` over ``units`` units (see the module doc)."""
    out: list[str] = []
    for first, second in (("A", "B"), ("B", "A")):
        base = "".join(first if u % 2 == 0 else second for u in range(units))
        for k in range(units):
            pattern = base[k:] + base[:k]
            if pattern not in out:
                out.append(pattern)
    return out


def tournament_batch(game: str, *, strategies: list[str], n: int, seed: int = 0, players: int | None = None,
                     level: str | None = None, options: dict | None = None) -> Batch:
    """Every pair of ``strategies`` (``name[:k=v,…]``, all different; one alone plays the default player,
    :func:`simulator.core.contract.presets.default_player`) in every seating, at
    ``level`` (default: the level the game is won at, :attr:`GamePlugin.judged_level`)."""
    plugin = get_game(game)
    level = level or plugin.judged_level
    texts = list(strategies or [])
    if len(texts) == 1:  # one strategy: against the default player

        texts.append(default_player(plugin, players if isinstance(players, int) else None))
    if len(texts) < 2:
        raise SpecError("--strategy", len(texts), "at least 1 strategy (played against the default player; repeat "
                        "--strategy for more)", "strategies given")
    labels = [parse_strategy(plugin, t).label() for t in texts]
    seen: set[str] = set()
    for text, label in zip(texts, labels):
        if label in seen:
            raise SpecError("--strategy", text, "different strategies", "is given twice")
        seen.add(label)
    base = build_spec(game, n=n, seed=seed, players=players, level=level, strategies=[texts[0]], options=options)
    unit_of = units_of(game, base.players)
    cells_raw = []
    for i, j in ((i, j) for i in range(len(texts)) for j in range(i + 1, len(texts))):
        for pattern in seatings(max(unit_of) + 1):
            seat_texts = [texts[i] if pattern[unit_of[p]] == "A" else texts[j] for p in range(base.players)]
            spec = build_spec(game, n=base.n, seed=base.seed, players=base.players, level=base.level,
                              strategies=seat_texts, options=dict(base.options))
            cells_raw.append(({"a": labels[i], "b": labels[j], "seating": pattern}, spec))
    cells = tuple(Cell(cid, lab, spec) for cid, (lab, spec) in zip(cell_ids(len(cells_raw)), cells_raw))
    inputs = {"game": game, "strategies": labels, "n": base.n, "seed": base.seed, "players": base.players,
              "level": base.level, "options": dict(base.options)}
    return Batch("tournament", inputs, cells)


def parse_grid(text: str, field: str) -> tuple[str, list[str]]:
    """``"name=v1,v2"`` → ``("name", ["v1", "v2"])``; malformed → :class:`SpecError` naming ``field``."""
    name, sep, rest = str(text).partition("=")
    values = [v.strip() for v in rest.split(",")]
    if not sep or not name.strip() or not any(values):
        raise SpecError(field, text, 'name=v1,v2,… e.g. --grid "call_threshold=1,3,5"')
    if not all(values):
        raise SpecError(field, text, 'name=v1,v2,… with a value between every two commas, e.g. --grid '
                        '"call_threshold=1,3,5"', "has an empty value")
    return name.strip(), values


def _grid_values(param: Param, values: list[str], field: str) -> list:
    parsed = [param.parse(v, f"{field} {param.name}") for v in values]
    if len(set(map(repr, parsed))) != len(parsed):
        raise SpecError(f"{field} {param.name}", ",".join(values), "distinct values", "repeats a value")
    return parsed


def sweep_batch(game: str, *, n: int, grids: list[str] | None = None, option_grids: list[str] | None = None,
                seats: list[int] | None = None, seed: int = 0, players: int | None = None, level: str | None = None,
                strategies: list[str] | None = None, options: dict | None = None) -> Batch:
    """The cells of a sweep (see the module doc); every value validated before anything runs."""
    plugin = get_game(game)
    base = build_spec(game, n=n, seed=seed, players=players, level=level, strategies=strategies, options=options)
    grids, option_grids = list(grids or []), list(option_grids or [])
    if not grids and not option_grids:
        raise SpecError("--grid", None, 'at least one --grid "param=v1,v2" or --option-grid "option=v1,v2"')
    seat_list = sorted(set(seats)) if seats else list(range(base.players))
    for s in seat_list:
        if isinstance(s, bool) or not isinstance(s, int) or not 0 <= s < base.players:
            raise SpecError("--seat", s, f"a seat in [0, {base.players - 1}]")
    axes: list[tuple[str, list]] = []
    kinds: dict[str, str] = {}
    for text in grids:
        name, raw = parse_grid(text, "--grid")
        for s in seat_list:
            sdef = plugin.strategies[base.strategies[s].name]
            if name not in sdef.params.by_name:
                raise SpecError("--grid", name, ", ".join(sdef.params.names()) or "(none)",
                                f"is not a parameter of {sdef.name} (seat {s})")
        param = plugin.strategies[base.strategies[seat_list[0]].name].params.by_name[name]
        if name in kinds:
            raise SpecError("--grid", name, "each parameter in one grid", "is given twice")
        kinds[name] = "param"
        axes.append((name, _grid_values(param, raw, "--grid")))
    for text in option_grids:
        name, raw = parse_grid(text, "--option-grid")
        param = plugin.options.by_name.get(name)
        if param is None:
            raise SpecError("--option-grid", name, ", ".join(plugin.options.names()), "is not a rule option")
        if name in kinds:
            raise SpecError("--option-grid", name, "each name in one grid", "is given twice")
        kinds[name] = "option"
        axes.append((name, _grid_values(param, raw, "--option-grid")))
    combos = cartesian(axes)
    ids = cell_ids(len(combos))
    cells = []
    for cid, combo in zip(ids, combos):
        seat_texts = []
        for p, seat in enumerate(base.strategies):
            params = dict(seat.overrides)
            if p in seat_list:
                params.update({k: v for k, v in combo.items() if kinds[k] == "param"})
            seat_texts.append(seat.reference(params))
        opts = dict(base.options)
        opts.update({k: (_fmt(v) if isinstance(v, bool) else v) for k, v in combo.items() if kinds[k] == "option"})
        spec = build_spec(game, n=base.n, seed=base.seed, players=base.players, level=base.level,
                          strategies=seat_texts, options=opts)
        cells.append(Cell(cid, combo, spec))
    inputs = {"game": game, "n": base.n, "seed": base.seed, "players": base.players, "level": base.level,
              "strategies": [s.reference() for s in base.strategies], "options": dict(base.options),
              "grids": [[k, v] for k, v in axes], "kinds": kinds, "seats": seat_list}
    return Batch("sweep", inputs, tuple(cells))
