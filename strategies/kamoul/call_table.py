"""``call-table``: the heuristic player with the call rule Study 1 derives (``cardsim study kamoul-call``).

It plays every move like ``heuristic`` except the decision to call: it calls KAMOUL when the points of the own
cards it knows are at most ``call_known_<u>``, ``u`` being how many own cards it has not seen (3 or more share
``call_known_3``; ``-1`` = never with that many unseen cards), or au score as ``heuristic`` does. The defaults
are the policy the study derived from ``balanced`` play with the default rules, the same at 2, 3, 4 and 6
players: call on a fully known layout of at most 5 points, never with an unseen card (see docs/studies.md).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.params import Param, ParamSet
from simulator.kamoul.vocabulary.codes import ACT_CALL, ACT_CONTRE, CALL_MAX, is_au_score
from simulator.kamoul.vocabulary.views import OWN, own_summary, summary_estimate, summary_worst
from strategies.kamoul import heuristic
from strategies.kamoul.heuristic import H

MAX_UNSEEN_COLUMN = 3

PARAMS = ParamSet(tuple(p for p in heuristic.PARAMS.params) + tuple(
    Param(f"call_known_{u}", "int", CALL_MAX if u == 0 else -1,
          f"call when the known own cards total at most this with {u}{'+' if u == MAX_UNSEEN_COLUMN else ''} unseen "
          "own card(s) (-1: never)", -1, int(heuristic.MAX_THRESHOLD))
    for u in range(MAX_UNSEEN_COLUMN + 1)), what="parameter")
"""``heuristic``'s parameters and the table; ``call_threshold`` is not used, ``max_unknown_at_call`` only bounds
CONTRE, which follows ``heuristic``."""
CT = indices("CallTableParams", PARAMS.names())
"""Parameter positions (``prm[CT.call_known_0]``; the heuristic's come first, so ``H`` positions hold too)."""

SNAPS_ON_BELIEF = heuristic.SNAPS_ON_BELIEF
"""Its snap is the heuristic's (``strategies.kamoul.dispatch``), and so is that promise."""


def table_text(thresholds) -> str:
    """The strategy text (``call-table:call_known_0=…,…``) of a threshold table ``{unseen: max known points}``."""
    return "call-table:" + ",".join(f"call_known_{u}={int(thresholds.get(u, -1))}" for u in range(MAX_UNSEEN_COLUMN + 1))


@njit(inline="llvm")
def turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    """The turn's action from the player's view (what a strategy file calls): :func:`turn_on` of its summary."""
    return turn_on(prm, own_summary(me, know_me, occ, nslots), top, can_call, can_contre, can_take, cum_me, au_ge)


@njit(inline="llvm")
def turn_on(prm, own, top, can_call, can_contre, can_take, cum_me, au_ge):
    """K4/K8/K9 from the own layout's summary ``own``: KAMOUL by the table, CONTRE and the rest as heuristic."""
    est, unknown = summary_estimate(own, prm[H.unknown_value])
    slot, worst = summary_worst(own, prm[H.unknown_value])
    known = own[OWN.known_points]
    limit = prm[CT.call_known_0 + min(unknown, MAX_UNSEEN_COLUMN)]
    au = prm[H.au_score] != 0 and unknown == 0 and is_au_score(int(est), cum_me, au_ge)
    if can_contre and ((unknown <= prm[H.max_unknown_at_call] and est <= prm[H.contre_threshold]) or au):
        return ACT_CONTRE
    if can_call and ((limit >= 0 and known <= limit) or au):
        return ACT_CALL
    return heuristic.draw_or_take(prm, top, can_take, slot, worst)
