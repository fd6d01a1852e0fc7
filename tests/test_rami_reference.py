"""Rami "Kracouil" rules R1–R15 (docs/rules/rami.md) on the reference engine ``simulator.rami.engines.reference``.

Three tiers:

* scripted positions (helpers in ``tests/rami_helpers.py``): a :class:`Round` whose hands, table and piles are set by hand (``set_hand``,
  ``set_table``, ``set_piles``), one engine method called, the exact result checked; decisions are scripted
  by replacing ``strategies.rami.policy.decide_*`` (called by the engine through ``reference.policy``);
* random-play invariants: every card of every deck accounted for after every event, rounds end, scores add
  up (R12/R13), games end at the target (R15), identical rows for identical (seed, index);
* information: a strategy call never receives another player's hand.

Hands are written ``"7H 8H 9H JK"``; table melds ``"5H JK=6H 7H"``; piles bottom first.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.cards import JOKER
from simulator.core.errors import SpecError
from simulator.core.kernels.rng import stream_state
from simulator.rami.engines import reference
from simulator.rami.engines.reference import Game, Round, Seat, play_games
from simulator.rami.vocabulary.codes import (
    DRAW_DISCARD, DRAW_STOCK, EV_LAYOFF, EV_MELD, LAY_ALL, LAY_NONE, MELD, OPEN_NONE, OPEN_OPEN, OPENING_BEST,
    OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST, OUT_BLOCKED, OUT_CLAIM, OUT_NORMAL, OUT_RAMI_SEC,
    OUT_TURN_CAP, meld_word, move_word,
)
from simulator.rami.vocabulary.contract import Discard
from simulator.rami.vocabulary.melds import ADD_TO_SET, RUN, SWAP_JOKER, InvalidMeld, encode_meld, parse_meld
from simulator.rami.vocabulary.records import GAME, ROUND, column_names, n_cols, seat_column, to_frame
from simulator.rami.vocabulary.rules import Rules
from rami_helpers import (
    C, Script, _counts, full_census, hand, make_round, meld_text, opened, seat, set_hand, set_piles, set_table, table,
)
from simulator.rami.vocabulary.answers import StrategyError
from strategies.rami import default_params
from strategies.rami import policy as real_policy
from strategies.rami.policy import BUILTIN

rule = pytest.mark.rule


# ================================================================================================ R1
@rule("R1")
@pytest.mark.parametrize("players,decks", [(2, 1), (3, 1), (4, 2), (5, 2), (6, 3), (8, 3)])
def test_R1_decks_by_player_count_54_cards_each(players, decks):
    rd = make_round(P=players)
    assert rd.decks == decks
    deck = rd.full_deck()
    assert len(deck) == 54 * decks and deck.count(JOKER) == 2 * decks
    rd.deal(0)
    assert rd.census() == full_census(rd)


@rule("R1")
def test_R1_n_decks_option_overrides_the_player_count():
    assert make_round(P=2, n_decks=2).decks == 2


# ================================================================================================ R2
@rule("R2")
def test_R2_dealer_is_the_highest_draw_ace_high_jokers_redrawn(monkeypatch):
    # pops from the end: P0 draws KS; P1 draws a joker, redraws AC (ace beats king); P2 draws QS
    deck = [C("2C"), C("QS"), C("AC"), JOKER, C("KS")]
    monkeypatch.setattr(Round, "full_deck", lambda self: list(deck))
    monkeypatch.setattr(Round, "shuffle", lambda self, cards: None)
    log: list[str] = []
    g = Game(Rules(), [seat()] * 3, 0, 0, log=log)
    assert g.choose_dealer() == 1
    assert "dealer draw: P1 draws JK" in log


@rule("R2")
def test_R2_tied_highest_cards_draw_again(monkeypatch):
    # P0 AH, P1 AS: tie; then P0 2C, P1 3D: P1 deals
    deck = [C("3D"), C("2C"), C("AS"), C("AH")]
    monkeypatch.setattr(Round, "full_deck", lambda self: list(deck))
    monkeypatch.setattr(Round, "shuffle", lambda self, cards: None)
    assert Game(Rules(), [seat()] * 2, 0, 0).choose_dealer() == 1


@rule("R2")
def test_R2_deal_13_each_14_to_the_dealers_right_who_plays_first_discard_turned():
    rd = make_round(P=4)
    first = rd.deal(2)
    assert first == 1  # counter-clockwise: the dealer's right-hand neighbour is seat dealer - 1
    assert list(rd.sizes) == [13, 14, 13, 13]
    assert len(rd.discard) == 1 and len(rd.stock) == 108 - 53 - 1
    assert rd.census() == full_census(rd)


@rule("R2")
def test_R2_play_and_deal_rotate_counter_clockwise():
    log: list[str] = []
    g = Game(Rules(max_turns_per_round=60, target=200), [seat("random")] * 3, 5, 0, log=log).play()
    rows = g.rows["rounds"]
    first_dealer = g.rows["games"][0][GAME.first_dealer]
    for k, row in enumerate(rows):
        assert row[ROUND.dealer] == (first_dealer - k) % 3
        assert row[ROUND.first] == (row[ROUND.dealer] - 1) % 3
    turns = [int(line.split()[1][1:]) for line in log if line.startswith("T")]
    first = rows[0][ROUND.first]
    for i, p in enumerate(turns[: rows[0][ROUND.turns]]):
        assert p == (first - i) % 3


# ================================================================================================ R3
@rule("R3")
@pytest.mark.parametrize("draws", [False, True])
def test_R3_the_14_card_player_does_not_draw_on_the_first_turn(draws):
    rd = make_round(first_player_draws=draws)
    set_hand(rd, 0, "2C 4C 6C 8C 10C QC 2D 4D 6D 8D 10D QD 2H 4H")
    set_piles(rd, stock="5S 7S", discard="KS")
    Script(open=OPEN_NONE, discard=lambda p, h: C("2C"), draw=DRAW_STOCK).install(rd)
    rd.turn(0, True)
    assert len(rd.stock) == (1 if draws else 2)
    assert rd.sizes[0] == (14 if draws else 13)


# ================================================================================================ R4
@rule("R4")
def test_R4_a_turn_is_draw_then_discard():
    rd = make_round()
    set_hand(rd, 0, "2C 4C 6C 8C 10C QC 2D 4D 6D 8D 10D QD 2H")
    set_piles(rd, stock="5S 7S", discard="KS")
    Script(draw=DRAW_STOCK, open=OPEN_NONE, discard=lambda p, h: C("QC")).install(rd)
    assert rd.turn(0, False) is False
    assert rd.sizes[0] == 13 and rd.hands[0, C("7S")] == 1 and rd.hands[0, C("QC")] == 0
    assert rd.discard == [C("KS"), C("QC")] and rd.stock == [C("5S")]


# ================================================================================================ R5
def _unopened_take(**options) -> Round:
    rd = make_round(**options)
    set_hand(rd, 0, "7H 8H KC KD KS 2C 4D 6S")
    set_piles(rd, stock="5S", discard="9H")
    rd.own_turns[0] = 2  # the player's 2nd turn is under way
    return rd


@rule("R5")
def test_R5_unopened_player_takes_the_discard_only_to_open_with_it():
    rd = _unopened_take()
    assert rd.take_plan(0) == (True, 54)  # 7H 8H 9H (24) + KC KD KS (30)
    rd.discard = [C("2H")]
    assert rd.take_plan(0)[0] is False


@rule("R5")
def test_R5_not_before_the_players_second_turn():
    rd = _unopened_take()
    rd.own_turns[0] = 1
    assert rd.take_plan(0)[0] is False


@rule("R5")
def test_R5_discard_in_tierce_false_forbids_the_card_inside_the_only_tierce_franche():
    assert _unopened_take(discard_in_tierce=False).take_plan(0)[0] is False
    rd = _unopened_take(discard_in_tierce=False)
    set_hand(rd, 0, "7H 8H 9H KC KD 2C 4D 6S")  # the franche is already in hand; KS completes the set
    rd.discard = [C("KS")]
    assert rd.take_plan(0)[0] is True


@rule("R5")
def test_R5_a_carte_player_never_takes_the_discard():
    rd = make_round()
    opened(rd, 0)
    set_table(rd, ["6H 7H 8H"], owner=0)
    set_hand(rd, 0, "2C")
    set_piles(rd, stock="5S", discard="9H")
    rd.own_turns[0] = 5
    assert rd.take_plan(0)[0] is False
    set_hand(rd, 0, "2C 3D")
    assert rd.take_plan(0)[0] is True


@rule("R5")
def test_R5_the_taken_card_is_laid_in_the_same_turn():
    rd = make_round()
    opened(rd, 0)
    set_table(rd, ["6H 7H 8H"], owner=1)
    set_hand(rd, 0, "2C 4D 6S KS")
    set_piles(rd, stock="5S", discard="3C 9H")
    rd.own_turns[0] = 4
    Script(draw=DRAW_DISCARD, lay=LAY_NONE, layoff=-1, discard=lambda p, h: C("KS")).install(rd)
    rd.turn(0, False)
    assert table(rd) == ["6H 7H 8H 9H"]
    assert hand(rd, 0) == "2C 4D 6S" and rd.discard == [C("3C"), C("KS")]


@rule("R5")
def test_R5_unopened_taker_opens_at_once_with_the_card():
    rd = _unopened_take()
    rd.own_turns[0] = 1
    Script(draw=DRAW_DISCARD, lay=LAY_NONE, layoff=-1, discard=lambda p, h: C("2C")).install(rd)
    rd.turn(0, False)
    assert rd.opened[0] == 1 and sorted(table(rd)) == ["7H 8H 9H", "KC KD KS"]


# ================================================================================================ R6
@rule("R6")
def test_R6_an_invalid_combination_is_refused_before_anything_moves():
    rd = make_round()
    set_hand(rd, 0, "5H 6H")
    bad = np.array([0, 2, 4, 2, -1], dtype=np.int8)  # a 2-card run
    with pytest.raises(InvalidMeld):
        rd.lay_meld(0, bad)
    assert hand(rd, 0) == "5H 6H" and rd.n_table == 0


@rule("R6")
def test_R6_full_melds_take_no_more_cards_and_one_joker_per_meld():
    rd = make_round()
    opened(rd, 0)
    set_table(rd, ["KC KD KH KS", "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", "5H JK=6H 7H"])
    set_hand(rd, 0, "KC AS JK 2C")
    moves = rd.legal_moves(0)
    # the set of four and the 13-card run are full; the run holding a joker takes no second joker
    assert len(moves) == 0
    set_hand(rd, 0, "4H 2C")
    assert [(int(m[0]), int(m[1])) for m in rd.legal_moves(0)] == [(C("4H"), 2)]


# ================================================================================================ R7
@rule("R7")
def test_R7_opening_needs_a_tierce_franche_and_51_points():
    rd = make_round()
    assert rd.opening_melds(np.asarray(_counts("7H 8H 9H KC KD KS")))[0:2] == (True, 54)
    assert rd.opening_melds(_counts("KC KD KS QC QD QS 10C 10D 10S"))[0] is False  # 90 but no franche
    assert rd.opening_melds(_counts("2H 3H 4H KC KD KS"))[0] is False  # 39


@rule("R7")
@pytest.mark.parametrize("single", [False, True])
def test_R7_the_opening_holds_the_tierce_franche_and_another_combination(single):
    """Seed: "une tierce franche + une ou plusieurs combinaisons": one long run worth 51 does not open by
    default (``opening_single_meld`` allows it); a run that splits into two runs does."""
    rd = make_round(opening_single_meld=single)
    assert rd.opening_melds(_counts("10H JH QH KH AH 2C 5D"))[0] is single  # 10+10+10+10+11 = 51, one meld
    can, points, melds = rd.opening_melds(_counts("9H 10H JH QH KH AH 2C"))
    assert can and points == 60 and len(melds) == (1 if single else 2)  # 9H 10H JH + QH KH AH by default
    assert rd.opening_melds(_counts("10H JH QH KH AH 2C 2D 2S"))[0:2] == (True, 57)  # + a set: two melds


@rule("R7")
def test_R7_joker_value_option():
    assert make_round().opening_melds(_counts("7H 8H 9H KC KD JK"))[0:2] == (False, 44)
    assert make_round(joker_opening_value="represented").opening_melds(_counts("7H 8H 9H KC KD JK"))[0:2] == (True, 54)


@rule("R7")
def test_R7_cumulative_opening_is_refused_as_not_implemented():
    with pytest.raises(SpecError, match="opening_cumulative"):
        make_round(opening_cumulative=True)


@rule("R7")
def test_R7_the_opening_lays_the_best_opening():
    rd = make_round()
    set_hand(rd, 0, "7H 8H 9H KC KD KS 2C 4D 6S QC")
    set_piles(rd, stock="5S", discard="3D")
    Script(open=OPEN_OPEN, lay=LAY_NONE, layoff=-1, discard=lambda p, h: C("QC")).install(rd)
    rd.turn(0, True)
    assert rd.opened[0] == 1 and rd.open_turn[0] == 1 and sorted(table(rd)) == ["7H 8H 9H", "KC KD KS"]


@rule("R7")
@pytest.mark.parametrize("style, laid, kept", [
    (OPENING_BEST, ["2C 3C 4C 5C", "7H 8H 9H JK=10H", "KC KD KS"], "6S"),
    (OPENING_SMALLEST, ["7H 8H 9H", "KC KD KS"], "2C 3C 4C 5C 6S JK"),
    (OPENING_LARGEST, ["2C 3C 4C 5C JK=6C", "7H 8H 9H", "KC KD KS"], "6S"),
    (OPENING_KEEP_JOKERS, ["2C 3C 4C 5C", "7H 8H 9H", "KC KD KS"], "6S JK"),
])
def test_R7_the_player_chooses_which_opening_to_lay(style, laid, kept):
    """Once it opens, the player lays the opening style it answers among those offered: the best (most points),
    the smallest (fewest cards reaching 51: 54 points in six cards), the largest (least left in hand: the joker's
    20 goes down too) or the best keeping the joker; then it discards QC."""
    rd = make_round()
    set_hand(rd, 0, "7H 8H 9H KC KD KS 2C 3C 4C 5C JK 6S QC")
    set_piles(rd, stock="5S", discard="3D")
    script = Script(open=OPEN_OPEN, open_with=style, lay=LAY_NONE, layoff=-1, discard=lambda p, h: C("QC")).install(rd)
    rd.turn(0, True)
    assert ("open_with", 0) in script.calls and rd.opened[0] == 1
    assert sorted(table(rd)) == sorted(laid)
    assert sorted(hand(rd, 0).split()) == sorted(kept.split())


# ================================================================================================ R8
@rule("R8")
def test_R8_each_meld_of_the_lay_down_is_laid_or_held():
    """The lay plan's least-left lay-down is two melds; the player holds the run and lays the set. ``left`` is
    what the whole lay-down would leave: 11 cards after the draw, 6 in the two melds."""
    rd = make_round()
    opened(rd, 0)
    set_hand(rd, 0, "7H 8H 9H KC KD KS 2C 4D 6S QC")
    set_piles(rd, stock="5D", discard="3D")
    asked = []

    def hold_the_run(meld, left):
        asked.append((meld_text(meld), left))
        return meld[MELD.kind] == RUN

    script = Script(lay=LAY_ALL, hold=hold_the_run, layoff=-1, discard=lambda p, h: C("QC")).install(rd)
    rd.turn(0, False)
    assert sorted(asked) == [("7H 8H 9H", 5), ("KC KD KS", 5)] and ("hold", 0) in script.calls
    assert table(rd) == ["KC KD KS"]
    assert sorted(hand(rd, 0).split()) == sorted("7H 8H 9H 2C 4D 5D 6S".split())


@rule("R8")
def test_R8_lay_off_on_another_players_meld_in_the_opening_turn():
    rd = make_round()
    set_table(rd, ["2S 3S 4S"], owner=1)
    set_hand(rd, 0, "7H 8H 9H KC KD KS 5S 2C 4D 6C QC")
    set_piles(rd, stock="5D", discard="3D")
    Script(open=OPEN_OPEN, lay=LAY_ALL, discard=lambda p, h: C("QC")).install(rd)
    rd.turn(0, True)
    assert table(rd)[0] == "2S 3S 4S 5S" and rd.owner[0] == 1
    assert hand(rd, 0) == "2C 6C 4D"


# ================================================================================================ R9
def _swap_position(**options) -> Round:
    rd = make_round(**options)
    opened(rd, 0)
    set_table(rd, ["5H JK=6H 7H", "9C 10C JC"])
    set_hand(rd, 0, "6H 2D 3S")
    return rd


@rule("R9")
def test_R9_must_reuse_the_swapped_joker_is_laid_again_at_once():
    rd = _swap_position()
    moves = rd.legal_moves(0)
    swap = [m for m in moves if m[2] == SWAP_JOKER]
    assert len(swap) == 1 and int(swap[0][0]) == C("6H")
    rd.do_move(0, swap[0])
    assert rd.hands[0, JOKER] == 0 and hand(rd, 0) == "2D 3S"
    assert rd.census().__getitem__(JOKER) == 1  # still on the table
    assert any("JK" in m for m in table(rd)) and "5H 6H 7H" in " ".join(table(rd))


@rule("R9")
def test_R9_free_swap_keeps_the_joker_in_hand():
    rd = _swap_position(joker_swap="free")
    swap = [m for m in rd.legal_moves(0) if m[2] == SWAP_JOKER]
    rd.do_move(0, swap[0])
    assert hand(rd, 0) == "2D 3S JK" and table(rd)[0] == "5H 6H 7H"


@rule("R9")
def test_R9_forbidden_and_must_reuse_without_a_place():
    rd = _swap_position(joker_swap="forbidden")
    assert not any(m[2] == SWAP_JOKER for m in rd.legal_moves(0))
    rd = make_round()
    opened(rd, 0)
    set_table(rd, ["KC KD JK=KH KS"])
    set_hand(rd, 0, "KH 2D")
    assert not any(m[2] == SWAP_JOKER for m in rd.legal_moves(0))  # the joker could go nowhere
    rd = make_round(joker_swap="free")
    opened(rd, 0)
    set_table(rd, ["KC KD JK=KH KS"])
    set_hand(rd, 0, "KH 2D")
    assert any(m[2] == SWAP_JOKER for m in rd.legal_moves(0))


# ================================================================================================ R10
def _claim_position(P=3, **options) -> Round:
    rd = make_round(P=P, **options)
    set_table(rd, ["5H 6H 7H"], owner=1)
    opened(rd, 1, 2)
    set_hand(rd, 0, "2C 3C")
    set_hand(rd, 1, "KC QD 4S")
    set_hand(rd, 2, "KD JS 9S")
    set_piles(rd, stock="2S 3S", discard="AC 8H")
    return rd


@rule("R10")
def test_R10_a_playable_discard_is_claimed_laid_off_and_replaced():
    rd = _claim_position(race_policy="turn_order")
    script = Script(claim=True, discard=lambda p, h: C("KD") if p == 2 else C("KC")).install(rd)
    assert rd.claim_window(0, C("8H")) is False
    assert table(rd) == ["5H 6H 7H 8H"]
    assert hand(rd, 2) == "9S JS" and rd.discard == [C("AC"), C("KD")] and rd.claims == 1
    assert [c for c in script.calls if c[0] == "claim"] == [("claim", 2), ("claim", 1)]  # from P0's next: 2, 1


@rule("R10")
def test_R10_only_opened_players_claim_unless_anyone():
    rd = _claim_position(race_policy="turn_order")
    rd.opened[2] = rd.laid[2] = 0
    rd.claim_window(0, C("8H"))
    assert rd.hands[1, C("8H")] == 0 and rd.sizes[1] == 2  # P1 claimed (8H laid off, one card discarded)
    rd = _claim_position(race_policy="turn_order", claim_eligibility="anyone")
    rd.opened[2] = rd.laid[2] = 0
    rd.claim_window(0, C("8H"))
    assert rd.sizes[2] == 2 and rd.opened[2] == 0 and rd.laid[2] == 1


@rule("R5")
@rule("R10")
def test_R5_R10_an_a_carte_player_never_claims():
    """R5 "à carte": P2 holding one card (9H) is not asked about the playable 8H; P1 claims it instead."""
    rd = _claim_position(race_policy="turn_order")
    set_hand(rd, 2, "9H")
    script = Script(claim=True, discard=lambda p, h: C("9H") if p == 2 else C("KC")).install(rd)
    assert rd.claim_window(0, C("8H")) is False
    assert [c for c in script.calls if c[0] == "claim"] == [("claim", 1)]
    assert hand(rd, 2) == "9H" and hand(rd, 1) == "QD 4S" and rd.claims == 1 and rd.winner == -1


@rule("R5")
@rule("R10")
def test_R5_R10_with_a_carte_claims_a_one_card_claimant_goes_out():
    rd = _claim_position(race_policy="turn_order", a_carte_claims=True)
    set_hand(rd, 2, "9H")
    Script(discard=lambda p, h: C("9H") if p == 2 else C("KC")).install(rd)
    # P2 (one card, 9H) claims 8H, lays it off and discards its last card: P2 goes out (R11), no more claims
    assert rd.claim_window(0, C("8H")) is True
    assert rd.winner == 2 and rd.outcome == OUT_CLAIM
    assert rd.score() == [5, 24, 0]  # R13: 2C 3C (never opened: its hand value), KC QD 4S, the winner 0


@rule("R10")
def test_R10_chain():
    rd = _claim_position(race_policy="turn_order")
    set_hand(rd, 2, "9H 2D")
    Script(discard=lambda p, h: C("9H") if p == 2 else C("KC")).install(rd)
    assert rd.claim_window(0, C("8H")) is False
    assert table(rd) == ["5H 6H 7H 8H 9H"] and rd.claims == 2 and rd.discard[-1] == C("KC")


@rule("R10")
def test_R10_forbidden_and_ignored():
    rd = _claim_position(playable_discard="ignored")
    assert rd.claim_window(0, C("8H")) is False and rd.claims == 0
    rd = _claim_position(playable_discard="forbidden")
    set_hand(rd, 1, "8H KC QD")
    set_piles(rd, stock="2S 3S", discard="AC")
    rd.own_turns[1] = 3
    Script(draw=DRAW_STOCK, lay=LAY_NONE, layoff=-1, discard=lambda p, h: C("8H")).install(rd)
    with pytest.raises(StrategyError, match="answered discard with 33 \\(8H\\), which fits a table meld"):
        rd.turn(1, False)
    fits = _claim_position().fits()
    for _ in range(20):  # the random strategy never discards a fitting card when it is forbidden
        card = BUILTIN["discard"](0, default_params("random"), Discard(1, _counts("8H 4H KC"), rd.opened, rd.sizes, fits,
                                                                        True, stream_state(_, 1)))
        assert card == C("KC")


@rule("R10")
def test_R10_speed_weighted_race_favours_the_fast_player():
    rd = _claim_position()
    fast, slow = default_params("random").copy(), default_params("random").copy()
    fast[1], slow[1] = 100.0, 0.01
    rd.seats = [Seat(0, slow), Seat(0, slow), Seat(0, fast)]
    wins = [rd.race([1, 2]) for _ in range(50)]
    assert wins.count(2) >= 45
    rd.r = Rules(race_policy="turn_order")
    assert rd.race([1, 2]) == 1


@rule("R10")
def test_R10_notice_probability_zero_means_nobody_claims():
    rd = _claim_position(notice_prob=0.0)
    assert rd.claim_window(0, C("8H")) is False and rd.claims == 0


# ================================================================================================ R11
@rule("R11")
def test_R11_going_out_by_melding_everything_needs_no_discard():
    rd = make_round()
    opened(rd, 0)
    set_table(rd, ["2S 3S 4S"], owner=1)
    set_hand(rd, 0, "9H 10H JH")
    set_piles(rd, stock="QH", discard="3D")
    Script(draw=DRAW_STOCK, lay=LAY_ALL).install(rd)
    assert rd.turn(0, False) is True
    assert rd.winner == 0 and rd.outcome == OUT_NORMAL and rd.discard == [C("3D")]


@rule("R11")
def test_R11_final_discard_required_keeps_a_card():
    rd = make_round(final_discard_required=True)
    opened(rd, 0)
    set_hand(rd, 0, "9H 10H JH 2C")
    set_piles(rd, stock="QH", discard="3D")
    Script(draw=DRAW_STOCK, lay=LAY_ALL, discard=lambda p, h: C("2C")).install(rd)
    assert rd.turn(0, False) is True
    assert table(rd) == ["9H 10H JH QH"] and rd.discard[-1] == C("2C") and rd.winner == 0
    rd = make_round(final_discard_required=True)
    opened(rd, 0)
    set_hand(rd, 0, "9H 10H JH")
    set_piles(rd, stock="QH", discard="3D")
    Script(draw=DRAW_STOCK, lay=LAY_ALL, discard=lambda p, h: C("9H")).install(rd)
    assert rd.turn(0, False) is False and rd.sizes[0] == 3  # laying all four would leave nothing to discard


# ================================================================================================ R12
@rule("R12")
def test_R12_rami_sec_scores_200_to_the_unopened_and_double_to_the_opened():
    rd = make_round(P=3)
    set_hand(rd, 0, "7H 8H 9H 2C 3C 4C 5S 5D 5C 10S JS QS KS")
    set_hand(rd, 1, "AC JK 2D")        # opened: 2 x (11 + 20 + 2)
    set_hand(rd, 2, "KD")              # never opened: 200
    opened(rd, 1)
    set_piles(rd, stock="4D", discard="3D")
    assert rd.rami_sec_plan(0) is not None and rd.opening_melds(rd.hands[0].copy())[0] is True
    rd.own_turns[0] = 3
    Script(draw=DRAW_STOCK).install(rd)
    assert rd.turn(0, False) is True
    assert rd.outcome == OUT_RAMI_SEC and rd.winner == 0 and rd.discard[-1] == C("4D")
    assert rd.score() == [0, 66, 200]
    rd.r = Rules(rami_sec_bonus=-50)
    assert rd.score() == [-50, 66, 200]


@rule("R12")
def test_R12_the_rami_sec_lay_down_records_its_points():
    """``open_points`` of a rami sec is the R7 value of the whole-hand lay-down (51 not needed, still counted)."""
    rd = make_round(P=2)
    set_hand(rd, 0, "7H 8H 9H 2C 3C 4C 5S 5D 5C 10S JS QS KS")
    set_piles(rd, stock="4D", discard="3D")
    rd.own_turns[0] = 3
    Script(draw=DRAW_STOCK).install(rd)
    assert rd.turn(0, False) is True
    assert rd.outcome == OUT_RAMI_SEC and rd.open_points[0] == 24 + 9 + 15 + 40 and rd.discard[-1] == C("4D")
    rd = make_round(P=2)
    set_hand(rd, 0, "2H 3H 4H 2C 2D 2S")
    assert rd.melds_points(rd.rami_sec_plan(0)[0]) == 9 + 6


def _opening_then_layoffs(set_cards: str, **options) -> Round:
    """P0, unopened, holds the franche 7H 8H 9H 10H (34), a set and 8D, and will draw 9D; P1's meld 5D 6D 7D
    on the table takes 8D then 9D as lay-offs."""
    rd = make_round(P=2, **options)
    set_table(rd, ["5D 6D 7D"], owner=1)
    opened(rd, 1)
    set_hand(rd, 1, "2C 3C KD")
    set_hand(rd, 0, f"7H 8H 9H 10H {set_cards} 8D 9D")  # the hand after the draw: what can it lay?
    can_open, points, _ = rd.opening_melds(rd.hands[0].copy())
    sec = rd.rami_sec_plan(0)
    set_hand(rd, 0, f"7H 8H 9H 10H {set_cards} 8D")
    set_piles(rd, stock="9D", discard="2S")
    rd.own_turns[0] = 3
    rd.after_draw = (can_open, points, sec)
    return rd


@rule("R12")
@pytest.mark.parametrize("layoffs", [False, True])
def test_R12_opening_52_then_laying_off_on_others_melds_is_a_normal_out(layoffs):
    """The issue-18 pair. 52 points (34 + 6C 6H 6S): P0 opens, lays 8D and 9D off on P1's meld and is out in
    the opening turn: a normal end by default (R11, R13), a rami sec only with ``rami_sec_layoffs``."""
    rd = _opening_then_layoffs("6C 6H 6S", rami_sec_layoffs=layoffs)
    assert rd.after_draw == (True, 52, None)  # 8D 9D make no meld of P0's own: no rami sec lay-down
    Script(draw=DRAW_STOCK).install(rd)
    assert rd.turn(0, False) is True and rd.winner == 0 and rd.open_points[0] == 52
    assert table(rd)[0] == "5D 6D 7D 8D 9D"
    if layoffs:
        assert rd.outcome == OUT_RAMI_SEC and rd.score() == [0, 2 * 15]
    else:
        assert rd.outcome == OUT_NORMAL and rd.score() == [0, 15]


@rule("R12")
@pytest.mark.parametrize("layoffs", [False, True])
def test_R12_the_same_hand_worth_49_cannot_be_laid_at_all(layoffs):
    """49 points (34 + 5C 5H 5S): no R7 opening and no rami sec, so the lay-offs never come: the turn ends
    with a discard whatever ``rami_sec_layoffs`` says."""
    rd = _opening_then_layoffs("5C 5H 5S", rami_sec_layoffs=layoffs)
    assert rd.after_draw == (False, 49, None)
    Script(draw=DRAW_STOCK, discard=lambda p, h: C("9D")).install(rd)
    assert rd.turn(0, False) is False and rd.opened[0] == 0 and rd.n_table == 1 and rd.sizes[0] == 8


@rule("R12")
@pytest.mark.parametrize("last,sec", [("8H", True), ("QC", False)])
def test_R12_a_lay_off_keeps_the_rami_sec_only_on_the_players_own_meld(last, sec):
    """The classification itself: P0 (nothing laid before this turn) lays 4H 5H 6H 7H and KC KD KS, then its
    last card: 8H on its own run (the whole hand is still in its own melds: a rami sec) or QC on P1's
    9C 10C JC (a normal end)."""
    rd = make_round(P=2)
    opened(rd, 1)
    set_table(rd, ["9C 10C JC"], owner=1)
    set_hand(rd, 0, f"4H 5H 6H 7H KC KD KS {last}")
    for text in ("4H 5H 6H 7H", "KC KD KS"):
        rd.lay_meld(0, encode_meld(parse_meld(text)))
    (move,) = rd.legal_moves(0)
    assert int(rd.owner[int(move[1])]) == (0 if sec else 1)
    rd.apply_move(0, move)
    assert rd.sizes[0] == 0 and rd.on_others_melds is (not sec)
    rd.going_out(0, laid_before=False)
    assert rd.outcome == (OUT_RAMI_SEC if sec else OUT_NORMAL)


@rule("R12")
def test_R12_rami_sec_needs_a_tierce_franche_not_51():
    rd = make_round()
    set_hand(rd, 0, "2H 3H 4H 2C 2D 2S")  # 18 points, franche: a rami sec
    plan = rd.rami_sec_plan(0)
    assert plan is not None and plan[1] == -1 and len(plan[0]) == 2
    set_hand(rd, 0, "2H 2C 2D 3S 3C 3D")  # sets only
    assert rd.rami_sec_plan(0) is None
    rd.laid[0] = 1
    set_hand(rd, 0, "2H 3H 4H 2C 2D 2S")  # laid something before: no rami sec
    assert rd.rami_sec_plan(0) is None


# ================================================================================================ R13
@rule("R13")
def test_R13_normal_end_others_score_their_hand_ace_11_joker_20():
    rd = make_round(P=3)
    set_hand(rd, 0, "")
    set_hand(rd, 1, "AC JK KD 5S")
    set_hand(rd, 2, "2C 3C")
    opened(rd, 0, 1)
    rd.winner, rd.outcome = 0, OUT_NORMAL
    assert rd.score() == [0, 46, 5]
    rd.r = Rules(unopened_penalty=100)
    assert rd.score() == [0, 46, 100]


# ================================================================================================ R14
@rule("R14")
def test_R14_empty_stock_reshuffles_the_discard_but_its_top():
    rd = make_round()
    set_hand(rd, 0, "2C 4C 6C 8C 10C QC 2D 4D 6D 8D 10D QD 2H")
    set_piles(rd, stock="", discard="3S 5S 7S 9S")
    Script(draw=DRAW_STOCK, open=OPEN_NONE, discard=lambda p, h: C("QC")).install(rd)
    rd.own_turns[0] = 3
    rd.turn(0, False)
    assert rd.reshuffles == 1 and rd.discard == [C("9S"), C("QC")]
    assert sorted(rd.stock + [c for c in range(53) if rd.hands[0, c] and c in (C("3S"), C("5S"), C("7S"))]) == \
        sorted([C("3S"), C("5S"), C("7S")])


@rule("R14")
def test_R14_nothing_to_draw_blocks_the_round():
    rd = make_round()
    set_hand(rd, 0, "2C 4C 6C")
    set_piles(rd, stock="", discard="9S")
    rd.own_turns[0] = 3
    assert rd.turn(0, False) is True and rd.outcome == OUT_BLOCKED


# ================================================================================================ R15
@rule("R15")
def test_R15_game_ends_when_someone_reaches_the_target_lowest_total_wins():
    g = Game(Rules(target=150), [seat(), seat("random")], 11, 3).play()
    rows = g.rows["rounds"]
    totals = [[row[seat_column("rounds", 2, "total", p)] for p in range(2)] for row in rows]
    assert max(totals[-1]) >= 150 and all(max(t) < 150 for t in totals[:-1])
    game = g.rows["games"][0]
    final = game[len(GAME):]
    assert final == totals[-1]
    winners = [p for p in range(2) if final[p] == min(final)]
    assert game[GAME.winners] == sum(1 << p for p in winners)


@rule("R15")
def test_R15_ties_are_shared(monkeypatch):
    def fake_play(self, dealer, scores):
        return reference.RoundResult(dealer=dealer, first=(dealer - 1) % self.P, winner=-1, outcome=OUT_TURN_CAP,
                                     points=[60, 60, 70], open_turn=[-1] * 3, cards_left=[0] * 3)
    monkeypatch.setattr(Round, "play", fake_play)
    g = Game(Rules(target=100), [seat()] * 3, 0, 0).play()
    game = g.rows["games"][0]
    assert game[GAME.rounds] == 2 and game[GAME.winners] == 0b011 and game[GAME.winner] == -1


@rule("R15")
def test_R15_turn_cap_ends_the_round_everyone_scores_the_hand():
    for index in range(40):  # the first seeded round of two random players that reaches the cap
        g = Game(Rules(max_turns_per_round=50), [seat("random")] * 2, 2, index, level="rounds").play()
        row = g.rows["rounds"][0]
        if row[ROUND.outcome] == OUT_TURN_CAP:
            break
    assert row[ROUND.outcome] == OUT_TURN_CAP and row[ROUND.winner] == -1 and row[ROUND.turns] == 50
    for p in range(2):
        assert row[seat_column("rounds", 2, "points", p)] > 0 and row[seat_column("rounds", 2, "cards_left", p)] > 0


# ================================================================================================ invariants
MIXES = [["random", "random"], ["open-asap", "random", "open-big"], ["joker-keeper", "rami-sec-hunter", "random", "open-asap"],
         ["random"] * 5, ["open-asap", "random"] * 3]
OPTION_SETS = [{}, {"playable_discard": "forbidden"},
               {"joker_swap": "free", "claim_eligibility": "anyone", "notice_prob": 0.5, "race_policy": "uniform"},
               {"final_discard_required": True, "discard_in_tierce": False, "first_player_draws": True},
               {"joker_swap": "forbidden", "joker_opening_value": "represented", "franche_inside_longer_run": True,
                "race_policy": "turn_order", "rami_sec_bonus": -50, "unopened_penalty": 100}]


@pytest.mark.parametrize("k", range(len(OPTION_SETS)))
def test_invariants_under_random_play_every_card_accounted_after_every_event(monkeypatch, k):
    checks = []
    original = Round.trace

    def checked(self, ev, a=0, b=0, c=0):
        assert self.census() == full_census(self), f"event {ev}: card census broken"
        assert all(self.sizes[p] == self.hands[p].sum() for p in range(self.P))
        checks.append(ev)
        original(self, ev, a, b, c)

    monkeypatch.setattr(Round, "trace", checked)
    rules = Rules.from_options(dict(OPTION_SETS[k], max_turns_per_round=400, target=250))
    for i, names in enumerate(MIXES):
        g = Game(rules, [seat(n) for n in names], 100 + k, i).play()
        P = len(names)
        rows = g.rows["rounds"]
        totals = [0] * P
        for row in rows:
            points = [row[seat_column("rounds", P, "points", p)] for p in range(P)]
            totals = [t + x for t, x in zip(totals, points)]
            assert totals == [row[seat_column("rounds", P, "total", p)] for p in range(P)]
            out, w = row[ROUND.outcome], row[ROUND.winner]
            left = [row[seat_column("rounds", P, "cards_left", p)] for p in range(P)]
            if out in (OUT_NORMAL, OUT_RAMI_SEC, OUT_CLAIM):
                assert left[w] == 0
                assert points[w] == (rules.rami_sec_bonus if out == OUT_RAMI_SEC else 0)
            else:
                assert w == -1
            for p in range(P):
                if p != w and out in (OUT_NORMAL, OUT_CLAIM) and left[p] > 0 and not (rules.unopened_penalty and row[seat_column("rounds", P, "open_turn", p)] < 0):
                    assert points[p] > 0
        assert max(totals) >= rules.target
        assert g.rows["games"][0][len(GAME):] == totals
    assert len(checks) > 1000


def test_same_seed_and_index_give_identical_rows_and_traces():
    seats = [seat("random"), seat("open-asap"), seat("joker-keeper")]
    a = play_games(Rules(target=200), seats, 9, 0, 4)
    b = play_games(Rules(target=200), seats, 9, 2, 4)
    assert a["rounds"].shape[1] == n_cols("rounds", 3) and a["games"].shape == (4, n_cols("games", 3))
    games_b = set(b["rounds"][:, 0])
    mask = np.isin(a["rounds"][:, 0], list(games_b))
    assert np.array_equal(a["rounds"][mask], b["rounds"]) and np.array_equal(a["traces"][mask], b["traces"])
    c = play_games(Rules(target=200), seats, 10, 0, 4)
    assert not np.array_equal(c["traces"][:3], a["traces"][:3])
    frame = to_frame("rounds", a["rounds"], 3, ["random", "open-asap", "joker-keeper"], a["traces"])
    assert frame.columns[: len(column_names("rounds", 3))] == column_names("rounds", 3)
    assert frame["outcome"].dtype.__class__.__name__ == "Enum"


def test_trace_words_hold_every_field_of_a_meld_and_a_move_whole():
    """Issue 18 item 6: ``meld_word`` gives each field of a meld code a byte of its own (any int8 value) and
    ``move_word`` 16 bits to each of card, action and declared: distinct inputs, distinct words."""
    rng = np.random.default_rng(18)
    codes = rng.integers(-128, 128, size=(20_000, 5)).astype(np.int8)
    assert len({meld_word(c) for c in codes}) == len({tuple(int(x) for x in c) for c in codes})
    base = np.array([1, 2, 12, 13, 3], np.int8)
    for i in range(5):
        for v in (-128, -1, 0, 4, 127):
            other = base.copy()
            other[i] = v
            assert (meld_word(other) == meld_word(base)) == (v == base[i]), (i, v)
    moves = rng.integers(-2**15, 2**15, size=(20_000, 3))
    assert len({move_word(*m) for m in moves}) == len({tuple(m) for m in moves})
    assert move_word(JOKER, 2, C("KH")) != move_word(JOKER, 2, C("KS"))  # the declared card counts


def test_meld_and_lay_off_events_carry_those_words(monkeypatch):
    events = []
    monkeypatch.setattr(Round, "trace", lambda self, ev, a=0, b=0, c=0: events.append((ev, a, b, c)))
    rd = make_round(P=2)
    opened(rd, 0, 1)
    set_table(rd, ["KC KD KS"], owner=1)
    set_hand(rd, 0, "4H 5H 6H KH")
    rd.lay_meld(0, encode_meld(parse_meld("4H 5H 6H")))
    (move,) = rd.legal_moves(0)
    rd.apply_move(0, move)
    assert events[0] == (EV_MELD, 0, meld_word(rd.table[1]), 1)
    assert events[1] == (EV_LAYOFF, 0, 0, move_word(C("KH"), ADD_TO_SET, C("KH")))


def test_strategies_see_only_their_own_hand(monkeypatch):
    rounds: list[Round] = []
    original_init = Round.__init__

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        rounds.append(self)

    monkeypatch.setattr(Round, "__init__", init)
    seen = []
    real_ask = real_policy.ask

    def spy(name, seat_, c):
        rd = rounds[-1]
        me, args = c[0], tuple(c[1:])
        if name != "speed":
            hand_me = args[0]
            assert np.shares_memory(hand_me, rd.hands[me]) and hand_me.shape == (53,)
        for arg in args:
            if isinstance(arg, np.ndarray):
                assert arg.shape != rd.hands.shape, "a strategy received every hand"
                for q in range(rd.P):
                    assert q == me or not np.shares_memory(arg, rd.hands[q]), "another player's hand"
        seen.append((name, me))
        return real_ask(name, seat_, c)

    monkeypatch.setattr(reference.policy, "ask", spy)
    Game(Rules(target=100), [seat("random"), seat("open-asap"), seat("joker-keeper")], 4, 0).play()
    assert {me for _, me in seen} == {0, 1, 2}
    assert {name for name, _ in seen} >= {"draw", "open", "lay", "layoff", "discard"}


def test_every_rule_R1_to_R15_has_a_test():
    import sys
    module = sys.modules[__name__]
    marked = set()
    for obj in vars(module).values():
        for mark in getattr(obj, "pytestmark", []):
            if mark.name == "rule":
                marked.add(mark.args[0])
    assert {f"R{i}" for i in range(1, 16)} <= marked


# ================================================================================================ opening points, jokers
@pytest.mark.parametrize("options", [{}, {"joker_swap": "free", "joker_opening_value": "represented"},
                                     {"joker_swap": "must_reuse", "playable_discard": "ignored"}])
def test_rounds_open_points_and_joker_counters(monkeypatch, options):
    """``open_points_<p>`` is the R7 value of the opening melds laid (``opening_value`` with the option; for a
    rami sec the value of its whole-hand lay-down, R12; -1 never, as ``open_turn``); ``jokers_laid`` /
    ``jokers_swapped`` count the events of the round."""
    from simulator.rami.vocabulary.melds import decode_meld, opening_value

    openings, sec_plans, events = {}, {}, {"laid": 0, "swapped": 0}
    original_open, original_meld, original_move = Round.open_with, Round.lay_meld, Round.apply_move
    original_plan = Round.rami_sec_plan

    def open_with(self, p, melds, points):
        openings[p] = (sum(opening_value(decode_meld(m), self.r.joker_opening_value) for m in melds), points)
        original_open(self, p, melds, points)

    def rami_sec_plan(self, p):  # the last plan of the round's winner is the one laid
        plan = original_plan(self, p)
        if plan is not None:
            sec_plans[p] = sum(opening_value(decode_meld(m), self.r.joker_opening_value) for m in plan[0])
        return plan

    def lay_meld(self, p, code):
        events["laid"] += int(decode_meld(code).joker >= 0)
        original_meld(self, p, code)

    def apply_move(self, p, move):
        if int(move[2]) == SWAP_JOKER:
            events["swapped"] += 1
        elif int(move[0]) == JOKER:
            events["laid"] += 1
        original_move(self, p, move)

    monkeypatch.setattr(Round, "open_with", open_with)
    monkeypatch.setattr(Round, "lay_meld", lay_meld)
    monkeypatch.setattr(Round, "apply_move", apply_move)
    monkeypatch.setattr(Round, "rami_sec_plan", rami_sec_plan)
    rules = Rules.from_options(dict(options, max_turns_per_round=400))
    names = ["open-asap", "random", "joker-keeper"]
    P = len(names)
    laid_rounds = swapped_rounds = opened_seats = 0
    sec_lay_downs = 0
    for i in range(300):
        openings.clear()
        sec_plans.clear()
        events.update(laid=0, swapped=0)
        row = Game(rules, [seat(n) for n in names], 21, i, level="rounds").play().rows["rounds"][0]
        assert row[ROUND.jokers_laid] == events["laid"] and row[ROUND.jokers_swapped] == events["swapped"]
        assert row[ROUND.jokers_laid] >= row[ROUND.jokers_swapped] >= 0
        laid_rounds += row[ROUND.jokers_laid] > 0
        swapped_rounds += row[ROUND.jokers_swapped] > 0
        for p in range(P):
            pts = row[seat_column("rounds", P, "open_points", p)]
            turn = row[seat_column("rounds", P, "open_turn", p)]
            if turn < 0:
                assert pts == -1 and p not in openings
            elif p in openings:  # an R7 opening: the value of its melds, at least the threshold
                value, points = openings[p]
                assert pts == value == points >= rules.opening_points
                opened_seats += 1
            else:  # the rami sec lay-down (R12): the value of its melds, 51 not needed
                assert row[ROUND.outcome] == OUT_RAMI_SEC and row[ROUND.winner] == p and pts == sec_plans[p] >= 0
                sec_lay_downs += 1
    assert laid_rounds > 0 and opened_seats > 100 and sec_lay_downs > 0
    assert (swapped_rounds > 0) == (rules.joker_swap != "forbidden")
