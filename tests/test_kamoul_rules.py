"""Kamoul rules K1–K16 (docs/rules/kamoul.md) on the reference engine ``simulator.kamoul.engines.reference``.

Most tests lay out a position by hand (``tests/kamoul_helpers.py``), call one engine method and
check the exact result. Tests that play a whole hand rig the deck and script every decision with
:class:`Script`. Layouts are written ``P0: 9C 2C 3C 4C`` (position 0 first); piles bottom first.
"""

from __future__ import annotations

import math

import pytest

from kamoul_helpers import (
    C, Script, deck, fake_hands, knows, known_by, lay, layout, make_hand, piles, rig, rules, seat, table_cards,
)
from simulator.core.errors import SpecError
from simulator.kamoul.engines import reference
from simulator.kamoul.engines.reference import Game, HandResult, value
from simulator.kamoul.vocabulary.answers import StrategyError
from simulator.kamoul.vocabulary.codes import (
    ACT_CALL, ACT_CONTRE, ACT_STOCK, CARD_VALUE, CLS_AU, CLS_FALSE, CLS_NORMAL, EV_PENALTY, EV_RESHUFFLE, OUT_AU_M31,
    OUT_AU_RESET, OUT_BEATEN, OUT_CONTRE_LOST, OUT_CONTRE_WON, OUT_FALSE, OUT_NO_CALL, OUT_NORMAL, OUT_ULTIME,
    PENALTY_OUT_OF_TURN, PENALTY_SNAP, POWER_KING, POWER_PEEK_OPP, POWER_PEEK_OWN, POWER_SWAP,
)
from simulator.kamoul.vocabulary.records import H, M, PT, T, HAND_FIXED, MANCHE_FIXED, PARTIE_FIXED, TOP_FIXED
from simulator.kamoul.vocabulary.rules import check_players

rule = pytest.mark.rule


def score_position(h, caller: int, contres=(), cum=None) -> HandResult:
    """Reveal the current layouts: ``caller`` called KAMOUL, ``contres`` called CONTRE in that order."""
    cum = list(cum) if cum is not None else [0] * h.P
    h.cum = cum
    h.caller = caller
    res = HandResult(dealer=0, points=[0] * h.P, cum_after=list(cum), outcome=OUT_NO_CALL, winner=-1)
    h.score(res, list(contres))
    return res


def own_matches(h):
    """A snap policy: claim every own occupied position whose true card has the discard's rank."""
    def snap(me, rank, allow_others, locked):
        slots = [s for s in range(h.nslots[me]) if h.occ[me, s] and h.hand[me, s] % 13 == rank]
        return ("own", slots) if slots else None
    return snap


def rows(g: Game, table: str) -> list[list[int]]:
    return g.rows[table]


# ================================================================================================ K1
@rule("K1")
def test_K1_card_values_follow_the_seed_table():
    face = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10, "J": 1, "Q": 1}
    for suit in "CDHS":
        for rank, points in face.items():
            assert value(C(rank + suit)) == points, rank + suit
    assert value(C("KD")) == value(C("KH")) == 0  # red kings
    assert value(C("KC")) == value(C("KS")) == 15  # black kings
    assert CARD_VALUE.shape == (52,)
    assert int(CARD_VALUE.sum()) == 4 * (55 + 1 + 1) + 2 * 0 + 2 * 15
    # a second deck holds the same ids again (card % 52)
    assert value(C("KS") + 52) == 15


@rule("K1")
@pytest.mark.parametrize("n_decks,players", [(1, 4), (1, 6), (2, 8)])
def test_K1_deck_is_52_cards_times_n_decks(n_decks, players):
    h = make_hand(P=players, strategy="random", seed=3, n_decks=n_decks)
    assert h.r.n_cards == 52 * n_decks
    h.play(0, [0] * players)
    assert table_cards(h) == deck(n_decks)  # every card of every deck, no joker


@rule("K1")
def test_K1_player_count_2_to_6_per_deck_8_with_two():
    for players in (2, 6):
        check_players(players, rules().__dict__)
    check_players(8, rules(n_decks=2).__dict__)
    for players, decks in ((1, 1), (7, 1), (9, 2)):
        with pytest.raises(SpecError):
            check_players(players, rules(n_decks=decks).__dict__)


# ================================================================================================ K2
LAYOUTS4 = {0: ["AC", "2C", "3C", "4C"], 1: ["5C", "6C", "7C", "8C"], 2: ["9C", "10C", "JC", "QC"],
            3: ["AD", "2D", "3D", "4D"]}


@rule("K2")
def test_K2_deal_four_face_down_from_dealer_left_then_upcard_and_two_peeks(monkeypatch):
    # dealer P3: P0 gets the first card; upcard KD; everyone peeks at two positions before the first turn
    h = make_hand(P=4)
    rig(h, dealer=3, layouts=LAYOUTS4, upcard="KD")
    script = Script(turns={0: [ACT_CALL]}).install(h)
    first = {}
    turn = script.turn

    def snapshot(*args):
        if not first:
            first.update(hand=h.hand.copy(), know=h.know.copy(), faceup=h.faceup.copy(), discard=list(h.discard),
                         stock=len(h.stock), nslots=h.nslots.copy())
        return turn(*args)

    monkeypatch.setattr(script, "turn", snapshot)
    h.play(3, [0] * 4)
    for p, cards in LAYOUTS4.items():
        assert [int(c) for c in first["hand"][p, :4]] == [C(c) for c in cards]
    assert list(first["nslots"]) == [4] * 4
    assert not first["faceup"].any()
    assert first["discard"] == [C("KD")]
    assert first["stock"] == 52 - 4 * 4 - 1
    # peeks: asked once per player, from the dealer's left, for 2 positions; each knows only those
    assert [(me, d["n"]) for me, d in script.asked("peeks")] == [(0, 2), (1, 2), (2, 2), (3, 2)]
    for o in range(4):
        for p in range(4):
            for s in range(4):
                expect = first["hand"][p, s] if (o == p and s < 2) else -1
                assert first["know"][o, p, s] == expect


@rule("K2")
def test_K2_hand_size_and_initial_peeks_options_random_peeks_distinct():
    h = make_hand(P=3, strategy="random", seed=5, hand_size=6, initial_peeks=3)
    peeks = []
    trace = h.trace

    def record(ev, a=0, b=0, c=0):
        if ev == reference.EV_PEEK:
            peeks.append((a, b, c))
        trace(ev, a, b, c)

    h.trace = record
    h.play(2, [0, 0, 0])
    assert len(peeks) == 9
    for p in range(3):
        slots = [s for q, s, _ in peeks if q == p]
        assert len(set(slots)) == 3 and all(0 <= s < 6 for s in slots)
    with pytest.raises(SpecError):
        rules(hand_size=2, initial_peeks=3)


# ================================================================================================ K3
@rule("K3")
def test_K3_left_of_dealer_starts_and_play_is_clockwise(monkeypatch):
    # dealer P1 → P2 starts; P1 calls on its second turn; P2, P3, P0 then get one final turn each
    h = make_hand(P=4)
    rig(h, dealer=1, layouts=LAYOUTS4, upcard="KD")
    script = Script(turns={1: [ACT_STOCK, ACT_CALL]}).install(h)
    res = h.play(1, [0] * 4)
    assert script.turn_order() == [2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0]
    assert [me for me, _ in script.asked("peeks")] == [2, 3, 0, 1]
    assert res.turns == 11 and res.caller == 1 and res.call_turn == 2


@rule("K3")
def test_K3_dealer_rotates_every_hand_across_manches_and_parties():
    for index in range(5):
        g = Game(rules(), [seat("balanced")] * 3, 21, index, "parties").play()
        dealers = [r[H["dealer"]] for r in rows(g, "hands")]
        assert dealers[0] == (index + 2) % 3  # game i is dealt so that seat i mod P plays first
        assert all(b == (a + 1) % 3 for a, b in zip(dealers, dealers[1:]))


