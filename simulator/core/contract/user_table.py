"""The compiled engine's seats, and the table of functions through which it calls strategies from users' files.

numba freezes into a kernel's machine code every function the kernel calls by name, and caches that code on disk
keyed by the kernel's argument types. A kernel that called a user's functions by name would have to be compiled
anew for every strategy file and every edit of one (two to three minutes for Kamoul's). Instead a kernel receives
the user's functions as *values*: numba's first-class function type, ``FunctionType(signature)``, is typed by its
signature alone, so one compiled kernel, cached once, plays every file. Each decision's signature is fixed by the
game's contract (:func:`decision_signature`: the numba types of ``strategies/<g>/contract.ARG_TYPES``), each of a
file's functions is compiled once for it (:func:`compiled_function`: seconds, not minutes, and cached on disk by
the file's content and the project modules it imports), and :func:`user_table` lays them out for the kernel as
an array of their addresses (numba's parallel loops take arrays and numbers, not function values):
``table[d, k]`` holds decision ``d``'s function (contract order) of the run's ``k``-th file strategy (kernel id
``USER_KERNEL_BASE + k``), and :func:`function_loader` turns those addresses back into a callable function value
inside the kernel. A run of built-in strategies passes :data:`NO_TABLE` (an empty 1-d array): numba then compiles
the kernel without any call through the table (:mod:`simulator.core.contract.decisions`).
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
from numba import types
from numba.core import cgutils
from numba.core.errors import NumbaError, NumbaExperimentalFeatureWarning
from numba.experimental.function_type import _get_jit_address, _get_wrapper_address
from numba.extending import intrinsic

from simulator.core.errors import SpecError
from simulator.core.kernels.jit import user_cache_dir

USER_SLOTS = 8
"""The function table's fixed width: the most seats any game has, so every seat may have its own file."""

ADDRESSES = 3
"""Per function, numba's three addresses of a first-class function: its C wrapper, its Python object and its
compiled entry point (the one the call uses)."""

NO_TABLE = np.zeros(0, dtype=np.uint64)
"""The table of a run without strategies from files (its 1-d type tells the kernel's dispatch there is none)."""

RETURN_TYPES = {"int": types.int64, "bool": types.boolean, "float": types.float64,
                "estimate": types.Tuple((types.float64, types.int64))}
"""The numba type a decision's function returns, by the decision's ``kind``."""

PRM_TYPE = types.Array(types.float64, 1, "C", readonly=True)
"""``prm``: the seat's parameters, ``float64[K]``, read-only (index them with the strategy's declared ``ParamSet``;
a function that writes them does not compile: its rows would depend on the games before it in its chunk)."""

# numba calls first-class functions "experimental"; the engine-agreement tests are what this code relies on
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning,
                        message="First-class function type feature is experimental")


class KernelSeats(NamedTuple):
    """The seats as a kernel reads them: ``sids`` ``int64[P]`` (kernel ids), ``prm`` ``float64[P, K]`` (each seat's
    parameters, zero-padded to the longest), ``user`` (the run's :func:`user_table`, ``uint64[D, USER_SLOTS,
    ADDRESSES]``, or :data:`NO_TABLE` when every seat is built-in) and ``fault`` (``int64[FAULT_WORDS]``, all zero until a user strategy answers illegally:
    :mod:`simulator.core.kernels.faults`). ``snaps_on_belief``: ``bool[P]``, the seats whose file declares it (Kamoul:
    ``simulator.kamoul.engines.beliefs``; the built-in families' declarations are the kernel's own)."""

    sids: np.ndarray
    prm: np.ndarray
    user: np.ndarray
    fault: np.ndarray
    snaps_on_belief: np.ndarray


def decision_signature(contract, name: str):
    """The numba signature of decision ``name``'s function in a user's file
    (:meth:`simulator.core.contract.decisions.Decision.signature`: the context fields' types, ``contract.arg_types``)."""
    return contract.decisions[name].signature(contract.arg_types)


_SIGNATURES: dict[str, tuple] = {}


def _signatures(contract) -> tuple:
    if contract.game not in _SIGNATURES:
        _SIGNATURES[contract.game] = tuple(decision_signature(contract, name) for name in contract.decisions)
    return _SIGNATURES[contract.game]


