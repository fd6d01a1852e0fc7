"""``search``: a player that searches its turn over sampled worlds (issue 63; PIMC, Buro et al. 2009).

At each own turn with more than one legal action (K4, K8, K9) it deals ``worlds`` tables it cannot tell from the
real one (:mod:`simulator.kamoul.engines.worlds`), plays each action on every world to the end of the hand with
its base player at every seat, the same worlds and random numbers for every action, and takes the action whose
mean result is best (its own points of the hand, or with ``margin`` its points less the others' mean) when that
mean beats its base player's action by ``min_z`` standard errors of the paired differences over the worlds; else
it plays its base player's action (a few worlds' noise would otherwise outvote a good heuristic). The engines
do the searching (``simulator.kamoul.engines.turn_loop``, ``search_reference``): only they can play a hand on.
Every other decision is its base player's, the heuristic with the parameters below (by default ``tuned-4p``'s).
"""

from __future__ import annotations

import numpy as np

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.params import Param, ParamSet
from strategies.kamoul import heuristic

SEARCH_PARAMS = (
    Param("worlds", "int", 256, "worlds sampled at each searched turn (more: stronger and slower)", 1, 4096),
    Param("margin", "bool", False, "judge an action by its points less the others' mean (else its own points)"),
    Param("min_z", "float", 1.0, "play the base player's action unless another one's mean beats it by this many "
          "standard errors over the worlds (0: always the best mean)", 0.0, 10.0),
)


def params_over(base: ParamSet) -> ParamSet:
    """The family's parameters: the heuristic's with ``base``'s defaults (the base player), then the search's."""
    return ParamSet(tuple(base.params) + SEARCH_PARAMS, what="parameter")


PARAMS = params_over(heuristic.PARAMS)
S = indices("SearchParams", PARAMS.names())
"""Parameter positions (``prm[S.worlds]``; the heuristic's come first, so ``H`` positions hold too)."""

SNAPS_ON_BELIEF = heuristic.SNAPS_ON_BELIEF
"""Its snap is its base player's, the heuristic's, and so is that promise."""


@njit(inline="llvm")
def preferred(acts, n, base, totals, squares, worlds, min_z):
    """The index of the action taken: the lowest mean of the worlds' differences to the base player's action
    ``acts[base]`` (``totals``: their sums, ``squares``: their squares' sums, ``float64[n]``), if it is below zero
    by ``min_z`` standard errors; else ``base``. The first listed wins a tie."""
    best = base
    for i in range(n):
        if totals[i] < totals[best]:
            best = i
    if best == base or min_z <= 0:
        return best
    if worlds < 2:
        return base
    mean = totals[best] / worlds
    variance = (squares[best] - worlds * mean * mean) / (worlds - 1)
    return best if mean + min_z * np.sqrt(max(variance, 0.0) / worlds) < 0 else base