# ================================================================================================ K4
@rule("K4")
def test_K4_stock_card_kept_replaces_a_position_old_card_discarded_no_power(monkeypatch):
    # P0: 9C 2C 3C 4C, stock top JH; P0 keeps the jack in position 0 → 9C is discarded, no power fires
    h = make_hand(P=3)
    for p, cards in enumerate((["9C", "2C", "3C", "4C"], ["5D", "6D", "7D", "8D"], ["5H", "6H", "7H", "8H"])):
        lay(h, p, cards)
    piles(h, stock=["AS", "JH"], discard=["KD"])
    knows(h, 1, 0, 0)  # P1 had spied P0's position 0
    script = Script(keeps={0: [0]}).install(h)
    h.turn_stock(0, 1)
    assert h.hand[0, 0] == C("JH") and h.discard == [C("KD"), C("9C")] and h.stock == [C("AS")]
    assert known_by(h, 0, 0) == {0}  # the kept card is known to its owner only
    assert not script.asked("power")  # a card that replaced a position never fires a power
    assert {d["rank"] for _, d in script.asked("snap")} == {8}  # the snap window is on the discarded 9


@rule("K4")
def test_K4_stock_card_discarded_directly_offers_its_power(monkeypatch):
    h = make_hand(P=3)
    for p in range(3):
        lay(h, p, ["9C", "2C", "3C", "4C"] if p == 0 else ["5D", "6D", "7D", "8D"])
    piles(h, stock=["7H"], discard=["KD"])
    script = Script().install(h)
    h.turn_stock(0, 1)
    assert h.discard == [C("KD"), C("7H")] and layout(h, 0) == [C(c) for c in ("9C", "2C", "3C", "4C")]
    assert script.asked("power") == [(0, {"kind": POWER_PEEK_OWN, "locked": -1, "own_vs_opp": False})]


@rule("K4")
@pytest.mark.parametrize("face_up", [False, True])
def test_K4_discard_take_is_a_compulsory_swap_and_its_identity_is_public(monkeypatch, face_up):
    # P0: 9C 2C 3C 4C; discard 5D AH (AH on top). P0 takes AH into position 0 → 9C goes on the discard
    h = make_hand(P=3, discard_pick_face_up=face_up)
    for p in range(3):
        lay(h, p, ["9C", "2C", "3C", "4C"] if p == 0 else ["5D", "6D", "7D", "8D"])
    piles(h, stock=["2S"], discard=["5D", "AH"])
    script = Script(takes={0: [0]}).install(h)
    h.turn_take(0, 1)
    assert h.hand[0, 0] == C("AH") and h.discard == [C("5D"), C("9C")] and h.stock == [C("2S")]
    assert known_by(h, 0, 0) == {0, 1, 2}
    assert h.faceup[0, 0] == int(face_up)
    assert not script.asked("keep") and not script.asked("power")


@rule("K4")
def test_K4_turn_options_before_and_after_a_call(monkeypatch):
    # P0 calls at its first turn; P1 and P2 may then contre but not call; a call ends the turn (no draw)
    h = make_hand(P=3)
    rig(h, dealer=2, layouts={0: ["AC", "2C", "KD", "AH"], 1: ["5C", "6C", "7C", "8C"], 2: ["9C", "10C", "JC", "QC"]},
        upcard="KH")
    script = Script(turns={0: [ACT_CALL]}).install(h)
    h.play(2, [0, 0, 0])
    turns = script.asked("turn")
    assert turns[0] == (0, {"can_call": True, "can_contre": False, "can_take": True, "top": C("KH")})
    for me, d in turns[1:]:
        assert not d["can_call"] and d["can_contre"] and d["can_take"]
    assert [me for me, _ in script.asked("keep")] == [1, 2]  # the caller drew nothing


# ================================================================================================ K5
def power_position(monkeypatch, target, king_swap=False, **options):
    """P0 9C 2C 3C 4C, P1 5D 6D 7D 8D, P2 5H 6H 7H 8H; P0 knows its positions 0-1, P1 knows P2's position 1."""
    h = make_hand(P=3, **options)
    lay(h, 0, ["9C", "2C", "3C", "4C"])
    lay(h, 1, ["5D", "6D", "7D", "8D"])
    lay(h, 2, ["5H", "6H", "7H", "8H"])
    knows(h, 0, 0, 0, 1)
    knows(h, 1, 2, 1)
    piles(h, stock=["AS"], discard=["KD"])
    script = Script(power=lambda me, kind, locked, ovo: target, king_swap=king_swap).install(h)
    return h, script


@rule("K5")
@pytest.mark.parametrize("card", ["7H", "8S"])
def test_K5_seven_eight_look_at_one_own_card(monkeypatch, card):
    h, script = power_position(monkeypatch, (0, 3))
    h.power(0, C(card))
    assert script.asked("power")[0][1]["kind"] == POWER_PEEK_OWN
    assert known_by(h, 0, 3) == {0}


@rule("K5")
@pytest.mark.parametrize("card", ["9H", "10S"])
def test_K5_nine_ten_look_at_one_opponent_card(monkeypatch, card):
    h, script = power_position(monkeypatch, (2, 0))
    h.power(0, C(card))
    assert script.asked("power")[0][1]["kind"] == POWER_PEEK_OPP
    assert known_by(h, 2, 0) == {0}  # the owner does not learn it


@rule("K5")
@pytest.mark.parametrize("card", ["AH", "2H", "3H", "4H", "5H", "6H"])
def test_K5_low_cards_have_no_power(monkeypatch, card):
    h, script = power_position(monkeypatch, (0, 3))
    h.power(0, C(card))
    assert not script.asked("power")


@rule("K5")
@pytest.mark.parametrize("card", ["JH", "QS"])
def test_K5_jack_queen_blind_swap_seen_by_everyone(monkeypatch, card):
    # P0 swaps its 9C (position 0, known to P0) with P2's 6H (position 1, known to P1), without looking
    h, script = power_position(monkeypatch, (0, 0, 2, 1))
    h.power(0, C(card))
    assert script.asked("power")[0][1]["kind"] == POWER_SWAP
    assert h.hand[0, 0] == C("6H") and h.hand[2, 1] == C("9C")
    assert known_by(h, 2, 1) == {0}  # P0 follows its own 9C
    assert known_by(h, 0, 0) == {1}  # P1 saw the positions move and follows the 6H
    assert h.know[0, 0, 0] == -1  # P0 does not learn the card it received


def drawn_power_position(drawn: str, **params):
    """Two heuristic players; P0 knows its 10S (position 0, worth a blind swap) but not its other cards, P1's cards
    are unknown to P0; the stock's top card is ``drawn``."""
    h = make_hand(P=2, seats=[seat("heuristic", **params), seat("balanced")])
    lay(h, 0, ["10S", "2H", "3C", "4D"])
    lay(h, 1, ["9C", "8D", "7H", "6S"])
    knows(h, 0, 0, 0)
    piles(h, stock=["5C", "5D", drawn], discard=["2S"])
    return h


@rule("K5")
@pytest.mark.parametrize("card", ["JH", "QS"])
def test_K5_a_drawn_jack_or_queen_is_kept_unless_jq_power_spends_it_on_its_blind_swap(card):
    kept = drawn_power_position(card)
    kept.turn_stock(0, 1)
    assert kept.hand[0, 0] == C(card) and kept.uses["jq_swaps"] == 0  # 1 point replaces the 10: its power never fires
    spent = drawn_power_position(card, jq_power=1.0)
    spent.turn_stock(0, 1)
    assert spent.discard[-1] == C(card) and spent.uses["jq_swaps"] == 1
    assert spent.hand[0, 0] != C("10S") and C("10S") in spent.hand[1]  # the known 10 went to the opponent