def compiled_function(contract, strategy, name: str):
    """``strategy``'s function for decision ``name`` compiled for the decision's signature, as a new dispatcher
    that has that one signature (the kernel calls it through a function pointer). It is compiled without numba's reference
    counting, like the kernels, unless it needs it (it allocates an array); a function that does not compile
    for its signature is a :class:`SpecError` naming it."""
    signature = _signatures(contract)[list(contract.decisions).index(name)]
    return _compiled(strategy.path, strategy.digest, strategy.name, name, strategy.functions[name], signature,
                     strategy.label, contract.game, contract.decisions[name].user_signature)


@lru_cache(maxsize=None)
def _compiled(path: str, digest: str, strategy_name: str, name: str, function, signature, label: str, game: str,
              user_signature: str):
    """The compiled function of one decision of a file strategy, cached per process.

    Nine parameters: ``lru_cache`` needs every key of the cache as a hashable argument (the file, its digest,
    the strategy, the decision and its function and signature) and the error line needs the label, game and
    the decision's documented signature."""
    numba.config.CACHE_DIR = str(user_cache_dir(path))
    py_func = function.py_func
    options = {k: v for k, v in function.targetoptions.items() if k not in ("inline", "cache", "_nrt", "nopython")}
    try:
        return numba.njit(signature, cache=True, _nrt=False, **options)(py_func)
    except NumbaError:
        pass  # it allocates: compile it with reference counting
    try:
        return numba.njit(signature, cache=True, **options)(py_func)
    except NumbaError as err:
        reason, where = _numba_reason(str(err))
        if "setitem(readonly array" in str(err):
            reason = "writes into prm, its parameters, which are read-only during a run"
        raise SpecError(f"--strategy {label}: {name}", reason,
                        f"a numba function {name}({user_signature}) returning {signature.return_type}, for the "
                        f"argument types of ARG_TYPES in strategies/{game}/contract.py",
                        f"does not compile{where}") from None


def _numba_reason(text: str) -> tuple[str, str]:
    """numba's compile error as one reason and where it is (`` (line N of file.py)``)."""
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in text.splitlines()]
    reason = next((line for line in lines if line and not line.startswith("Failed in")), "numba error")
    found = next((m for m in map(re.compile(r'File "(.+)", line (\d+)').search, lines) if m), None)
    return reason, (f" (line {found.group(2)} of {Path(found.group(1)).name})" if found else "")


def user_table(contract, strategies: list) -> np.ndarray:
    """The function table of a run's file strategies (``strategies[k]`` has kernel id ``USER_KERNEL_BASE + k``):
    ``uint64[D, USER_SLOTS, ADDRESSES]``, the addresses of each decision's compiled function (``D`` decisions in
    contract order; unused slots zero, never called); :data:`NO_TABLE` without file strategies. The functions
    stay alive as long as the process (they are memoised), so the addresses stay valid."""
    if not strategies:
        return NO_TABLE
    if len(strategies) > USER_SLOTS:
        raise ValueError(f"{len(strategies)} strategy files: the function table holds {USER_SLOTS}")
    table = np.zeros((len(contract.decisions), USER_SLOTS, ADDRESSES), dtype=np.uint64)
    for d, (name, signature) in enumerate(zip(contract.decisions, _signatures(contract))):
        for k, strategy in enumerate(strategies):
            function = compiled_function(contract, strategy, name)
            table[d, k] = (_get_wrapper_address(function, signature), id(function),
                           _get_jit_address(function, signature))
    return table


_LOADERS: dict[str, object] = {}


def function_loader(signature):
    """A numba intrinsic ``load(c_addr, py_addr, jit_addr) -> FunctionType(signature)``: the function value of one
    entry of a :func:`user_table`, which the kernel then calls like any function."""
    key = str(signature)
    if key not in _LOADERS:
        function_type = types.FunctionType(signature)

        @intrinsic
        def load(typingctx, c_addr, py_addr, jit_addr):
            def codegen(context, builder, sig, args):
                value = cgutils.create_struct_proxy(function_type)(context, builder)
                voidptr = context.get_value_type(types.voidptr)
                value.c_addr = builder.inttoptr(args[0], voidptr)
                value.py_addr = builder.inttoptr(args[1], voidptr)
                value.jit_addr = builder.inttoptr(args[2], voidptr)
                return value._getvalue()

            return function_type(types.uint64, types.uint64, types.uint64), codegen

        _LOADERS[key] = load
    return _LOADERS[key]
