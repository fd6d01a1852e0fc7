"""Kem's rules KM1–KM13 and the §3.2 discrete-time model (docs/rules/kems.md) on ``simulator.kems.engines.reference``.

Three kinds of test:

* scripted positions: a :class:`Manche` built by :func:`make`, its hands, centre, stock and timers set by hand,
  one engine method called (``deal``, ``turn_up``, ``sweep``, ``moves``, ``signs``, ``call_kems`` …) and the
  exact result checked. Exchange proposals are scripted by answering ``propose`` in ``strategies.kems.policy.ask``
  (the engine calls it through ``reference.policy``), checked like any strategy's answer;
* the clock: ``Manche.play`` with methods wrapped to record the tick of each phase change;
* statistics: many draws from a pinned stream, compared with the model's probability within a tolerance of
  a few standard deviations derived from the number of draws.

Hands are written ``"AS AH 7C 9D"`` (hand slot 0 first), the centre ``"AD KC -- 3S"`` (slot 0 first, ``--`` free).
Seats: ``P0 P1 P2 P3``; partners sit opposite (P0–P2 team A, P1–P3 team B)::

            P2 (A)
      P1 (B)      P3 (B)
            P0 (A)
"""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from simulator.core.cards import parse_card
from simulator.core.contract.seats import Seat, params_array
from simulator.core.errors import SpecError
from simulator.core.kernels.rng import NEVER, stream_state
from simulator.kems.engines import reference
from simulator.kems.engines.engine import raw_reference
from simulator.kems.engines.reference import S_ATT_O, S_ATT_P, S_RATE, Game, Manche, seat_model
from simulator.kems.vocabulary.codes import (
    CALL_CONTRE, CALL_KEMS, EMPTY, LOC_DEAD, LOC_TABLE, LOC_UNKNOWN, OUT_CAP, OUT_CONTRE, OUT_DOUBLE, OUT_KEMS,
    OUT_WRONG_KEMS, WHY_FALSE, WHY_INFERENCE, WHY_SIGN,
)
from simulator.kems.vocabulary.records import GAME, GAME_FIXED, MANCHE, team_column
from simulator.kems.vocabulary.rules import OPTIONS, Rules, check_players, partner_of, team_of
from simulator.kems.vocabulary.views import team as view_team
from strategies.kems import STRATEGIES
from kems_helpers import answer_with

rule = pytest.mark.rule


# ================================================================================================ helpers
def C(text: str) -> int:
    return parse_card(text)


def cards(text: str) -> np.ndarray:
    return np.array([C(t) for t in text.split()], dtype=np.int64)


def seat(name: str = "balanced", **params) -> Seat:
    """A registered strategy's seat with some parameters overridden (validated like user input)."""
    sdef = STRATEGIES[name]
    return Seat(sdef.kernel_id, params_array(sdef, sdef.params.resolve(params)))


