"""``heuristic``: a memory-based player, the family behind the ``cautious``/``balanced``/``aggressive`` presets.

It values its layout from memory (an unknown card counts ``unknown_value``), replaces its worst card
with a better one from the stock or the discard, spends powers to learn its own unknown cards, spy on
opponents and push its high cards onto them, snaps the cards it knows match, and calls KAMOUL when its
estimate falls to ``call_threshold`` with at most ``max_unknown_at_call`` cards it has not seen.

A J/Q (1 point) or a red king (0) drawn from the stock is cheap to keep, so by default it is kept and its power
never fires; ``jq_power`` and ``red_king_power`` make the player discard it for its power instead (K5), when the
power has a use (the same targets ``power`` would pick), so that a study can value those powers.

Its memory is imperfect in two ways, both applied by the engines at the start of each own turn
(docs/rules/kamoul.md, "Memory model"): ``forget`` erases a remembered card, ``memory_noise`` replaces its
remembered rank by a wrong one (INTERPRETATION §4). Every decision reads the belief, right or wrong, so a
misremembered card can be snapped on a discard it does not match (K6, +1 card by K13) or make a call false (K12).
"""

from __future__ import annotations

from simulator.core.kernels.jit import njit
from simulator.core.kernels.named import indices
from simulator.core.kernels.rng import uniform
from simulator.core.params import Param, ParamSet
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, ACT_TAKE, BLACK_KING_VALUE, POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN,
    POWER_SWAP, RED_KING_VALUE, SNAP_NONE, SNAP_OTHER, SNAP_OWN, is_au_score,
)
from simulator.kamoul.vocabulary.legal import swappable
from simulator.kamoul.vocabulary.views import (  # noqa: F401  (re-exported: strategy files read them here)
    card_value, own_summary, summary_estimate, summary_worst, worst_own_slot,
)

MAX_CARD_VALUE = float(BLACK_KING_VALUE)  # parameter bound: the highest card value (K1)
MAX_THRESHOLD = 2 * MAX_CARD_VALUE  # parameter bound of the call and contre thresholds

PARAMS = ParamSet((
    Param("call_threshold", "float", 3.0, "call KAMOUL when the own estimate is at most this", 0.0, MAX_THRESHOLD),
    Param("unknown_value", "float", 5.0, "points assumed for an own card never seen", 0.0, MAX_CARD_VALUE),
    Param("max_unknown_at_call", "int", 1, "never call with more unseen own cards than this", 0, 8),
    Param("take_discard_max", "float", 3.0, "take the top discard when it is worth at most this and beats the worst own card", 0.0, MAX_CARD_VALUE),
    Param("keep_max", "float", 5.0, "keep a drawn card worth at most this when it beats the worst own card", 0.0, MAX_CARD_VALUE),
    Param("peek_own", "float", 1.0, "probability of using a 7/8 on an unseen own card", 0.0, 1.0),
    Param("peek_opponent", "float", 1.0, "probability of using a 9/10 on an unseen opponent card", 0.0, 1.0),
    Param("swap", "float", 1.0, "probability of using a J/Q to push a high own card onto an opponent", 0.0, 1.0),
    Param("swap_min_value", "float", 6.0, "own card value from which a J/Q blind swap is worth it", 0.0, MAX_CARD_VALUE),
    Param("king", "float", 1.0, "probability of using a king to look at two cards and swap if it gains", 0.0, 1.0),
    Param("contre_threshold", "float", 2.0, "in the final round, CONTRE when the own estimate is at most this", 0.0, MAX_THRESHOLD),
    Param("snap", "float", 1.0, "probability of snapping an own card it knows matches the discard", 0.0, 1.0),
    Param("forget", "float", 0.0, "probability, per own turn, of forgetting each remembered card", 0.0, 1.0, ability=True),
    Param("memory_noise", "float", 0.0, "probability, per own turn, of misremembering the rank of each remembered "
          "card (it may then snap a wrong card: +1 card)", 0.0, 1.0, rule="K13", ability=True),
    Param("au_score", "bool", True, "call KAMOUL au score when the whole layout is known to match"),
    Param("speed", "float", 1.0, "reaction rate in snap races (race_policy=speed_weighted)", 0.01, 100.0, ability=True),
    Param("jq_power", "float", 0.0, "probability of discarding a drawn J/Q for its blind swap instead of keeping it "
          "(1 point), when the swap would fire", 0.0, 1.0, rule="K5"),
    Param("red_king_power", "float", 0.0, "probability of discarding a drawn red king for its look-and-swap instead "
          "of keeping it (0 points), when it has cards to look at", 0.0, 1.0, rule="K5"),
), what="parameter")
H = indices("HeuristicParams", PARAMS.names())
"""The position of each parameter in the strategy's ``prm`` array (``prm[H.call_threshold]``), from ``PARAMS``."""