@rule("K5")
def test_K5_a_drawn_red_king_is_kept_unless_red_king_power_spends_it_on_its_look_and_swap():
    kept = drawn_power_position("KH")
    kept.turn_stock(0, 1)
    assert kept.hand[0, 0] == C("KH") and kept.uses["red_king_looks"] == 0
    spent = drawn_power_position("KH", red_king_power=1.0)
    spent.turn_stock(0, 1)
    assert spent.discard[-1] == C("KH") and spent.uses["red_king_looks"] == 1
    assert spent.know[0, 0, 1] == C("2H")  # it looked at its first unseen card
    black = drawn_power_position("KS", red_king_power=1.0)  # a black king (15) is never kept anyway
    black.turn_stock(0, 1)
    assert black.uses["black_king_looks"] == 1 and black.uses["red_king_looks"] == 0


@rule("K5")
def test_K5_red_king_power_does_not_discard_a_red_king_that_has_no_power_under_black_only():
    h = drawn_power_position("KH", red_king_power=1.0)
    h.r = rules(king_power="black_only")
    h.turn_stock(0, 1)
    assert h.hand[0, 0] == C("KH") and h.uses["red_king_looks"] == 0


@rule("K5")
def test_K5_swap_observed_prob_zero_leaves_others_with_stale_memory(monkeypatch):
    h, _ = power_position(monkeypatch, (0, 0, 2, 1), swap_observed_prob=0.0)
    h.power(0, C("QH"))
    assert h.hand[2, 1] == C("9C")
    assert h.know[1, 2, 1] == C("6H")  # P1 did not notice: still believes the 6H is there
    assert known_by(h, 0, 0) == set()


@rule("K5")
@pytest.mark.parametrize("do_swap", [True, False])
def test_K5_king_looks_at_two_cards_then_swaps_or_not_announced(monkeypatch, do_swap):
    h, script = power_position(monkeypatch, (0, 2, 2, 0), king_swap=do_swap)
    knows(h, 2, 2, 0)  # P2 knows its own 5H
    h.power(0, C("KS"))
    assert script.asked("power")[0][1]["kind"] == POWER_KING
    assert script.asked("king_swap")[0][1]["seen"] == (C("3C"), C("5H"))
    if do_swap:
        assert h.hand[0, 2] == C("5H") and h.hand[2, 0] == C("3C")
        assert known_by(h, 0, 2) == {0, 2} and known_by(h, 2, 0) == {0}  # the swap is announced to all
    else:
        assert h.hand[0, 2] == C("3C") and h.hand[2, 0] == C("5H")
        assert known_by(h, 0, 2) == {0} and known_by(h, 2, 0) == {0, 2}


@rule("K5")
@pytest.mark.parametrize("king_power,card,has_power", [
    ("both", "KH", True), ("both", "KC", True), ("black_only", "KH", False), ("black_only", "KD", False),
    ("black_only", "KS", True),
])
def test_K5_king_power_black_only(monkeypatch, king_power, card, has_power):
    h, script = power_position(monkeypatch, None, king_power=king_power)
    h.power(0, C(card))
    assert bool(script.asked("power")) == has_power


@rule("K5")
def test_K5_swap_scope_own_vs_opponent(monkeypatch):
    h, script = power_position(monkeypatch, (1, 0, 2, 1), swap_scope="own_vs_opponent")
    with pytest.raises(StrategyError, match="own_vs_opponent"):
        h.power(0, C("JH"))  # two opponents' cards: refused
    assert script.asked("power")[0][1]["own_vs_opp"] is True
    h2, _ = power_position(monkeypatch, (1, 0, 2, 1))
    h2.power(0, C("JH"))  # swap_scope=any: two opponents' cards are fine
    assert h2.hand[1, 0] == C("6H")


@rule("K5")
def test_K5_random_strategy_respects_own_vs_opponent():
    swaps = []
    for i in range(300):
        h = make_hand(P=3, strategy="random", seed=8, index=i, swap_scope="own_vs_opponent")
        for p in range(3):
            lay(h, p, ["9C", "2C", "3C", "4C"])
        h.swap_cards = lambda p1, s1, p2, s2: swaps.append((p1, p2))
        h.power(0, C("QH" if i % 2 else "KS"))
    assert len(swaps) > 50
    assert all((p1 == 0) != (p2 == 0) for p1, p2 in swaps)


# ================================================================================================ K6
def snap_position(monkeypatch, snap=None, P=4, race_policy="turn_order", **options):
    """P0 discarded a 5H. P1: 5C 9D; P2: 9C 5D 3C; P3: 5S 2D; P0: 4C 4D."""
    h = make_hand(P=P, race_policy=race_policy, **options)
    lay(h, 0, ["4C", "4D"])
    lay(h, 1, ["5C", "9D"])
    lay(h, 2, ["9C", "5D", "3C"])
    if P > 3:
        lay(h, 3, ["5S", "2D"])
    piles(h, stock=["8S", "QD"], discard=["KD", "5H"])
    script = Script(snap=snap or own_matches(h)).install(h)
    return h, script


@rule("K6")
def test_K6_right_snap_goes_to_the_discard(monkeypatch):
    h, script = snap_position(monkeypatch, snap=lambda me, *_: ("own", [1]) if me == 2 else None)
    h.snap_window(0, C("5H"))
    assert [me for me, _ in script.asked("snap")] == [1, 2, 3, 0]  # everyone, the discarder last
    assert h.discard[-1] == C("5D") and not h.occ[2, 1] and h.hand[2, 1] == -1
    assert known_by(h, 2, 1) == set() and h.snaps == 1 and h.penalties == 0
    assert not script.asked("power")  # snapped cards never fire powers


@rule("K6")
def test_K6_wrong_snap_card_back_public_and_one_penalty_card(monkeypatch):
    # P2 flips its 9C (position 0) on a 5: wrong; the 9C is now public and P2 draws the stock top (QD)
    h, script = snap_position(monkeypatch, snap=lambda me, *_: ("own", [0]) if me == 2 else None)
    h.snap_window(0, C("5H"))
    assert h.occ[2, 0] and h.hand[2, 0] == C("9C") and known_by(h, 2, 0) == {0, 1, 2, 3}
    assert layout(h, 2) == [C("9C"), C("5D"), C("3C"), C("QD")] and h.stock == [C("8S")]
    assert known_by(h, 2, 3) == set()  # the penalty card is unseen, even by its owner
    assert h.wrong_snaps == 1 and h.penalties == 1 and h.discard[-1] == C("5H")


@rule("K6")
def test_K6_only_the_first_claimant_acts(monkeypatch):
    # P1, P2 and P3 all hold a 5; race_policy=turn_order → P1 (next after the discarder) acts alone
    h, script = snap_position(monkeypatch)
    h.snap_window(0, C("5H"))
    assert not h.occ[1, 0] and h.occ[2, 1] and h.occ[3, 0]
    assert h.snaps == 1 and len(script.asked("snap")) == 4  # one window: each asked once


@rule("K6")
def test_K6_race_uniform_picks_exactly_one(monkeypatch):
    acted = set()
    for i in range(30):
        h, _ = snap_position(monkeypatch, race_policy="uniform")
        h.rng = reference.stream_state(4, i)
        h.snap_window(0, C("5H"))
        gone = [p for p, s in ((1, 0), (2, 1), (3, 0)) if not h.occ[p, s]]
        assert len(gone) == 1 and h.snaps == 1
        acted.update(gone)
    assert acted == {1, 2, 3}


@rule("K6")
def test_K6_race_speed_weighted_wins_in_proportion_to_speed():
    # claims by P1 (speed 1) and P3 (speed 3): P(P3 acts) = 3/4; checked within 4 binomial sigmas
    seats = [seat("random", speed=1.0), seat("random", speed=1.0), seat("random"), seat("random", speed=3.0)]
    h = make_hand(P=4, seats=seats)
    n, wins = 4000, 0
    for _ in range(n):
        q, _, _ = h.race([(1, 0, None), (3, 0, None)])
        wins += q == 3
    p = 3 / 4
    assert abs(wins - n * p) <= 4 * math.sqrt(n * p * (1 - p))


