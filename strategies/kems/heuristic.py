"""The ``heuristic`` family: collect one rank, block opponents, signal, watch, and contre by inference.

Exchanges (at each of its moves, on the centre as it perceives it):

* **which rank**: the rank maximising own copies + ½ · copies in the centre that it could use, among ranks
  still possible (own copies + copies not known to be in another hand or in the hidden discard ≥ 4); it keeps
  its current rank unless another scores ``switch_margin`` more (or its own becomes impossible);
* holding four of a kind it stops exchanging (and signals, at the common ``sigma``/``visibility``);
* it takes a centre card of its rank, giving the card it is least invested in, avoiding ranks an opponent is
  known to collect (it does not feed them); with ``multi_swap`` it takes every useful card at once;
* **blocking** (``block_known`` > 0): with nothing to take, it takes a centre card of a rank an opponent is
  known to hold ``block_known`` copies of;
* **inference contre** (KM10, §3.2): at each move it estimates, from public knowledge only, each opponent's
  chance of holding four of a kind: 0 if its known cards mix ranks, else the hypergeometric chance that its
  unknown cards complete the rank, from the copies it cannot place; the odds are multiplied by
  ``1 / (1 - silence_rate)^s`` for an opponent who has not exchanged for ``s`` ticks (stopping is evidence).
  It calls when a team's chance reaches ``contre_threshold`` (above 1: never).
"""

from __future__ import annotations

import numpy as np

from simulator.core.jit import njit
from simulator.core.params import ParamSet
from simulator.kems.codes import EMPTY, LOC_UNKNOWN
from strategies.kems.common import COMMON, P_FIRST_OWN, param
from strategies.kems.views import (
    N_RANKS, PUB_KNOWN, PUB_N_KNOWN, PUB_UNKNOWN, W_AVAIL, W_CNT, W_RIVAL, W_TAB, own_unplaced, rank_tables, team,
)

H_SWITCH, H_BLOCK, H_THETA, H_SILENCE = range(P_FIRST_OWN, P_FIRST_OWN + 4)
PARAMS = ParamSet(COMMON + (
    param("switch_margin", "float", 1.0, "switch to another rank when it scores this much more than the current one", 0.0, 4.0),
    param("block_known", "int", 0, "take a centre card of a rank an opponent is known to hold this many of (0 = never block)", 0, 3),
    param("contre_threshold", "float", 0.7, "θ: call contre when an opposing team's inferred chance of four of a kind reaches this (above 1 = never)", 0.0, 2.0),
    param("silence_rate", "float", 0.03, "assumed per-tick exchange chance of a player without four of a kind (weighs silence as evidence; 0 = ignore)", 0.0, 0.99),
), what="parameter")

M_TARGET = 0
W_USED = 60   # four flags in ``work``: hand slots already given in this move


@njit(refcount=False, inline="always")
def _score(work, r):
    """Twice the rank score (integers): 2·own + min(centre, 4 − own); -1 for an impossible rank."""
    own = work[W_CNT + r]
    if own + work[W_AVAIL + r] < 4:
        return -1
    take = work[W_TAB + r]
    if take > 4 - own:
        take = 4 - own
    return 2 * own + take


@njit(refcount=False)
def choose_target(prm, work, mem):
    """The rank to collect (kept in ``mem[M_TARGET]``), or -1 if none is possible."""
    best = -1
    best_s = -1
    for r in range(N_RANKS):
        s = _score(work, r)
        if s > best_s and (work[W_CNT + r] > 0 or work[W_TAB + r] > 0):
            best, best_s = r, s
    t = mem[M_TARGET]
    if t < 0 or _score(work, t) < 0 or best_s >= _score(work, t) + 2.0 * prm[H_SWITCH]:
        t = best
    mem[M_TARGET] = t
    return t


@njit(refcount=False, inline="always")
def _give_key(work, r):
    fed = work[W_RIVAL + r]
    return (64 if fed >= 2 else 0) + 8 * work[W_CNT + r] + fed


