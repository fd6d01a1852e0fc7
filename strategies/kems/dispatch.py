"""The built-in Kem's families' answer to each decision, by kernel id: one function per decision of the contract
(:data:`simulator.kems.vocabulary.contract.DECISIONS`), ``(sid, prm, c)`` with ``c`` the decision's context.

Adding a family: its kernel id in :data:`FAMILIES` and its branch in each function below
(``tests/test_kems_contract.py`` holds every function to the families and to the contract). A seat's answer here
is not checked in the kernel: the reference engine checks every built-in answer in the agreement tests.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from strategies.kems import heuristic, random_play
from strategies.kems.common import contre_on_sign

RANDOM, HEURISTIC = 0, 1
FAMILIES = {RANDOM: random_play, HEURISTIC: heuristic}
"""The built-in families by kernel id (the registry's ``StrategyDef.kernel_id``)."""


@njit(refcount=False)
def propose(sid, prm, c):
    if sid == RANDOM:
        return random_play.propose(prm, c.seen, c.rng, c.out)
    return heuristic.propose(prm, c.me, c.players, c.hand, c.seen, c.loc, c.pub, c.multi, c.mem, c.work, c.out)


@njit(refcount=False)
def infer_contre(sid, prm, c):
    if sid == RANDOM:
        return -1
    return heuristic.infer_contre(prm, c.me, c.players, c.hand, c.loc, c.pub, c.silence, c.work)


@njit(refcount=False)
def sign(sid, prm, c):
    return True  # every family signs at each chance the model gives (sigma)


@njit(refcount=False)
def call(sid, prm, c):
    return True  # every family calls on each partner's sign it sees


@njit(refcount=False)
def contre(sid, prm, c):
    return contre_on_sign(prm, c.can_call, c.rng)  # every family: with probability contre_prob


BUILTIN = {"propose": propose, "infer_contre": infer_contre, "sign": sign, "call": call, "contre": contre}
"""Each decision's dispatch, by its name in the contract."""
