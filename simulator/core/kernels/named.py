"""Named state for numba kernels, made from one declaration each.

numba compiles attribute access on a ``NamedTuple`` to a constant offset, so kernels can read and write by name
what they used to read by position (``g[17]``, ``row[3]``, ``ri[I_SNAP_CHAIN]``) at no cost:

* :func:`indices` turns a tuple of names into a constant record of their positions (``HAND.winner == 6``): the
  columns of a raw result row, the slots of a parameter array. A module-level instance is a compile-time
  constant in jitted code, so ``rows[r, HAND.winner]`` is as fast as ``rows[r, 6]``.
* :func:`choice_codes` does the same for the choices of a ``choice`` option (``FALSE_CALL.tamalou == 1``), so a
  kernel compares against names whose values come from the option's declared ``choices``.
* :func:`rules_dtype` makes, from a game's :class:`~simulator.core.params.ParamSet` of rule options, the
  structured dtype of the rules a kernel receives: one field per option (``int64`` for integers, booleans and
  choices, the choice as its index; ``float64`` for numbers), plus any derived field a game adds (e.g. the
  number of decks); :func:`kernel_rules` fills a one-row table of it from validated option values. The kernel
  reads the row as a numba record (``rules = rules_table[0]``, then ``rules.snap_chain``), which travels to
  every function as one pointer; the same rules as a ``NamedTuple`` of ~40 scalars travelled as ~40 arguments to
  each call numba does not inline: Kamoul's kernel ran 1.23x as fast (1 thread) once its rules became a record.
  (A record cannot be an argument of a ``prange`` body, hence the one-row table, indexed inside the block.)
  :func:`rules_class` makes the frozen dataclass the reference engines read (attributes named and typed like the
  options, defaults from the declaration).

So a rule option is declared once (its ``Param``) and that single line gives the user-facing parameter, the
reference engine's attribute and the kernel's field.
"""

from __future__ import annotations

import dataclasses
import keyword
from collections import namedtuple
from typing import NamedTuple

import numpy as np

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


def rules_dtype(options: ParamSet, derived: tuple[tuple[str, type], ...] = ()) -> np.dtype:
    """The structured dtype of a game's kernel rules: a field per option of ``options`` (``float64`` for numbers,
    ``int64`` otherwise) in declaration order, then the ``derived`` ``(name, int | float)`` fields."""
    fields = [(p.name, float if p.kind == "float" else int) for p in options.params] + list(derived)
    return np.dtype([(name, np.float64 if kind is float else np.int64) for name, kind in fields])


def kernel_rules(dtype: np.dtype, options: ParamSet, values: dict, **derived) -> np.ndarray:
    """The rules table a kernel receives: a one-row structured array of ``dtype`` (made by :func:`rules_dtype`)
    from validated option ``values`` (every option present, as :meth:`ParamSet.resolve` returns them) and the
    ``derived`` fields. A kernel reads its row as a record, ``rules = rules_table[0]``, then ``rules.snap_chain``."""
    by_name = options.by_name
    table = np.zeros(1, dtype=dtype)
    for name, value in {**{name: kernel_value(by_name[name], values[name]) for name in by_name}, **derived}.items():
        table[0][name] = value
    return table


def rules_class(class_name: str, options: ParamSet, base: type = object, check=None) -> type:
    """A frozen dataclass with one attribute per option of ``options`` (typed and defaulted as declared), subclass
    of ``base`` (a plain class holding the game's methods on the rules), with the classmethod
    ``from_options({name: raw value})``: each value parsed and range-checked by its ``Param`` (an unknown name or
    a bad value raises :class:`~simulator.core.errors.SpecError` naming ``--option <name>``), then ``check(values)``
    for the checks between options, when given."""
    fields = [(p.name, _PY_TYPE[p.kind], dataclasses.field(default=p.default)) for p in options.params]

    def from_options(cls, raw: dict):
        values = options.resolve(dict(raw), field_prefix="--option ")
        if check is not None:
            check(values)
        return cls(**values)

    return dataclasses.make_dataclass(class_name, fields, bases=(base,), frozen=True,
                                      namespace={"from_options": classmethod(from_options)})
