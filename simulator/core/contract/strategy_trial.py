"""A strategy file tried before a run writes anything: a few games on the reference engine with the file's strategy
at every seat, until each of its decisions has been asked at least once (or the trial's budget is spent).

What the file's code would do wrong in its first games (raise, exit, loop, write its parameters, answer illegally)
is then one line and exit 2 with nothing on disk, instead of a run stopped after its directory was made. The
trial plays its own seeds, so it changes no result; a numba file plays as its Python twin
(:func:`simulator.core.contract.decisions.python_twin`), after its functions are compiled for their signatures (what the
run would do first: a function that does not compile, e.g. one writing its read-only ``prm``, is one line too).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simulator.core.contract.decisions import python_twin
from simulator.core.contract.file_code import BudgetSpent, watched
from simulator.core.contract.seats import USER_KERNEL_BASE, Seat, params_array
from simulator.core.contract.user_table import compiled_function
from simulator.core.errors import StrategyCodeError, StrategyFileError
from simulator.core.kernels.faults import StrategyError

TRIAL_GAMES = 40
"""At most this many games (of the game's finest level)."""

TRIAL_SECONDS = 2.0
"""The trial stops after this many seconds (in cardsim's code, between two of the file's calls), every decision
asked or not."""

TRIAL_SEED = 0x7E57


def try_strategy(plugin, user, field: str, build_spec) -> None:
    """Play ``user`` (a :class:`~simulator.core.contract.user_strategies.UserStrategy` of ``plugin``'s game) at every seat of a
    default table (``build_spec``: :func:`simulator.core.storage.spec.build_spec`, handed in by the spec that asks) until
    each decision has been asked; its fault is a :class:`StrategyFileError` (one line) and an
    illegal answer a :class:`~simulator.core.kernels.faults.StrategyError`. Once per file content and strategy in a
    process."""
    key = (plugin.name, user.path, user.digest, user.name)
    if key not in _TRIED:
        if user.compiled:  # each numba function compiled for its signature first: one that does not is one line
            for name in plugin.contract.decisions:
                compiled_function(plugin.contract, user, name)
        _play_trial(plugin, user, field, build_spec)
        _TRIED.add(key)


_TRIED: set[tuple] = set()


def _play_trial(plugin, user, field: str, build_spec) -> None:
    asked: set[str] = set()
    functions = {name: _recording(name, python_twin(fn), asked) for name, fn in user.functions.items()}
    tried = replace(user, functions=functions)
    sdef = user.definition(USER_KERNEL_BASE)
    prm = params_array(sdef, {p.name: p.default for p in sdef.params.params})
    spec = build_spec(plugin.name, n=TRIAL_GAMES, seed=TRIAL_SEED, level=plugin.levels[0])
    seats = [Seat(USER_KERNEL_BASE, prm, tried, user.label) for _ in range(spec.players)]
    try:
        with watched(budget=TRIAL_SECONDS), np.errstate(over="ignore"):  # a twin's uint64 arithmetic wraps
            for index in range(TRIAL_GAMES):
                plugin.reference_play(spec, index, None, seats)
                if asked >= set(user.functions):
                    break
    except BudgetSpent:
        pass  # what it met so far is what the trial could check
    except StrategyCodeError as err:
        raise StrategyFileError(str(err), field) from None
    except StrategyError as err:
        raise StrategyError(f"{err} (in a trial game before the run: nothing was written)") from None


def _recording(name: str, function, asked: set):
    def call(*args):
        asked.add(name)
        return function(*args)

    return call
