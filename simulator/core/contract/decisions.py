"""A game's strategy contract made executable: each decision dispatched to the built-in families or to a user's
file, its answer cast and checked, the same way in both engines.

A game declares its decisions as :class:`Decision` records (``simulator/<g>/vocabulary/contract.py``) and hands a
:class:`Contract` to this module: the built-in dispatch per decision (``builtin(sid, prm, *engine_args)``, numba,
inlined), the names its checks and fallbacks use, and how a fault record reads as a line.

* :func:`compiled_decision` builds the kernel's ``decide_<name>(seats, me, *rest)``: built-in ids (below
  :data:`~simulator.core.contract.seats.USER_KERNEL_BASE`) go to the inlined built-ins (checked by the reference engine,
  which plays them in every agreement test); a user's seat goes through the run's
  function table (:mod:`simulator.core.contract.user_table`): the call builds the player's view, calls the file's
  function through its pointer, casts its answer, checks it, records a fault and plays the fallback when it is
  illegal. The kernel is the same for every strategy file, so it is compiled and cached once. A kernel compiled
  for the run's files (:mod:`simulator.core.contract.inlined`) calls each file's function by name instead, inlined: the same
  view, cast, check and fallback.
* :func:`builtin_dispatch` generates the built-in dispatch of every decision from the game's families (each family
  module's ``ANSWERS``: one expression per decision in the engine's arguments).
* :class:`ReferenceDispatch` is the same in Python for the reference engine: every seat's answer, built-in or
  not, is cast and checked, and an illegal one raises :class:`~simulator.core.kernels.faults.StrategyError` at once.
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Callable

import numba
import numpy as np
from numba.core.dispatcher import Dispatcher
from numba.extending import overload

from simulator.core.contract.file_code import GUARD, file_fault
from simulator.core.contract.inlined import InlinedType, inline_function, registered
from simulator.core.contract.seats import USER_KERNEL_BASE
from simulator.core.contract.user_table import decision_signature, function_loader
from simulator.core.kernels.compiling import needs_compile, say
from simulator.core.kernels.faults import StrategyError, new_fault, raise_fault, record_raised
from simulator.core.kernels.generated import cached_builtins


@dataclass(frozen=True)
class Decision:
    """One decision: the engines' arguments after ``(sid, prm)`` (``engine_args``), the user function's argument
    list as the expression the dispatch calls it with (``user_call``; ``view`` in ``user_signature``) and what it
    answers. ``kind`` is the answer's type (``int``, ``bool``, ``float``, or ``estimate`` for a ``(float, int)``
    pair); ``check`` the legality test of the answer ``a`` (``None``: every answer is legal) and ``fallback`` the
    legal answer the compiled engine plays after recording a fault, so that the block finishes before the run
    stops. ``legal`` says in words what ``check`` accepts; ``default`` is the default strategy's answer as a
    user's file writes it (the body ``cardsim new-strategy`` generates). ``optional``: a numba function of the user
    signature that answers for a file that does not define this decision (a decision added to the contract after
    files were written: they keep working, with that answer)."""

    engine_args: tuple[str, ...]
    user_call: str
    answers: str
    kind: str = "int"
    check: str | None = None
    fallback: str | None = None
    legal: str = "any answer"
    default: str = ""
    view_call: str = ""  # the expression in user_call that builds the view (user_signature shows it as "view")
    optional: Callable | None = None

    @property
    def user_signature(self) -> str:
        return self.user_call.replace(self.view_call, "view") if self.view_call else self.user_call

    @property
    def rest(self) -> tuple[str, ...]:
        """The engine arguments after the deciding seat ``me`` (the dispatch takes ``seats, me, *rest``)."""
        return self.engine_args[1:] if self.engine_args[:1] == ("me",) else self.engine_args


@dataclass(frozen=True)
class Contract:
    """What :mod:`simulator.core.contract.decisions` needs of a game: its ``decisions``, the built-in dispatch of each
    (``builtin[name]``, an inlined numba function of ``(sid, prm, *engine_args)``), the kernel ids of its built-in
    families, the names its user calls, checks and fallbacks use (``env``: the view type, the ``legal_*``
    checks, constants), ``describe(fault, label)``, the line of a fault record, the ``view`` class (a
    ``NamedTuple``) and ``arg_types``: the numba type of each engine argument, as the kernel passes it, from which
    the signature of a user's functions follows (:func:`simulator.core.contract.user_table.decision_signature`)."""

    game: str
    decisions: dict[str, Decision]
    builtin: dict[str, Callable]
    builtin_ids: tuple[int, ...]
    env: dict
    describe: Callable[[np.ndarray, str], str]
    view: type
    arg_types: dict
    belief_snappers: tuple[int, ...] | None = None
    """Kamoul: the built-in families' kernel ids that declare ``SNAPS_ON_BELIEF`` (a file may declare it too,
    ``strategy(snaps_on_belief=True)``); ``None`` in a game whose engines have no such notion."""
    families: dict | None = None
    """The built-in families by kernel id (the modules ``builtin`` was generated from): the reference engine calls
    the same dispatch compiled from generated files, cached on disk (:mod:`simulator.core.kernels.generated`)."""
    inline: str = "numba"
    """How ``decide_<name>`` and the built-in dispatch reach the kernel (:data:`INLINING`)."""