def make(P: int = 4, strategy: str = "balanced", seed: int = 1, dealer: int = 0, seats: list[Seat] | None = None,
         **options) -> Manche:
    """A fresh manche (nothing dealt) on the stream ``(seed, 0)``; ``options`` validated like ``--option``."""
    seats = seats or [seat(strategy) for _ in range(P)]
    P = len(seats)
    return Manche(Rules.from_options(options), seats, stream_state(seed, 0), dealer,
                  np.zeros((P, P // 2), dtype=np.int64))


def hands(m: Manche, **by_seat: str) -> None:
    """``hands(m, p0="AS AH AD AC", p2=...)``: set some seats' hands."""
    for key, text in by_seat.items():
        m.hands[int(key[1:])] = cards(text)


def lay(m: Manche, text: str, visible: int = 0) -> None:
    """Set the centre, turned up at tick ``visible`` (published: everyone sees it from ``visible + lag_ticks``)."""
    for s, t in enumerate(text.split()):
        c = EMPTY if t == "--" else C(t)
        m.table[s] = c
        if c != EMPTY:
            m.loc[c] = LOC_TABLE
    m.publish(visible)


def script(monkeypatch, plan: dict[int, list[tuple[int, int]]], contre: dict[int, int] | None = None) -> list[int]:
    """Replace the strategies: seat ``p`` proposes the pairs ``plan[p]`` (hand slot, centre slot) at each of its
    moves (none: pass) and, if in ``contre``, accuses ``contre[p]`` by inference. Returns the movers, in call order."""
    movers: list[int] = []

    def propose(sid, prm, me, *args):   # (…, out, rng): the information-set arguments in between are not needed
        movers.append(me)
        out = args[-2]
        pairs = plan.get(me, [])
        for i, (k, s) in enumerate(pairs):
            out[i, 0], out[i, 1] = k, s
        return len(pairs)

    def infer_contre(sid, prm, me, *args):
        return (contre or {}).get(me, -1)

    answer_with(monkeypatch, propose=propose, infer_contre=infer_contre)
    return movers


def move_at(m: Manche, **times: float) -> None:
    """Only the named seats move, at these (continuous) times: ``move_at(m, p1=10.5)``."""
    m.next_move[:] = np.inf
    for key, t in times.items():
        m.next_move[int(key[1:])] = t


def record(m: Manche, *names: str) -> list[tuple[str, int]]:
    """Wrap methods of ``m`` (first argument: the tick) to log ``(name, tick)`` at each call."""
    log: list[tuple[str, int]] = []
    for name in names:
        def wrapper(tick, *args, _orig=getattr(m, name), _name=name):
            log.append((_name, tick))
            return _orig(tick, *args)
        setattr(m, name, wrapper)
    return log


def ticks_of(log, name: str) -> list[int]:
    return [t for n, t in log if n == name]


def census(m: Manche) -> list[int]:
    """Every card of the manche, wherever it is, sorted (duplicates would show)."""
    out = [int(c) for c in m.hands.ravel()] + [int(c) for c in m.table if c != EMPTY] + list(m.stock) + list(m.discard)
    return sorted(out)


def public_knowledge_is_true(m: Manche) -> None:
    """``loc`` never lies: a card known in a hand is there, on the centre is there, in the discard is there."""
    for c in range(52):
        where = int(m.loc[c])
        if 0 <= where < m.P:
            assert c in m.hands[where], (c, where)
        elif where == LOC_TABLE:
            assert c in m.table, c
        elif where == LOC_DEAD:
            assert c in m.discard, c
    for c in m.table:
        if c != EMPTY:
            assert m.loc[c] == LOC_TABLE


def within(hits: int, n: int, p: float, sds: float = 5.0) -> bool:
    """``hits`` out of ``n`` Bernoulli(``p``) draws lies within ``sds`` standard deviations of ``n·p``."""
    return abs(hits - n * p) <= sds * math.sqrt(n * p * (1 - p)) + 1


def rig_deal(m: Manche, first: list[int]) -> None:
    """Make the deal's shuffle put ``first`` on top of the stock in that order (the rest in id order)."""
    def shuffle(deck):
        rest = [c for c in deck if c not in first]
        deck[:] = rest + list(reversed(first))  # the stock's next card is at the end
    m.shuffle = shuffle


NO_NOISE = {"false_kems_rate": 0.0, "false_contre_rate": 0.0}


# ================================================================================================ KM1
@rule("KM1")
def test_KM1_partners_sit_opposite_and_teams_alternate():
    assert [team_of(p, 4) for p in range(4)] == [0, 1, 0, 1]          # A-B-A-B
    assert [partner_of(p, 4) for p in range(4)] == [2, 3, 0, 1]
    assert [team_of(p, 6) for p in range(6)] == [0, 1, 2, 0, 1, 2]    # A-B-C-A-B-C
    assert [partner_of(p, 6) for p in range(6)] == [3, 4, 5, 0, 1, 2]
    for P in (4, 6):
        for p in range(P):
            q = partner_of(p, P)
            assert q != p and team_of(q, P) == team_of(p, P) and partner_of(q, P) == p
            assert view_team(p, P) == team_of(p, P)  # what the strategies believe


@rule("KM1")
@pytest.mark.parametrize("players", [2, 3, 5, 7, 8])
def test_KM1_only_4_or_6_players_in_teams_of_two(players):
    with pytest.raises(SpecError):
        check_players(players, {})
    with pytest.raises(SpecError):
        raw_reference(Rules(), ["random"] * players, 1, 0, 1)
    for ok in (4, 6):
        check_players(ok, {})


@rule("KM1")
@pytest.mark.parametrize("P,target", [(4, 3), (6, 2)])
def test_KM1_game_ends_when_a_team_reaches_the_target(P, target):
    r = Rules.from_options({"target": target})
    T = P // 2
    pts = [team_column("manches", P, "points", t) for t in range(T)]
    tot = [team_column("manches", P, "total", t) for t in range(T)]
    for index in range(6):
        g = Game(r, [seat("balanced")] * P, 11, index).play()
        manches, (game,) = g.rows["manches"], g.rows["games"]
        running = [0] * T
        for k, row in enumerate(manches):
            running = [running[t] + row[pts[t]] for t in range(T)]
            assert [row[c] for c in tot] == running
            if k < len(manches) - 1:
                assert max(running) < target, "the game went on after a team reached the target"
        assert max(running) >= target
        assert game[GAME.manches] == len(manches)
        assert game[len(GAME_FIXED):] == running
        winners = [t for t in range(T) if running[t] == max(running)]
        assert game[GAME.winners] == sum(1 << t for t in winners)
        assert game[GAME.winner] == (winners[0] if len(winners) == 1 else -1)


# ================================================================================================ KM2
@rule("KM2")
def test_KM2_deck_is_52_cards_or_the_32_card_piquet_deck():
    assert Rules.from_options({}).cards() == list(range(52))
    piquet = Rules.from_options({"deck": "32"})
    assert len(piquet.cards()) == 32
    assert {c % 13 for c in piquet.cards()} == {0, 6, 7, 8, 9, 10, 11, 12}  # ace, 7 8 9 10 J Q K
    assert all(sum(1 for c in piquet.cards() if c % 13 == r) == 4 for r in piquet.ranks)
    with pytest.raises(SpecError):
        Rules.from_options({"deck": "36"})
    for seed in range(5):
        m = make(deck="32", seed=seed)
        m.deal()
        m.turn_up(0)
        assert census(m) == piquet.cards()


# ================================================================================================ KM3
@rule("KM3")
@pytest.mark.parametrize("P,dealer", [(4, 2), (6, 5)])
def test_KM3_deal_four_cards_one_at_a_time_clockwise_from_the_dealers_left(P, dealer):
    m = make(P=P, dealer=dealer)
    first = [(7 * i) % 52 for i in range(4 * P)]  # the ranks of one hand are 7i mod 13: four different ranks
    rig_deal(m, first)
    m.deal()
    for i, c in enumerate(first):   # card i goes to the (i mod P + 1)-th seat left of the dealer, hand slot i // P
        assert m.hands[(dealer + 1 + i % P) % P, i // P] == c
    assert m.res.redeals == 0 and len(m.stock) == 52 - 4 * P and m.discard == []
    assert (m.loc == LOC_UNKNOWN).all()  # dealt cards are private


@rule("KM3")
def test_KM3_three_or_four_of_a_rank_are_shown_discarded_and_four_new_cards_drawn_until_none():
    #  dealer P0; the deal goes P1 P2 P3 P0, four rounds (cards 0-15), then the re-deals from the dealer's left:
    #  P1 dealt AC AD AH 5S  -> shows the aces, discards, draws 3C 3D 3H 9S (three threes again) -> draws 6C 7D 8H 9H
    #  P2 dealt 2C 2D 2H 2S  -> shows, discards, draws JC QD KH 10S (after P1 is done)
    m = make(dealer=0)
    dealt = {1: "AC AD AH 5S", 2: "2C 2D 2H 2S", 3: "4C 4D 6D 6H", 0: "KC KD JD JH"}
    first = [C(dealt[(i % 4) + 1 if i % 4 < 3 else 0].split()[i // 4]) for i in range(16)]
    first += list(cards("3C 3D 3H 9S")) + list(cards("6C 7D 8H 9H")) + list(cards("JC QD KH 10S"))
    rig_deal(m, first)
    m.deal()
    assert list(m.hands[1]) == list(cards("6C 7D 8H 9H"))
    assert list(m.hands[2]) == list(cards("JC QD KH 10S"))
    assert list(m.hands[3]) == list(cards(dealt[3])) and list(m.hands[0]) == list(cards(dealt[0]))
    assert m.discard == list(cards("AC AD AH 5S 3C 3D 3H 9S 2C 2D 2H 2S"))
    assert m.res.redeals == 3
    shown = cards("AC AD AH 3C 3D 3H 2C 2D 2H 2S")
    assert all(m.loc[c] == LOC_DEAD for c in shown)         # shown, then face down: public dead cards
    assert m.loc[C("5S")] == LOC_UNKNOWN and m.loc[C("9S")] == LOC_UNKNOWN  # the fourth card was not shown


@rule("KM3")
def test_KM3_after_the_deal_no_hand_holds_three_of_a_rank_and_redeals_happen_at_the_expected_rate():
    # P(a 4-card hand holds >= 3 of a rank) = (13·C(4,3)·48 + 13) / C(52,4)
    p = (13 * 4 * 48 + 13) / math.comb(52, 4)
    n_deals, redeals = 1500, 0
    for seed in range(n_deals):
        m = make(seed=seed, dealer=seed % 4)
        m.deal()
        for q in range(4):
            assert np.bincount(m.hands[q] % 13, minlength=13).max() <= 2
        assert census(m) == list(range(52))
        redeals += m.res.redeals
    assert within(redeals, 4 * n_deals, p), redeals


# ================================================================================================ KM4
@rule("KM4")
def test_KM4_four_cards_turned_face_up_then_top_opens_exchanges_after_turn_up_time():
    m = make(seats=[seat(speed=0.0)] * 4, max_ticks=50, **NO_NOISE)
    m.deal()
    stock_before = list(m.stock)
    m.turn_up(0)
    assert list(m.table) == stock_before[::-1][:4]  # the stock's next four cards
    assert m.stock == stock_before[:-4]
    assert all(m.loc[c] == LOC_TABLE for c in m.table)
    # the clock: turn-up at 0, "Top" turn_up_ticks later; no player moves before "Top"
    for turn_up_time in (1.0, 0.0, 2.3):
        m = make(seats=[seat(speed=20.0)] * 4, max_ticks=50, turn_up_time=turn_up_time, **NO_NOISE)
        log = record(m, "turn_up", "top", "moves")
        m.play()
        U = m.r.turn_up_ticks
        assert U == math.ceil(turn_up_time / 0.2 - 1e-9)
        assert ticks_of(log, "turn_up")[0] == 0 and ticks_of(log, "top")[0] == U
        assert min(ticks_of(log, "moves")) == U


# ================================================================================================ KM5
@rule("KM5")
def test_KM5_exchange_is_one_for_one_and_the_given_card_fills_the_freed_slot(monkeypatch):
    m = make()
    hands(m, p0="2C 3D 4H 5S", p1="AS AH 7C 9D", p2="6C 8D 10H JS", p3="QC KD QH KS")
    lay(m, "AD KC 5H 3S")
    before = m.hands.copy()
    script(monkeypatch, {1: [(2, 0)]})   # P1 gives 7C (hand slot 2) for AD (centre slot 0)
    move_at(m, p1=10.5)
    assert m.moves(10)
    assert list(m.hands[1]) == list(cards("AS AH AD 9D"))
    assert list(m.table) == list(cards("7C KC 5H 3S"))
    assert m.loc[C("AD")] == 1 and m.loc[C("7C")] == LOC_TABLE  # everyone saw both cards
    assert m.own[1][-1] == (11, 0, C("AD"), C("7C"))                 # P1's own exchange, public from tick 11
    assert m.record[-1].visible == 11 and m.record[-1].table[0] == C("7C") and m.record[-1].loc[C("AD")] == 1
    assert (m.hands[[0, 2, 3]] == before[[0, 2, 3]]).all()
    assert m.res.exchanges == 1 and m.res.seat_exchanges == [0, 1, 0, 0] and m.last_swap[1] == m.open_ticks
    assert m.next_move[1] >= 11  # at most one move per tick


@rule("KM5")
def test_KM5_a_card_just_given_can_be_taken_back_by_the_giver_and_by_anyone_who_has_seen_it(monkeypatch):
    #  tick 10: P1 gives 7C for AD          centre  AD KC 5H 3S  ->  7C KC 5H 3S
    #  tick 11: P1 takes 7C back (it sees its own exchange at once): centre AD KC 5H 3S again
    m = make()
    hands(m, p1="AS AH 7C 9D")
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {1: [(2, 0)]})
    move_at(m, p1=10.5)
    m.moves(10)
    move_at(m, p1=11.5)
    assert m.moves(11)
    assert list(m.hands[1]) == list(cards("AS AH 7C 9D")) and list(m.table) == list(cards("AD KC 5H 3S"))
    assert list(m.perceived(11, 1)) == list(cards("AD KC 5H 3S"))
    #  another player: tick 10 P1 gives 7C; tick 11 P3 still sees AD (lag 1) and reaches for it: gone;
    #  tick 12 P3 sees 7C and takes it
    m = make()
    hands(m, p1="AS AH 7C 9D", p3="2C 3C 4C 6S")
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {1: [(2, 0)], 3: [(3, 0)]})
    move_at(m, p1=10.5)
    m.moves(10)
    move_at(m, p3=11.5)
    assert not m.moves(11)
    assert list(m.hands[3]) == list(cards("2C 3C 4C 6S"))
    move_at(m, p3=12.5)
    assert m.moves(12)
    assert list(m.hands[3]) == list(cards("2C 3C 4C 7C")) and m.table[0] == C("6S") and m.loc[C("7C")] == 3


@rule("KM5")
@pytest.mark.parametrize("multi", [False, True])
def test_KM5_multi_swap_lets_a_player_make_several_one_for_one_exchanges_in_one_move(multi):
    m = make(multi_swap=multi)   # the real heuristic strategy: it collects aces
    hands(m, p1="AS AH 7C 9D")
    lay(m, "AD AC 5H 3S")
    move_at(m, p1=10.5)
    assert m.moves(10)
    held = sorted(int(c) % 13 for c in m.hands[1])
    if multi:
        assert m.res.exchanges == 2 and held == [0, 0, 0, 0]
        assert sorted(int(c) for c in m.table) == sorted(cards("7C 9D 5H 3S"))
        assert m.holding[1] and m.res.four_tick[1] == 10
    else:
        assert m.res.exchanges == 1 and held.count(0) == 3
        assert not m.holding[1] and m.res.four_tick[1] == -1
    assert len(m.hands[1]) == 4 and len(set(int(c) for c in m.hands[1])) == 4


@rule("KM5")
@pytest.mark.parametrize("P,deck,multi", [(4, "52", False), (6, "52", True), (6, "32", False)])
def test_KM5_hands_always_hold_four_cards_and_every_card_is_somewhere_during_random_play(P, deck, multi):
    #  random play without signs or calls until the tick cap: many exchanges, sweeps and (KM7) reshuffles
    m = make(P=P, seats=[seat("random", speed=2.0, pass_prob=0.5, sigma=0.0)] * P, deck=deck, multi_swap=multi,
             quiet_time=0.6, max_ticks=700, **NO_NOISE)
    checked = []

    def check(tick, _orig=m.calls):
        assert census(m) == m.r.cards()
        assert m.hands.shape == (P, 4)
        public_knowledge_is_true(m)
        checked.append(tick)
        return _orig(tick)

    m.calls = check
    res = m.play()
    assert len(checked) == 700 and res.outcome == OUT_CAP and res.points == [0] * (P // 2)
    assert res.exchanges == sum(res.seat_exchanges) > 50 and res.sweeps > 3 and res.reshuffles > 0


# ================================================================================================ KM6
@rule("KM6")
def test_KM6_sweep_puts_the_centre_face_down_into_the_hidden_discard():
    m = make()
    lay(m, "AD KC 5H 3S")
    m.discard = [C("2C")]
    m.sweep(20)
    assert (m.table == EMPTY).all()
    assert m.discard == [C("2C")] + list(cards("AD KC 5H 3S"))
    assert all(m.loc[c] == LOC_DEAD for c in cards("AD KC 5H 3S"))  # everyone saw which cards went
    assert m.res.sweeps == 1
    assert list(m.perceived(21, 3)) == list(cards("AD KC 5H 3S"))    # lag 1: still seen at the next tick
    assert (m.perceived(22, 3) == EMPTY).all()


@rule("KM6")
def test_KM6_dealer_sweeps_after_quiet_time_without_an_exchange_counting_from_the_last_one():
    m = make(seats=[seat(speed=0.0)] * 4, max_ticks=80, **NO_NOISE)
    U, Q = m.r.turn_up_ticks, m.r.quiet_ticks
    log = record(m, "sweep", "top")
    busy = {U + 2, U + 7}                     # exchanges succeed in these ticks only
    orig_moves = m.moves
    m.moves = lambda tick: (orig_moves(tick), tick in busy)[1]
    m.play()
    assert ticks_of(log, "sweep")[0] == U + 7 + Q   # Q silent ticks after the last exchange
    second_top = ticks_of(log, "top")[1]
    assert ticks_of(log, "sweep")[1] == second_top + Q - 1  # the "Top" tick counts as a silent tick


@rule("KM6")
@pytest.mark.parametrize("all_pass", [False, True])
def test_KM6_sweep_on_all_pass_sweeps_as_soon_as_every_player_has_passed(all_pass):
    #  every player passes at each move (random, pass_prob 1) and moves about every tick (speed 20)
    m = make(seats=[seat("random", speed=20.0, pass_prob=1.0)] * 4, sweep_on_all_pass=all_pass, max_ticks=50,
             **NO_NOISE)
    U, Q = m.r.turn_up_ticks, m.r.quiet_ticks
    passed_at_sweep = []
    orig_sweep = m.sweep
    m.sweep = lambda tick: (passed_at_sweep.append((tick, list(m.passed))), orig_sweep(tick))
    m.play()
    tick, passed = passed_at_sweep[0]
    assert m.res.exchanges == 0
    if all_pass:
        assert passed == [True] * 4 and U <= tick < U + Q - 1
    else:
        assert tick == U + Q - 1


# ================================================================================================ KM7
@rule("KM7")
def test_KM7_empty_stock_turns_what_is_left_then_the_shuffled_hidden_discard_fills_the_centre():
    m = make()
    old = [int(c) for c in cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC")]  # the engine keeps piles as Python ints
    m.stock = [C("KS")]
    m.discard = list(old)
    for c in old:
        m.loc[c] = LOC_DEAD
    m.turn_up(30)
    assert m.table[0] == C("KS")                  # what was left is turned first
    assert set(int(c) for c in m.table[1:]) <= set(old)
    assert sorted(m.stock + [int(c) for c in m.table[1:]]) == sorted(old) and m.discard == []
    assert all(m.loc[c] == LOC_UNKNOWN for c in m.stock)  # nobody knows the new stock's order
    assert all(m.loc[c] == LOC_TABLE for c in m.table)
    assert m.res.reshuffles == 1
    orders = set()
    for seed in range(8):  # it is a shuffle: the new stock's order depends on the stream
        m = make(seed=seed)
        m.discard = list(old)
        m.reshuffle(0)
        orders.add(tuple(m.stock))
    assert len(orders) > 4


# ================================================================================================ KM8
@rule("KM8")
def test_KM8_valid_kems_scores_one_for_the_callers_team_and_ends_the_manche():
    m = make()
    hands(m, p0="AS AH AD AC", p1="2C 3C 4C 5C", p2="6D 7D 8D 9D", p3="10S JS QS KS")
    m.call_kems(40, 2, WHY_SIGN)
    assert m.ended and m.res.outcome == OUT_KEMS and m.res.caller == 2 and m.res.why == WHY_SIGN
    assert m.res.points == [1, 0] and m.res.calls == 1


@rule("KM8")
def test_KM8_only_the_callers_partner_hand_is_checked():
    #  P2 calls; P0 (its partner) mixes ranks. P1 (an opponent) and P2 itself hold four: neither counts.
    m = make()
    hands(m, p0="AS 2H AD AC", p1="KC KD KH KS", p2="QC QD QH QS", p3="2C 3C 4C 5C")
    m.call_kems(40, 2, WHY_SIGN)
    assert m.res.outcome == OUT_WRONG_KEMS and m.res.points == [0, 1]


@rule("KM8")
def test_KM8_double_auto_scores_two_when_the_caller_also_holds_four():
    m = make(double_mode="auto")
    hands(m, p0="AS AH AD AC", p2="KC KD KH KS")
    m.call_kems(40, 2, WHY_SIGN)
    assert m.res.outcome == OUT_DOUBLE and m.res.points == [2, 0]
    m = make(double_mode="auto")
    hands(m, p0="AS AH AD AC", p2="KC KD KH 5S")  # caller without four: single
    m.call_kems(40, 2, WHY_SIGN)
    assert m.res.outcome == OUT_KEMS and m.res.points == [1, 0]


@rule("KM8")
@pytest.mark.parametrize("window,sigma,double", [(0.4, 1.0, False), (0.6, 1.0, True), (2.0, 0.0, False),
                                                 (0.0, 1.0, False)])
def test_KM8_second_call_double_needs_a_sign_seen_and_a_call_within_the_window(window, sigma, double):
    #  the caller P2 signs every tick (σ 1) and the holder P0 always sees it (a_p·v = 1); R = 2 ticks exactly:
    #  the first sign is 1 tick after the call, the "double" 2 ticks later: it takes 3 ticks (0.6 s)
    seats = [seat(sigma=sigma, visibility=1.0, attention_partner=1.0, attention_opponents=0.0)] * 4
    m = make(seats=seats, double_mode="second_call", double_window=window, reaction_min=2, reaction_max=2)
    hands(m, p0="AS AH AD AC", p2="KC KD KH KS")
    m.call_kems(40, 2, WHY_SIGN)
    assert m.ended
    assert (m.res.outcome, m.res.points) == ((OUT_DOUBLE, [2, 0]) if double else (OUT_KEMS, [1, 0]))


@rule("KM8")
def test_KM8_second_call_double_probability_matches_the_model():
    #  first sign seen by the holder: Geom(σ·a_p·v) ticks after the call; double iff that + R <= W,
    #  R ~ U{2..5}: P = mean over R of 1 - (1 - σ·a_p·v)^(W - R)
    sigma, a_p, v = 0.3, 0.5, 0.8
    seats = [seat(sigma=sigma, visibility=v, attention_partner=a_p, attention_opponents=0.2)] * 4
    m = make(seats=seats, double_mode="second_call", double_window=2.0)
    W, q = m.r.double_ticks, sigma * a_p * v
    p = np.mean([1 - (1 - q) ** (W - R) for R in range(2, 6)])
    n = 3000
    hits = sum(m.second_call(0, 2, 0) for _ in range(n))
    assert within(hits, n, p), (hits, n * p)


# ================================================================================================ KM9
@rule("KM9")
@pytest.mark.parametrize("P,caller,points", [(4, 0, [0, 1]), (4, 3, [1, 0]), (6, 1, [1, 0, 1]), (6, 5, [1, 1, 0])])
def test_KM9_wrong_kems_gives_each_opposing_team_a_point_shows_the_hand_and_ends(P, caller, points):
    m = make(P=P)
    m.deal()
    q = partner_of(caller, P)
    m.call_kems(40, caller, WHY_FALSE)
    assert m.ended and m.res.outcome == OUT_WRONG_KEMS and m.res.caller == caller and m.res.why == WHY_FALSE
    assert m.res.points == points
    assert all(m.loc[c] == q for c in m.hands[q])          # the partner's hand was shown
    assert all(m.loc[c] == LOC_UNKNOWN for c in m.hands[caller])


@rule("KM9")
def test_KM9_wrong_kems_ends_false_lets_the_manche_go_on():
    m = make(wrong_kems_ends=False)
    m.deal()
    m.call_kems(40, 0, WHY_FALSE)
    assert not m.ended and m.res.outcome == OUT_CAP and m.res.points == [0, 1]
    hands(m, p2="AS AH AD AC")   # later P2 really holds four: P0's next call is right
    m.call_kems(60, 0, WHY_SIGN)
    assert m.ended and m.res.outcome == OUT_KEMS and m.res.points == [1, 1] and m.res.calls == 2


@rule("KM9")
@pytest.mark.parametrize("P", [4, 6])
def test_KM9_false_alarms_every_tick_end_each_manche_with_a_wrong_kems_after_the_reaction_delay(P):
    #  false_kems_rate 1: every seat misreads at tick 0 and calls at 0 + R; nobody can hold four of a kind
    #  that early (the deal leaves at most two of a rank, one exchange adds one), so every call is wrong
    r = Rules.from_options({"false_kems_rate": 1.0, "false_contre_rate": 0.0})
    T = P // 2
    for index in range(30):
        g = Game(r, [seat("balanced")] * P, 5, index, "manches").play()
        (row,) = g.rows["manches"]
        assert row[MANCHE.outcome] == OUT_WRONG_KEMS and row[MANCHE.why] == WHY_FALSE
        assert r.reaction_min + 1 <= row[MANCHE.ticks] <= r.reaction_max + 1
        offender = team_of(row[MANCHE.caller], P)
        assert [row[team_column("manches", P, "points", t)] for t in range(T)] == [int(t != offender) for t in range(T)]


# ================================================================================================ KM10
@rule("KM10")
def test_KM10_right_contre_on_a_team_scores_one_and_ends_the_manche():
    #  P1 accuses P0 (team A); P0 mixes ranks but its partner P2 holds four: under contre_target=team it is right
    m = make()
    hands(m, p0="AS 2H AD AC", p1="2C 3C 4C 5C", p2="KC KD KH KS", p3="6D 7D 8D 9D")
    m.call_contre(40, 1, 0, WHY_SIGN)
    assert m.ended and m.res.outcome == OUT_CONTRE and m.res.caller == 1 and m.res.points == [0, 1]


@rule("KM10")
def test_KM10_contre_target_player_checks_only_the_named_player():
    m = make(contre_target="player")
    hands(m, p0="AS 2H AD AC", p1="2C 3C 4C 5C", p2="KC KD KH KS", p3="6D 7D 8D 9D")
    m.call_contre(40, 1, 0, WHY_SIGN)   # P0 does not hold four: wrong
    assert not m.ended and m.banned[1] and m.res.points == [0, 0]
    assert all(m.loc[c] == 0 for c in m.hands[0]) and all(m.loc[c] == LOC_UNKNOWN for c in m.hands[2])
    m.call_contre(41, 3, 2, WHY_SIGN)   # P3 names P2: right
    assert m.ended and m.res.outcome == OUT_CONTRE and m.res.caller == 3 and m.res.points == [0, 1]


@rule("KM10")
def test_KM10_with_six_players_a_contre_names_one_of_the_two_opposing_teams():
    #  team A = P0 P3, B = P1 P4, C = P2 P5; P4 (team B) holds four
    m = make(P=6)
    hands(m, p0="2C 3C 4C 5C", p1="6C 7C 8C 9C", p2="10C JC QC KC", p3="2D 3D 4D 5D", p4="AS AH AD AC",
          p5="6D 7D 8D 9D")
    m.call_contre(40, 0, 2, WHY_INFERENCE)   # P0 accuses team C: wrong
    assert not m.ended and m.banned[0] and m.res.points == [0, 0, 0]
    m.call_contre(41, 5, 1, WHY_INFERENCE)   # P5 accuses team B: right
    assert m.ended and m.res.points == [0, 0, 1] and m.res.why == WHY_INFERENCE


# ================================================================================================ KM11
@rule("KM11")
def test_KM11_wrong_contre_bans_the_caller_for_the_manche_and_shows_the_accused_hands(monkeypatch):
    m = make()
    hands(m, p0="AS 2H AD AC", p1="2C 3C 4C 5C", p2="KC KD KH 5S", p3="6D 7D 8D 9D")
    m.call_contre(40, 1, 0, WHY_SIGN)
    assert not m.ended and m.banned[1] and m.res.wrong_contres == 1 and m.res.points == [0, 0]
    assert all(m.loc[c] == 0 for c in m.hands[0]) and all(m.loc[c] == 2 for c in m.hands[2])
    assert all(m.loc[c] == LOC_UNKNOWN for c in m.hands[1])      # plain ban: the caller shows nothing
    hands(m, p2="KC KD KH KS")                                   # now team A does hold four
    m.pending[1][CALL_CONTRE] = (45, 0.5, 0, WHY_SIGN)           # a contre of P1's already on its way: ignored
    calls_before = m.res.calls
    m.calls(45)
    assert not m.ended and m.res.calls == calls_before and m.pending[1][CALL_CONTRE] is None
    # a banned player schedules no new contre: not on a false alarm, not by inference
    m.next_false_contre[1] = 46
    m.false_alarms(46)
    assert m.pending[1][CALL_CONTRE] is None and m.next_false_contre[1] > 46
    script(monkeypatch, {}, contre={1: 0})
    move_at(m, p1=47.5)
    m.moves(47)
    assert m.pending[1][CALL_CONTRE] is None
    m.call_contre(48, 3, 0, WHY_SIGN)                            # P1's partner is not banned
    assert m.ended and m.res.points == [0, 1] and m.res.caller == 3


@rule("KM11")
def test_KM11_a_banned_opponent_who_sees_a_sign_does_not_call_contre():
    seats = [seat(visibility=1.0), seat(attention_partner=0.0, attention_opponents=1.0, contre_prob=1.0)] * 2
    m = make(seats=seats, kappa0=1.0)
    m.banned[1] = True
    m.next_sign[0] = 50
    m.signs(50)
    assert m.sightings[1, 0] == 1 and m.sightings[3, 0] == 1     # both opponents saw it
    assert m.pending[1][CALL_CONTRE] is None
    due, _, target, why = m.pending[3][CALL_CONTRE]
    assert target == 0 and why == WHY_SIGN and 52 <= due <= 55


@rule("KM11")
def test_KM11_ban_show2_reveals_the_callers_first_two_cards():
    m = make(wrong_contre="ban_show2")
    hands(m, p0="AS 2H AD AC", p1="2C 3C 4C 5C", p2="KC KD KH 5S")
    m.call_contre(40, 1, 0, WHY_SIGN)
    assert m.banned[1] and m.res.points == [0, 0]
    assert [int(m.loc[c]) for c in m.hands[1]] == [1, 1, LOC_UNKNOWN, LOC_UNKNOWN]


@rule("KM11")
@pytest.mark.parametrize("negative,points", [(False, [1, 0]), (True, [0, -1])])
def test_KM11_opponents_plus1_gives_the_accused_team_a_point(negative, points):
    m = make(wrong_contre="opponents_plus1", negative_points=negative)
    hands(m, p0="AS 2H AD AC", p1="2C 3C 4C 5C", p2="KC KD KH 5S")
    m.call_contre(40, 1, 0, WHY_SIGN)
    assert m.banned[1] and not m.ended and m.res.points == points


# ================================================================================================ KM12
@rule("KM12")
@pytest.mark.parametrize("t_kems,t_contre,winner", [(0.3, 0.6, "kems"), (0.6, 0.3, "contre")])
def test_KM12_calls_due_in_one_tick_are_processed_in_time_order_and_the_first_that_ends_wins(t_kems, t_contre,
                                                                                            winner):
    m = make()
    hands(m, p0="AS AH AD AC", p1="2C 3C 4C 5C", p2="6D 7D 8D 9D", p3="10S JS QS KS")
    m.pending[2][CALL_KEMS] = (40, t_kems, 0, WHY_SIGN)
    m.pending[1][CALL_CONTRE] = (40, t_contre, 0, WHY_SIGN)
    m.pending[3][CALL_CONTRE] = (41, 0.0, 0, WHY_SIGN)   # due next tick: not processed now
    m.calls(40)
    assert m.ended and m.res.calls == 1
    if winner == "kems":
        assert m.res.outcome == OUT_KEMS and m.res.caller == 2 and m.res.points == [1, 0]
    else:
        assert m.res.outcome == OUT_CONTRE and m.res.caller == 1 and m.res.points == [0, 1]


@rule("KM12")
def test_KM12_a_call_that_does_not_end_the_manche_lets_the_next_one_in_the_same_tick_count():
    m = make(contre_target="player")
    hands(m, p0="AS AH AD AC", p1="2C 3C 4C 5C", p2="6D 7D 8D 9D", p3="10S JS QS KS")
    m.pending[3][CALL_CONTRE] = (40, 0.1, 2, WHY_INFERENCE)   # names P2, who holds nothing: wrong, play goes on
    m.pending[2][CALL_KEMS] = (40, 0.5, 0, WHY_SIGN)
    m.calls(40)
    assert m.banned[3] and m.res.calls == 2 and m.res.outcome == OUT_KEMS and m.res.points == [1, 0]


@rule("KM12")
@pytest.mark.parametrize("P,caller,negative,points", [(6, 0, True, [-1, 0, 0]), (6, 0, False, [0, 1, 1]),
                                                      (4, 1, True, [0, -1])])
def test_KM12_negative_points_take_a_point_off_the_offender_instead(P, caller, negative, points):
    m = make(P=P, negative_points=negative)
    m.deal()
    m.call_kems(40, caller, WHY_FALSE)
    assert m.res.outcome == OUT_WRONG_KEMS and m.res.points == points


@rule("KM12")
def test_KM12_by_default_scores_only_go_up():
    P = 4
    r = Rules.from_options({"target": 4, "false_kems_rate": 0.002, "wrong_contre": "opponents_plus1"})
    pts = [team_column("manches", P, "points", t) for t in range(2)]
    seen = 0
    for index in range(5):
        for row in Game(r, [seat("watcher")] * P, 3, index).play().rows["manches"]:
            assert all(row[c] >= 0 for c in pts)
            seen += 1
    assert seen > 10


@rule("KM12")
@pytest.mark.parametrize("P", [4, 6])
def test_KM12_the_deal_rotates_clockwise_across_manches(P):
    r = Rules.from_options({"target": 3})
    for index in range(P + 1):
        g = Game(r, [seat("balanced")] * P, 2, index).play()
        dealers = [row[MANCHE.dealer] for row in g.rows["manches"]]
        assert g.rows["games"][0][GAME.first_dealer] == index % P
        assert dealers == [(index + k) % P for k in range(len(dealers))]
        assert len(dealers) >= 2


@rule("KM12")
@pytest.mark.parametrize("change", [False, True])
def test_KM12_signs_change_each_manche_resets_what_opponents_learned(monkeypatch, change):
    starts, ends = [], []

    class Recording(Manche):
        def play(self):
            starts[-1].append(self.sightings.copy())
            res = super().play()
            ends[-1].append(self.sightings.copy())
            return res

    monkeypatch.setattr(reference, "Manche", Recording)
    r = Rules.from_options({"target": 6, "signs_change_each_manche": change, "kappa0": 0.5})
    carried = 0
    for index in range(3):
        starts.append([])
        ends.append([])
        Game(r, [seat("watcher")] * 4, 9, index).play()
        assert int(starts[-1][0].sum()) == 0                      # a new game: nobody knows any sign
        for k in range(1, len(starts[-1])):
            s, previous = starts[-1][k], ends[-1][k - 1]
            if change:
                assert int(s.sum()) == 0
            else:
                assert (s == previous).all()
                carried += int(s.sum() > 0)
        for e in ends[-1]:
            assert all(e[p, team_of(p, 4)] == 0 for p in range(4))  # nobody "learns" its own team's sign
    assert sum(int(e.sum()) for g in ends for e in g) > 5          # opponents did see signs
    assert change or carried > 0


# ================================================================================================ KM13
@rule("KM13")
def test_KM13_a_sign_is_never_invisible():
    for name, sdef in STRATEGIES.items():
        vis = sdef.params.by_name["visibility"]
        assert vis.low == 0.01 and vis.default > 0, name
        with pytest.raises(SpecError):
            sdef.params.resolve({"visibility": 0.0})
    assert Rules().kappa0 > 0
    with pytest.raises(SpecError, match="kappa0"):   # κ₀ = 0 would make a sign unseeable by opponents for good
        Rules.from_options({"kappa0": 0})


@rule("KM13")
@pytest.mark.parametrize("n,v", [(0, 0.5), (4, 0.5), (2, 0.01)])
def test_KM13_opponents_see_a_sign_with_probability_a_o_v_kappa(n, v):
    #  p_x = a_o · v · κ(n), κ(n) = 1 - (1 - κ0)(1 - ρ)^n, n = signs of that team the opponent saw before
    a_o, kappa0, rho = 1.0, 0.1, 0.25
    holder = seat(visibility=v)
    watcher = seat(attention_partner=0.0, attention_opponents=a_o, contre_prob=0.0)
    m = make(seats=[holder, watcher, seat(), watcher], kappa0=kappa0, rho=rho)
    p = a_o * v * (1 - (1 - kappa0) * (1 - rho) ** n)
    signs = 20000 if v < 0.1 else 3000
    seen = 0
    for t in range(signs):
        m.sightings[:] = n
        m.next_sign[0] = t
        m.signs(t)
        seen += int(m.sightings[1, 0] - n) + int(m.sightings[3, 0] - n)
    assert seen > 0
    assert within(seen, 2 * signs, p), (seen, 2 * signs * p)
    assert m.res.seen_opp[0] == seen and m.res.signs[0] == signs
    assert (m.sightings[:, 1] == n).all()   # only team A signed


# ================================================================================================ model §3.2
@rule("M-time")
def test_M_durations_are_whole_ticks_rounded_up():
    r = Rules()
    assert (r.turn_up_ticks, r.sweep_ticks, r.quiet_ticks, r.double_ticks) == (5, 8, 15, 10)  # 1 s, 1.5 s, 3 s, 2 s
    assert r.sign_delay_p == pytest.approx(0.2)      # mean 1 s = 5 ticks
    r = Rules.from_options({"tick": 0.3})
    assert (r.turn_up_ticks, r.sweep_ticks, r.quiet_ticks) == (4, 5, 10)
    assert Rules.from_options({"sign_delay": 0.1}).sign_delay_p == 1.0
    with pytest.raises(SpecError):
        Rules.from_options({"reaction_min": 4, "reaction_max": 3})
    assert {p.name for p in OPTIONS.params} == set(Rules.__dataclass_fields__)


@rule("M-phases")
@pytest.mark.parametrize("opts", [{}, {"turn_up_time": 0.4, "sweep_time": 0.2, "quiet_time": 1.0, "tick": 0.1}])
def test_M_phases_turn_up_open_sweep_follow_each_other_with_their_lengths(opts):
    #  nobody moves: turn-up (U ticks) -> Top -> Q silent ticks (Top's included) -> sweep -> S ticks -> turn-up ...
    m = make(seats=[seat(speed=0.0)] * 4, max_ticks=120, **NO_NOISE, **opts)
    U, Q, S = m.r.turn_up_ticks, m.r.quiet_ticks, m.r.sweep_ticks
    log = record(m, "turn_up", "top", "sweep", "moves")
    res = m.play()
    expected, t = [], 0
    while t < 120:
        expected += [("turn_up", t), ("top", t + U)]
        expected += [("moves", x) for x in range(t + U, t + U + Q)]
        expected.append(("sweep", t + U + Q - 1))
        t += U + Q + S
    assert log == [e for e in expected if e[1] < 120]
    assert res.outcome == OUT_CAP and res.ticks == 120 and res.points == [0, 0] and res.exchanges == 0


@rule("M-perception")
@pytest.mark.parametrize("lag", [0, 1, 3])
def test_M_perception_others_see_a_change_lag_ticks_late_the_mover_at_once(monkeypatch, lag):
    m = make(lag_ticks=lag)
    hands(m, p1="AS AH 7C 9D")
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {1: [(2, 0)]})
    move_at(m, p1=10.5)
    m.moves(10)                                       # P1 gives 7C for AD in tick 10
    for t in range(10, 16):
        assert m.perceived(t, 1)[0] == C("7C")        # its own exchange: at once
        for p in (0, 2, 3):
            assert m.perceived(t, p)[0] == (C("7C") if t >= 11 + lag else C("AD")), (t, p)
        assert list(m.perceived(t, 3)[1:]) == list(cards("KC 5H 3S"))
    m2 = make(lag_ticks=lag)   # a turn-up is seen lag ticks after the tick it happens in
    m2.deal()
    m2.turn_up(20)
    if lag:
        assert (m2.perceived(20 + lag - 1, 2) == EMPTY).all()
    assert list(m2.perceived(20 + lag, 2)) == list(m2.table)


@rule("M-perception")
@pytest.mark.parametrize("lag", [0, 1, 3])
def test_M_perception_loc_silence_and_shown_hands_reach_everyone_with_the_centres_lag(monkeypatch, lag):
    #  open from tick 0; tick 10: P1 gives 7C for AD; tick 12: P0's wrong contre shows team B's hands (P1, P3).
    #  Every other player perceives each of them, in the centre, in loc and in the silences alike, from the
    #  next tick + lag; P1 perceives its own exchange at once (in the centre and in loc).
    m = make(lag_ticks=lag)
    hands(m, p0="2C 3D 4H 5S", p1="AS AH 7C 9D", p2="6C 8D 10H JS", p3="QC KD QH KS")
    lay(m, "AD KC 5H 3S")
    m.top(0)
    script(monkeypatch, {1: [(2, 0)]})
    move_at(m, p1=10.5)
    m.open_ticks = 10                  # as the clock would have it: ten ticks of open exchange so far
    m.moves(10)
    m.call_contre(12, 0, 1, WHY_SIGN)
    for t in range(10, 20):
        for p in (0, 2, 3):
            v = m.view(t, p)
            swapped = t >= 11 + lag
            assert v.seen[0] == (C("7C") if swapped else C("AD")), (t, p)
            assert v.loc[C("AD")] == (1 if swapped else LOC_TABLE) and v.loc[C("7C")] == (LOC_TABLE if swapped else LOC_UNKNOWN)
            assert v.silence[1] == (t - lag) - (10 if swapped else 0), (t, p, v.silence)   # open ticks since it last swapped
            shown = t >= 13 + lag
            assert all((v.loc[c] == 1) == shown for c in cards("AS AH 9D")), (t, p)
            assert all((v.loc[c] == 3) == shown for c in m.hands[3]), (t, p)
            assert v.pub[26 + 3 * 13 + 11] == (2 if shown else 0)    # P3's queens, in the rank counts too
        own = m.view(t, 1)
        assert own.seen[0] == C("7C") and own.loc[C("AD")] == 1 and own.loc[C("7C")] == LOC_TABLE


@rule("M-perception")
def test_M_perception_own_exchange_on_an_older_state_keeps_the_view_consistent(monkeypatch):
    #  lag 3. tick 10: P1 takes AD (centre slot 0) for 7C; tick 11: P1 takes 7C back for AD; tick 12: P3, who
    #  still sees AD there (the centre of tick 9), takes it for 2C. At tick 14 P3 perceives the centre of tick 11
    #  (7C in slot 0) with its own exchange on top: 2C in slot 0 and AD in its hand; 7C has left slot 0 for a
    #  place P3 cannot know. Every card the view shows in the centre is the one loc places there, and only those.
    m = make(lag_ticks=3)
    hands(m, p1="AS AH 7C 9D", p3="2C 3C 4C 6S")
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {1: [(2, 0)], 3: [(0, 0)]})
    move_at(m, p1=10.5)
    assert m.moves(10)
    move_at(m, p1=11.5)
    assert m.moves(11) and m.table[0] == C("AD")
    move_at(m, p3=12.5)
    assert m.moves(12) and m.hands[3, 0] == C("AD") and m.table[0] == C("2C")
    assert m.view(13, 3).seen[0] == C("2C")                    # the centre of tick 10 (AD) and its own exchange
    v = m.view(14, 3)
    assert list(v.seen) == list(cards("2C KC 5H 3S"))
    assert v.loc[C("AD")] == 3 and v.loc[C("2C")] == LOC_TABLE and v.loc[C("7C")] == LOC_UNKNOWN
    assert {int(c) for c in v.seen} == {c for c in range(52) if v.loc[c] == LOC_TABLE}
    assert m.view(14, 0).seen[0] == C("7C")                    # the others: the centre of tick 11, as it was


@rule("M-exchange")
def test_M_moves_are_poisson_arrivals_at_a_rate_set_by_speed_and_attention(monkeypatch):
    #  λΔ per tick = speed · a_table / 0.4 · Δ, a_table = 1 - a_p - (teams - 1)·a_o (scaled to fit a budget of 1)
    bal = seat()
    over = seat(attention_partner=0.8, attention_opponents=0.6)
    fast = seat(speed=5.0, attention_partner=0.3, attention_opponents=0.1)
    r = Rules()
    m4 = seat_model([bal, over, fast, bal], r)
    assert m4[0, S_RATE] == pytest.approx(2.0 * 0.4 / 0.4 * 0.2)
    assert m4[1, S_RATE] == 0.0 and m4[1, S_ATT_P] == pytest.approx(0.8 / 1.4)
    assert m4[1, S_ATT_O] == pytest.approx(0.6 / 1.4)
    assert m4[2, S_RATE] == pytest.approx(5.0 * 0.6 / 0.4 * 0.2)
    m6 = seat_model([bal] * 6, r)
    assert m6[0, S_RATE] == pytest.approx(2.0 * 0.2 / 0.4 * 0.2)   # two opposing teams to watch
    #  in each tick a player moves with probability 1 - exp(-λΔ), independently of the other ticks
    m = make(seats=[bal, seat(speed=1.0), fast, bal])
    movers = script(monkeypatch, {})
    lay(m, "AD KC 5H 3S")
    m.top(0)
    n = 4000
    for t in range(n):
        m.moves(t)
    for p in range(4):
        assert within(movers.count(p), n, 1 - math.exp(-m.model[p, S_RATE])), (p, movers.count(p))


@rule("M-exchange")
@pytest.mark.parametrize("t1,t3,winner", [(10.7, 10.2, 3), (10.2, 10.7, 1)])
def test_M_race_speed_weighted_the_earlier_move_wins_the_loser_does_nothing(monkeypatch, t1, t3, winner):
    m = make(race_policy="speed_weighted")
    hands(m, p1="2C 3C 4C 6S", p3="7H 8H 9H 10D")
    lay(m, "AD KC 5H 3S")
    before = m.hands.copy()
    script(monkeypatch, {1: [(0, 0)], 3: [(0, 0)]})   # both reach for AD
    move_at(m, p1=t1, p3=t3)
    m.moves(10)
    loser = 4 - winner
    assert m.hands[winner, 0] == C("AD") and m.table[0] == before[winner, 0]
    assert (m.hands[loser] == before[loser]).all() and m.res.seat_exchanges[loser] == 0
    assert m.res.exchanges == 1 and m.next_move[1] >= 11 and m.next_move[3] >= 11


@rule("M-exchange")
@pytest.mark.parametrize("dealer,winner", [(0, 1), (2, 3), (1, 3)])
def test_M_race_turn_order_the_seat_nearer_the_dealers_left_wins(monkeypatch, dealer, winner):
    m = make(race_policy="turn_order", dealer=dealer)
    hands(m, p1="2C 3C 4C 6S", p3="7H 8H 9H 10D")
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {1: [(0, 0)], 3: [(0, 0)]})
    move_at(m, p1=10.9 if winner == 1 else 10.1, p3=10.9 if winner == 3 else 10.1)  # the later mover wins
    m.moves(10)
    assert m.hands[winner, 0] == C("AD") and m.res.exchanges == 1


@rule("M-exchange")
def test_M_race_uniform_is_a_fair_coin_whatever_the_move_times(monkeypatch):
    script(monkeypatch, {1: [(0, 0)], 3: [(0, 0)]})
    n, wins = 600, 0
    for seed in range(n):
        m = make(race_policy="uniform", seed=seed)
        hands(m, p1="2C 3C 4C 6S", p3="7H 8H 9H 10D")
        lay(m, "AD KC 5H 3S")
        move_at(m, p1=10.1, p3=10.9)
        m.moves(10)
        assert m.res.exchanges == 1
        wins += int(m.hands[1, 0] == C("AD"))
    assert within(wins, n, 0.5), wins


@rule("M-signal")
def test_M_signal_a_new_holder_signs_after_the_delay_then_with_sigma_each_tick():
    #  first sign at tick + d_s + Geom(σ) - 1, d_s ~ Geom(Δ / sign_delay): with σ = 1 exactly tick + d_s
    m = make(seats=[seat(sigma=1.0)] * 4, sign_delay=1.0)
    hands(m, p0="AS AH AD AC")
    n, total = 4000, 0
    for k in range(n):
        m.holding[0] = False
        m.update_four(100, 0)
        assert m.holding[0] and m.res.four_tick[0] == 100
        total += m.next_sign[0] - 100
    mean_ticks = 1 / m.r.sign_delay_p   # 5
    sd = math.sqrt((1 - m.r.sign_delay_p) / m.r.sign_delay_p ** 2 / n)
    assert abs(total / n - mean_ticks) < 5 * sd
    m.update_four(101, 0)                                   # still holding: nothing restarts
    first = m.next_sign[0]
    m.update_four(102, 0)
    assert m.next_sign[0] == first
    hands(m, p0="AS AH AD 2C")                              # four of a kind lost: no more signs
    m.update_four(103, 0)
    assert not m.holding[0] and m.next_sign[0] == NEVER and m.res.four_tick[0] == 100
    #  after a sign, the next one comes Geom(σ) ticks later
    m = make(seats=[seat(sigma=0.25, visibility=0.01, attention_partner=0.0)] * 4)
    gaps = []
    for k in range(3000):
        m.next_sign[0] = 10
        m.signs(10)
        gaps.append(m.next_sign[0] - 10)
    assert min(gaps) >= 1 and abs(np.mean(gaps) - 4.0) < 5 * math.sqrt(0.75 / 0.25 ** 2 / 3000)


@rule("M-signal")
def test_M_signal_the_partner_sees_a_sign_with_a_p_v_and_calls_kems_after_the_reaction_delay():
    a_p, v = 0.4, 0.5
    m = make(seats=[seat(visibility=v), seat(attention_opponents=0.0), seat(attention_partner=a_p), seat()],
             **NO_NOISE)
    n, seen = 3000, 0
    for t in range(n):
        m.pending[2][CALL_KEMS] = None
        m.next_sign[0] = t
        m.signs(t)
        if m.pending[2][CALL_KEMS] is not None:
            seen += 1
            due, when, target, why = m.pending[2][CALL_KEMS]
            assert t + 2 <= due <= t + 5 and 0 <= when < 1 and target == 0 and why == WHY_SIGN
    assert within(seen, n, a_p * v), seen
    assert m.res.seen_partner[0] == seen and m.res.signs == [n, 0]
    assert m.pending[0][CALL_KEMS] is None and m.pending[1][CALL_KEMS] is None


@rule("M-signal")
def test_M_signal_opponents_learn_a_teams_sign_kappa_grows_with_each_sighting():
    #  κ0 = 0.5, ρ = 1: an opponent who has seen the sign once recognises it every time after
    holder = seat(visibility=1.0)
    watcher = seat(attention_partner=0.0, attention_opponents=1.0, contre_prob=0.0)
    m = make(seats=[holder, watcher, seat(), watcher], kappa0=0.5, rho=1.0)
    history = []
    for t in range(200):
        before = m.sightings[1, 0]
        m.next_sign[0] = t
        m.signs(t)
        history.append((before, m.sightings[1, 0] - before))
    assert all(d == 1 for b, d in history if b >= 1)        # learned: always seen
    first_seen = [b for b, d in history].index(1) if any(b for b, d in history) else None
    assert first_seen is not None and first_seen < 20
    assert all(d in (0, 1) for b, d in history)
    assert (m.sightings[0] == 0).all() and (m.sightings[2] == 0).all()  # partners do not count sightings


@rule("M-signal")
@pytest.mark.parametrize("c", [0.0, 1.0])
def test_M_signal_an_opponent_who_sees_a_sign_calls_contre_with_probability_c(c):
    m = make(seats=[seat(visibility=1.0), seat(attention_partner=0.0, attention_opponents=1.0, contre_prob=c)] * 2,
             kappa0=1.0)
    m.next_sign[2] = 30
    m.signs(30)
    for o in (1, 3):
        if c:
            due, _, target, why = m.pending[o][CALL_CONTRE]
            assert target == 2 and why == WHY_SIGN and 32 <= due <= 35
        else:
            assert m.pending[o][CALL_CONTRE] is None


@rule("M-signal")
def test_M_signal_each_chance_to_sign_is_the_holders_decision(monkeypatch):
    """The holder's strategy is asked at each chance (decision ``sign``): a declined chance is no sign (nobody sees
    anything, no call) and the next chance follows Geom(σ) ticks later, as after a sign."""
    asked = []

    def sign(sid, prm, me, players, hand, rng):
        asked.append(me)
        return len(asked) % 2 == 0  # every other chance

    answer_with(monkeypatch, sign=sign)
    m = make(seats=[seat(sigma=1.0, visibility=1.0), seat(attention_opponents=1.0, attention_partner=0.0),
                    seat(attention_partner=1.0), seat(attention_opponents=1.0, attention_partner=0.0)],
             kappa0=1.0, **NO_NOISE)
    for t in (10, 11, 12, 13):
        m.next_sign[0] = t
        m.signs(t)
        assert m.next_sign[0] == t + 1  # σ = 1: the next chance at the next tick, signed or not
    assert asked == [0, 0, 0, 0] and m.res.signs == [2, 0] and m.res.seen_partner == [2, 0]


@rule("KM8")
def test_KM8_the_partner_who_sees_a_sign_decides_whether_to_call_kems(monkeypatch):
    """Decision ``call``: asked of the partner who sees the sign (with no Kem's call pending), with the signer."""
    asked = []

    def call(sid, prm, me, players, hand, signer, rng):
        asked.append((me, signer))
        return False

    answer_with(monkeypatch, call=call)
    m = make(seats=[seat(visibility=1.0), seat(), seat(attention_partner=1.0), seat()], **NO_NOISE)
    m.next_sign[0] = 20
    m.signs(20)
    assert asked == [(2, 0)] and m.res.seen_partner == [1, 0] and m.pending[2][CALL_KEMS] is None


@rule("KM10")
def test_KM10_an_opponent_who_sees_a_sign_decides_whether_to_call_contre_and_only_when_it_can(monkeypatch):
    """Decision ``contre``: asked of every opponent who sees the sign, with ``can_call`` false for one banned or
    with a contre pending; a True it may not give stops the run with the one-line error."""
    asked = []

    def contre(sid, prm, me, players, hand, signer, can_call, rng):
        asked.append((me, signer, can_call))
        return can_call

    answer_with(monkeypatch, contre=contre)
    m = make(seats=[seat(visibility=1.0), seat(attention_partner=0.0, attention_opponents=1.0)] * 2, kappa0=1.0)
    m.banned[3] = True
    m.next_sign[2] = 30
    m.signs(30)
    assert asked == [(1, 2, True), (3, 2, False)]
    assert m.pending[1][CALL_CONTRE][2] == 2 and m.pending[3][CALL_CONTRE] is None
    answer_with(monkeypatch, contre=lambda sid, prm, me, players, hand, signer, can_call, rng: True)
    m.next_sign[2] = 40
    with pytest.raises(SpecError, match=r"answered contre with True, which calls contre while it cannot"):
        m.signs(40)


@rule("M-calls")
@pytest.mark.parametrize("lo,hi", [(2, 5), (3, 3), (1, 8)])
def test_M_calls_reaction_delay_is_a_uniform_whole_number_of_ticks(lo, hi):
    m = make(reaction_min=lo, reaction_max=hi)
    n = 800 * (hi - lo + 1)
    delays = []
    for k in range(n):
        m.schedule(100, 1, CALL_KEMS, 3, WHY_SIGN)
        due, when, target, why = m.pending[1][CALL_KEMS]
        assert 0 <= when < 1 and (target, why) == (3, WHY_SIGN)
        delays.append(due - 100)
    counts = np.bincount(delays, minlength=hi + 1)
    assert set(delays) == set(range(lo, hi + 1))
    for d in range(lo, hi + 1):
        assert within(int(counts[d]), n, 1 / (hi - lo + 1)), (d, counts)


@rule("M-calls")
def test_M_calls_false_alarms_come_at_the_rate_and_go_through_the_reaction_delay():
    rate = 0.05
    m = make(P=6, false_kems_rate=rate, false_contre_rate=rate)
    gaps = []
    for k in range(3000):
        g = m.after(50, rate) - 50
        assert g >= 1
        gaps.append(g)
    assert abs(np.mean(gaps) - 1 / rate) < 5 * math.sqrt((1 - rate) / rate ** 2 / 3000)
    targets = []
    for t in range(2000):
        m.pending[0] = [None, None]
        m.next_false_kems[0] = m.next_false_contre[0] = t
        m.false_alarms(t)
        due_k, _, tk, why_k = m.pending[0][CALL_KEMS]
        due_c, _, tc, why_c = m.pending[0][CALL_CONTRE]
        assert tk == partner_of(0, 6) and why_k == why_c == WHY_FALSE
        assert t + 2 <= due_k <= t + 5 and t + 2 <= due_c <= t + 5
        assert m.next_false_kems[0] > t and m.next_false_contre[0] > t
        targets.append(tc)
    #  a random opponent: the four seats of the two other teams, equally often
    assert set(targets) == {1, 2, 4, 5}
    for o in (1, 2, 4, 5):
        assert within(targets.count(o), 2000, 0.25), targets.count(o)


@rule("M-calls")
def test_M_calls_inference_contre_is_decided_at_the_players_own_move_times(monkeypatch):
    m = make()
    lay(m, "AD KC 5H 3S")
    script(monkeypatch, {}, contre={1: 0, 3: 2})
    move_at(m, p1=12.4)
    for t in range(10, 12):
        m.moves(t)
    assert m.pending[1][CALL_CONTRE] is None and m.pending[3][CALL_CONTRE] is None
    m.moves(12)                      # P1 moves: decides; P3 does not move: nothing
    due, _, target, why = m.pending[1][CALL_CONTRE]
    assert target == 0 and why == WHY_INFERENCE and 14 <= due <= 17
    assert m.pending[3][CALL_CONTRE] is None
    m.pending[1][CALL_CONTRE] = (16, 0.5, 0, WHY_INFERENCE)
    move_at(m, p1=13.4)
    m.moves(13)                      # a contre already on its way is not replaced
    assert m.pending[1][CALL_CONTRE] == (16, 0.5, 0, WHY_INFERENCE)


@rule("M-calls")
@pytest.mark.parametrize("lag", [0, 1, 3])
def test_M_calls_silence_counts_only_ticks_of_open_exchange(monkeypatch, lag):
    """Stopping is evidence only while a player could exchange: turn-up and sweep ticks are not silence. And
    (M-perception) a player perceives the silences as they were ``lag_ticks`` ago, like everything public."""
    m = make(seats=[seat(speed=0.0)] * 4, max_ticks=60, turn_up_time=1.0, sweep_time=1.5, quiet_time=1.0,
             lag_ticks=lag, **NO_NOISE)
    seen = []
    answer_with(monkeypatch, infer_contre=lambda sid, prm, me, P, hand, loc, pub, silence, work:
                seen.append(int(silence[0])) or -1)
    m.deal()
    phases = record(m, "top", "sweep")
    open_ticks = []
    orig = m.moves

    def moves(tick):
        open_ticks.append(tick)
        m.next_move[1] = tick   # P1 looks at every open tick (P0 never exchanges)
        return orig(tick)

    m.moves = moves
    m.play()
    assert len(open_ticks) >= 10 and len(phases) >= 4
    assert open_ticks[-1] - open_ticks[0] + 1 > len(open_ticks)   # there were closed ticks in between
    # at tick t: the open ticks before t - lag (lag 0: one more per open tick, nothing for the ticks in between)
    assert seen == [sum(u < t - lag for u in open_ticks) for t in open_ticks]
    assert (seen == list(range(len(seen)))) == (lag == 0)


@rule("KM5")
def test_KM5_without_multi_swap_a_move_exchanges_one_card_and_asking_for_more_is_illegal(monkeypatch):
    """With ``multi_swap`` a move takes two centre cards at once; without it, a strategy that asks for two
    exchanges answered illegally: the run stops with the one-line error (the contract's legal choices)."""
    for multi in (True, False):
        m = make(multi_swap=multi)
        hands(m, p1="AS AH 7C 9D")
        lay(m, "AD AC 5H 3S")
        script(monkeypatch, {1: [(2, 0), (3, 1)]})
        move_at(m, p1=10.5)
        if not multi:
            with pytest.raises(SpecError, match=r"answered propose with 2, which is not a number of exchanges "
                                                r"allowed; legal: 0 to 1 pairs"):
                m.moves(10)
            continue
        assert m.moves(10)
        assert m.res.exchanges == 2 and sorted(m.hands[1] % 13) == [0, 0, 0, 0]


# ================================================================================================ all
def _rule_marks(fn) -> set[str]:
    return {m.args[0] for m in getattr(fn, "pytestmark", []) if m.name == "rule"}


def test_every_rule_KM1_to_KM13_has_a_marked_test():
    marked = {name: _rule_marks(fn) for name, fn in vars(sys.modules[__name__]).items()
              if name.startswith(("test_KM", "test_M_")) and callable(fn)}
    for name, marks in marked.items():
        label = name.split("_")[1]
        expected_ok = marks == {label} if label.startswith("KM") else len(marks) == 1 and min(marks).startswith("M-")
        assert expected_ok, (name, marks)
    assert {name.split("_")[1] for name in marked if name.startswith("test_KM")} == {f"KM{i}" for i in range(1, 14)}
