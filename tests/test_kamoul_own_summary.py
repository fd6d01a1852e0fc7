"""The summary of a player's own layout (strategies/kamoul/views.own_summary) that the engines make once per turn.

The built-in families' turn, keep and take decisions read it instead of scanning the layout, so it must give the
answers the scans gave (the golden rows check the whole; here, position by position), the two engines must make
the same one (the reference states it in plain Python: ``Hand.own``), and it must hold only what the deciding
player believes of its own cards.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from simulator.core.contract.decisions import python_twin
from simulator.kamoul.engines.hand import Hand
from simulator.kamoul.vocabulary import views

own_summary = python_twin(views.own_summary)
summary_worst = python_twin(views.summary_worst)
summary_estimate = python_twin(views.summary_estimate)
worst_own_slot = python_twin(views.worst_own_slot)
own_estimate = python_twin(views.own_estimate)


def tables(count: int, seed: int):
    """Random tables: ``(me, know int16[P, P, S], occ int8[P, S], nslots int64[P])``; many repeated card values,
    so that ties between known cards, and between known and unseen cards, are frequent."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        P, S = int(rng.integers(2, 7)), int(rng.integers(1, 10))
        occ = (rng.random((P, S)) < 0.8).astype(np.int8)
        nslots = np.array([int(rng.integers(0, S + 1)) for _ in range(P)], np.int64)
        for p in range(P):
            occ[p, nslots[p]:] = 0
        cards = rng.choice([0, 1, 4, 5, 6, 12, 13, 25, 38, 51], size=(P, P, S))  # codes are 0-51 (K1)
        know = np.where(rng.random((P, P, S)) < 0.55, cards, -1).astype(np.int16)
        yield int(rng.integers(0, P)), know, occ, nslots


@pytest.mark.parametrize("unknown_value", [0.0, 1.0, 4.0, 5.0, 6.0, 4.37, 12.5])
def test_k4_the_summary_gives_the_worst_card_and_the_estimate_the_scans_give(unknown_value):
    for me, know, occ, nslots in tables(400, seed=int(unknown_value * 100)):
        own = own_summary(me, know[me], occ, nslots)
        assert summary_worst(own, unknown_value) == worst_own_slot(me, know[me], occ, nslots, unknown_value)
        est, unseen = summary_estimate(own, unknown_value)
        scanned, scanned_unseen = own_estimate(me, know[me], occ, nslots, unknown_value)
        assert unseen == scanned_unseen and est == pytest.approx(scanned, abs=1e-9)
        if unknown_value.is_integer():
            assert est == scanned  # the golden rows' presets: the very same number


def test_the_reference_engine_states_the_same_summary():
    for me, know, occ, nslots in tables(600, seed=3):
        table = SimpleNamespace(know=know, occ=occ, nslots=nslots)
        assert Hand.own(table, me) == tuple(own_summary(me, know[me], occ, nslots))


def test_the_summary_holds_only_the_players_beliefs_about_its_own_cards():
    """Change everything else the player believes (the opponents' cards) and every other player's memory: the
    summary stays; change one of its own beliefs: it moves."""
    rng = np.random.default_rng(11)
    moved = 0
    for me, know, occ, nslots in tables(300, seed=5):
        own = own_summary(me, know[me], occ, nslots)
        other = know.copy()
        others = [p for p in range(know.shape[0]) if p != me]
        other[others] = rng.integers(-1, 52, size=other[others].shape)
        other[me, others] = rng.integers(-1, 52, size=other[me, others].shape)
        assert own_summary(me, other[me], occ, nslots) == own
        held = [s for s in range(nslots[me]) if occ[me, s]]
        if held:
            other[me, me, held[0]] = 12 if know[me, me, held[0]] < 0 else -1
            moved += own_summary(me, other[me], occ, nslots) != own
    assert moved > 100


def test_k1_card_values_are_read_by_code_because_codes_stay_0_to_51_with_two_decks():
    """``views.card_value`` reads ``CARD_VALUE[card]`` without a modulo (the scans call it per position): right only
    because the engines deal codes 0-51 whatever ``n_decks`` (K1: a second deck repeats the codes; the kernel's
    ``_deal`` writes ``i % 52``), -1 reading as the last entry as the modulo did."""
    from kamoul_helpers import make_hand
    from simulator.kamoul.vocabulary.codes import CARD_VALUE

    hand = make_hand(P=8, n_decks=2, seed=3)
    hand.deal(0)
    dealt = hand.stock + hand.discard + [c for row in hand.hand for c in row if c >= 0]
    assert len(dealt) == 104 and max(dealt) == 51 and min(dealt) == 0
    card_value = python_twin(views.card_value)
    assert [card_value(c) for c in range(-1, 52)] == [int(CARD_VALUE[c % 52]) for c in range(-1, 52)]
