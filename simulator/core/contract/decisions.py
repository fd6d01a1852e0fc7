"""Each decision declared once: what the deciding player knows (its context), how a user's function is asked, what
it may answer; and that declaration made executable, the same way in both engines, with no generated code.

A game declares each decision as a :class:`Decision` (``simulator/<g>/vocabulary/contract.py``):

* ``context``: a ``NamedTuple`` class, what the deciding player may know when it decides (``me``, its seat, first).
  Both engines build one per question (the numba engine inside its kernel, where it costs nothing once inlined)
  and every answer is a function of it;
* ``ask(f, prm, c)``: how a user's function ``f`` is called, the one place its argument list is written (the
  player's view built from the context, then the context fields it receives). The argument list documented to
  users and the numba signature a file's function is compiled for both follow from it (:func:`user_arguments`);
* ``kind``: the answer's type; ``check(fault, a, c)``: whether answer ``a`` is legal (it records a fault when it is
  not); ``fallback(c)``: the legal answer the compiled engine plays after recording one.

The built-in families answer through the game's dispatch by family id, a real file (``strategies/<g>/dispatch.py``,
one function per decision, ``(sid, prm, c)``). From both :func:`compiled_decision` builds the kernel's
``decide_<name>(seats, c)``: a built-in id goes to the dispatch (not checked there: the reference engine checks the
built-ins in every agreement test); a user's seat goes through the run's function table
(:mod:`simulator.core.contract.user_table`) or, in a kernel compiled for the run's files
(:mod:`simulator.core.contract.inlined`), to the file's functions by name; either way its answer is cast, checked,
and replaced by the fallback when illegal (the fault stops the run after the kernel). :class:`ReferenceDispatch`
is the same in Python for the reference engine, which checks every answer and raises at the first illegal one.
"""

from __future__ import annotations

import types as pytypes
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numba
import numpy as np
from numba import types
from numba.core.dispatcher import Dispatcher
from numba.extending import overload

from simulator.core.contract.file_code import GUARD, file_fault
from simulator.core.contract.inlined import InlinedType, inline_function, registered
from simulator.core.contract.seats import USER_KERNEL_BASE
from simulator.core.contract.user_table import PRM_TYPE, RETURN_TYPES, function_loader
from simulator.core.kernels.compiling import needs_compile, say
from simulator.core.kernels.faults import StrategyError, new_fault, raise_fault, record_raised

KIND_NAMES = {"int": "an integer", "bool": "True or False", "float": "a number", "estimate": "a (float, int) pair"}

INLINING = ("numba", "llvm", "call")
"""How a decision's dispatch reaches the kernel: inlined into the kernel's numba IR (``numba``), compiled once and
inlined by LLVM (``llvm``, see :func:`simulator.core.kernels.jit.njit`), or called (``call``)."""


def python_twin(value, _twins: dict = {}):  # noqa: B006  (the memo of twins, shared on purpose)
    """A numba dispatcher's plain-Python function whose calls to other dispatchers go to their twins too (a call
    from Python into compiled code costs microseconds of argument unboxing, which the reference engine's checks
    would pay on every answer); any other value as it is."""
    if not isinstance(value, Dispatcher):
        return value
    original = value.py_func
    twin = _twins.get(original)
    if twin is None:
        namespace = dict(original.__globals__)
        twin = _twins[original] = pytypes.FunctionType(original.__code__, namespace, original.__name__,
                                                       original.__defaults__, original.__closure__)
        for name in original.__code__.co_names:
            if isinstance(namespace.get(name), Dispatcher):
                namespace[name] = python_twin(namespace[name])
    return twin


