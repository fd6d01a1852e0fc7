"""Each decision of the three games declared once (simulator/<g>/vocabulary/contract.py): its context, how a user's
function is asked, the answer's kind and check; the families answer it in strategies/<g>/dispatch.py, one function
per decision by kernel id; the fault record numbers the decisions in the contract's order; and no code is made
from strings (simulator/core/contract/decisions.py builds every dispatch from the declaration)."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path

from typing import NamedTuple

import numba
import numpy as np
import pytest
from numba import types

from simulator.core.contract.decisions import Contract, Decision, ReferenceDispatch, compiled_decision, python_twin
from simulator.core.contract.seats import USER_KERNEL_BASE, Seat, default_params
from simulator.core.contract.user_strategies import UserStrategy
from simulator.core.contract.user_table import NO_TABLE, KernelSeats, user_table
from simulator.core.kernels.faults import StrategyError, new_fault, record
from simulator.core.params import ParamSet

GAMES = ("kamoul", "rami", "kems")
ROOT = Path(__file__).resolve().parents[1]


def _parts(game: str):
    contract = importlib.import_module(f"simulator.{game}.vocabulary.contract")
    answers = importlib.import_module(f"simulator.{game}.vocabulary.answers")
    dispatch = importlib.import_module(f"strategies.{game}.dispatch")
    return contract, answers, dispatch


@pytest.mark.parametrize("game", GAMES)
def test_each_decision_has_a_context_whose_fields_the_kernel_types(game):
    contract, _, _ = _parts(game)
    for name, decision in contract.DECISIONS.items():
        fields = decision.context._fields
        assert fields[0] == "me", name
        assert set(fields) <= set(contract.ARG_TYPES), (name, set(fields) - set(contract.ARG_TYPES))
        assert decision.kind in ("int", "bool", "float", "estimate"), name


@pytest.mark.parametrize("game", GAMES)
def test_a_user_function_receives_prm_then_context_fields_and_views_built_from_them(game):
    """``ask`` is the one place the argument list is written: what it hands a user's function is ``prm``, then
    fields of the context, a view being a named tuple of context fields (so its numba type follows)."""
    contract, _, _ = _parts(game)
    for name, decision in contract.DECISIONS.items():
        received = decision.user_arguments
        assert received[0] == "prm", name
        for argument in received[1:]:
            if isinstance(argument, str):
                assert argument in decision.context._fields, (name, argument)
            else:
                assert set(argument) <= set(decision.context._fields), (name, argument)
                assert list(argument) == list(type(argument)._fields), (name, argument)  # a view field is its field
        assert decision.user_signature.startswith("prm"), name
        assert len(decision.signature(contract.ARG_TYPES).args) == len(received), name


@pytest.mark.parametrize("game", GAMES)
def test_the_fault_record_numbers_the_decisions_in_the_contract_s_order(game):
    """A raised exception is recorded with 1 + the decision's contract position; the line reads that number in
    ``DECISION_ORDER``: both orders are one."""
    contract, answers, _ = _parts(game)
    assert tuple(answers.DECISION_ORDER) == tuple(contract.DECISIONS)
    assert answers.D == {name: i + 1 for i, name in enumerate(contract.DECISIONS)}


@pytest.mark.parametrize("game", GAMES)
def test_the_family_dispatch_has_one_function_per_decision_branching_on_known_families(game):
    contract, _, dispatch = _parts(game)
    assert list(dispatch.BUILTIN) == list(contract.DECISIONS)
    ids = {name: value for name, value in vars(dispatch).items() if name.isupper() and isinstance(value, int)}
    assert set(ids.values()) == set(dispatch.FAMILIES)
    tree = ast.parse(Path(inspect.getsourcefile(dispatch)).read_text())
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    for name, function in dispatch.BUILTIN.items():
        assert tuple(inspect.signature(function.py_func).parameters) == ("sid", "prm", "c"), name
        compared = {n.comparators[0].id for n in ast.walk(functions[function.py_func.__name__])
                    if isinstance(n, ast.Compare) and isinstance(n.left, ast.Name) and n.left.id == "sid"}
        assert compared <= set(ids), (name, compared)


@pytest.mark.parametrize("game", ("kamoul", "rami"))  # Kem's abilities are rates its model reads, not decisions
def test_each_strategy_s_traits_are_read_at_its_own_family_s_positions(game):
    """The decisions that read no table (a seat's abilities) answered through the dispatch for every registered
    strategy equal the parameter of that name at its own family's position (the engines agree on the rest)."""
    contract, _, dispatch = _parts(game)
    strategies = importlib.import_module(f"strategies.{game}")
    traits = [name for name, d in contract.DECISIONS.items() if d.context._fields == ("me",)]
    assert traits
    for name in traits:
        for sdef in strategies.STRATEGIES.values():
            prm = default_params(sdef)
            answer = python_twin(dispatch.BUILTIN[name])(sdef.kernel_id, prm, contract.DECISIONS[name].context(0))
            if name in sdef.params.names():
                assert answer == prm[sdef.params.names().index(name)], (name, sdef.name)
            else:
                assert answer == 0.0, (name, sdef.name)  # a family without the ability never uses it


def test_no_code_is_made_from_strings():
    """The dispatch is built from the declarations by closures, the families' answers are real functions: no
    ``exec`` anywhere in the project's code (the issue allowed two, in the dispatch by family id)."""
    found = []
    for folder in ("simulator", "strategies", "analysis", "reports"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"(?<![\w.])exec\(", line):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == []


# --- where a new decision goes: the whole path, on a toy game -------------------------------------------------


class Double(NamedTuple):
    """The toy decision's context: the seat and the number it is shown."""

    me: int
    x: int


@numba.njit(inline="always")
def ask_double(f, prm, c):
    return f(prm, c.x)


@numba.njit(inline="always")
def check_double(fault, a, c):
    if a < 0:
        return record(fault, 1, c.me, 1, a, 0, 0, 0, 0, 0, 0)
    return True


@numba.njit(inline="always")
def zero(c):
    return 0


@numba.njit
def builtin_double(sid, prm, c):  # the toy's strategies/<g>/dispatch.py: one family, id 0
    return 2 * c.x


TOY = Contract(game="toy", decisions={"double": Decision(Double, ask_double, "a number, at least 0", check=check_double,
                                                         fallback=zero, legal="0 or more", default="2 * x")},
               builtin={"double": builtin_double}, builtin_ids=(0,),
               describe=lambda fault, label: f"{label} answered {int(fault[3])}", arg_types={"me": types.int64,
                                                                                             "x": types.int64})
decide_double = compiled_decision(TOY, "double")


@numba.njit
def toy_kernel(seats, xs):
    """The toy engine: asks every seat once, building the decision's context where it asks."""
    return [decide_double(seats, Double(me, xs[me])) for me in range(xs.shape[0])]


def _user(tmp_path, name, function):
    path = tmp_path / f"{name}.py"
    path.write_text(f"# the toy strategy {name}\n")  # its compiled function is cached by the file's content
    return UserStrategy(name, "toy", ParamSet(()), "", {"double": numba.njit(function)}, str(path), name,
                        compiled=True)


def test_a_new_decision_is_one_declaration_both_engines_and_files_follow(tmp_path):
    """A decision declared once (context, ask, kind, check, fallback) and a dispatch function: the kernel's
    ``decide`` answers for a built-in seat and for a file's function through the table, casts and checks its answer
    (an illegal one recorded, the fallback played); the reference engine asks the same and raises on the illegal
    one; the file's signature is what ``ask`` hands it."""
    decision = TOY.decisions["double"]
    assert decision.user_signature == "prm, x" and str(decision.signature(TOY.arg_types)) == \
        "(Array(float64, 1, 'C', True, aligned=True), int64) -> int64"
    honest, liar = _user(tmp_path, "honest", lambda prm, x: x + 1), _user(tmp_path, "liar", lambda prm, x: -x)
    xs = np.array([3, 4, 5], dtype=np.int64)
    sids = np.array([0, USER_KERNEL_BASE, USER_KERNEL_BASE + 1], dtype=np.int64)
    seats = KernelSeats(sids, np.zeros((3, 1)), user_table(TOY, [honest, liar]), new_fault(), np.zeros(3, np.bool_))
    assert toy_kernel(seats, xs) == [6, 5, 0]  # built-in 2x; honest x + 1; liar's -5 illegal: the fallback 0
    assert seats.fault[:4].tolist() == [1, 2, 1, -5]  # decision 1, seat 2, reason 1, answer -5
    no_files = KernelSeats(sids[:1], np.zeros((1, 1)), NO_TABLE, new_fault(), np.zeros(1, np.bool_))
    assert toy_kernel(no_files, xs[:1]) == [6]

    reference = ReferenceDispatch(TOY)
    prm = np.zeros(0)
    assert reference.ask("double", Seat(0, prm, None, "builtin"), Double(0, 3)) == 6
    assert reference.ask("double", Seat(USER_KERNEL_BASE, prm, honest, "honest"), Double(1, 4)) == 5
    with pytest.raises(StrategyError, match="liar.py:liar answered -5"):
        reference.ask("double", Seat(USER_KERNEL_BASE, prm, liar, "liar.py:liar"), Double(2, 5))
