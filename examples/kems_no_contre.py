"""A Kem's player that never calls contre, neither by inference (KM10) nor on an opponent's sign it sees, so it
never risks a wrong contre's ban (KM11); it exchanges, signs and calls Kem's as ``balanced`` does.

    cardsim tournament kems -n 4000 --strategy examples/kems_no_contre.py:no-contre --strategy balanced \\
        --out runs/no-contre

The decisions are numba functions, so it runs in the compiled engine (each compiled for its decision's signature
the first time, in seconds, then loaded from the cache until this file changes).
"""

from numba import njit

from simulator.core.contract.user_strategies import strategy
from strategies.kems import heuristic

PARAMS = heuristic.PARAMS  # the common parameters first (the model reads them), balanced's values


@njit
def propose(prm, view, seen, loc, pub, multi, mem, work, out, rng):
    return heuristic.propose(prm, view.me, view.players, view.hand, seen, loc, pub, multi, mem, work, out)


@njit
def infer_contre(prm, view, loc, pub, silence, work):
    return -1


@njit
def sign(prm, view, rng):
    return True


@njit
def call(prm, view, signer, rng):
    return True


@njit
def contre(prm, view, signer, can_call, rng):
    return False


NO_CONTRE = strategy(
    game="kems", name="no-contre", params=PARAMS, doc="balanced's exchanges and signs, never calls contre",
    propose=propose, infer_contre=infer_contre, sign=sign, call=call, contre=contre,
)
