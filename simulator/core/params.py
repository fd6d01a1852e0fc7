"""Declared settings: a strategy parameter or a rule option, with its type, default, range and doc.

Every user-facing setting goes through :meth:`Param.parse`, so a bad value always produces the same
one-line :class:`SpecError` that names the field, the value and what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from simulator.core.errors import SpecError

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class Param:
    """One declared setting.

    ``kind`` is ``"int"``, ``"float"``, ``"bool"`` or ``"choice"``; ``low``/``high`` bound numbers
    (inclusive); ``choices`` lists the allowed strings of a choice; ``rule`` cites the rule number
    (K8, R5, …) for a rule option. ``ability`` marks a strategy parameter that describes the player rather than
    a choice it makes (reaction speed, memory): ``cardsim tune`` leaves it out unless asked.
    """

    name: str
    kind: str
    default: object
    doc: str
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    rule: str = ""
    ability: bool = False

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return " | ".join(self.choices)
        kind = "an integer" if self.kind == "int" else "a number"
        return f"{kind} in [{_fmt(self.low)}, {_fmt(self.high)}]"

    def parse(self, raw, field_name: str | None = None):
        """Validate ``raw`` (a string from the CLI or a TOML value) and return the typed value."""
        where = field_name or self.name
        if self.kind == "bool":
            if isinstance(raw, bool):
                return raw
            if isinstance(raw, str) and raw.strip().lower() in _TRUE | _FALSE:
                return raw.strip().lower() in _TRUE
            raise SpecError(where, raw, self.allowed())
        if self.kind == "choice":
            if isinstance(raw, str) and raw.strip() in self.choices:
                return raw.strip()
            raise SpecError(where, raw, self.allowed(), choices=self.choices)
        try:
            if isinstance(raw, bool):
                raise ValueError
            if self.kind == "int":
                value = int(raw) if not isinstance(raw, float) or float(raw).is_integer() else None
                if value is None:
                    raise ValueError
            else:
                value = float(raw)
        except (TypeError, ValueError):
            raise SpecError(where, raw, self.allowed()) from None
        if value != value or (self.low is not None and value < self.low) or (
            self.high is not None and value > self.high
        ):
            raise SpecError(where, raw, self.allowed())
        return value

    def describe(self) -> str:
        """One line for a person: name, default (:func:`shown_value`), what is allowed, rule number, doc."""
        rule = f" [{self.rule}]" if self.rule else ""
        return f"{self.name} = {shown_value(self.default)}  ({self.allowed()}){rule}  {self.doc}"


def shown_value(v) -> str:
    """A value as a person reads it: a float at three significant digits (``4.95``, not ``4.9521295047800535``),
    anything else as :func:`_fmt` writes it."""
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.3g}"
    return _fmt(v)


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(v)
    return str(v)


@dataclass(frozen=True)
class ParamSet:
    """An ordered set of declared settings, resolving user overrides onto the defaults."""

    params: tuple[Param, ...]
    what: str = "option"
    by_name: dict = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "by_name", {p.name: p for p in self.params})

    def names(self) -> list[str]:
        return [p.name for p in self.params]

    def with_defaults(self, **defaults) -> "ParamSet":
        """The same parameters with other defaults (how a strategy preset is declared)."""
        unknown = set(defaults) - set(self.by_name)
        if unknown:
            raise KeyError(f"unknown parameters {sorted(unknown)}")
        return ParamSet(tuple(replace(p, default=defaults.get(p.name, p.default)) for p in self.params), self.what)

    def extended(self, *params: Param) -> "ParamSet":
        """These parameters followed by ``params`` (a strategy built on a family's parameters adds its own)."""
        clash = {p.name for p in params} & set(self.by_name)
        if clash:
            raise KeyError(f"parameters already declared: {sorted(clash)}")
        return ParamSet(self.params + tuple(params), self.what)

    def resolve(self, overrides: dict, field_prefix: str = "", see: str = "") -> dict:
        """Defaults with ``overrides`` applied, every value validated; unknown names are refused (the closest
        named, and ``see``: the command that lists them all)."""
        values = {p.name: p.default for p in self.params}
        for key, raw in overrides.items():
            param = self.by_name.get(key)
            if param is None:
                raise SpecError((field_prefix + self.what).strip(), key, ", ".join(self.names()) or "(none)",
                                "does not exist", choices=self.names(), see=see)
            values[key] = param.parse(raw, f"{field_prefix}{key}")
        return values


def parse_assignments(text: str, field_name: str) -> dict[str, str]:
    """``"a=1,b=x"`` → ``{"a": "1", "b": "x"}``; a malformed item raises :class:`SpecError`."""
    out: dict[str, str] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SpecError(field_name, item, "key=value pairs separated by commas")
        if key.strip() in out:
            raise SpecError(field_name, key.strip(), "each parameter once", "is given twice")
        out[key.strip()] = value.strip()
    return out
