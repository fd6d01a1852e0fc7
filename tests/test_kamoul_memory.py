"""Imperfect memory of the heuristic family (docs/rules/kamoul.md, "Memory model"; INTERPRETATION §4).

``forget`` erases a remembered card; ``memory_noise`` replaces its remembered rank by one of the 12 others, so a
player can turn a card that does not match the discard ("carte retournée": a wrong snap, +1 card by K13) or call
on a layout it believes lower than it is (K12). Both happen only in the player's memory: the cards never move.
The unit tests run the reference engine's ``Hand.memory_lapses``; the statistical ones run the kernel (which the
engine-agreement tests in ``test_kamoul_engines.py`` hold to the reference, ``memory_noise`` included).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from kamoul_helpers import C, knows, lay, make_hand, seat
import cardsim as api
from simulator.core.kernels.rng import uniform
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import raw_kernel
from simulator.kamoul.engines.reference import Hand
from simulator.kamoul.vocabulary.codes import EV_FORGET, EV_MISREMEMBER, OUT_FALSE, WRONG_RANKS
from simulator.kamoul.vocabulary.records import H

SIGMAS = 4.0
rule = pytest.mark.rule


def noisy_position(memory_noise: float, forget: float = 0.0, index: int = 0) -> Hand:
    """Three players; P0 (the noisy one) knows its 9C and 2D, P1's QS and a face-up 5H in its own layout."""
    seats = [seat("heuristic", memory_noise=memory_noise, forget=forget), seat("balanced"), seat("balanced")]
    h = make_hand(P=3, seats=seats, index=index)
    lay(h, 0, ["9C", "2D", "KH", "7S"])
    lay(h, 1, ["QS", "4C"])
    lay(h, 2, ["AH", "10D"])
    h.faceup[0, 3] = 1  # a card taken face up (discard_pick_face_up) is in plain sight: it cannot be misremembered
    knows(h, 0, 0, 0, 1, 3)
    knows(h, 0, 1, 0)
    knows(h, 1, 0, 0)
    knows(h, 1, 1, 0, 1)
    return h


def traced(monkeypatch) -> list[tuple[int, int, int, int]]:
    events: list[tuple[int, int, int, int]] = []
    original = Hand.trace

    def trace(h, ev, a=0, b=0, c=0):
        events.append((ev, a, b, c))
        original(h, ev, a, b, c)

    monkeypatch.setattr(Hand, "trace", trace)
    return events


# ------------------------------------------------------------------------------------------ the engine step
@rule("K13")
def test_K13_memory_noise_changes_only_the_remembered_rank_in_the_players_own_memory(monkeypatch):
    events = traced(monkeypatch)
    h = noisy_position(memory_noise=1.0)
    hand, occ, faceup, know = h.hand.copy(), h.occ.copy(), h.faceup.copy(), h.know.copy()
    h.memory_lapses(0)
    # the table and the other players' memories are untouched
    assert (h.hand == hand).all() and (h.occ == occ).all() and (h.faceup == faceup).all()
    assert (h.know[1:] == know[1:]).all()
    changed = [(q, s) for q in range(3) for s in range(h.nslots[q]) if h.know[0, q, s] != know[0, q, s]]
    assert changed == [(0, 0), (0, 1), (1, 0)]  # every remembered face-down card, in position order
    assert h.know[0, 0, 3] == C("7S")  # the face-up card stays known
    for q, s in changed:
        old, new = int(know[0, q, s]), int(h.know[0, q, s])
        assert new // 13 == old // 13 and new % 13 != old % 13  # same suit, another rank
    assert events == [(EV_MISREMEMBER, 0, q * 256 + s, int(know[0, q, s]) * 256 + int(h.know[0, q, s]))
                      for q, s in changed]


@rule("K13")
def test_K13_memory_noise_never_reads_the_hidden_cards():
    """Same memory and random stream, other hidden cards: the same wrong beliefs (an information-set property)."""
    a = noisy_position(memory_noise=0.5, index=4)
    b = noisy_position(memory_noise=0.5, index=4)
    b.hand[0, :3] = [C("3S"), C("8H"), C("6C")]  # P0 still remembers 9C and 2D there
    b.hand[1, 0], b.hand[2, 0] = C("JD"), C("5S")
    a.memory_lapses(0)
    b.memory_lapses(0)
    assert (a.know == b.know).all() and (a.rng == b.rng).all()
    assert (a.know[0] != noisy_position(0.5, index=4).know[0]).any()  # something was misremembered


@rule("K13")
def test_K13_forgetting_comes_first_and_zero_noise_draws_nothing(monkeypatch):
    """A card is forgotten with ``forget``, else misremembered; ``memory_noise = 0`` draws no random number, so a
    strategy with the default plays exactly the games it played before the parameter existed."""
    events = traced(monkeypatch)
    h = noisy_position(memory_noise=1.0, forget=1.0)
    h.memory_lapses(0)
    assert [e[0] for e in events] == [EV_FORGET] * 3 and (h.know[0, :, :3] < 0).all()
    for forget in (0.0, 0.4):
        h = noisy_position(memory_noise=0.0, forget=forget)
        expected = h.rng.copy()
        for _ in range(3 if forget > 0 else 0):  # one uniform per remembered face-down card, as forget always drew
            uniform(expected)
        h.memory_lapses(0)
        assert (h.rng == expected).all()
        assert all(h.know[0, q, s] in (-1, h.hand[q, s]) for q in range(3) for s in range(h.nslots[q]))