@dataclass(frozen=True)
class Decision:
    """One decision of a game's contract (see the module docstring). ``answers`` says what the answer means;
    ``legal`` says in words what ``check`` accepts; ``default`` is the default strategy's answer as a user's file
    writes it (the body ``cardsim new-strategy`` generates); ``optional``: a numba function of the user's
    signature that answers for a file that does not define this decision (one added after files were written)."""

    context: type
    ask: Callable
    answers: str
    kind: str = "int"
    check: Callable | None = None
    fallback: Callable | None = None
    legal: str = "any answer"
    default: str = ""
    optional: Callable | None = None

    @cached_property
    def user_arguments(self) -> tuple:
        """What ``ask`` hands a user's function, each argument as the context field it is (its name), ``"prm"``,
        or a view: a ``NamedTuple`` of field names."""
        received: list = []

        def record(*arguments):
            received.extend(arguments)

        python_twin(self.ask)(record, "prm", self.context(*self.context._fields))
        return tuple(received)

    @property
    def user_signature(self) -> str:
        """The argument list a user's function declares (a view shown as ``view``)."""
        return ", ".join(a if isinstance(a, str) else "view" for a in self.user_arguments)

    def signature(self, arg_types: dict):
        """The numba signature a user's function is compiled for: each context field's type from ``arg_types``
        (the engine's own), a view as the named tuple of its fields' types, returning ``RETURN_TYPES[kind]``."""
        def typed(argument):
            if isinstance(argument, str):
                return PRM_TYPE if argument == "prm" else arg_types[argument]
            return types.NamedTuple([arg_types[field] for field in argument], type(argument))

        return RETURN_TYPES[self.kind](*(typed(a) for a in self.user_arguments))


@dataclass(frozen=True)
class Contract:
    """What this module needs of a game: its ``decisions``; ``builtin``, the family dispatch of each decision
    (``builtin[name](sid, prm, c)``, from ``strategies/<g>/dispatch.py``) and ``builtin_ids``, the kernel ids it
    answers for; ``describe(fault, label)``, the line of a fault record; ``arg_types``, the numba type of each
    context field as the kernel passes it; ``inline``, how ``decide_<name>`` reaches the kernel
    (:data:`INLINING`); ``belief_snappers``: Kamoul's built-in families that
    declare ``SNAPS_ON_BELIEF`` (``None`` in a game without the notion)."""

    game: str
    decisions: dict[str, Decision]
    builtin: dict[str, Callable]
    builtin_ids: tuple[int, ...]
    describe: Callable[[np.ndarray, str], str]
    arg_types: dict
    inline: str = "numba"
    belief_snappers: tuple[int, ...] | None = None

    def __post_init__(self):
        if self.inline not in INLINING:
            raise ValueError(f"inline={self.inline!r}: one of {', '.join(INLINING)}")
        for name, decision in self.decisions.items():
            if decision.context._fields[:1] != ("me",):
                raise TypeError(f"{self.game} decision {name}: its context's first field is me, the deciding seat")
            if name not in self.builtin:
                raise TypeError(f"{self.game} decision {name}: strategies/{self.game}/dispatch.py has no {name}()")


def _jit(function, inline: str = "numba"):
    """``function`` compiled for ``inline`` (:data:`INLINING`); not cached on its own (a closure): it lives in its
    callers' cached code."""
    options = {"numba": {"inline": "always"}, "llvm": {"forceinline": True}, "call": {}}[inline]
    return numba.njit(_nrt=False, nogil=True, **options)(function)


@numba.njit(_nrt=False, inline="always")
def _always_legal(fault, a, c):
    return True


_CASTS_NB = {
    "int": numba.njit(_nrt=False, inline="always")(lambda a: np.int64(a)),
    "bool": numba.njit(_nrt=False, inline="always")(lambda a: bool(a)),
    "float": numba.njit(_nrt=False, inline="always")(lambda a: np.float64(a)),
    "estimate": numba.njit(_nrt=False, inline="always")(lambda a: a),
}
_ZERO = {"int": np.int64(0), "bool": False, "float": np.float64(0.0), "estimate": (np.float64(0.0), np.int64(0))}


def _constant(value):
    return _jit(lambda c: value)