@rule("K6")
def test_K6_snap_chain_lets_the_next_claimant_snap_too(monkeypatch):
    h, script = snap_position(monkeypatch, snap_chain=True)
    h.snap_window(0, C("5H"))
    assert not h.occ[1, 0] and not h.occ[2, 1] and not h.occ[3, 0]
    assert h.discard[-3:] == [C("5C"), C("5D"), C("5S")] and h.snaps == 3
    assert len(script.asked("snap")) == 4 * 4  # three windows with a snap, then a last empty one


@rule("K6")
def test_K6_snap_others_takes_an_opponent_card_and_gives_one_of_yours(monkeypatch):
    # P1 flips P2's 5D (position 1) and gives P2 its own 9D (position 1)
    h, script = snap_position(monkeypatch, snap=lambda me, rank, others, locked: ("other", 2, 1, 1) if me == 1 else None,
                              snap_others=True)
    knows(h, 3, 1, 1)  # P3 knew P1's 9D: it follows it to P2
    h.snap_window(0, C("5H"))
    assert h.discard[-1] == C("5D")
    assert layout(h, 2) == [C("9C"), C("9D"), C("3C")] and layout(h, 1) == [C("5C"), None]
    assert known_by(h, 2, 1) == {3}


@rule("K6")
def test_K6_snap_others_wrong_costs_the_snapper_a_card(monkeypatch):
    h, _ = snap_position(monkeypatch, snap=lambda me, rank, others, locked: ("other", 2, 0, 1) if me == 1 else None,
                         snap_others=True)
    h.snap_window(0, C("5H"))
    assert known_by(h, 2, 0) == {0, 1, 2, 3}  # P2's 9C is now public
    assert layout(h, 1) == [C("5C"), C("9D"), C("QD")] and h.penalties == 1


@rule("K6")
@pytest.mark.parametrize("allowed", [True, False])
def test_K6_snap_in_final_round(monkeypatch, allowed):
    h, script = snap_position(monkeypatch, snap_in_final_round=allowed)
    h.caller = 3
    h.snap_window(0, C("5H"))
    asked = [me for me, _ in script.asked("snap")]
    assert asked == ([1, 2, 0] if allowed else [])  # the caller (P3) never snaps: its layout is locked
    assert h.snaps == int(allowed)


@rule("K6")
def test_K6_initial_upcard_opens_no_snap_window(monkeypatch):
    # the upcard is 5H and P1 holds a 5: nobody is asked before P0's first action
    h = make_hand(P=3)
    rig(h, dealer=2, layouts={0: ["AC", "2C", "3C", "4C"], 1: ["5C", "6C", "7C", "8C"], 2: ["9C", "10C", "JC", "QC"]},
        upcard="5H")
    script = Script(turns={0: [ACT_CALL]}, snap=own_matches(h)).install(h)
    h.play(2, [0, 0, 0])
    names = [name for name, _, _ in script.calls]
    assert names[:4] == ["peeks", "peeks", "peeks", "turn"]
    assert h.occ[1, 0]


# ================================================================================================ K7
ULTIME_LAYOUTS = {0: ["9C", "9D"], 1: ["8C", "8D"], 2: ["5C", "5D"]}


@rule("K7")
@pytest.mark.parametrize("others", ["hand", "zero"])
def test_K7_ultime_one_snap_clears_the_layout_minus_15_hand_ends(monkeypatch, others):
    # hand_size 2; P0 draws 5H and discards it; P2 snaps both its 5s at once
    h = make_hand(P=3, hand_size=2, ultime_others_score=others)
    rig(h, dealer=2, layouts=ULTIME_LAYOUTS, upcard="KD", draws=["5H"])
    script = Script(snap=own_matches(h)).install(h)
    res = h.play(2, [0, 0, 0])
    assert res.outcome == OUT_ULTIME and res.winner == 2 and res.turns == 1
    assert res.points == ([18, 16, -15] if others == "hand" else [0, 0, -15])
    assert script.turn_order() == [0]


@rule("K7")
def test_K7_ultime_ends_the_final_round_and_voids_the_calls(monkeypatch):
    # P0 calls with 18 (a false KAMOUL); during P1's final turn P2 makes an ULTIME: the call is void
    h = make_hand(P=3, hand_size=2)
    rig(h, dealer=2, layouts=ULTIME_LAYOUTS, upcard="KD", draws=["5H"])
    script = Script(turns={0: [ACT_CALL]}, snap=own_matches(h)).install(h)
    res = h.play(2, [0, 0, 0])
    assert script.turn_order() == [0, 1]
    assert res.outcome == OUT_ULTIME and res.winner == 2 and res.points == [18, 16, -15]


@rule("K7")
@pytest.mark.parametrize("min_cards,ultime", [(2, False), (1, True)])
def test_K7_ultime_min_cards(monkeypatch, min_cards, ultime):
    # P1 has one card left, a 5, and snaps it
    h, _ = snap_position(monkeypatch, snap=lambda me, *_: ("own", [0]) if me == 1 else None,
                         ultime_min_cards=min_cards)
    lay(h, 1, ["5C", None])
    h.snap_window(0, C("5H"))
    assert h.count(1) == 0 and (h.ultime == 1) == ultime


@rule("K7")
def test_K7_layout_cleared_over_two_chained_snaps_is_no_ultime(monkeypatch):
    h, _ = snap_position(monkeypatch, snap=lambda me, rank, *_: (
        ("own", [next(s for s in range(2) if h.occ[1, s])]) if me == 1 and h.count(1) else None), snap_chain=True)
    lay(h, 1, ["5C", "5S"])
    lay(h, 3, ["2S", "2D"])
    h.snap_window(0, C("5H"))
    assert h.count(1) == 0 and h.snaps == 2 and h.ultime == -1


@rule("K7")
def test_K7_empty_layout_scores_zero_cannot_take_and_can_call(monkeypatch):
    # hand_size 1, 2 players. P0 discards 5H, P1 snaps its only card (5C): no ULTIME (needs 2 cards).
    # P1, empty, cannot take the discard and discards what it draws; it calls next turn with 0 points.
    h = make_hand(P=2, hand_size=1, initial_peeks=1)
    rig(h, dealer=1, layouts={0: ["9C"], 1: ["5C"]}, upcard="KD", draws=["5H", "2C", "3C", "4H"])
    script = Script(turns={1: [ACT_STOCK, ACT_CALL]}, snap=own_matches(h)).install(h)
    res = h.play(1, [0, 0])
    turns = script.asked("turn")
    assert [me for me, _ in turns] == [0, 1, 0, 1, 0]
    assert turns[1][1]["can_take"] is False and turns[3][1]["can_call"] is True
    assert res.outcome == OUT_NORMAL and res.winner == 1 and res.points == [9, -5]
    assert h.total(1) == 0 and h.classify(1, 0) == CLS_NORMAL


# ================================================================================================ K8
@rule("K8")
def test_K8_one_final_turn_each_caller_gets_no_more_turn_and_cannot_snap(monkeypatch):
    h = make_hand(P=4)
    rig(h, dealer=3, layouts={0: ["AC", "2C", "3C", "4C"], 1: ["AD", "2D", "KD", "AH"], 2: ["9C", "10C", "JC", "QC"],
                              3: ["5C", "6C", "7C", "8C"]}, upcard="KH", draws=["9H", "2H", "3H", "4H"])
    script = Script(turns={1: [ACT_CALL]}).install(h)
    res = h.play(3, [0] * 4)
    assert script.turn_order() == [0, 1, 2, 3, 0]
    assert res.caller == 1 and res.call_turn == 1 and res.turns == 5
    assert res.outcome == OUT_NORMAL and res.points[1] == -5
    asked = [me for me, _ in script.asked("snap")]
    assert asked[:4] == [1, 2, 3, 0] and len(asked) == 4 + 3 * 3  # after the call: 3 windows without P1
    assert 1 not in asked[4:]


