"""One entry point per Kem's decision, dispatching on the strategy's integer kernel id.

Built-in strategies are selected by id inside a cached kernel (a jitted strategy passed as an argument would
defeat numba's on-disk cache). The reference engine and the kernel call these same functions, so a strategy
behaves identically in both; each receives only the deciding player's information set
(:mod:`strategies.kems.views`).

* ``propose`` → how many exchange pairs it writes into ``out`` (``int64[4, 2]``: hand slot, centre slot);
* ``infer_contre`` → the opponent it accuses from public knowledge, or -1;
* ``contre_horizon`` → the open-exchange tick count before which ``infer_contre`` surely returns -1 while public
  knowledge stays the same (the kernel skips it until then; the reference always asks). It reads the
  ``last_swap`` (open-tick count at each player's last exchange) of the same perceived public state.

Signalling, attention and calls on a sign seen are the common parameters (:mod:`strategies.kems.common`),
which the engines read directly.
"""

from __future__ import annotations

from simulator.core.jit import njit
from simulator.core.rng import NEVER
from strategies.kems import heuristic, random_play

RANDOM, HEURISTIC = 0, 1


@njit(refcount=False)
def propose(sid, prm, me, players, hand, seen, loc, pub, multi, mem, work, out, rng):
    if sid == RANDOM:
        return random_play.propose(prm, seen, rng, out)
    return heuristic.propose(prm, me, players, hand, seen, loc, pub, multi, mem, work, out)


@njit(refcount=False)
def infer_contre(sid, prm, me, players, hand, loc, pub, silence, work):
    if sid == RANDOM:
        return -1
    return heuristic.infer_contre(prm, me, players, hand, loc, pub, silence, work)


@njit(refcount=False)
def contre_horizon(sid, prm, me, players, hand, loc, pub, last_swap, work):
    if sid == RANDOM:
        return NEVER
    return heuristic.contre_horizon(prm, me, players, hand, loc, pub, last_swap, work)