def _guarded(decision: Decision, index: int):
    """``answer(function, fault, prm, c)``: a user's ``function`` asked through ``decision.ask``, its answer cast;
    an exception it raises is recorded as a fault (numba's parallel loop would drop it and the game go on with a
    made-up answer) and a legal answer lets the block finish; an illegal answer is recorded by the check and
    replaced by the fallback."""
    ask, cast = decision.ask, _CASTS_NB[decision.kind]
    check = decision.check or _always_legal
    fallback = decision.fallback or _constant(_ZERO[decision.kind])
    number = index + 1

    def answer(function, fault, prm, c):
        try:
            a = cast(ask(function, prm, c))
        except Exception:
            record_raised(fault, number, c.me)
            a = cast(fallback(c))
        if not check(fault, a, c):
            a = fallback(c)
        return a

    return _jit(answer, "llvm")


def _branch(sid: int, here, elsewhere):
    def branch(user, sid_, prm, fault, c):
        if sid_ == sid:
            return here(user, sid_, prm, fault, c)
        return elsewhere(user, sid_, prm, fault, c)

    return _jit(branch, "llvm")


def _by_name(contract: Contract, name: str, strategies_name: str, answer, _made: dict = {}):  # noqa: B006 (memo)
    """Decision ``name``'s dispatch in a kernel compiled for the files of ``strategies_name``
    (:class:`~simulator.core.contract.inlined.InlinedStrategies`): each file's function called by name (inlined),
    chosen by kernel id, then the cast, check and fallback of the call through the table."""
    key = (contract.game, name, strategies_name)
    if key not in _made:
        functions = [inline_function(s.functions[name]) for s in registered(strategies_name)[1]]

        def leaf(function):
            def call(user, sid, prm, fault, c):
                return answer(function, fault, prm, c)

            return _jit(call, "llvm")

        chain = leaf(functions[-1])
        for k in range(len(functions) - 2, -1, -1):
            chain = _branch(USER_KERNEL_BASE + k, leaf(functions[k]), chain)

        def by_name(user, sid, prm, fault, c):
            return chain(user, sid, prm, fault, c)

        _made[key] = by_name
    return _made[key]


def compiled_decision(contract: Contract, name: str):
    """The kernel's ``decide_<name>(seats, c)`` (numba, inlined): see the module docstring."""
    decision = contract.decisions[name]
    builtin = contract.builtin[name]
    index = list(contract.decisions).index(name)
    answer = _guarded(decision, index)
    load = function_loader(decision.signature(contract.arg_types))

    def user(user, sid, prm, fault, c):
        raise NotImplementedError("compiled engine only")

    def through_table(user, sid, prm, fault, c):
        k = sid - USER_KERNEL_BASE
        return answer(load(user[index, k, 0], user[index, k, 1], user[index, k, 2]), fault, prm, c)

    def builtin_only(user, sid, prm, fault, c):
        return builtin(sid, prm, c)

    def typer(user, sid, prm, fault, c):
        """Without file strategies (``user`` is the 1-d ``NO_TABLE``) the call is the built-ins' (never reached:
        the kernel sends built-in ids there first), so nothing of the table is compiled; else the call through
        the table. A kernel compiled for the files is :func:`inlined_typer`'s."""
        if isinstance(user, InlinedType):
            return None
        return builtin_only if user.ndim == 1 else through_table

    def inlined_typer(user, sid, prm, fault, c):
        if isinstance(user, InlinedType):
            return _by_name(contract, name, user.strategies_name, answer)
        return None

    overload(user, jit_options={"_nrt": False})(typer)
    # A second overload, matching only a kernel compiled for files, inlined by LLVM (an overload inlined into
    # numba's IR mis-compiled Kamoul's snap window loop in numba 0.68: the engines disagreed).
    overload(user, jit_options={"_nrt": False, "forceinline": True})(inlined_typer)

    def decide(seats, c):
        sid = seats.sids[c.me]
        if sid < USER_KERNEL_BASE:
            return builtin(sid, seats.prm[c.me], c)
        return user(seats.user, sid, seats.prm[c.me], seats.fault, c)

    decide.__name__ = decide.__qualname__ = f"decide_{name}"
    return _jit(decide, contract.inline)