@rule("K8")
def test_K8_caller_immune_to_swaps_but_not_to_peeks(monkeypatch):
    h, script = power_position(monkeypatch, (0, 0, 1, 0))
    h.caller = 1
    with pytest.raises(StrategyError, match="locked layout"):
        h.power(0, C("JH"))
    assert script.asked("power")[0][1]["locked"] == 1
    h2, _ = power_position(monkeypatch, (1, 0))
    h2.caller = 1
    h2.power(0, C("10H"))  # looking at the caller's card is allowed
    assert known_by(h2, 1, 0) == {0}


@rule("K8")
def test_K8_caller_immune_false_allows_swapping_the_caller(monkeypatch):
    h, script = power_position(monkeypatch, (0, 0, 1, 0), caller_immune=False)
    h.caller = 1
    h.power(0, C("JH"))
    assert script.asked("power")[0][1]["locked"] == -1
    assert h.hand[1, 0] == C("9C")


@rule("K8")
def test_K8_min_turns_before_call(monkeypatch):
    h = make_hand(P=2, min_turns_before_call=2)
    rig(h, dealer=1, layouts={0: ["AC", "2C", "3C", "4C"], 1: ["5C", "6C", "7C", "8C"]}, upcard="KH")
    script = Script(turns={0: [ACT_STOCK, ACT_STOCK, ACT_CALL]}).install(h)
    res = h.play(1, [0, 0])
    assert [d["can_call"] for me, d in script.asked("turn") if me == 0] == [False, False, True]
    assert res.caller == 0 and res.call_turn == 3 and res.turns == 6


# ================================================================================================ K9
@rule("K9")
def test_K9_contre_in_own_final_turn_passes_the_turn_tie_goes_to_it(monkeypatch):
    # P0 calls with 4 (AC 2C KD QC); P1 contres with 4 too (AD 2D KH JD): tie → P1, the latest announcer
    h = make_hand(P=3)
    rig(h, dealer=2, layouts={0: ["AC", "2C", "KD", "QC"], 1: ["AD", "2D", "KH", "JD"], 2: ["9C", "10C", "JC", "QH"]},
        upcard="5H")
    script = Script(turns={0: [ACT_CALL], 1: [ACT_CONTRE]}).install(h)
    res = h.play(2, [0, 0, 0])
    assert [d["can_contre"] for _, d in script.asked("turn")] == [False, True, True]
    assert [me for me, _ in script.asked("keep")] == [2]  # the contre passed P1's turn
    assert res.contre_mask == 0b010
    assert res.outcome == OUT_CONTRE_WON and res.winner == 1 and res.points == [0, -5, 21]


@rule("K9")
def test_K9_contre_lower_wins_higher_loses():
    h = make_hand(P=4)
    lay(h, 0, ["AC", "AD"])  # 2
    lay(h, 1, ["10C"])
    lay(h, 2, ["2C", "2D"])  # 4
    lay(h, 3, ["AH"])  # 1
    res = score_position(h, caller=0, contres=[2, 3])
    assert res.outcome == OUT_CONTRE_WON and res.winner == 3 and res.points == [0, 10, 0, -5]
    res = score_position(h, caller=0, contres=[2])
    assert res.outcome == OUT_CONTRE_LOST and res.winner == 0 and res.points == [-5, 10, 0, 1]


@rule("K9")
def test_K9_several_contres_tie_goes_to_the_latest():
    h = make_hand(P=4)
    for p in (0, 2, 3):
        lay(h, p, ["2C", "AD"])
    lay(h, 1, ["10C"])
    assert score_position(h, caller=0, contres=[2, 3]).winner == 3
    assert score_position(h, caller=0, contres=[3, 2]).winner == 2


@rule("K9")
def test_K9_contre_strictly_lower_tie_goes_to_the_caller():
    h = make_hand(P=4, contre_strictly_lower=True)
    for p in (0, 2, 3):
        lay(h, p, ["2C", "AD"])
    lay(h, 1, ["10C"])
    res = score_position(h, caller=0, contres=[2, 3])
    assert res.winner == 0 and res.outcome == OUT_CONTRE_LOST and res.points == [-5, 10, 0, 0]
    lay(h, 3, ["AD"])
    assert score_position(h, caller=0, contres=[2, 3]).winner == 3  # strictly lower still wins


@rule("K9")
def test_K9_invalid_contre_is_a_false_kamoul():
    h = make_hand(P=3)
    lay(h, 0, ["2C", "AD"])  # 3
    lay(h, 1, ["9C"])  # 9: invalid contre
    lay(h, 2, ["10C", "5D"])  # 15
    res = score_position(h, caller=0, contres=[1])
    assert res.outcome == OUT_FALSE and res.winner == -1 and res.points == [0, 27, 0]


@rule("K9")
def test_K9_contre_requires_valid_false_invalid_contre_loses_and_scores_its_hand():
    h = make_hand(P=3, contre_requires_valid=False)
    lay(h, 0, ["2C", "AD"])
    lay(h, 1, ["9C"])
    lay(h, 2, ["10C", "5D"])
    res = score_position(h, caller=0, contres=[1])
    assert res.outcome == OUT_CONTRE_LOST and res.winner == 0
    assert res.points == [-5, 9, 15]  # an invalid contre loses and scores its hand (no escape from a bad hand)


# ================================================================================================ K10
@rule("K10")
def test_K10_normal_kamoul_beats_au_score():
    h = make_hand(P=3)
    lay(h, 0, ["10C", "10D"])  # 20 at cumulative 20: a valid au-score
    lay(h, 1, ["2C", "2D"])  # 4: normal
    lay(h, 2, ["7C"])
    res = score_position(h, caller=0, contres=[1], cum=[20, 0, 0])
    assert res.winner == 1 and res.outcome == OUT_CONTRE_WON
    assert res.points == [0, -5, 7] and res.cum_after == [20, -5, 7]  # the au-score caller: 0 ("0 de score")
    lay(h, 1, ["KS", "KC"])  # the other way round: caller normal (5), contre au-score 30 at -20
    lay(h, 0, ["5C"])
    res = score_position(h, caller=0, contres=[1], cum=[0, -20, 0])
    assert res.winner == 0 and res.outcome == OUT_CONTRE_LOST and res.cum_after == [-5, -20, 7]


@rule("K10")
def test_K10_within_au_score_the_lowest_total_wins():
    h = make_hand(P=3)
    lay(h, 0, ["10C", "10D"])  # 20 at 20
    lay(h, 1, ["KS", "KC"])  # 30 at -20
    lay(h, 2, ["7C"])
    res = score_position(h, caller=1, contres=[0], cum=[20, -20, 0])
    assert res.winner == 0 and res.outcome == OUT_AU_RESET and res.cum_after == [0, -20, 7]


@rule("K10")
def test_K10_players_who_did_not_announce_are_not_compared():
    h = make_hand(P=3)
    lay(h, 0, ["5C"])
    lay(h, 1, ["KD"])  # 0, but silent
    lay(h, 2, ["7C"])
    res = score_position(h, caller=0)
    assert res.outcome == OUT_NORMAL and res.winner == 0 and res.points == [-5, 0, 7]


@rule("K10")
def test_K10_implicit_contest_any_lower_valid_total_beats_the_caller():
    h = make_hand(P=4, implicit_contest=True)
    lay(h, 0, ["5C"])
    lay(h, 1, ["2D"])
    lay(h, 2, ["AD", "KH"])  # 1: lowest
    lay(h, 3, ["7C"])
    res = score_position(h, caller=0)
    assert res.outcome == OUT_BEATEN and res.winner == 2 and res.points == [0, 2, -5, 7]
    lay(h, 2, ["5D"])  # ties with the caller: the caller keeps the win
    lay(h, 1, ["9D"])
    res = score_position(h, caller=0)
    assert res.outcome == OUT_NORMAL and res.winner == 0 and res.points == [-5, 9, 5, 7]