@njit(refcount=False)
def _best_give(hand, work, avoid1, avoid2):
    """The hand slot to give (not of rank ``avoid1``/``avoid2``, not flagged used in ``work[W_USED + k]``), or -1."""
    best = -1
    best_k = 1 << 30
    for k in range(4):
        r = hand[k] % N_RANKS
        if r == avoid1 or r == avoid2 or work[W_USED + k]:
            continue
        key = _give_key(work, r)
        if key < best_k:
            best, best_k = k, key
    return best


@njit(refcount=False)
def propose(prm, me, players, hand, seen, loc, pub, multi, mem, work, out):
    """Pairs ``out[i] = (hand slot, centre slot)``; returns how many (0 = pass)."""
    rank_tables(me, players, hand, seen, loc, pub, work)
    t = choose_target(prm, work, mem)
    if t >= 0 and work[W_CNT + t] == 4:
        return 0
    for k in range(4):
        work[W_USED + k] = 0
    n = 0
    if t >= 0:
        for k in range(4):
            if seen[k] != EMPTY and seen[k] % N_RANKS == t and (n == 0 or multi):
                give = _best_give(hand, work, t, -1)
                if give < 0:
                    break
                work[W_USED + give] = 1
                out[n, 0] = give
                out[n, 1] = k
                n += 1
    if n > 0 or prm[H_BLOCK] <= 0:
        return n
    for k in range(4):
        if seen[k] == EMPTY:
            continue
        r = seen[k] % N_RANKS
        if r != t and work[W_RIVAL + r] >= prm[H_BLOCK]:
            give = _best_give(hand, work, t, r)
            if give >= 0:
                out[0, 0] = give
                out[0, 1] = k
                return 1
    return 0


@njit(refcount=False)
def _complete_chance(avail, unknown, missing):
    """Hypergeometric: all ``missing`` unknown cards among the ``avail`` copies out of ``unknown`` cards."""
    if missing <= 0:
        return 1.0
    p = 1.0
    for i in range(missing):
        if avail - i <= 0 or unknown - i <= 0:
            return 0.0
        p *= (avail - i) / (unknown - i)
    return p


@njit(refcount=False)
def infer_contre(prm, me, players, hand, loc, pub, silence, work):
    """The opponent to accuse (the likeliest member of the likeliest team), or -1 below ``contre_threshold``.

    ``work[0:13]``: copies of each rank it cannot place (neither public nor its own)."""
    theta = prm[H_THETA]
    if theta > 1.0:
        return -1
    unknown = 0
    for r in range(N_RANKS):
        work[r] = pub[PUB_UNKNOWN + r]
    for k in range(4):
        if loc[hand[k]] == LOC_UNKNOWN:
            work[hand[k] % N_RANKS] -= 1
    for r in range(N_RANKS):
        unknown += work[r]
    my_team = team(me, players)
    q = prm[H_SILENCE]
    best_team_p = -1.0
    best_j = -1
    for tm in range(players // 2):
        if tm == my_team:
            continue
        miss = 1.0
        top_p = -1.0
        top_j = -1
        for j in range(tm, players, players // 2):
            k = pub[PUB_N_KNOWN + j]
            if k > 0:
                rank = -1
                for r in range(N_RANKS):
                    if pub[PUB_KNOWN + j * N_RANKS + r] > 0:
                        rank = r
                        break
                if pub[PUB_KNOWN + j * N_RANKS + rank] != k or k > 4:
                    pj = 0.0  # its known cards mix ranks
                else:
                    pj = _complete_chance(work[rank], unknown, 4 - k)
            else:
                pj = 0.0
                for r in range(N_RANKS):
                    pj += _complete_chance(work[r], unknown, 4)
            if 0.0 < pj < 1.0 and q > 0.0:
                log_odds = np.log(pj / (1.0 - pj)) - silence[j] * np.log1p(-q)
                pj = 1.0 / (1.0 + np.exp(-log_odds))
            miss *= 1.0 - pj
            if pj > top_p:
                top_p, top_j = pj, j
        if 1.0 - miss > best_team_p:
            best_team_p, best_j = 1.0 - miss, top_j
    if best_team_p >= theta:
        return best_j
    return -1