INLINING = ("numba", "llvm", "call")
"""How a generated function reaches its caller: inlined into the caller's numba IR (``numba``), compiled once and
inlined by LLVM (``llvm``, see :func:`simulator.core.kernels.jit.njit`), or called (``call``)."""


def _inlined(function, inline: str = "numba"):
    """A generated function, compiled for ``inline`` (:data:`INLINING`); not cached on its own (it has no source
    file): it lives in its callers' cached code."""
    options = {"numba": {"inline": "always"}, "llvm": {"forceinline": True}, "call": {}}[inline]
    return numba.njit(_nrt=False, nogil=True, **options)(function)


def _family_answer(game: str, family, name: str, decision: Decision, inline: str):
    """Family ``family``'s answer to decision ``name`` as an inlined numba function of ``(prm, *engine_args)``,
    compiled from its ``ANSWERS`` expression in its own module's names."""
    module = family
    while name not in module.ANSWERS:
        module = getattr(module, "INHERITS", None)
        if module is None:
            raise TypeError(f"{game} family {family.__name__} answers no {name!r} (ANSWERS, INHERITS)")
    args = ", ".join(("prm", *decision.engine_args))
    namespace: dict = {}
    exec(f"def answer_{name}({args}):\n    return {module.ANSWERS[name]}", vars(module), namespace)
    return _inlined(namespace[f"answer_{name}"], inline)


def builtin_dispatch(game: str, families: dict, decisions: dict[str, Decision], inline: str = "numba") -> dict:
    """``{name: builtin_<name>(sid, prm, *engine_args)}`` for every decision: one branch per family of ``families``
    (kernel id → family module), each the family's ``ANSWERS[name]`` expression (one expression in the engine's
    arguments; a family with ``INHERITS`` takes that module's where it has none); the last family's branch takes
    the remaining id (declaring the game refuses an id with no branch, ``GamePlugin.__post_init__``). A family that
    misses a decision raises ``TypeError`` here, at import. ``inline`` (:data:`INLINING`): how the dispatch reaches
    the kernel; the answers are inlined into it the same way, or into numba's IR when the dispatch is a call."""
    ids = tuple(families)
    builtins = {}
    for name, decision in decisions.items():
        args = ", ".join(("prm", *decision.engine_args))
        answers_inline = "numba" if inline == "call" else inline
        env = {f"answer_{sid}": _family_answer(game, family, name, decision, answers_inline)
               for sid, family in families.items()}
        lines = [f"def builtin_{name}(sid, {args}):"]
        for sid in ids[:-1]:
            lines += [f"    if sid == {sid}:", f"        return answer_{sid}({args})"]
        lines.append(f"    return answer_{ids[-1]}({args})")
        exec("\n".join(lines), env)
        builtins[name] = _inlined(env[f"builtin_{name}"], inline)
    return builtins