@rule("K10")
def test_K10_implicit_contest_with_strictly_lower_tie_keeps_the_caller():
    h = make_hand(P=3, implicit_contest=True, contre_strictly_lower=True)
    lay(h, 0, ["5C"])
    lay(h, 1, ["5D"])  # ties with the caller without announcing
    lay(h, 2, ["7C"])
    res = score_position(h, caller=0)
    assert res.winner == 0 and res.outcome == OUT_NORMAL


# ================================================================================================ K11
@rule("K11")
def test_K11_normal_winner_minus_5_others_add_their_hand():
    h = make_hand(P=3)
    lay(h, 0, ["AC", "2C", "KD", "AH"])  # 4
    lay(h, 1, ["KS", "9C"])  # 24
    lay(h, 2, ["QD", "JD", "10D"])  # 12
    res = score_position(h, caller=0, cum=[10, -3, 0])
    assert res.outcome == OUT_NORMAL and res.points == [-5, 24, 12] and res.cum_after == [5, 21, 12]


TOTAL_CARDS = {14: ["10C", "4C"], 15: ["10C", "5C"], 20: ["10C", "10D"], 21: ["10C", "10D", "AC"],
               29: ["KS", "10C", "4C"], 30: ["KS", "KC"], 31: ["KS", "KC", "AC"]}


@rule("K11")
@pytest.mark.parametrize("cum,total,au_30,expected", [
    (15, 15, "eq", 0), (20, 20, "eq", 0), (20, 21, "eq", None), (14, 14, "eq", None),
    (-15, 30, "eq", -31), (-20, 30, "eq", -31), (-14, 30, "eq", None), (-20, 31, "eq", None), (-20, 29, "eq", None),
    (-20, 31, "ge", -31), (-20, 29, "ge", None),
])
def test_K11_au_score_thresholds(cum, total, au_30, expected):
    h = make_hand(P=3, au_score_30=au_30)
    lay(h, 0, TOTAL_CARDS[total])
    lay(h, 1, ["9C"])
    lay(h, 2, ["7C"])
    assert h.classify(0, cum) == (CLS_FALSE if expected is None else CLS_AU)
    res = score_position(h, caller=0, cum=[cum, 3, 0])
    if expected is None:  # a false KAMOUL: the sum of all hands
        assert res.outcome == OUT_FALSE and res.cum_after == [cum + total + 16, 3, 0]
    else:
        assert res.outcome == (OUT_AU_RESET if expected == 0 else OUT_AU_M31)
        assert res.cum_after == [expected, 12, 7] and res.points[0] == expected - cum


@rule("K11")
@pytest.mark.parametrize("mode,loser_points", [("zero", 0), ("hand", 4)])
def test_K11_loser_announcer_scores(mode, loser_points):
    h = make_hand(P=3, loser_announcer_scores=mode)
    lay(h, 0, ["2C"])
    lay(h, 1, ["4C"])
    lay(h, 2, ["7C"])
    res = score_position(h, caller=0, contres=[1])
    assert res.winner == 0 and res.points == [-5, loser_points, 7]


@rule("K11")
def test_K11_au_score_caller_beaten_by_a_contre_scores_zero():
    h = make_hand(P=3)
    lay(h, 0, ["KS", "KC"])  # 30 at -20
    lay(h, 1, ["4C"])
    lay(h, 2, ["7C"])
    res = score_position(h, caller=0, contres=[1], cum=[-20, 0, 0])
    assert res.winner == 1 and res.cum_after == [-20, -5, 7]


# ================================================================================================ K12
@rule("K12")
def test_K12_false_call_sum_mode_announcer_takes_the_sum_of_all_hands():
    h = make_hand(P=4)
    lay(h, 0, ["8C"])
    lay(h, 1, ["AC", "2C"])
    lay(h, 2, ["10C"])
    lay(h, 3, ["KD"])
    res = score_position(h, caller=0, cum=[5, 5, 5, 5])
    assert res.outcome == OUT_FALSE and res.winner == -1
    assert res.points == [21, 0, 0, 0] and res.cum_after == [26, 5, 5, 5]


@rule("K12")
def test_K12_false_call_sum_mode_each_false_announcer_pays_the_full_sum():
    h = make_hand(P=3)
    lay(h, 0, ["8C"])
    lay(h, 1, ["9C"])
    lay(h, 2, ["2C"])
    res = score_position(h, caller=0, contres=[1])
    assert res.outcome == OUT_FALSE and res.points == [19, 19, 0]


@rule("K12")
def test_K12_false_call_dutch_mode_plus_10():
    h = make_hand(P=3, false_call_mode="dutch")
    lay(h, 0, ["8C"])
    lay(h, 1, ["9C"])
    lay(h, 2, ["2C"])
    res = score_position(h, caller=0)
    assert res.outcome == OUT_FALSE and res.winner == -1 and res.points == [18, 9, 2]
    res = score_position(h, caller=0, contres=[2])  # a valid contre still wins; the outcome stays "false call"
    assert res.outcome == OUT_FALSE and res.winner == 2 and res.points == [18, 9, -5]


@rule("K12")
def test_K12_false_call_tamalou_mode_caught_at_once_play_goes_on(monkeypatch):
    # P0 calls with 10: its layout is shown, it takes a card (the stock top, 3S), and no final round starts;
    # P1 later calls with 4 and wins normally
    h = make_hand(P=3, false_call_mode="tamalou")
    lay_ = {0: ["AC", "2C", "3C", "4C"], 1: ["AD", "2D", "KH", "JD"], 2: ["9C", "10C", "JC", "QH"]}
    rig(h, dealer=2, layouts=lay_, upcard="5H", draws=["3S", "6S", "7S"])
    script = Script(turns={0: [ACT_CALL], 1: [ACT_CALL]}).install(h)
    res = h.play(2, [0, 0, 0])
    assert script.turn_order() == [0, 1, 2, 0]
    assert layout(h, 0)[4] == C("3S") and res.penalty_cards == 1
    assert all(known_by(h, 0, s) == {0, 1, 2} for s in range(4)) and known_by(h, 0, 4) == set()
    assert res.caller == 1 and res.outcome == OUT_NORMAL and res.points == [13, -5, 21]


@rule("K12")
def test_K12_false_call_tamalou_mode_call_made_false_in_final_round_scores_its_hand(monkeypatch):
    # caller_immune=false: P0 calls with 4; P1 draws a jack and swaps its 10C onto P0 → P0 holds 13 at reveal
    h = make_hand(P=3, false_call_mode="tamalou", caller_immune=False)
    lay_ = {0: ["AC", "2C", "KD", "AH"], 1: ["10D", "2D", "3D", "4D"], 2: ["9C", "10C", "JC", "QH"]}
    rig(h, dealer=2, layouts=lay_, upcard="5H", draws=["JS", "6S"])
    Script(turns={0: [ACT_CALL]}, power=lambda me, kind, locked, ovo: (1, 0, 0, 0) if kind == POWER_SWAP else None
           ).install(h)
    res = h.play(2, [0, 0, 0])
    assert h.total(0) == 13
    assert res.outcome == OUT_FALSE and res.winner == -1 and res.points == [13, 10, 21]


# ================================================================================================ K13
@rule("K13")
def test_K13_penalty_card_first_free_position_unseen_from_the_stock():
    h = make_hand(P=3)
    lay(h, 0, ["9C", None, "3C"])
    knows(h, 0, 0, 0, 2)
    piles(h, stock=["4S", "QD"], discard=["KD"])
    h.penalty(0, PENALTY_SNAP)
    assert layout(h, 0) == [C("9C"), C("QD"), C("3C")] and known_by(h, 0, 1) == set()
    h.penalty(0, PENALTY_SNAP)
    assert layout(h, 0)[3] == C("4S") and h.nslots[0] == 4 and h.penalties == 2