SNAPS_ON_BELIEF = True
""":func:`snap` without ``snap_others`` answers ``SNAP_NONE``, drawing nothing, when no own card is believed to
match: the engine may skip asking (``simulator.kamoul.engines.beliefs``; ``tests/test_kamoul_snap_index.py`` holds it to
this)."""


@njit(inline="llvm")
def peeks(prm, me, n, occ, nslots, out):
    k = 0
    for s in range(nslots[me]):
        if k < n and occ[me, s]:
            out[k] = s
            k += 1
    return k


@njit(inline="llvm")
def turn(prm, me, know_me, occ, nslots, top, can_call, can_contre, can_take, cum_me, au_ge, rng):
    """The turn's action from the player's view (what a strategy file calls): :func:`turn_on` of its summary."""
    return turn_on(prm, own_summary(me, know_me, occ, nslots), top, can_call, can_contre, can_take, cum_me, au_ge)


@njit(inline="llvm")
def turn_on(prm, own, top, can_call, can_contre, can_take, cum_me, au_ge):
    """K4/K8/K9 from the own layout's summary ``own`` (``views.own_summary``): CONTRE or KAMOUL when the estimate
    is low enough with few enough unseen cards, or au score; else draw or take."""
    est, unknown = summary_estimate(own, prm[H.unknown_value])
    slot, worst = summary_worst(own, prm[H.unknown_value])
    sure = unknown <= prm[H.max_unknown_at_call]
    au = prm[H.au_score] != 0 and unknown == 0 and is_au_score(int(est), cum_me, au_ge)
    if can_contre and ((sure and est <= prm[H.contre_threshold]) or au):
        return ACT_CONTRE
    if can_call and ((sure and est <= prm[H.call_threshold]) or au):
        return ACT_CALL
    return draw_or_take(prm, top, can_take, slot, worst)


@njit(inline="llvm")
def draw_or_take(prm, top, can_take, slot, worst):
    """K4(c)/(d): take the top discard when it is cheap and beats the worst own card (``slot``, believed
    ``worst``), else draw from the stock."""
    if can_take and top >= 0:
        v = card_value(top)
        if slot >= 0 and v <= prm[H.take_discard_max] and v < worst:
            return ACT_TAKE
    return ACT_STOCK


@njit(inline="llvm")
def take_slot(prm, me, know_me, occ, nslots):
    """K4(d): the own card believed worst (what a strategy file calls)."""
    return summary_worst(own_summary(me, know_me, occ, nslots), prm[H.unknown_value])[0]


@njit(inline="llvm")
def keep_or_spend(prm, me, drawn, kind, own, know_me, occ, nslots, faceup, rng):
    """K4(c)/K5: -1 to discard the drawn card for its power (``kind``, under the rules) when ``jq_power`` or
    ``red_king_power`` says so and the power has a use; else :func:`keep_on`'s answer (``own``: the summary)."""
    if kind == POWER_SWAP and prm[H.jq_power] > 0.0:
        _, p, _ = _swap_plan(prm, me, occ.shape[0], know_me, occ, nslots, faceup, -1)
        if p >= 0 and _chance(prm[H.jq_power], rng):
            return -1
    elif kind == POWER_KING and prm[H.red_king_power] > 0.0 and card_value(drawn) == RED_KING_VALUE:
        a, p, _ = _king_plan(prm, me, occ.shape[0], know_me, occ, nslots, faceup, -1)
        if a >= 0 and p >= 0 and _chance(prm[H.red_king_power], rng):
            return -1
    return keep_on(prm, drawn, own)