_CAST = {"int": "np.int64", "bool": "bool", "float": "np.float64", "estimate": ""}


def compiled_decision(contract: Contract, name: str):
    """The kernel's ``decide_<name>(seats, me, *rest)`` (numba, inlined): see the module docstring."""
    decision = contract.decisions[name]
    builtin = contract.builtin[name]
    index = list(contract.decisions).index(name)
    builtin_args = "".join(", " + a for a in decision.engine_args)
    rest = "".join(", " + a for a in decision.rest)
    user_args = ("user", "sid", "prm", "fault", "me") + decision.rest
    namespace: dict = {}
    exec(f"def decide_{name}({', '.join(user_args)}):\n    raise NotImplementedError('compiled engine only')",
         namespace)
    stub = namespace[f"decide_{name}"]
    env = {"builtin": builtin, "np": np, "USER_KERNEL_BASE": USER_KERNEL_BASE,
           "load": function_loader(decision_signature(contract, name)), **contract.env}
    env["record_raised"] = record_raised
    lines = [f"def through_table({', '.join(user_args)}):",
             "    k = sid - USER_KERNEL_BASE",
             f"    function = load(user[{index}, k, 0], user[{index}, k, 1], user[{index}, k, 2])",
             *_guarded_call(decision, index, "function", "    ")]
    if decision.check:
        lines += [f"    if not ({decision.check}):", f"        a = {decision.fallback}"]
    lines.append("    return a")
    exec("\n".join(lines), env)
    exec(f"def builtin_only({', '.join(user_args)}):\n    return builtin(sid, prm{builtin_args})", env)

    def typer(user, sid, prm, fault, me, *args):
        """Without file strategies (``user`` is the 1-d ``NO_TABLE``) the call is the built-ins' (never reached:
        the kernel sends built-in ids there first), so nothing of the table is compiled; else the call through
        the table. A kernel compiled for the files is :func:`inlined_typer`'s."""
        if isinstance(user, InlinedType):
            return None
        return env["builtin_only"] if user.ndim == 1 else env["through_table"]

    def inlined_typer(user, sid, prm, fault, me, *args):
        """In a kernel compiled for the run's files, the files' functions called by name and inlined."""
        if isinstance(user, InlinedType):
            return _by_name(contract, name, user.strategies_name)
        return None

    parameters = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in user_args]
    typer.__signature__ = inlined_typer.__signature__ = inspect.Signature(parameters)
    overload(stub, jit_options={"_nrt": False})(typer)
    # A second overload, matching only a kernel compiled for files: the built-in and table kernels type the call
    # with the first and are the code they were. It is inlined by LLVM (``forceinline``), not into numba's IR: an
    # overload inlined there mis-compiles the snap window's loop (see below).
    overload(stub, jit_options={"_nrt": False, "forceinline": True})(inlined_typer)
    # The built-in families stay on the inlined path; only a user's seat takes the overload's call. (An overload
    # inlined with inline="always" mis-compiled Kamoul's snap window loop in numba 0.68: the engines disagreed
    # under snap_chain + snap_others.)
    # The built-in families' answers are not checked here (checking them cost the kernel 12-30% of its throughput,
    # docs/architecture.md); the reference engine checks them in every agreement test.
    kernel_env = {"builtin": builtin, "user": stub, "USER_KERNEL_BASE": USER_KERNEL_BASE}
    exec(f"def decide_{name}(seats, me{rest}):\n"
         f"    sid = seats.sids[me]\n"
         f"    if sid < USER_KERNEL_BASE:\n"
         f"        return builtin(sid, seats.prm[me]{builtin_args})\n"
         f"    return user(seats.user, sid, seats.prm[me], seats.fault, me{rest})", kernel_env)
    return _inlined(kernel_env[f"decide_{name}"], contract.inline)


