"""``random``: random legal exchanges; signals only a real four of a kind; calls on a sign it sees.

At each of its moves (Poisson times at rate λ, §3.2) it passes with probability ``pass_prob``, otherwise it
gives a uniformly chosen card of its hand for a uniformly chosen card of the centre as it sees it. It never
infers a contre from the exchanges (its only contres are on a sign seen, with probability ``contre_prob``,
and the false alarms of the model).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import below, uniform
from simulator.core.params import ParamSet
from simulator.kems.vocabulary.codes import EMPTY
from strategies.kems.common import COMMON, P_FIRST_OWN, param

P_PASS = P_FIRST_OWN
PARAMS = ParamSet(COMMON + (
    param("pass_prob", "float", 0.5, "probability of passing at a move", 0.0, 1.0),
), what="parameter")


@njit(refcount=False)
def propose(prm, seen, rng, out):
    """One random pair ``out[0] = (hand slot, centre slot)``; returns 1, or 0 to pass (draws: pass, slot, slot)."""
    if uniform(rng) < prm[P_PASS]:
        return 0
    n = 0
    for k in range(4):
        if seen[k] != EMPTY:
            n += 1
    if n == 0:
        return 0
    give = below(rng, 4)
    pick = below(rng, n)
    for k in range(4):
        if seen[k] != EMPTY:
            if pick == 0:
                out[0, 0] = give
                out[0, 1] = k
                return 1
            pick -= 1
    return 0
