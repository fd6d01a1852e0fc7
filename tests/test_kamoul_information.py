"""A strategy sees only its player's information set, never the hidden layout or the piles."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from kamoul_helpers import C, registry_seatings
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines import reference
from simulator.kamoul.engines.engine import rules_of, seats_of
from simulator.kamoul.vocabulary.codes import POWER_KING, POWER_SWAP
from simulator.kamoul.vocabulary.contract import DECISIONS, Keep, Turn
from strategies.kamoul import policy

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# every seat of the registry's tables (each strategy, each family with drawn parameters) and the example files
REGISTRY_SEATS = list(dict.fromkeys(s for table in registry_seatings().values() for s in table))
STRATEGIES_SEEN = [*REGISTRY_SEATS, f"{EXAMPLES}/kamoul_never_contre.py:never-contre",
                   f"{EXAMPLES}/kamoul_balanced_copy.py:balanced-copy"]


@pytest.mark.parametrize("strategy", STRATEGIES_SEEN)
def test_strategies_never_receive_hidden_state(monkeypatch, strategy):
    """Every array a strategy receives is public (layout), its own memory row, its params or scratch; every
    decision of the contract is asked."""
    hands = []
    original_init = reference.Hand.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        hands.append(self)

    monkeypatch.setattr(reference.Hand, "__init__", init)
    asked = {name: 0 for name in DECISIONS}
    original_ask = policy.ask

    def guard(name, seat, c):
        hand, args = hands[-1], tuple(c)
        for arg in args:
            if isinstance(arg, np.ndarray) and arg.dtype != np.uint64:
                assert not np.shares_memory(arg, hand.hand), f"{name} received the hidden layout"
                if np.shares_memory(arg, hand.know):
                    # only the deciding player's own memory row know[me]
                    me = args[0]
                    assert arg.shape == hand.know.shape[1:] and np.shares_memory(arg, hand.know[me]) and \
                        not any(np.shares_memory(arg, hand.know[o]) for o in range(hand.P) if o != me), \
                        f"{name} received another player's memory"
        asked[name] += 1
        return original_ask(name, seat, c)

    monkeypatch.setattr(reference.policy, "ask", guard)
    spec = build_spec("kamoul", n=50, seed=3, strategies=[strategy],
                      options={"snap_others": "true", "swap_observed_prob": "0.5"})
    reference.play_games(rules_of(spec), seats_of(spec), spec.seed, 0, 50, "hands")
    assert sum(asked.values()) > 500
    assert {name for name, n in asked.items() if n == 0} <= {"king_swap", "speed"}, asked  # rare: kings, races


@pytest.mark.parametrize("strategy", REGISTRY_SEATS)
def test_hidden_cards_do_not_change_decisions(strategy):
    """Same information set, different hidden cards: the heuristic decides the same (same RNG state); with
    ``memory_noise`` the information set holds wrong beliefs, and still only it decides."""
    spec = build_spec("kamoul", n=1, seed=9, strategies=[strategy])
    rules, seats = rules_of(spec), seats_of(spec)
    wrong_beliefs = 0
    for index in range(30):
        rng = reference.stream_state(spec.seed, index)
        hand = reference.Hand(rules, seats, rng)
        hand.play(3, [0, 0, 0, 0])
        me = 0
        decisions = []
        # the cards the player does not know for what they are: unseen, or remembered wrong
        unknown = [(q, s) for q in range(4) for s in range(hand.nslots[q])
                   if hand.occ[q, s] and hand.know[me, q, s] != hand.hand[q, s]]
        wrong_beliefs += sum(hand.know[me, q, s] >= 0 for q, s in unknown)
        for shuffle in range(3):
            h = np.array(hand.hand)
            cards = [h[q, s] for q, s in unknown]
            np.random.default_rng(shuffle).shuffle(cards)
            for (q, s), c in zip(unknown, cards):
                hand.hand[q, s] = c
            r, tmp = np.array(rng), np.zeros_like(hand.tmp)
            decisions.append((
                policy.ask("turn", seats[me], Turn(me, hand.know[me], hand.occ, hand.nslots, hand.faceup, hand.own(me),
                                                   5, True, False, True, 0, False, r, tmp)),
                policy.ask("keep", seats[me], Keep(me, 20, hand.power_kind(20), hand.know[me], hand.occ, hand.nslots,
                                                   hand.faceup, hand.own(me), r, tmp)),
                policy.ask("keep", seats[me], Keep(me, C("JH"), POWER_SWAP, hand.know[me], hand.occ, hand.nslots,
                                                   hand.faceup, hand.own(me), r, tmp)),
                policy.ask("keep", seats[me], Keep(me, C("KD"), POWER_KING, hand.know[me], hand.occ, hand.nslots,
                                                   hand.faceup, hand.own(me), r, tmp)),
            ))
        assert len(set(decisions)) == 1
    assert (wrong_beliefs > 0) == ("memory_noise" in strategy)