_BY_NAME: dict = {}

_DEFAULT_ANSWER = {"int": "np.int64(0)", "bool": "False", "float": "np.float64(0.0)",
                   "estimate": "(np.float64(0.0), np.int64(0))"}


def _guarded_call(decision: Decision, index: int, function: str, indent: str) -> list[str]:
    """The lines that call a file's ``function`` for ``decision`` (contract position ``index``) into ``a``, cast. An
    exception the function raises is caught (numba's parallel loop would drop it, and the game would go on with a
    made-up answer): it is recorded as a fault (:func:`simulator.core.kernels.faults.record_raised`), which stops the run
    after the kernel, and a legal answer lets the block finish."""
    answer = decision.fallback or _DEFAULT_ANSWER[decision.kind]
    return [f"{indent}try:",
            f"{indent}    a = {_CAST[decision.kind]}({function}({decision.user_call}))",
            f"{indent}except Exception:",
            f"{indent}    record_raised(fault, {index + 1}, me)",
            f"{indent}    a = {_CAST[decision.kind]}({answer})"]



def _by_name(contract: Contract, name: str, strategies_name: str):
    """Decision ``name``'s dispatch in a kernel compiled for the files of ``strategies_name``
    (:class:`~simulator.core.contract.inlined.InlinedStrategies`): one branch per file strategy by kernel id, its function
    called by name (inlined), then the cast, check and fallback of the call through the table."""
    key = (contract.game, name, strategies_name)
    if key not in _BY_NAME:
        strategies = registered(strategies_name)[1]
        decision = contract.decisions[name]
        user_args = ("user", "sid", "prm", "fault", "me") + decision.rest
        env = {"np": np, "record_raised": record_raised, **contract.env}
        index = list(contract.decisions).index(name)
        lines = [f"def by_name({', '.join(user_args)}):"]
        for k, strategy in enumerate(strategies):
            env[f"answer_{k}"] = inline_function(strategy.functions[name])
            call = _guarded_call(decision, index, f"answer_{k}", "    " if len(strategies) == 1 else "        ")
            if len(strategies) == 1:
                lines += call
                continue
            test = ("    else:" if k == len(strategies) - 1
                    else f"    {'if' if k == 0 else 'elif'} sid == {USER_KERNEL_BASE + k}:")
            lines += [test, *call]
        if decision.check:
            lines += [f"    if not ({decision.check}):", f"        a = {decision.fallback}"]
        lines.append("    return a")
        exec("\n".join(lines), env)
        _BY_NAME[key] = env["by_name"]
    return _BY_NAME[key]


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
_KIND_NAMES = {"int": "an integer", "bool": "True or False", "float": "a number", "estimate": "a (float, int) pair"}


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
        twin = _twins[original] = types.FunctionType(original.__code__, namespace, original.__name__,
                                                     original.__defaults__, original.__closure__)
        for name in original.__code__.co_names:
            if isinstance(namespace.get(name), Dispatcher):
                namespace[name] = python_twin(namespace[name])
    return twin


