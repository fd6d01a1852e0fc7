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

from simulator.core.kernels.jit import njit
from simulator.core.kernels.rng import NEVER
from simulator.core.params import ParamSet
from simulator.kems.vocabulary.codes import EMPTY, LOC_UNKNOWN
from simulator.kems.vocabulary.views import (
    N_RANKS, PUB_KNOWN, PUB_N_KNOWN, PUB_UNKNOWN, W_AVAIL, W_CNT, W_RIVAL, W_TAB, rank_tables, team,
)
from strategies.kems.common import COMMON, P_FIRST_OWN, param

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


@njit(refcount=False, inline="always")
def _falling(n, m):
    """``n (n - 1) … (n - m + 1)``, an exact integer (0 when ``n < m``)."""
    f = 1
    for i in range(m):
        if n - i <= 0:
            return 0
        f *= n - i
    return f


@njit(refcount=False, inline="always")
def _with_silence(pj, s, w):
    """``pj`` with its odds multiplied by ``e^(s·w)`` (``w = -log(1 - silence_rate)``): stopping is evidence."""
    if pj <= 0.0 or pj >= 1.0 or w <= 0.0:
        return pj
    x = s * w
    if x > 700.0:
        return 1.0
    odds = pj / (1.0 - pj) * np.exp(x)
    return odds / (1.0 + odds)


@njit(refcount=False)
def _unplaced(hand, loc, pub, work):
    """``work[0:13]``: copies of each rank the player cannot place (neither public nor its own); returns
    ``(cards it cannot place, Σ over ranks of u(u-1)(u-2)(u-3))``."""
    for r in range(N_RANKS):
        work[r] = pub[PUB_UNKNOWN + r]
    for k in range(4):
        if loc[hand[k]] == LOC_UNKNOWN:
            work[hand[k] % N_RANKS] -= 1
    unknown = 0
    any_four = 0
    for r in range(N_RANKS):
        unknown += work[r]
        any_four += _falling(work[r], 4)
    return unknown, any_four


@njit(refcount=False)
def _base_chance(j, pub, work, unknown, any_four):
    """Opponent ``j``'s chance of four of a kind from public knowledge alone (before the silence odds)."""
    k = pub[PUB_N_KNOWN + j]
    if k == 0:
        den = _falling(unknown, 4)
        return any_four / den if den > 0 else 0.0
    rank = -1
    for r in range(N_RANKS):
        if pub[PUB_KNOWN + j * N_RANKS + r] > 0:
            rank = r
            break
    if pub[PUB_KNOWN + j * N_RANKS + rank] != k or k > 4:
        return 0.0  # its known cards mix ranks
    den = _falling(unknown, 4 - k)
    return _falling(work[rank], 4 - k) / den if den > 0 else 0.0


@njit(refcount=False)
def infer_contre(prm, me, players, hand, loc, pub, silence, work):
    """The opponent to accuse (the likeliest member of the likeliest team), or -1 below ``contre_threshold``.

    Each opponent's chance: 0 if its known cards mix ranks; else the hypergeometric chance that its ``m``
    unknown cards all come from the ``u`` copies of its rank that the player cannot place, out of the ``U``
    cards it cannot place, ``u(u-1)…/U(U-1)…`` (no known card: the sum over ranks); then the silence odds."""
    theta = prm[H_THETA]
    if theta > 1.0:
        return -1
    unknown, any_four = _unplaced(hand, loc, pub, work)
    w = -np.log1p(-prm[H_SILENCE])
    my_team = team(me, players)
    best_team_p = -1.0
    best_j = -1
    for tm in range(players // 2):
        if tm == my_team:
            continue
        miss = 1.0
        top_p = -1.0
        top_j = -1
        for j in range(tm, players, players // 2):
            pj = _with_silence(_base_chance(j, pub, work, unknown, any_four), silence[j], w)
            miss *= 1.0 - pj
            if pj > top_p:
                top_p, top_j = pj, j
        if 1.0 - miss > best_team_p:
            best_team_p, best_j = 1.0 - miss, top_j
    if best_team_p >= theta:
        return best_j
    return -1


@njit(refcount=False)
def contre_horizon(prm, me, players, hand, loc, pub, last_swap, work):
    """The fewest open-exchange ticks (the count ``silence`` is measured on) before which :func:`infer_contre`
    surely returns -1 while public knowledge stays as it is; ``NEVER`` if it cannot call until then.

    A team's chance is at most the sum of its members' chances, each at most its odds
    ``odds0_j · e^(w (t - last_swap_j)) <= odds0_j · e^(w (t - oldest))`` (``oldest``: the earliest last exchange
    among opponents with a chance); below ``θ`` for the sum over every opponent, no team reaches ``θ``.
    Engines may skip ``infer_contre`` before the horizon (the result is the same, only cheaper)."""
    theta = prm[H_THETA]
    if theta > 1.0:
        return NEVER
    unknown, any_four = _unplaced(hand, loc, pub, work)
    w = -np.log1p(-prm[H_SILENCE])
    my_team = team(me, players)
    total = 0.0
    oldest = NEVER
    for j in range(players):
        if team(j, players) == my_team:
            continue
        pj = _base_chance(j, pub, work, unknown, any_four)
        if pj >= 1.0:
            return 0
        if pj > 0.0:
            total += pj / (1.0 - pj)
            oldest = min(oldest, last_swap[j])
    bound = theta * (1.0 - 1e-9)
    if total <= 0.0:
        return NEVER
    if w <= 0.0:
        return NEVER if total < bound else 0
    # every opponent's silence is at most that of the one silent longest: t - oldest
    x = np.log(bound / total) / w + oldest
    if x > 1e15:
        return NEVER
    return np.int64(np.ceil(x)) - 2
