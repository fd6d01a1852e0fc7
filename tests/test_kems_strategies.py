"""Kem's strategies: they see only their player's information set, the heuristic does what its docstring says,
and the contre horizon the kernel relies on is sound (before it, inference never calls)."""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.cards import parse_card
from simulator.core.contract.seats import Seat, params_array
from simulator.core.kernels.rng import NEVER, stream_state
from simulator.kems.engines import reference
from simulator.kems.engines.engine import seats_of
from simulator.kems.engines.reference import Game, Manche
from simulator.kems.vocabulary.codes import LOC_TABLE
from simulator.kems.vocabulary.rules import Rules
from simulator.kems.vocabulary.views import PUB_SIZE, summarise
from strategies.kems import STRATEGIES, heuristic, policy
from kems_helpers import answer_with, builtin


def cards(text: str) -> np.ndarray:
    return np.array([parse_card(t) for t in text.split()], dtype=np.int64)


def seat(name: str = "balanced", **params) -> Seat:
    sdef = STRATEGIES[name]
    return Seat(sdef.kernel_id, params_array(sdef, sdef.params.resolve(params)))


@pytest.mark.parametrize("names", [["random"] * 4, ["balanced", "blocker", "watcher", "sprinter", "discreet", "balanced"]])
def test_strategies_receive_only_their_own_hand_and_public_knowledge(monkeypatch, names):
    manches: list[Manche] = []
    original_init = Manche.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        manches.append(self)

    monkeypatch.setattr(Manche, "__init__", init)
    calls = {"propose": 0, "infer_contre": 0}

    def guard(name, fn):
        def wrapped(sid, prm, me, players, hand, *rest):
            m = manches[-1]
            assert np.shares_memory(hand, m.hands[me]) and (hand == m.hands[me]).all()
            for arg in (hand,) + rest:
                if isinstance(arg, np.ndarray):
                    for other in range(players):
                        if other != me:
                            assert not np.shares_memory(arg, m.hands[other]), f"{name} got P{other}'s hand"
                    assert not np.shares_memory(arg, m.table), f"{name} got the live centre, not its own view"
            if name == "propose":
                seen = rest[0]
                assert (seen == m.perceived(int(np.floor(m.next_move[me])), me)).all()
            calls[name] += 1
            return fn(sid, prm, me, players, hand, *rest)
        return wrapped

    answer_with(monkeypatch, **{name: guard(name, builtin(name)) for name in calls})
    seats = seats_of(names)
    for i in range(20):
        Game(Rules(), seats, 5, i, "manches").play()
    assert calls["propose"] > 200
    assert calls["infer_contre"] > (0 if names[0] == "random" else 200)