@njit(inline="llvm")
def keep(prm, me, drawn, know_me, occ, nslots):
    """K4(c) from the player's view (what a strategy file calls): :func:`keep_on` of its summary."""
    return keep_on(prm, drawn, own_summary(me, know_me, occ, nslots))


@njit(inline="llvm")
def keep_on(prm, drawn, own):
    """K4(c): the own position (its worst) the drawn card replaces when it is cheap and better, else -1."""
    slot, worst = summary_worst(own, prm[H.unknown_value])
    v = card_value(drawn)
    if slot >= 0 and v <= prm[H.keep_max] and v < worst:
        return slot
    return -1


@njit(inline="llvm")
def _first_unknown(p, know_me, occ, nslots, faceup):
    for s in range(nslots[p]):
        if occ[p, s] and faceup[p, s] == 0 and know_me[p, s] < 0:
            return s
    return -1


@njit(inline="llvm")
def _lowest_known_opponent(me, P, know_me, occ, nslots, faceup, locked):
    """``(player, slot, value)`` of the lowest card it knows in a swappable opponent slot."""
    bp, bs, bv = -1, -1, 99
    for k in range(1, P):
        p = me + k if me + k < P else me + k - P
        for s in range(nslots[p]):
            c = know_me[p, s]
            if c >= 0 and swappable(p, s, occ, faceup, locked) and card_value(c) < bv:
                bp, bs, bv = p, s, card_value(c)
    return bp, bs, bv


@njit(inline="llvm")
def _first_unknown_opponent(me, P, know_me, occ, nslots, faceup, locked):
    for k in range(1, P):
        p = me + k if me + k < P else me + k - P
        if p == locked:
            continue
        s = _first_unknown(p, know_me, occ, nslots, faceup)
        if s >= 0:
            return p, s
    return -1, -1


@njit(inline="llvm")
def power(prm, me, P, kind, know_me, occ, nslots, faceup, locked, rng, out):
    """Fill ``out`` = (p1, s1, p2, s2) and return True to use the power of ``kind``."""
    if kind == POWER_PEEK_OWN:
        s = _first_unknown(me, know_me, occ, nslots, faceup)
        if s < 0 or (prm[H.peek_own] < 1.0 and uniform(rng) >= prm[H.peek_own]):
            return False
        out[0] = me
        out[1] = s
        return True
    if kind == POWER_PEEK_OPP:
        p, s = _first_unknown_opponent(me, P, know_me, occ, nslots, faceup, -1)
        if p < 0 or (prm[H.peek_opponent] < 1.0 and uniform(rng) >= prm[H.peek_opponent]):
            return False
        out[0] = p
        out[1] = s
        return True
    if me == locked:
        return False
    if kind == POWER_SWAP:
        ws, p, s = _swap_plan(prm, me, P, know_me, occ, nslots, faceup, locked)
        if p < 0 or (prm[H.swap] < 1.0 and uniform(rng) >= prm[H.swap]):
            return False
        out[0] = me
        out[1] = ws
        out[2] = p
        out[3] = s
        return True
    if kind == POWER_KING:
        a, p, s = _king_plan(prm, me, P, know_me, occ, nslots, faceup, locked)
        if a < 0:
            return False
        if p < 0 or (prm[H.king] < 1.0 and uniform(rng) >= prm[H.king]):
            return False
        out[0] = me
        out[1] = a
        out[2] = p
        out[3] = s
        return True
    return False