@rule("K13")
def test_K13_card_turned_without_a_match_costs_one_card(monkeypatch):
    # "carte retournée": P3 flips its 2D on a 5 → +1 card for a wrong snap (reason PENALTY_SNAP)
    h, _ = snap_position(monkeypatch, snap=lambda me, *_: ("own", [1]) if me == 3 else None)
    reasons = []
    trace = h.trace
    h.trace = lambda ev, a=0, b=0, c=0: (reasons.append((a, b, c)) if ev == EV_PENALTY else None, trace(ev, a, b, c))
    h.snap_window(0, C("5H"))
    assert reasons == [(3, 2, PENALTY_SNAP)] and layout(h, 3) == [C("5S"), C("2D"), C("QD")]


@rule("K13")
def test_K13_penalty_skipped_when_no_card_can_be_drawn():
    h = make_hand(P=3)
    lay(h, 0, ["9C"])
    piles(h, stock=[], discard=["KD"])
    h.penalty(0, PENALTY_SNAP)
    assert layout(h, 0) == [C("9C")] and h.penalties == 0


@rule("K13")
def test_K13_stuck_cards_from_the_stock_are_kept_face_down(monkeypatch):
    # p_stick=1: after the draw, 1+Geom(0.8) further stock cards come off and join P0's layout unseen
    for index in range(10):
        h = make_hand(P=3, index=index, p_stick=1.0)
        lay(h, 0, ["9C", "2C"])
        stock = ["AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JH"]
        piles(h, stock=stock, discard=["KD"])
        Script().install(h)
        h.turn_stock(0, 1)
        extra = h.penalties
        assert extra >= 1 and h.discard[-1] == C("JH")  # the drawn card itself is discarded as usual
        assert layout(h, 0)[2:] == [C(c) for c in stock[-2: -2 - extra: -1]]
        assert all(known_by(h, 0, s) == set() for s in range(2, 2 + extra))


@rule("K13")
def test_K13_stuck_cards_apply_to_the_discard_pile_too(monkeypatch):
    h = make_hand(P=3, p_stick=1.0)
    lay(h, 0, ["9C", "2C"])
    piles(h, stock=["AS"], discard=["3D", "4D", "5D", "6D", "7D", "AH"])
    Script(takes={0: [0]}).install(h)
    h.turn_take(0, 1)
    extra = h.penalties
    assert extra >= 1 and h.hand[0, 0] == C("AH")
    assert layout(h, 0)[2:] == [C(c) for c in ["7D", "6D", "5D", "4D", "3D"][:extra]]
    assert h.stock == [C("AS")] and h.discard[-1] == C("9C")


@rule("K13")
def test_K13_out_of_turn_costs_one_card(monkeypatch):
    # p_out_of_turn=1: at each turn both other players play out of turn; 10 turns (cap), nobody calls
    h = make_hand(P=3, p_out_of_turn=1.0, max_turns_per_hand=10)
    rig(h, dealer=2, layouts={0: ["AC", "2C", "3C", "4C"], 1: ["5C", "6C", "7C", "8C"], 2: ["9C", "10C", "JC", "QC"]},
        upcard="KH")
    reasons = []
    trace = h.trace
    h.trace = lambda ev, a=0, b=0, c=0: (reasons.append(c) if ev == EV_PENALTY else None, trace(ev, a, b, c))
    Script().install(h)
    res = h.play(2, [0, 0, 0])
    assert res.turns == 10 and res.penalty_cards == 20 and set(reasons) == {PENALTY_OUT_OF_TURN}
    assert [h.count(p) for p in range(3)] == [4 + 6, 4 + 7, 4 + 7]


@rule("K13")
@pytest.mark.parametrize("spied", [False, True])
def test_K13_reorder_after_verification_costs_one_card(spied):
    h = make_hand(P=3, allow_reorder=True, p_reorder=0.5)
    lay(h, 0, ["9C", "2C"])
    knows(h, 0, 0, 0)
    if spied:
        knows(h, 1, 0, 1)
    piles(h, stock=["QD"], discard=["KD"])
    h.reorder(0)
    assert layout(h, 0)[:2] == [C("2C"), C("9C")]
    assert h.know[0, 0, 1] == C("9C")  # the owner follows its card
    assert h.know[1, 0, 0] == -1 and h.know[1, 0, 1] == -1  # the spy's knowledge is void
    assert h.penalties == int(spied) and h.nslots[0] == 2 + int(spied)


@rule("K13")
def test_K13_p_reorder_needs_allow_reorder():
    with pytest.raises(SpecError):
        rules(p_reorder=0.1)


# ================================================================================================ K14
@rule("K14")
def test_K14_reshuffle_keeps_the_top_discard():
    h = make_hand(P=3)
    piles(h, stock=[], discard=["AC", "2C", "3C", "4C"])
    events = []
    trace = h.trace
    h.trace = lambda ev, a=0, b=0, c=0: (events.append((ev, a)), trace(ev, a, b, c))
    assert h.reshuffle()
    assert h.discard == [C("4C")] and sorted(h.stock) == [C("AC"), C("2C"), C("3C")]
    assert events == [(EV_RESHUFFLE, 3)]
    piles(h, stock=[], discard=["4C"])
    assert not h.reshuffle() and h.draw() == -1  # nothing to reshuffle


@rule("K14")
def test_K14_draw_from_an_empty_stock_reshuffles():
    h = make_hand(P=3)
    piles(h, stock=[], discard=["AC", "2C", "3C"])
    assert h.draw() in (C("AC"), C("2C")) and h.discard == [C("3C")] and len(h.stock) == 1


@rule("K14")
def test_K14_on_stock_empty_end_hand(monkeypatch):
    h = make_hand(P=4, on_stock_empty="end_hand")
    assert not h.reshuffle()
    rig(h, dealer=3, layouts=LAYOUTS4, upcard="KD")
    Script().install(h)  # nobody calls, every drawn card is discarded
    res = h.play(3, [0] * 4)
    assert res.turns == 52 - 17 and res.outcome == OUT_NO_CALL and res.winner == -1
    assert res.points == [10, 26, 21, 10]


@rule("K14")
def test_K14_max_turns_per_hand_ends_with_no_winner(monkeypatch):
    h = make_hand(P=4, max_turns_per_hand=100)
    rig(h, dealer=3, layouts=LAYOUTS4, upcard="KD")
    Script().install(h)  # the stock runs out twice and is reshuffled
    res = h.play(3, [1, 2, 3, 4])
    assert res.turns == 100 and res.outcome == OUT_NO_CALL
    assert res.points == [10, 26, 21, 10] and res.cum_after == [11, 28, 24, 14]


@rule("K14")
def test_K14_turn_cap_during_the_final_round_ends_without_a_winner(monkeypatch):
    h = make_hand(P=4, max_turns_per_hand=10)
    rig(h, dealer=3, layouts={0: ["AC", "2C", "KD", "AH"], 1: ["5C", "6C", "7C", "8C"], 2: ["9C", "10C", "JC", "QC"],
                              3: ["AD", "2D", "3D", "4D"]}, upcard="KH")
    Script(turns={0: [ACT_STOCK, ACT_STOCK, ACT_CALL]}).install(h)  # P0 calls at turn 9
    res = h.play(3, [0] * 4)
    assert res.turns == 10
    assert res.outcome == OUT_NO_CALL and res.winner == -1


# ================================================================================================ K15
def game(monkeypatch, level, points, P=3, **options):
    seen = fake_hands(monkeypatch, points)
    g = Game(rules(**options), [seat()] * P, 0, 0, level).play()
    return g, seen


def manche(g, i=0):
    row = g.rows["manches"][i]
    return {k: row[M[k]] for k in MANCHE_FIXED} | {"cum": row[len(MANCHE_FIXED):]}