def _manche(seats, **options) -> Manche:
    return Manche(Rules.from_options(options), seats, stream_state(1, 0), 0,
                  np.zeros((len(seats), len(seats) // 2), dtype=np.int64))


def _pub(loc: np.ndarray, players: int) -> np.ndarray:
    pub = np.zeros(PUB_SIZE, dtype=np.int64)
    summarise(loc, players, pub)
    return pub


def _propose(m: Manche, p: int) -> list[tuple[int, int]]:
    out = np.zeros((4, 2), dtype=np.int64)
    n = builtin("propose")(m.seats[p].sid, m.seats[p].prm, p, m.P, m.hands[p], m.table.copy(), m.loc, _pub(m.loc, m.P),
                       m.r.multi_swap, m.mem[p], m.work, out, m.rng)
    return [(int(out[i, 0]), int(out[i, 1])) for i in range(n)]


def _set_table(m: Manche, text: str) -> None:
    m.table[:] = cards(text)
    for c in m.table:
        m.loc[c] = LOC_TABLE


def test_heuristic_collects_its_best_rank_and_gives_its_least_invested_card():
    m = _manche([seat()] * 4)
    m.hands[0] = cards("7C 7D 2H KS")
    _set_table(m, "3C 7H 9D QS")
    assert _propose(m, 0) == [(2, 1)] or _propose(m, 0) == [(3, 1)]  # a single (2H or KS) for the 7H
    assert m.mem[0, heuristic.M_TARGET] == 6                          # it collects sevens


def test_heuristic_holding_four_of_a_kind_stops_exchanging():
    m = _manche([seat()] * 4)
    m.hands[0] = cards("7C 7D 7H 7S")
    _set_table(m, "3C 8H 9D QS")
    assert _propose(m, 0) == []


def test_heuristic_does_not_collect_a_rank_it_can_no_longer_complete():
    m = _manche([seat()] * 4)
    m.hands[0] = cards("7C 7D 2H KS")
    m.loc[parse_card("7H")] = 1          # P1 is known to hold 7H: four sevens are impossible for P0
    _set_table(m, "3C 2D 9D QS")
    pairs = _propose(m, 0)
    assert m.mem[0, heuristic.M_TARGET] == 1 and pairs and m.table[pairs[0][1]] == parse_card("2D")


def test_blocker_takes_a_rank_an_opponent_is_known_to_collect_and_balanced_does_not():
    for name, expected in (("blocker", True), ("balanced", False)):
        m = _manche([seat(name)] * 4)
        m.hands[0] = cards("7C 7D 2H KS")
        for c in ("QC", "QD"):
            m.loc[parse_card(c)] = 1      # P1 took two queens in public
        _set_table(m, "3C 5H QS 9D")
        pairs = _propose(m, 0)
        assert (pairs == [(2, 2)] or pairs == [(3, 2)]) == expected, name


def test_multi_swap_takes_every_useful_card_at_once():
    m = _manche([seat()] * 4, multi_swap=True)
    m.hands[0] = cards("7C 7D 2H KS")
    _set_table(m, "7H 3C 7S QS")
    pairs = _propose(m, 0)
    assert sorted(k for _, k in pairs) == [0, 2] and sorted(h for h, _ in pairs) == [2, 3]


def test_inference_accuses_a_player_who_took_four_of_a_rank_in_public():
    m = _manche([seat("watcher")] * 4)
    m.hands[0] = cards("2C 3D 5H 9S")
    for c in ("KC", "KD", "KH", "KS"):
        m.loc[parse_card(c)] = 1
    pub = _pub(m.loc, 4)
    silence = np.zeros(4, dtype=np.int64)
    assert builtin("infer_contre")(m.seats[0].sid, m.seats[0].prm, 0, 4, m.hands[0], m.loc, pub, silence, m.work) == 1
    never = seat("watcher", contre_threshold=2.0)
    assert builtin("infer_contre")(never.sid, never.prm, 0, 4, m.hands[0], m.loc, pub, silence, m.work) == -1


def test_contre_horizon_is_sound_before_it_inference_never_calls(monkeypatch):
    """At every move of several hundred manches: for open-tick counts below the horizon (public knowledge as it
    is), ``infer_contre`` returns -1; at and after it the call does come in some positions (not vacuous)."""
    checked = {"below": 0, "finite": 0, "calls_after": 0}
    original = builtin("infer_contre")

    def infer(sid, prm, me, players, hand, loc, pub, silence, work):
        m = manches[-1]
        limit = int(np.floor(m.next_move[me])) - m.r.lag_ticks   # M-perception: the public state of then
        last_swap = next(s for s in reversed(m.record) if s.visible <= limit).last_swap
        now = m.open_before(limit)
        assert (silence == now - last_swap).all()
        h = policy.contre_horizon(sid, prm, me, players, hand, loc, pub, last_swap, np.zeros(64, dtype=np.int64))
        if h < NEVER:
            checked["finite"] += 1
        for t in {now, h - 1, h - 2, (now + h) // 2, now + 40}:
            if now <= t < h:
                s = t - last_swap
                assert original(sid, prm, me, players, hand, loc, pub, s, np.zeros(64, dtype=np.int64)) == -1
                checked["below"] += 1
        answer = original(sid, prm, me, players, hand, loc, pub, silence, work)
        if answer >= 0 and now >= h:
            checked["calls_after"] += 1
        return answer

    manches: list[Manche] = []
    original_init = Manche.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        manches.append(self)

    monkeypatch.setattr(Manche, "__init__", init)
    answer_with(monkeypatch, infer_contre=infer)
    seats = seats_of(["watcher", "balanced", "watcher", "blocker"])
    for i in range(300):
        Game(Rules(), seats, 11, i, "manches").play()
    assert checked["below"] > 1000 and checked["finite"] > 1000 and checked["calls_after"] > 10, checked


def test_summarise_counts_public_knowledge_by_rank():
    loc = np.full(52, -1, dtype=np.int8)
    loc[parse_card("KC")] = 2
    loc[parse_card("KD")] = 2
    loc[parse_card("3S")] = LOC_TABLE
    loc[parse_card("4S")] = 7   # dead
    pub = np.zeros(PUB_SIZE, dtype=np.int64)
    summarise(loc, 4, pub)
    assert pub[12] == 2 and pub[13 + 2] == 1 and pub[26 + 2 * 13 + 12] == 2 and pub[26 + 6 * 13 + 2] == 2
    assert pub[:13].sum() == 52 - 4 and pub[3] == 3   # unknown: all but the four placed cards; fours: 4S dead