@rule("K13")
def test_K13_the_wrong_rank_is_uniform_over_the_twelve_others():
    """Offsets ``(believed - remembered) mod 13`` over many misrememberings: never 0, each of 1..12 within a
    4-sigma binomial band around n/12."""
    h = make_hand(P=2, seats=[seat("heuristic", memory_noise=1.0), seat("balanced")], index=7)
    cards = ["AC", "5D", "9H", "KS"]
    lay(h, 0, cards)
    lay(h, 1, ["QC", "2H", "JD", "8S"])
    offsets = []
    for _ in range(600):
        knows(h, 0, 0, 0, 1, 2, 3)
        knows(h, 0, 1, 0, 1, 2, 3)
        before = h.know[0].copy()
        h.memory_lapses(0)
        offsets += [int((h.know[0, q, s] - before[q, s]) % 13) for q in range(2) for s in range(4)]
        assert ((h.know[0] // 13) == (before // 13)).all()
    n = len(offsets)
    counts = np.bincount(offsets, minlength=13)
    p = 1 / WRONG_RANKS
    band = SIGMAS * math.sqrt(n * p * (1 - p))
    assert counts[0] == 0
    assert (np.abs(counts[1:] - n * p) <= band).all(), counts


# ------------------------------------------------------------------------------------------ in play (kernel)
N_HANDS = 4000
NOISE_LEVELS = (0.0, 0.05, 0.3)


@pytest.fixture(scope="module")
def noisy_runs():
    """4 players, seat 0 ``heuristic:memory_noise=m``, the others ``balanced``; the same deals for every m."""
    runs = {}
    for m in NOISE_LEVELS:
        spec = build_spec("kamoul", n=N_HANDS, seed=31, strategies=[f"heuristic:memory_noise={m}", "balanced",
                                                                    "balanced", "balanced"])
        runs[m] = raw_kernel(spec, 0, N_HANDS)["hands"]
    return runs


def mean_and_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x))) if len(x) > 1 else 0.0


@rule("K13")
def test_K13_wrong_snaps_appear_with_memory_noise_and_rise_with_it(noisy_runs):
    """No wrong snap without noise (a heuristic snaps only what it remembers); with noise the wrong snaps per hand
    rise with the parameter, each step beyond 4 standard errors of the difference; each costs a card (K13)."""
    wrong = {m: rows[:, H["wrong_snaps"]] for m, rows in noisy_runs.items()}
    assert wrong[0.0].sum() == 0
    for lo, hi in zip(NOISE_LEVELS, NOISE_LEVELS[1:]):
        (a, sa), (b, sb) = mean_and_se(wrong[lo]), mean_and_se(wrong[hi])
        assert b - a > SIGMAS * math.hypot(sa, sb), (lo, hi, a, b)
    for m, rows in noisy_runs.items():
        assert (rows[:, H["penalty_cards"]] <= rows[:, H["wrong_snaps"]]).all()  # no other penalty is on
        assert rows[:, H["penalty_cards"]].sum() >= 0.95 * rows[:, H["wrong_snaps"]].sum()  # rarely no card left


@rule("K12")
def test_K12_misremembering_makes_the_noisy_players_calls_false_more_often(noisy_runs):
    """A call on a layout believed lower than it is: the share of seat 0's calls that are false rises from
    ``memory_noise = 0`` to 0.3 beyond a 4-sigma band of the difference of two binomial proportions."""
    def false_share(rows):
        mine = rows[rows[:, H["caller"]] == 0]
        return (mine[:, H["outcome"]] == OUT_FALSE).mean(), len(mine)

    (p0, n0), (p1, n1) = false_share(noisy_runs[0.0]), false_share(noisy_runs[0.3])
    pooled = (p0 * n0 + p1 * n1) / (n0 + n1)
    band = SIGMAS * math.sqrt(pooled * (1 - pooled) * (1 / n0 + 1 / n1))
    assert n0 > 100 and n1 > 100
    assert p1 - p0 > band, (p0, n0, p1, n1)


@rule("K13")
def test_K13_cardsim_strategies_lists_memory_noise_with_its_default():
    text = api.strategies_text("kamoul", full=True)
    for family in ("heuristic", "cautious", "balanced", "aggressive", "call-table"):
        block = text.split(f"\n{family}: ", 1)[1].split("\n\n", 1)[0]
        assert "memory_noise = 0.0  (a number in [0.0, 1.0]) [K13]" in block, family


@rule("K13")
def test_K13_cardsim_rules_lists_memory_noise_among_the_player_parameters_that_model_a_rule():
    text = api.rules_text("kamoul")
    block = text.split("player parameters that model a rule", 1)[1]
    line = next(x for x in block.splitlines() if "memory_noise" in x)
    assert "memory_noise = 0.0  (a number in [0.0, 1.0]) [K13]" in line
    assert all(f in line for f in ("heuristic", "cautious", "balanced", "aggressive", "call-table"))
