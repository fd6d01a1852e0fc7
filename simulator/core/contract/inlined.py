"""A kernel compiled for a run's strategy files, their functions inlined into it like the built-ins' answers.

The function table (:mod:`simulator.core.contract.user_table`) lets one compiled kernel play every file, at the price of a
real call per decision that the compiler cannot see through. For a long run (or once compiled) the seats' ``user``
field holds :class:`InlinedStrategies` instead: its numba type, :class:`InlinedType`, is named after the files'
strategies and a digest of their content and of the project modules they import, so numba compiles a kernel for
these very files and its on-disk cache finds that kernel again in the next process with the same files (and misses
it, one compile, after an edit). The dispatch of each decision (:func:`simulator.core.contract.decisions.compiled_decision`)
sees the type and calls each file's function by name, inlined, with the same cast and check as through the table:
the same rows, at the built-ins' speed less the checks.

Which kernel a run takes: :func:`user_field` (``CARDSIM_USER_KERNEL``: ``table``, ``inlined`` or ``auto``).
"""

from __future__ import annotations

import hashlib
import inspect
import os
import sys
from pathlib import Path

import numba
from numba.core import types
from numba.extending import NativeValue, models, register_model, typeof_impl, unbox

from simulator.core.contract.user_table import compiled_function, user_table
from simulator.core.errors import SpecError
from simulator.core.kernels.jit import cache_dir_for, user_cache_dir

CHOICES = ("auto", "table", "inlined")
ENV = "CARDSIM_USER_KERNEL"
INLINE_FROM_HANDS = 100_000_000
"""``auto`` compiles a kernel for the files from this many hands on: it takes about 70 s to compile (two minutes
before issue 61) and then saves about 1.5 µs a hand against the table (733k against 347k hands/s), which pays from
some 47 million hands (docs/architecture.md): the threshold is kept conservative."""

_REGISTRY: dict[str, tuple] = {}


class InlinedStrategies:
    """The ``user`` field of :class:`~simulator.core.contract.user_table.KernelSeats` for a kernel compiled for ``strategies``
    (``strategies[k]`` has kernel id ``USER_KERNEL_BASE + k``) under ``contract``. ``name`` keys the compiled
    kernel: the game, the strategies' names and a digest of each file's content and imported project modules."""

    __slots__ = ("name", "labels")

    def __init__(self, contract, strategies):
        digest = hashlib.sha256(contract.game.encode())
        for s in strategies:
            digest.update(f"{s.path}\0{s.name}\0{s.digest}\0{user_cache_dir(s.path).name}\0".encode())
        self.name = f"{contract.game}:{'+'.join(s.name for s in strategies)}:{digest.hexdigest()[:20]}"
        self.labels = ", ".join(s.label for s in strategies)
        _REGISTRY[self.name] = (contract, tuple(strategies))

    def compiled_marker(self, kernel) -> Path:
        """Where the mark that ``kernel`` (a numba dispatcher) was compiled for these strategies is kept: beside the
        kernel's cache, so an edit of the project's sources (a new cache) forgets it; named by a digest (a run's
        strategy names may be long)."""
        key = hashlib.sha256(self.name.encode()).hexdigest()[:24]
        return cache_dir_for(kernel.py_func) / "inlined" / f"{kernel.py_func.__name__}-{key}"

    def is_compiled(self, kernel) -> bool:
        """Whether the mark is there and still names numba's cache of ``kernel``: the same Python and numba, and the
        kernel's source file as it was (numba drops a cached kernel when that file's time or size changes)."""
        try:
            return self.compiled_marker(kernel).read_text() == _cache_stamp(kernel)
        except OSError:
            return False

    def mark_compiled(self, kernel) -> None:
        marker = self.compiled_marker(kernel)
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.write_text(_cache_stamp(kernel))

    def __repr__(self) -> str:
        return f"InlinedStrategies({self.name!r})"


def _cache_stamp(kernel) -> str:
    source = os.stat(inspect.getsourcefile(kernel.py_func))
    return f"{sys.version_info[:3]} numba {numba.__version__} {source.st_mtime_ns} {source.st_size}"


class InlinedType(types.Opaque):
    """numba's type of an :class:`InlinedStrategies`: equal for equal names, so a cached kernel is found again."""

    def __init__(self, strategies_name: str):
        self.strategies_name = strategies_name
        super().__init__(name=f"InlinedStrategies[{strategies_name}]")


register_model(InlinedType)(models.OpaqueModel)


@typeof_impl.register(InlinedStrategies)
def _typeof(value, context):
    return InlinedType(value.name)


@unbox(InlinedType)
def _unbox(typ, obj, c):
    """The kernel never reads the value: its type is all the dispatch needs."""
    return NativeValue(c.context.get_constant_null(typ))


def registered(strategies_name: str) -> tuple:
    """``(contract, strategies)`` of an :class:`InlinedStrategies` made in this process."""
    return _REGISTRY[strategies_name]


def inline_function(function):
    """A file's numba function for decision dispatch by name: the same Python function, compiled without reference
    counting like the kernel (its own options kept) and marked for LLVM to inline wherever it is called
    (``forceinline``: numba's own inlining of an overload mis-compiles a loop of the Kamoul kernel, see
    :func:`simulator.core.contract.decisions.compiled_decision`)."""
    options = {k: v for k, v in function.targetoptions.items()
               if k not in ("inline", "forceinline", "cache", "_nrt", "nopython")}
    return numba.njit(forceinline=True, _nrt=False, **options)(function.py_func)


def inlinable(contract, strategies) -> bool:
    """Whether every function of ``strategies`` compiles without numba's reference counting (the kernels have none:
    a function that allocates an array stays behind the table, where it is compiled with it)."""
    return all(compiled_function(contract, s, name).targetoptions.get("_nrt", True) is False
               for s in strategies for name in contract.decisions)


def user_kernel_mode() -> str:
    """``CARDSIM_USER_KERNEL`` (default ``auto``), or a :class:`SpecError` naming it: checked when a strategy file is
    loaded, before a run writes anything, and again when the kernel's seats are made."""
    mode = os.environ.get(ENV, "auto")
    if mode not in CHOICES:
        raise SpecError(ENV, mode, ", ".join(CHOICES))
    return mode


def user_field(contract, strategies, kernel, hands: int):
    """The seats' ``user`` field for a run of ``strategies`` (files, in kernel-id order): :class:`InlinedStrategies`
    when ``kernel`` (the numba dispatcher about to run; ``None`` for a kernel that always takes the table) is to be
    compiled for the files, else their function table. ``CARDSIM_USER_KERNEL``:
    ``table``; ``inlined``; ``auto`` (default): inlined when such a kernel is already compiled on this machine or
    the run has at least :data:`INLINE_FROM_HANDS` hands."""
    mode = user_kernel_mode()
    if kernel is not None and mode != "table":
        candidate = InlinedStrategies(contract, strategies)
        wanted = mode == "inlined" or hands >= INLINE_FROM_HANDS or candidate.is_compiled(kernel)
        if wanted and inlinable(contract, strategies):
            return candidate
    return user_table(contract, strategies)