def _as_int(a):
    if type(a) is int:
        return a
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer, float, np.floating)) or a != int(a):
        raise TypeError(a)
    return int(a)


def _as_bool(a):
    if type(a) is bool:
        return a
    if not isinstance(a, (bool, np.bool_, int, np.integer)) or a not in (0, 1):
        raise TypeError(a)
    return bool(a)


def _as_float(a):
    if type(a) is float:
        return a
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, (int, np.integer, float, np.floating)):
        raise TypeError(a)
    return float(a)


def _as_estimate(pair):
    total, unknown = pair
    return _as_float(total), _as_int(unknown)


_CASTS = {"int": _as_int, "bool": _as_bool, "float": _as_float, "estimate": _as_estimate}
"""The reference engine's cast of an answer by its decision's kind (``TypeError`` when it is not of that kind)."""


class ReferenceDispatch:
    """The reference engine's decisions for ``contract``: :meth:`ask` answers from the seat's built-in family or
    file, :meth:`checked` casts and checks any answer (also a scripted one, in tests); an illegal answer raises
    :class:`~simulator.core.kernels.faults.StrategyError` naming the strategy, the seat, the decision, the answer
    and what was legal. The checks and the user calls run as plain Python (:func:`python_twin`); the built-ins'
    dispatch is compiled, cached beside its file."""

    def __init__(self, contract: Contract):
        self.contract = contract
        self._fault = new_fault()  # reused: a check writes it only on the illegal answer that stops the run
        self._announced = False  # the compile notice, said once
        self._ask = {name: python_twin(d.ask) for name, d in contract.decisions.items()}
        self._check = {name: python_twin(d.check) for name, d in contract.decisions.items() if d.check is not None}

    def ask(self, name: str, seat, c):
        """Decision ``name`` for ``seat`` (a :class:`~simulator.core.contract.seats.Seat`) in context ``c``."""
        if seat.user is None:
            if seat.sid not in self.contract.builtin_ids:
                raise ValueError(f"kernel id {seat.sid} is no {self.contract.game} strategy family")
            if not self._announced:
                self._announced = True  # once: the decisions asked first take most of the compile
                if needs_compile(self.contract.builtin[name]):
                    say(f"compiling the {self.contract.game} strategies for the reference engine (first run on this "
                        "machine, up to a minute)…")
            a = self.contract.builtin[name](seat.sid, seat.prm, c)
        else:
            GUARD.inside = name
            GUARD.calls += 1
            try:
                a = self._ask[name](seat.user.functions[name], seat.prm, c)
            except BaseException as err:
                file_fault(seat.user.path, name, err)
            finally:
                GUARD.inside = None
        return self.checked(name, seat, a, c)

    def checked(self, name: str, seat, a, c):
        """``a`` cast to decision ``name``'s type, if legal in context ``c``; else :class:`StrategyError`."""
        try:
            a = _CASTS[self.contract.decisions[name].kind](a)
        except (TypeError, ValueError, OverflowError):
            decision = self.contract.decisions[name]
            raise StrategyError(f"strategy {seat.label or f'kernel id {seat.sid}'!r} (seat {c.me}) answered {name} "
                                f"with {a!r}, which is not {KIND_NAMES[decision.kind]}; the answer is "
                                f"{decision.answers}") from None
        check = self._check.get(name)
        if check is not None and not check(self._fault, a, c):
            fault = self._fault.copy()
            self._fault[:] = 0
            raise_fault(fault, {c.me: seat.label or f"kernel id {seat.sid}"}, self.contract.describe)
        return a
