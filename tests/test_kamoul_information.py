"""A strategy sees only its player's information set, never the hidden layout or the piles."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.spec import build_spec
from simulator.kamoul import reference
from simulator.kamoul.engine import rules_of, seats_of
from strategies.kamoul import policy

DECISIONS = ["decide_peeks", "decide_turn", "decide_take_slot", "decide_keep", "decide_power", "decide_king_swap",
             "decide_snap", "estimate", "forget_prob", "memory_noise_prob", "speed"]


@pytest.mark.parametrize("strategy", ["random", "balanced", "heuristic:memory_noise=0.3,forget=0.05"])
def test_strategies_never_receive_hidden_state(monkeypatch, strategy):
    """Every array a strategy receives is public (layout), its own memory row, its params or scratch."""
    hands = []
    original_init = reference.Hand.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        hands.append(self)

    monkeypatch.setattr(reference.Hand, "__init__", init)
    calls = {"n": 0}

    def guard(name, fn):
        def wrapped(*args):
            hand = hands[-1]
            for arg in args:
                if isinstance(arg, np.ndarray) and arg.dtype != np.uint64:
                    assert not np.shares_memory(arg, hand.hand), f"{name} received the hidden layout"
                    if np.shares_memory(arg, hand.know):
                        # only the deciding player's own memory row know[me]
                        me = args[2]
                        assert arg.shape == hand.know.shape[1:] and np.shares_memory(arg, hand.know[me]) and \
                            not any(np.shares_memory(arg, hand.know[o]) for o in range(hand.P) if o != me), \
                            f"{name} received another player's memory"
            calls["n"] += 1
            return fn(*args)
        return wrapped

    for name in DECISIONS:
        monkeypatch.setattr(reference.policy, name, guard(name, getattr(policy, name)))
    spec = build_spec("kamoul", n=50, seed=3, strategies=[strategy],
                      options={"snap_others": "true", "swap_observed_prob": "0.5"})
    reference.play_games(rules_of(spec), seats_of(spec), spec.seed, 0, 50, "hands")
    assert calls["n"] > 500


@pytest.mark.parametrize("strategy", ["balanced", "heuristic:memory_noise=0.3"])
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
            r = np.array(rng)
            decisions.append((
                policy.decide_turn(seats[me].sid, seats[me].prm, me, hand.know[me], hand.occ, hand.nslots, 5,
                                   True, False, True, 0, False, r),
                policy.decide_keep(seats[me].sid, seats[me].prm, me, 20, hand.know[me], hand.occ, hand.nslots, r),
            ))
        assert len(set(decisions)) == 1
    assert (wrong_beliefs > 0) == ("memory_noise" in strategy)
