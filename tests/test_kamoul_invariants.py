"""Invariants of the Kamoul reference engine under random and heuristic play, and the deal's distribution.

* Card accounting: ``Hand.trace`` runs after every action; a wrapper checks there that the layouts,
  the stock and the discard pile hold exactly the ``52 × n_decks`` cards (only a card in a player's
  hand between a draw and its placement may be missing), that an empty position is empty for
  everyone, and (with ``swap_observed_prob = 1``) that no player remembers a wrong card, except a player with
  ``memory_noise``, and then only its rank (the suit is the card's).
* Every hand ends (within ``max_turns_per_hand`` turns) and its points follow K7–K14 for its outcome.
* The points of an initial 4-card hand follow the exact distribution over all C(52, 4) hands.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from kamoul_helpers import make_hand, seat
from simulator.core.kernels.rng import stream_state
from simulator.kamoul.engines.reference import Hand
from simulator.kamoul.vocabulary.codes import (
    CARD_VALUE, CLS_FALSE, CLS_NORMAL, EV_DEAL, EV_DISCARD, EV_DRAW, EV_KEEP, EV_MISREMEMBER, EV_PENALTY, EV_RESHUFFLE,
    EV_SNAP_BAD, EV_SNAP_OK, EV_SWAP, EV_TAKE, EV_ULTIME, OUT_AU_M31, OUT_AU_RESET, OUT_BEATEN, OUT_CONTRE_LOST,
    OUT_CONTRE_WON, OUT_FALSE, OUT_NO_CALL, OUT_NORMAL, OUT_ULTIME, PENALTY_OUT_OF_TURN, PENALTY_REORDER,
    PENALTY_STUCK,
)
from simulator.kamoul.vocabulary.contract import Me
from simulator.kamoul.vocabulary.rules import Rules
from strategies.kamoul import policy

SIGMAS = 4.0  # significance of the statistical checks (one test, pinned seeds: deterministic)


# ------------------------------------------------------------------------------------------ accounting
class Accountant:
    """Checks the table after every traced action of every :class:`Hand` (installed over ``Hand.trace``)."""

    def __init__(self):
        self.events: Counter = Counter()
        self.penalties: Counter = Counter()
        self.wrong_memories = 0

    def install(self, monkeypatch) -> "Accountant":
        original = Hand.trace
        acct = self

        def trace(h, ev, a=0, b=0, c=0):
            original(h, ev, a, b, c)
            acct.check(h, ev, a, b, c)

        monkeypatch.setattr(Hand, "trace", trace)
        return self

    @staticmethod
    def counts(h: Hand) -> np.ndarray:
        cards = np.concatenate([h.hand[h.occ == 1].astype(np.int64), np.asarray(h.stock, dtype=np.int64),
                                np.asarray(h.discard, dtype=np.int64)])
        return np.bincount(cards % 52, minlength=52)

    def check(self, h: Hand, ev, a, b, c) -> None:
        self.events[ev] += 1
        if ev == EV_PENALTY:
            self.penalties[c] += 1
        st = h.__dict__.setdefault("_acct", {"draw": None, "take": None})
        diff = h.r.n_decks - self.counts(h)  # > 0: missing, < 0: duplicated
        assert (diff >= 0).all(), f"event {ev}: cards duplicated {np.flatnonzero(diff < 0)}"
        missing = [int(x) for x in np.flatnonzero(diff) for _ in range(diff[x])]
        if ev == EV_DRAW:  # the drawn card is in the player's hand
            assert st["draw"] is None and missing == [b % 52]
            st["draw"] = b % 52
        elif ev == EV_PENALTY and c == PENALTY_STUCK:  # stuck cards come off while the drawn/taken card is held
            if st["draw"] is not None:
                assert missing == [st["draw"]]
            else:
                assert len(missing) == 1 and st["take"] in (None, missing[0])
                st["take"] = missing[0]
        else:
            assert missing == [], f"event {ev}: cards missing {missing}"
            if ev in (EV_KEEP, EV_DISCARD):
                assert st["draw"] is not None
                st["draw"] = None
            elif ev == EV_TAKE:
                assert st["take"] in (None, (c >> 8) % 52)
                st["take"] = None
            else:
                assert st["draw"] is None
        for p in range(h.P):
            n = int(h.nslots[p])
            assert (h.occ[p, n:] == 0).all()
            assert ((h.hand[p, :n] >= 0) == (h.occ[p, :n] == 1)).all()
            empty = h.occ[p, :n] == 0
            assert (h.know[:, p, :n][:, empty] == -1).all(), "someone remembers a card in an empty position"
        if h.r.swap_observed_prob >= 1.0:  # every memory is right, or (memory_noise) wrong about the rank only
            known = h.know >= 0
            truth = np.broadcast_to(h.hand[None, :, :], h.know.shape)
            wrong = known & (h.know != truth)
            exact = [o for o, s in enumerate(h.seats) if policy.ask("memory_noise", s, Me(o)) <= 0]
            assert not wrong[exact].any(), f"event {ev}: a player remembers a wrong card"
            assert (h.know[wrong] // 13 == truth[wrong] // 13).all(), f"event {ev}: a card misremembered in its suit"
            self.wrong_memories += int(wrong.sum())


# ------------------------------------------------------------------------------------------ scoring
def check_score(h: Hand, res, cum: list[int]) -> None:
    """The hand's points from its final layouts, by outcome (K7, K10–K12, K14)."""
    r, P = h.r, h.P
    totals = [h.total(p) for p in range(P)]
    contres = [q for q in range(P) if res.contre_mask >> q & 1]
    announcers = ([res.caller] if res.caller >= 0 else []) + contres
    pts, w, out = res.points, res.winner, res.outcome
    assert res.cum_after == [c + x for c, x in zip(cum, pts)]
    assert res.turns <= r.max_turns_per_hand

    def cls(q):
        return h.classify(q, cum[q])

    false = [a for a in announcers if cls(a) == CLS_FALSE and (r.contre_requires_valid or a == res.caller)]
    others = [q for q in range(P) if q != w and q not in announcers]
    loser = (lambda q: 0) if r.loser_announcer_scores == "zero" else (lambda q: totals[q])
    if out == OUT_NO_CALL:
        assert res.caller == -1 and w == -1 and pts == totals
    elif out == OUT_ULTIME:
        assert pts[w] == -15 and h.count(w) == 0
        assert all(pts[q] == (0 if r.ultime_others_score == "zero" else totals[q]) for q in range(P) if q != w)
    elif out == OUT_FALSE:
        assert false
        if r.false_call_mode == "sum":
            assert w == -1 and all(pts[q] == (sum(totals) if q in false else 0) for q in range(P))
        else:
            bonus = 10 if r.false_call_mode == "dutch" else 0
            assert all(pts[a] == totals[a] + bonus for a in false)
    else:
        assert not false and res.caller >= 0
        assert all(pts[q] == totals[q] for q in others)
        assert all(pts[a] == loser(a) for a in announcers if a != w)
        if out in (OUT_AU_RESET, OUT_AU_M31):
            assert w in announcers and cls(w) != CLS_NORMAL and cls(w) != CLS_FALSE
            assert res.cum_after[w] == (0 if out == OUT_AU_RESET else -31)
            assert (cum[w] >= 15) == (out == OUT_AU_RESET)
        else:
            assert pts[w] == -5 and totals[w] <= 5
            valid = [a for a in announcers if cls(a) == CLS_NORMAL]
            if r.implicit_contest:
                valid += [q for q in others if totals[q] <= 5]
            assert totals[w] == min(totals[a] for a in valid + [w])
            if out == OUT_NORMAL:
                assert w == res.caller and not contres
            elif out == OUT_CONTRE_LOST:
                assert w == res.caller and contres
            elif out == OUT_CONTRE_WON:
                assert w in contres
            else:
                assert out == OUT_BEATEN and r.implicit_contest and w not in announcers