class ReferenceDispatch:
    """The reference engine's decisions for ``contract``: :meth:`ask` answers from the seat's built-in family or
    file, :meth:`checked` casts and checks any answer (also a scripted one, in tests). Each decision's call, cast
    and check is one generated Python function (the reference engine asks tens of thousands of times a second)."""

    def __init__(self, contract: Contract):
        self.contract = contract
        self._fault = new_fault()  # reused: a check writes it only on the illegal answer that stops the run
        self._builtins: dict | None = None
        self._announced = False  # the compile notice, said once
        self._ask = {name: self._generated(name, "ask") for name in contract.decisions}
        self._checked = {name: self._generated(name, "checked") for name in contract.decisions}

    def ask(self, name: str, seat, me: int, *rest):
        """Decision ``name`` for ``seat`` (a :class:`~simulator.core.contract.seats.Seat`) at seat index ``me``."""
        return self._ask[name](seat, me, *rest)

    def checked(self, name: str, seat, me: int, answer, *rest):
        """``answer`` cast to decision ``name``'s type, if legal; else :class:`StrategyError` naming the
        strategy, the seat, the decision, the answer and what was legal."""
        return self._checked[name](seat, me, answer, *rest)

    def _unknown(self, seat):
        raise ValueError(f"kernel id {seat.sid} is no {self.contract.game} strategy family")

    def _wrong_type(self, name: str, seat, me: int, answer):
        decision = self.contract.decisions[name]
        raise StrategyError(f"strategy {seat.label or f'kernel id {seat.sid}'!r} (seat {me}) answered {name} with "
                            f"{answer!r}, which is not {_KIND_NAMES[decision.kind]}; the answer is "
                            f"{decision.answers}") from None

    def _illegal(self, seat, me: int):
        fault = self._fault.copy()
        self._fault[:] = 0
        raise_fault(fault, {me: seat.label or f"kernel id {seat.sid}"}, self.contract.describe)

    def _builtin(self, name: str, env: dict):
        """Decision ``name``'s built-in dispatch, loaded on the first built-in answer: compiled from generated files
        (cached on disk, :func:`simulator.core.kernels.generated.cached_builtins`) when the contract names its families,
        else the contract's own. It then replaces itself in ``env``, the generated ``ask``'s globals."""
        def first(*args):
            if self._builtins is None:
                families = self.contract.families
                self._builtins = (cached_builtins(self.contract.game, families, self.contract.decisions)
                                  if families else self.contract.builtin)
            env["BUILTIN"] = self._builtins[name]
            if self.contract.families and not self._announced and needs_compile(env["BUILTIN"]):
                self._announced = True  # once: the decisions asked first take most of the compile
                say(f"compiling the {self.contract.game} strategies for the reference engine (first run on this "
                    "machine, up to a minute)…")
            return env["BUILTIN"](*args)

        return first

    def _generated(self, name: str, which: str):
        """``ask(seat, me, *rest)`` or ``checked(seat, me, a, *rest)`` for decision ``name``, in plain Python: the
        arguments, cast and check of the compiled dispatch (the checks as :func:`python_twin` s)."""
        decision = self.contract.decisions[name]
        env = {"BUILTIN_IDS": self.contract.builtin_ids, "np": np, "GUARD": GUARD, "file_fault": file_fault,
               "cast": _CASTS[decision.kind], "fault": self._fault, "dispatch": self,
               **{k: python_twin(v) for k, v in self.contract.env.items()}}
        env["BUILTIN"] = self._builtin(name, env)
        builtin_args = "".join(", " + a for a in decision.engine_args)
        rest = "".join(", " + a for a in decision.rest)
        check = f"    if not ({decision.check}):\n        dispatch._illegal(seat, me)\n" if decision.check else ""
        answer = ("    prm = seat.prm\n"
                  "    if seat.user is None:\n"
                  "        if seat.sid not in BUILTIN_IDS:\n"
                  "            dispatch._unknown(seat)\n"
                  f"        a = BUILTIN(seat.sid, prm{builtin_args})\n"
                  "    else:\n"
                  f"        GUARD.inside = {name!r}\n"
                  "        GUARD.calls += 1\n"
                  "        try:\n"
                  f"            a = seat.user.functions[{name!r}]({decision.user_call})\n"
                  "        except BaseException as err:\n"
                  f"            file_fault(seat.user.path, {name!r}, err)\n"
                  "        finally:\n"
                  "            GUARD.inside = None\n") if which == "ask" else ""
        head = f"def {which}(seat, me{rest}):\n" if which == "ask" else f"def {which}(seat, me, a{rest}):\n"
        exec(head + answer + "    try:\n        a = cast(a)\n"
             "    except (TypeError, ValueError, OverflowError):\n"
             f"        dispatch._wrong_type({name!r}, seat, me, a)\n" + check + "    return a\n", env)
        return env[which]
