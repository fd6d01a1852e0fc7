"""Named state for numba kernels, made from one declaration each.

numba compiles attribute access on a ``NamedTuple`` to a constant offset, so kernels can read and write by name
what they used to read by position (``g[17]``, ``row[3]``, ``ri[I_SNAP_CHAIN]``) at no cost:

* :func:`indices` turns a tuple of names into a constant record of their positions (``HAND.winner == 6``): the
  columns of a raw result row, the slots of a parameter array. A module-level instance is a compile-time
  constant in jitted code, so ``rows[r, HAND.winner]`` is as fast as ``rows[r, 6]``.
* :func:`choice_codes` does the same for the choices of a ``choice`` option (``FALSE_CALL.tamalou == 1``), so a
  kernel compares against names whose values come from the option's declared ``choices``.
* :func:`rules_type` makes, from a game's :class:`~simulator.core.params.ParamSet` of rule options, the
  ``NamedTuple`` class a kernel receives: one field per option (``int`` for integers, booleans and choices, the
  choice as its index; ``float`` for numbers), plus any derived field a game adds (e.g. durations in ticks);
  :func:`kernel_rules` fills it from validated option values. :func:`rules_class` makes the frozen dataclass the
  reference engines read (attributes named and typed like the options, defaults from the declaration).

So a rule option is declared once (its ``Param``) and that single line gives the user-facing parameter, the
reference engine's attribute and the kernel's field.
"""

from __future__ import annotations

import dataclasses
import keyword
from collections import namedtuple
from typing import NamedTuple

from simulator.core.params import Param, ParamSet

_PY_TYPE = {"int": int, "bool": bool, "choice": str, "float": float}


def identifier(text: str) -> str:
    """``text`` as a Python identifier: non-identifier characters become ``_``, a leading digit or a keyword
    gets a ``v`` prefix (``"52"`` -> ``v52``, ``"ban_show2"`` stays)."""
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in text)
    if not name or name[0].isdigit() or keyword.iskeyword(name):
        name = "v" + name
    return name


def indices(type_name: str, names) -> NamedTuple:
    """A record whose field ``name`` holds the position of ``name`` in ``names`` (``names`` in order)."""
    names = tuple(names)
    return namedtuple(type_name, [identifier(n) for n in names])(*range(len(names)))


def choice_codes(param: Param) -> NamedTuple:
    """The index of each declared choice of ``param`` under its name (as :func:`identifier` spells it)."""
    if param.kind != "choice":
        raise TypeError(f"{param.name} is a {param.kind} option, not a choice")
    return indices(identifier(param.name).title().replace("_", "") + "Choices", param.choices)


def kernel_value(param: Param, value):
    """The value of one option as a kernel reads it: a choice's index, a boolean as 0/1, ints and floats as is."""
    if param.kind == "choice":
        return param.choices.index(value)
    if param.kind == "float":
        return float(value)
    return int(value)


def rules_type(type_name: str, options: ParamSet, derived: tuple[tuple[str, type], ...] = ()) -> type:
    """The ``NamedTuple`` class of a game's kernel rules: a field per option of ``options`` (``float`` for
    numbers, ``int`` otherwise) in declaration order, then the ``derived`` ``(name, int | float)`` fields."""
    fields = [(p.name, float if p.kind == "float" else int) for p in options.params] + list(derived)
    return NamedTuple(type_name, fields)


def kernel_rules(cls: type, options: ParamSet, values: dict, **derived):
    """An instance of ``cls`` (made by :func:`rules_type`) from validated option ``values`` (every option present,
    as :meth:`ParamSet.resolve` returns them) and the ``derived`` fields."""
    by_name = options.by_name
    return cls(**{name: kernel_value(by_name[name], values[name]) for name in by_name}, **derived)


def rules_class(class_name: str, options: ParamSet, base: type = object) -> type:
    """A frozen dataclass with one attribute per option of ``options`` (typed and defaulted as declared), subclass
    of ``base`` (a plain class holding the game's methods on the rules)."""
    fields = [(p.name, _PY_TYPE[p.kind], dataclasses.field(default=p.default)) for p in options.params]
    return dataclasses.make_dataclass(class_name, fields, bases=(base,), frozen=True)
