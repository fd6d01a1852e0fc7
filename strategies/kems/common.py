"""The parameters every Kem's strategy declares, first and in this order, so the engines read them by index.

They are the behavioural settings of the §3.2 model: grab speed λ, sign emission rate σ and visibility v,
where attention goes (a_p on the partner, a_o on each opposing team; the rest watches the centre and scales
the grab rate, see :data:`simulator.kems.vocabulary.rules.ATTENTION_REF`), and the probability c of calling contre on a
sign seen.
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import uniform
from simulator.core.params import Param

P_SPEED, P_SIGMA, P_VISIBILITY, P_ATT_PARTNER, P_ATT_OPP, P_CONTRE_PROB = range(6)
P_FIRST_OWN = 6


def param(name, kind, default, doc, low=None, high=None, ability=False):
    return Param(name, kind, default, doc, low, high, ability=ability)


COMMON = (
    param("speed", "float", 2.0, "grab rate λ in exchanges per second at the reference table attention", 0.0, 20.0,
          ability=True),
    param("sigma", "float", 0.15, "σ: probability of making the team sign in each tick while holding four of a kind", 0.0, 1.0),
    param("visibility", "float", 0.8, "v: how visible the sign is, to the partner and (KM13: never 0) to opponents", 0.01, 1.0),
    param("attention_partner", "float", 0.4, "a_p: share of attention on the partner", 0.0, 1.0),
    param("attention_opponents", "float", 0.2, "a_o: share of attention on each opposing team", 0.0, 1.0),
    param("contre_prob", "float", 0.8, "c: probability of calling contre-kem's on an opponent's sign it sees", 0.0, 1.0),
)


@njit(refcount=False, inline="always")
def contre_on_sign(prm, can_call, rng):
    """KM10 on an opponent's sign seen: contre with probability ``contre_prob`` (one draw, made whether or not
    it can call)."""
    return uniform(rng) < prm[P_CONTRE_PROB] and can_call