# ------------------------------------------------------------------------------------------ random play
OPTION_SETS = {
    "default": ({}, 4, ()),
    "two decks": ({"n_decks": 2}, 8, ()),
    "snaps": ({"snap_others": True, "snap_chain": True, "race_policy": "uniform", "ultime_min_cards": 1}, 4,
              (EV_SNAP_OK, EV_SNAP_BAD)),
    "physical": ({"p_stick": 0.05, "p_out_of_turn": 0.02, "allow_reorder": True, "p_reorder": 0.05}, 4,
                 ("stuck", "out of turn", "reorder")),
    "end hand": ({"on_stock_empty": "end_hand", "hand_size": 6, "initial_peeks": 3}, 3, ()),
    "tamalou": ({"false_call_mode": "tamalou", "caller_immune": False, "swap_observed_prob": 0.5,
                 "discard_pick_face_up": True}, 4, (EV_SWAP,)),
    "dutch": ({"false_call_mode": "dutch", "implicit_contest": True, "contre_strictly_lower": True,
               "contre_requires_valid": False, "loser_announcer_scores": "hand"}, 5, ()),
    "scopes": ({"swap_scope": "own_vs_opponent", "king_power": "black_only", "snap_in_final_round": False,
                "au_score_30": "ge", "ultime_others_score": "zero", "min_turns_before_call": 2,
                "max_turns_per_hand": 40}, 3, ()),
}
STRATS = {"random": {"snap_prob": 0.5}, "balanced": {}, "aggressive": {"forget": 0.05},
          "heuristic": {"memory_noise": 0.1, "forget": 0.02}}