@njit(inline="llvm")
def _chance(probability, rng):
    """True with ``probability`` (no draw from ``rng`` when it is 1)."""
    return probability >= 1.0 or uniform(rng) < probability


@njit(inline="llvm")
def _swap_plan(prm, me, P, know_me, occ, nslots, faceup, locked):
    """A J/Q blind swap's targets ``(own slot, player, slot)``: the worst *known* own card, if worth at least
    ``swap_min_value``, onto an opponent's known lower card, else onto an unseen one if it is worth more than
    ``unknown_value``; player ``-1`` when there is none."""
    ws, wv = -1, -1.0
    for s in range(nslots[me]):
        c = know_me[me, s]
        if c >= 0 and swappable(me, s, occ, faceup, locked) and card_value(c) > wv:
            ws, wv = s, float(card_value(c))
    if ws < 0 or wv < prm[H.swap_min_value]:
        return ws, -1, -1
    p, s, v = _lowest_known_opponent(me, P, know_me, occ, nslots, faceup, locked)
    if p < 0 or v >= wv:
        p, s = _first_unknown_opponent(me, P, know_me, occ, nslots, faceup, locked)
        if p < 0 or wv <= prm[H.unknown_value]:
            return ws, -1, -1
    return ws, p, s


@njit(inline="llvm")
def _king_plan(prm, me, P, know_me, occ, nslots, faceup, locked):
    """A king's look-and-swap targets ``(own slot, player, slot)``: an unseen own card (else the worst own one) and
    an opponent's lowest known card (else an unseen one); own slot ``-1`` or player ``-1`` when there is none."""
    a = _first_unknown(me, know_me, occ, nslots, faceup)
    if a < 0:
        a, _ = worst_own_slot(me, know_me, occ, nslots, prm[H.unknown_value])
        if a >= 0 and not swappable(me, a, occ, faceup, locked):
            a = -1
    if a < 0:
        return a, -1, -1
    p, s, v = _lowest_known_opponent(me, P, know_me, occ, nslots, faceup, locked)
    if p < 0:
        p, s = _first_unknown_opponent(me, P, know_me, occ, nslots, faceup, locked)
    return a, p, s


@njit(inline="llvm")
def king_swap(prm, me, pa, ca, pb, cb):
    """After looking at ``ca`` (player ``pa``) and ``cb`` (player ``pb``): swap when it lowers the own layout."""
    if pa == me and pb != me:
        return card_value(cb) < card_value(ca)
    if pb == me and pa != me:
        return card_value(ca) < card_value(cb)
    return False


@njit(inline="llvm")
def snap(prm, me, P, top_rank, know_me, occ, nslots, faceup, allow_others, locked, rng, out):
    """``SNAP_OWN`` with out = (count, slots…), ``SNAP_OTHER`` with out = (player, slot, give_slot), or ``SNAP_NONE``."""
    n = 0
    for s in range(nslots[me]):  # branch-free: out[n + 1] is overwritten until a match keeps it
        c = know_me[me, s]
        out[n + 1] = s
        n += (occ[me, s] != 0) & (faceup[me, s] == 0) & (c >= 0) & (c % 13 == top_rank)
    if n > 0:
        if prm[H.snap] < 1.0 and uniform(rng) >= prm[H.snap]:
            return SNAP_NONE
        out[0] = n
        return SNAP_OWN
    if not allow_others:
        return SNAP_NONE
    give, wv = worst_own_slot(me, know_me, occ, nslots, prm[H.unknown_value])
    if give < 0:
        return SNAP_NONE
    for k in range(1, P):
        p = me + k if me + k < P else me + k - P
        if p == locked:
            continue
        for s in range(nslots[p]):
            c = know_me[p, s]
            if occ[p, s] and faceup[p, s] == 0 and c >= 0 and c % 13 == top_rank:
                if prm[H.snap] < 1.0 and uniform(rng) >= prm[H.snap]:
                    return SNAP_NONE
                out[0] = p
                out[1] = s
                out[2] = give
                return SNAP_OTHER
    return SNAP_NONE