def partie(g, i=0):
    row = g.rows["parties"][i]
    P = (len(row) - len(PARTIE_FIXED)) // 2
    return {k: row[PT[k]] for k in PARTIE_FIXED} | {
        "wins": row[len(PARTIE_FIXED): len(PARTIE_FIXED) + P], "totals": row[len(PARTIE_FIXED) + P:]}


@rule("K15")
def test_K15_manche_ends_when_a_cumulative_passes_31(monkeypatch):
    g, _ = game(monkeypatch, "manches", [[31, 0, 1], [0, 2, 1], [1, 2, 0]])
    m = manche(g)
    assert m["hands"] == 3 and m["cum"] == [32, 4, 2]  # 31 did not end it, 32 does
    assert m["winner"] == 2 and m["winners"] == 0b100 and m["credit"] == 1


@rule("K15")
def test_K15_manche_ends_at_minus_31(monkeypatch):
    g, _ = game(monkeypatch, "manches", [[-30, 0, 1], [-1, 2, 1]])
    m = manche(g)
    assert m["hands"] == 2 and m["cum"] == [-31, 2, 2] and m["winner"] == 0 and m["credit"] == 1


@rule("K15")
def test_K15_minus_31_and_plus_31_in_the_same_hand_credit_two_manches(monkeypatch):
    g, _ = game(monkeypatch, "parties", [[-31, 32, 0]])
    assert manche(g)["credit"] == 2 and manche(g)["winner"] == 0
    p = partie(g)
    assert p["manches"] == 1 and p["wins"] == [2, 0, 0] and p["winner"] == 0  # the partie is won at once


@rule("K15")
def test_K15_tie_goal_average_over_the_partie_then_shared(monkeypatch):
    # manche 0: P0 wins at -31 (partie totals -31 0 5); manche 1: P0 and P2 tie on 0 → goal average: P0
    g, seen = game(monkeypatch, "parties", [[-31, 0, 5], [0, 40, 0]])
    assert manche(g, 1)["winners"] == 0b001 and manche(g, 1)["winner"] == 0
    assert seen[1][1] == [0, 0, 0]  # cumulative scores restart for each manche
    assert partie(g)["manches"] == 2 and partie(g)["wins"] == [2, 0, 0]
    g, _ = game(monkeypatch, "manches", [[0, 40, 0]])
    assert manche(g)["winners"] == 0b101 and manche(g)["winner"] == -1  # still tied: shared


@rule("K15")
def test_K15_max_hands_per_manche_guard(monkeypatch):
    g, _ = game(monkeypatch, "manches", [[1, 2, 3]] * 3, max_hands_per_manche=3)
    m = manche(g)
    assert m["hands"] == 3 and m["cum"] == [3, 6, 9] and m["winner"] == 0


@rule("K15")
@pytest.mark.parametrize("strategy,P", [("balanced", 4), ("random", 3), ("aggressive", 2)])
def test_K15_manche_rows_over_many_games(strategy, P):
    r = rules()
    for index in range(25):
        g = Game(r, [seat(strategy)] * P, 15, index, "parties").play()
        hands = g.rows["hands"]
        for mrow in g.rows["manches"]:
            cum = mrow[len(MANCHE_FIXED):]
            assert any(c > 31 or c <= -31 for c in cum) or mrow[M["hands"]] == r.max_hands_per_manche
            in_manche = [h for h in hands if h[H["manche"]] == mrow[M["manche"]]]
            assert len(in_manche) == mrow[M["hands"]]
            assert [h[H["hand_in_manche"]] for h in in_manche] == list(range(len(in_manche)))
            assert in_manche[-1][len(HAND_FIXED) + P:] == cum  # the last hand's cumulative scores
            first = in_manche[0]
            assert first[len(HAND_FIXED): len(HAND_FIXED) + P] == first[len(HAND_FIXED) + P:]  # restart from 0
            winners = [q for q in range(P) if mrow[M["winners"]] >> q & 1]
            assert winners and all(cum[q] == min(cum) for q in winners)
            both = any(c <= -31 for c in cum) and any(c > 31 for c in cum)
            assert mrow[M["credit"]] == (2 if both else 1)


# ================================================================================================ K16
@rule("K16")
def test_K16_partie_first_to_two_manches(monkeypatch):
    g, _ = game(monkeypatch, "parties", [[-31, 0, 0], [0, -31, 0], [-31, 0, 0], [0, 0, -31]])
    p = partie(g)
    assert p["manches"] == 3 and p["wins"] == [2, 1, 0] and p["winner"] == 0
    g, _ = game(monkeypatch, "parties", [[-31, 0, 0], [-31, 0, 0], [0, -31, 0]])
    assert partie(g)["manches"] == 2 and partie(g)["winner"] == 0


@rule("K16")
def test_K16_three_manches_without_two_wins_goal_average(monkeypatch):
    # each player wins one manche; the partie totals (sum of final manche scores) decide: P1
    g, _ = game(monkeypatch, "parties", [[-31, 10, 12], [20, -31, 0], [32, 0, -1]])
    p = partie(g)
    assert p["manches"] == 3 and p["wins"] == [1, 1, 1]
    assert p["totals"] == [21, -21, 11] and p["winner"] == 1 and p["winners"] == 0b010


@rule("K16")
def test_K16_top_first_to_two_parties(monkeypatch):
    # partie 0 → P0 (two -31/+31 manches in one), partie 1 → P1, partie 2 → P0
    g, _ = game(monkeypatch, "tops", [[-31, 32, 0], [32, -31, 0], [-31, 40, 0]])
    assert [partie(g, i)["winner"] for i in range(3)] == [0, 1, 0]
    top = g.rows["tops"][0]
    assert top[T["parties"]] == 3 and top[T["winner"]] == 0 and top[len(TOP_FIXED):len(TOP_FIXED) + 3] == [2, 1, 0]
    g, _ = game(monkeypatch, "tops", [[-31, 32, 0], [-31, 32, 0]])
    assert g.rows["tops"][0][T["parties"]] == 2


@rule("K16")
@pytest.mark.parametrize("strategy,P", [("balanced", 4), ("random", 3), ("cautious", 5)])
def test_K16_parties_and_tops_over_many_games(strategy, P):
    for index in range(12):
        g = Game(rules(), [seat(strategy)] * P, 16, index, "tops").play()
        manches = g.rows["manches"]
        for prow in g.rows["parties"]:
            mine = [m for m in manches if m[M["partie"]] == prow[PT["partie"]]]
            wins = [sum(m[M["credit"]] for m in mine if m[M["winners"]] >> q & 1) for q in range(P)]
            totals = [sum(m[len(MANCHE_FIXED) + q] for m in mine) for q in range(P)]
            n = prow[PT["manches"]]
            assert len(mine) == n and 1 <= n <= 3
            assert prow[len(PARTIE_FIXED):] == wins + totals
            assert max(wins) >= 2 or n == 3
            # nobody had 2 wins before the last manche
            before = [sum(m[M["credit"]] for m in mine[:-1] if m[M["winners"]] >> q & 1) for q in range(P)]
            assert max(before, default=0) < 2
        top = g.rows["tops"][0]
        parties = g.rows["parties"]
        assert top[T["parties"]] == len(parties) and 1 <= len(parties) <= 3
        pw = [sum(1 for pr in parties if pr[PT["winners"]] >> q & 1) for q in range(P)]
        assert top[len(TOP_FIXED): len(TOP_FIXED) + P] == pw
        assert max(pw) >= 2 or len(parties) == 3


# ================================================================================================ all
def test_every_rule_K1_to_K16_has_a_marked_test():
    import sys

    module = sys.modules[__name__]
    seen = {}
    for name, fn in vars(module).items():
        if name.startswith("test_K") and callable(fn):
            number = name.split("_")[1]
            marks = {m.args[0] for m in getattr(fn, "pytestmark", []) if m.name == "rule"}
            assert marks == {number}, name
            seen[number] = seen.get(number, 0) + 1
    assert set(seen) == {f"K{i}" for i in range(1, 17)}