CUMS = (0, 20, -20, 15, -15, 7)


@pytest.mark.rule("K1")
@pytest.mark.parametrize("strategy", list(STRATS))
@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_cards_accounted_after_every_action_and_scores_follow_the_rules(monkeypatch, name, strategy):
    options, P, must_see = OPTION_SETS[name]
    acct = Accountant().install(monkeypatch)
    outcomes = Counter()
    n_hands = 40
    for i in range(n_hands):
        h = make_hand(P=P, seed=99, index=i, seats=[seat(strategy, **STRATS[strategy])] * P, **options)
        cum = [CUMS[(i + q) % len(CUMS)] for q in range(P)]
        res = h.play(i % P, cum)  # every hand ends
        assert acct.counts(h).tolist() == [h.r.n_decks] * 52
        check_score(h, res, cum)
        outcomes[res.outcome] += 1
    assert acct.events[EV_DEAL] == n_hands and acct.events[EV_DRAW] > 0
    assert acct.events[EV_RESHUFFLE] == 0 or options.get("on_stock_empty") != "end_hand"
    names = {"stuck": PENALTY_STUCK, "out of turn": PENALTY_OUT_OF_TURN, "reorder": PENALTY_REORDER}
    for what in must_see if strategy == "random" or name == "physical" else ():  # the heuristics never snap blind
        assert (acct.penalties[names[what]] if what in names else acct.events[what]) > 0, what
    if "memory_noise" in STRATS[strategy]:  # K13: misremembered cards are turned without a match
        assert acct.events[EV_MISREMEMBER] > 0 and acct.events[EV_SNAP_BAD] > 0
        assert acct.wrong_memories > 0 or h.r.swap_observed_prob < 1.0


@pytest.mark.rule("K14")
def test_long_hands_reshuffle_and_stay_accounted(monkeypatch):
    """Heuristic players that never call, snap or keep a card play to the turn cap: the stock is reshuffled."""
    never = dict(call_threshold=0.0, max_unknown_at_call=0, au_score=False, contre_threshold=0.0, keep_max=0.0,
                 take_discard_max=0.0, snap=0.0)
    acct = Accountant().install(monkeypatch)
    for i in range(4):
        h = make_hand(P=2, seed=5, index=i, seats=[seat("heuristic", **never)] * 2, max_turns_per_hand=200,
                      p_stick=0.02)
        cum = [0, 0]
        res = h.play(1, cum)
        check_score(h, res, cum)
        assert res.turns == 200 and res.outcome == OUT_NO_CALL
    assert acct.events[EV_RESHUFFLE] >= 4 and acct.penalties[PENALTY_STUCK] > 0


@pytest.mark.rule("K7")
def test_ultime_happens_in_random_play(monkeypatch):
    """ULTIME (K7) is reachable by ordinary play: a random snapper clears its last card with ultime_min_cards=1."""
    acct = Accountant().install(monkeypatch)
    seen = Counter()
    for i in range(150):
        h = make_hand(P=3, seed=6, index=i, seats=[seat("random", snap_prob=1.0)] * 3, hand_size=1, initial_peeks=1,
                      ultime_min_cards=1)
        res = h.play(i % 3, [0, 0, 0])
        check_score(h, res, [0, 0, 0])
        seen[res.outcome] += 1
    assert seen[OUT_ULTIME] > 0 and acct.events[EV_ULTIME] == seen[OUT_ULTIME]


# ------------------------------------------------------------------------------------------ the deal
def exact_hand_distribution(k: int = 4) -> np.ndarray:
    """``ways[v]``: number of k-card subsets of one deck whose points total v (generating-function DP)."""
    top = k * int(CARD_VALUE.max())
    ways = np.zeros((k + 1, top + 1), dtype=np.int64)
    ways[0, 0] = 1
    for x in CARD_VALUE:
        for j in range(k, 0, -1):
            ways[j, x:] += ways[j - 1, : top + 1 - x]
    return ways[k]


class _Dealt(Exception):
    pass


def dealt_hands(n: int, seed: int, P: int = 4) -> list[list[int]]:
    """The first player's initial layout in ``n`` hands dealt by the engine (stopped right after the deal)."""
    rules = Rules()
    seats = [seat("random")] * P
    out = []

    def stop(h, ev, a=0, b=0, c=0):
        assert ev == EV_DEAL
        out.append([int(x) for x in h.hand[(a + 1) % P, : rules.hand_size]])
        raise _Dealt

    original = Hand.trace
    Hand.trace = stop
    try:
        for i in range(n):
            try:
                Hand(rules, seats, stream_state(seed, i)).play(i % P, [0] * P)
            except _Dealt:
                pass
    finally:
        Hand.trace = original
    return out


def wilson_hilferty(df: int, z: float) -> float:
    """Upper quantile of chi-square(df) at the normal quantile ``z``."""
    return df * (1 - 2 / (9 * df) + z * math.sqrt(2 / (9 * df))) ** 3


@pytest.mark.rule("K2")
def test_initial_hand_points_match_the_exact_distribution():
    ways = exact_hand_distribution()
    assert ways.sum() == math.comb(52, 4)
    q = ways / ways.sum()
    n = 40_000
    hands = dealt_hands(n, seed=2024)
    assert all(len(set(hd)) == 4 for hd in hands)
    points = np.array([sum(int(CARD_VALUE[c]) for c in hd) for hd in hands])
    observed = np.bincount(points, minlength=len(q))
    assert len(observed) == len(q)
    expected = n * q
    # per bin: binomial(n, q_v) within SIGMAS standard deviations
    sd = np.sqrt(n * q * (1 - q))
    assert (np.abs(observed - expected) <= SIGMAS * sd + 1e-9).all()
    # chi-square over bins with an expected count of at least 5 (the tails pooled), one-sided at SIGMAS
    keep = expected >= 5
    e = np.append(expected[keep], expected[~keep].sum())
    o = np.append(observed[keep], observed[~keep].sum())
    chi2 = float(((o - e) ** 2 / e).sum())
    df = len(e) - 1
    assert chi2 <= wilson_hilferty(df, SIGMAS), (chi2, df)
    # the mean: within SIGMAS standard errors of the exact mean
    values = np.arange(len(q))
    mu = float((values * q).sum())
    sigma = math.sqrt(float(((values - mu) ** 2 * q).sum()))
    assert abs(points.mean() - mu) <= SIGMAS * sigma / math.sqrt(n)
    assert mu == pytest.approx(4 * CARD_VALUE.mean())
