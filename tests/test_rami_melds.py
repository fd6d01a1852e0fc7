"""Rami meld library (``simulator.rami.vocabulary.melds``): rules R6–R9, R12, R13 of ../shared/rules/INTERPRETATION.md.

Three tiers:

* scripted hands and tables, one rule each (names carry the rule number);
* the numba core against the plain-Python brute force of ``simulator.rami.vocabulary.melds_ref`` on more than 100,000
  seeded random hands (1, 2 and 3 decks of 54 cards, jokers, 1–20 cards, many drawn from a few ranks and
  suits so that openings are common): can the hand open, with how many points (and how many cards), and
  the least card value left in hand. The brute force shares no code with the core's search: it lists every
  declared combination the hand holds and searches disjoint choices with memoisation;
* the reference's own parts against the one-combination rulebook (``verify_combination``), and lay-offs
  against trying every card on every meld.

Hands are written ``"QH KH AH 2H JK"``; melds ``"5H JK=6H 7H"`` (a joker with the card it stands for).
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.cards import JOKER, card_name, parse_card
from simulator.rami.vocabulary import melds as M
from simulator.rami.vocabulary import melds_ref as R
from simulator.rami.vocabulary.codes import OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST
from simulator.rami.vocabulary.melds import (
    ADD_TO_SET, EXTEND_HIGH, EXTEND_LOW, RUN, SET, SWAP_JOKER, InvalidMeld, LayOff, best_opening, is_combination,
    layoffs, least_left, opening_value, parse_meld, remaining, verify_combination,
)

rule = pytest.mark.rule


def cards(text: str) -> list[int]:
    return [parse_card(t) for t in text.split()]


def names(melds) -> list[str]:
    return sorted(str(m) for m in melds)


def value(text: str, joker_opening_value=0) -> int:
    return opening_value(parse_meld(text), joker_opening_value)


# ================================================================================================ R6 combinations
@rule("R6")
def test_R6_wrapping_run_Q_K_A_2_3_is_legal():
    meld = parse_meld("QH KH AH 2H 3H")
    assert meld.kind == RUN and str(meld) == "QH KH AH 2H 3H"
    assert str(verify_combination(cards("2H AH 3H KH QH"))) == "QH KH AH 2H 3H"  # any order is put in table order
    assert least_left("QH KH AH 2H 3H").value_left == 0


@rule("R6")
def test_R6_runs_are_consecutive_one_suit_3_to_13_cards():
    assert is_combination(cards("5C 6C 7C"))
    assert not is_combination(cards("5C 6C"))            # too short
    assert not is_combination(cards("5C 6C 8C"))         # gap
    assert not is_combination(cards("5C 6D 7C"))         # two suits
    assert is_combination(cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"))
    assert not is_combination(cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS") + ["JK"])  # 14 cards
    assert opening_value(parse_meld("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")) == 95  # ace after the king


@rule("R6")
def test_R6_set_of_four_different_suits_ok_two_identical_cards_refused():
    assert verify_combination(cards("7S 7C 7H 7D")).kind == SET
    assert str(verify_combination(cards("7S 7C 7H 7D"))) == "7C 7D 7H 7S"
    with pytest.raises(InvalidMeld, match="identical"):
        verify_combination(cards("7H 7H 7S"))           # two decks: the same card twice
    with pytest.raises(InvalidMeld, match="identical"):
        verify_combination(cards("5H 6H 6H 7H"))
    # the solver never builds them: two 7H and a 7S stay in hand (R13: 7 + 7 + 7)
    assert least_left("7H 7H 7S").value_left == 21
    assert least_left("7H 7H 7S 7C").value_left == 7    # 7C 7H 7S laid, the other 7H kept


@rule("R6")
def test_R6_two_jokers_in_one_meld_refused():
    with pytest.raises(InvalidMeld, match="one joker"):
        verify_combination(["5H", "6H", "JK=7H", "JK=8H"])
    with pytest.raises(InvalidMeld):
        verify_combination(["5H", "JK=6H", "JK=7H"])
    # the solver: 5H 6H JK laid, the second joker stays (R13: 20)
    res = least_left("5H 6H JK JK")
    assert res.value_left == 20 and remaining("5H 6H JK JK", res.melds) == [JOKER]


@rule("R6")
def test_R6_each_meld_needs_two_natural_cards_and_a_set_at_most_four():
    with pytest.raises(InvalidMeld, match="2 natural"):
        verify_combination(["5H", "JK"])
    with pytest.raises(InvalidMeld):                   # a fifth 7 is always a second copy of some 7
        verify_combination(["7C", "7D", "7H", "7S", "JK=7C"])
    assert not is_combination(["7C", "7D", "7H", "7S", "JK"])  # no declaration fits
    assert str(verify_combination(["7C", "7D", "JK"])) == "7C 7D JK=7H"
    assert str(verify_combination(["KH", "AH", "JK"])) == "JK=QH KH AH"  # undeclared: the best declaration
    assert str(verify_combination(["2H", "AH", "JK"])) == "JK=KH AH 2H"


@rule("R6")
def test_R6_two_decks_lay_the_same_run_twice():
    res = least_left("5H 6H 7H 5H 6H 7H")
    assert res.value_left == 0 and names(res.melds) == ["5H 6H 7H", "5H 6H 7H"]


# ================================================================================================ R7 values
@rule("R7")
def test_R7_ace_is_1_before_a_two_and_11_after_a_king():
    assert value("AH 2H 3H") == 1 + 2 + 3
    assert value("QH KH AH") == 10 + 10 + 11
    assert value("AC AD AS") == 33


@rule("R7")
def test_R7_K_A_2_wrap_counts_ace_11():
    assert value("KD AD 2D") == 10 + 11 + 2
    assert value("QD KD AD 2D 3D") == 10 + 10 + 11 + 2 + 3
    assert best_opening("KD AD 2D", threshold=0, opening_single_meld=True).points == 23


@rule("R7")
def test_R7_joker_counts_0_toward_the_opening_by_default():
    assert value("5H JK=6H 7H") == 12
    assert value("5H JK=6H 7H", "represented") == 18
    assert value("9C 9D JK=9S") == 18
    assert value("9C 9D JK=9S", "represented") == 27
    assert value("JK=AH 2H 3H", "represented") == 6 and value("JK=KH AH 2H") == 13
    with pytest.raises(ValueError, match="joker_opening_value"):
        value("5H 6H 7H", "eleven")
    # QH KH AH (31) + 8C 8D JK (16 | 24): 47 by default, 55 with the represented value
    assert best_opening("QH KH AH 8C 8D JK").points == 47
    assert not best_opening("QH KH AH 8C 8D JK").can_open
    res = best_opening("QH KH AH 8C 8D JK", joker_opening_value="represented")
    assert res.can_open and res.points == 55


@rule("R7")
def test_R7_opening_needs_a_tierce_franche():
    sets = "KC KD KH QC QD QS"                         # 60 points of sets
    res = best_opening(sets)
    assert not res.can_open and res.points == 0 and res.melds == []
    res = best_opening(sets + " 2S 3S 4S")             # + a pure run: 69
    assert res.can_open and res.points == 69
    assert not best_opening(sets + " 5H 6H JK").can_open  # a run with a joker is not a tierce franche
    # 5H 6H 7H JK=8H 9H is not a franche by default (franche_inside_longer_run=false): 5H 6H 7H (18) +
    # KC KD KH JK=KS (30) = 48, 9H kept; with the option the long run counts: 27 + KC KD KH (30) = 57
    hand = "KC KD KH 5H 6H 7H 9H JK"
    res = best_opening(hand)
    assert res.points == 48 and not res.can_open and remaining(hand, res.melds) == cards("9H")
    res = best_opening(hand, franche_inside_longer_run=True)
    assert res.points == 57 and res.can_open and names(res.melds) == ["5H 6H 7H JK=8H 9H", "KC KD KH"]


@rule("R7")
def test_R7_51_exactly_opens_50_does_not():
    # 10H JH QH = 30; 2C 3C 4C 5C 6C = 20 → 50; with AC in front (ace 1 before a two) → 51
    res = best_opening("10H JH QH 2C 3C 4C 5C 6C")
    assert res.points == 50 and not res.can_open
    res = best_opening("10H JH QH AC 2C 3C 4C 5C 6C")
    assert res.points == 51 and res.can_open
    assert names(res.melds) == ["10H JH QH", "AC 2C 3C 4C 5C 6C"]
    assert not best_opening("10H JH QH AC 2C 3C 4C 5C 6C", threshold=52).can_open
    assert best_opening("10H JH QH 2C 3C 4C 5C 6C", threshold=50).can_open


@rule("R7")
def test_R7_opening_is_the_tierce_franche_plus_at_least_one_combination():
    """Seed: "une tierce franche + une ou plusieurs combinaisons". One run of 51 alone does not open unless
    ``opening_single_meld``; a longer run may split into two runs, and a second meld makes it an opening."""
    assert not best_opening("10H JH QH KH AH").can_open and best_opening("10H JH QH KH AH").melds == []
    res = best_opening("10H JH QH KH AH", opening_single_meld=True)
    assert res.can_open and res.points == 51 and names(res.melds) == ["10H JH QH KH AH"]
    res = best_opening("9H 10H JH QH KH AH")
    assert res.can_open and res.points == 60 and names(res.melds) == ["9H 10H JH", "QH KH AH"]
    res = best_opening("10H JH QH KH AH 3C 3D 3S")
    assert res.can_open and res.points == 60 and len(res.melds) == 2
    assert R.ref_best_opening(cards("10H JH QH KH AH")).gain == 0
    assert R.ref_best_opening(cards("10H JH QH KH AH"), opening_single_meld=True).gain == 51
    # a single franche with the option still needs the franche; the rami sec (R12) needs neither 51 nor two melds
    assert least_left("10H JH QH KH AH", require_franche=True).value_left == 0


@rule("R7")
def test_R7_best_opening_takes_the_most_points_then_the_fewest_cards_left():
    # KH AH 2H 3H would put the ace at 11 (K-A-2…); AH 2H 3H 4H puts it at 1
    res = best_opening("KH AH 2H 3H 4H 9S", opening_single_meld=True)
    assert res.points == 10 + 11 + 2 + 3 + 4 and names(res.melds) == ["KH AH 2H 3H 4H"]
    assert remaining("KH AH 2H 3H 4H 9S", res.melds) == cards("9S")
    # the joker adds 0 points but lays a card more: it goes down
    res = best_opening("10S JS QS 4D 4H JK")
    assert res.points == 30 + 8 and remaining("10S JS QS 4D 4H JK", res.melds) == []


# ================================================================================================ R12 / R13
@rule("R13")
def test_R13_least_left_counts_ace_11_and_joker_20():
    assert least_left("AC KD JK JK").value_left == 11 + 10 + 20 + 20   # nothing can be laid
    res = least_left("AH 2H 3H KC")
    assert res.value_left == 10 and remaining("AH 2H 3H KC", res.melds) == cards("KC")
    res = least_left("AH 2H 3H AC JK JK")                               # AC AH JK=AD and 2H 3H JK=4H
    assert res.value_left == 0 and len(res.melds) == 2
    assert least_left([]).value_left == 0


@rule("R12")
def test_R12_rami_sec_needs_a_tierce_franche_but_not_51():
    hand = "AH 2H 3H 4C 4D 4S"                       # 6 + 12 points: everything can go down at once
    assert least_left(hand, require_franche=True).value_left == 0
    assert not best_opening(hand).can_open
    sets_only = "4C 4D 4S 9C 9D 9H"
    assert least_left(sets_only).value_left == 0
    res = least_left(sets_only, require_franche=True)
    assert res.value_left == 12 + 27 and res.melds == []


# ================================================================================================ R8 / R9 lay-offs
@rule("R8")
def test_R8_lay_offs_extend_runs_at_both_ends_and_complete_sets():
    # table:  0: 5H 6H 7H      1: QS KS AS (wraps)      2: 9C 9D 9H      3: 2D 2H 2S 2C (full)
    table = ["5H 6H 7H", "QS KS AS", "9C 9D 9H", "2C 2D 2H 2S"]
    hand = "4H 8H 2S JS 9S 2C 3C"
    got = set(layoffs(hand, table))
    assert got == {
        LayOff(parse_card("4H"), 0, EXTEND_LOW, parse_card("4H")),
        LayOff(parse_card("8H"), 0, EXTEND_HIGH, parse_card("8H")),
        LayOff(parse_card("JS"), 1, EXTEND_LOW, parse_card("JS")),
        LayOff(parse_card("2S"), 1, EXTEND_HIGH, parse_card("2S")),   # …K-A-2 wraps
        LayOff(parse_card("9S"), 2, ADD_TO_SET, parse_card("9S")),
    }


@rule("R8")
def test_R8_a_joker_goes_only_on_a_meld_without_one_and_no_run_exceeds_13():
    # table:  0: 5H JK=6H 7H      1: 9C 9D 9H      2: AC…KC (13 cards)
    table = ["5H JK=6H 7H", "9C 9D 9H", "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"]
    got = set(layoffs("JK", table))
    assert got == {LayOff(JOKER, 1, ADD_TO_SET, parse_card("9S"))}
    assert layoffs("AC KC JK", table[2:]) == []


@rule("R9")
def test_R9_joker_swap_detects_the_card_the_joker_stands_for():
    # table:  0: 5H JK=6H 7H      1: 9C JK=9D 9H
    table = ["5H JK=6H 7H", "9C JK=9D 9H"]
    got = set(layoffs("6H 9D 9S 6D", table))
    assert LayOff(parse_card("6H"), 0, SWAP_JOKER, parse_card("6H")) in got
    assert LayOff(parse_card("9D"), 1, SWAP_JOKER, parse_card("9D")) in got
    assert LayOff(parse_card("9S"), 1, ADD_TO_SET, parse_card("9S")) in got
    assert not any(lo.card == parse_card("6D") for lo in got)


# ================================================================================================ formats
def test_meld_codes_and_text_round_trip():
    for text in ("QH KH AH 2H 3H", "JK=KH AH 2H", "7C 7D JK=7H", "7C 7D 7H 7S", "5S 6S JK=7S 8S"):
        meld = parse_meld(text)
        assert str(meld) == text
        assert M.decode_meld(M.encode_meld(meld)) == meld
        assert verify_combination([(JOKER, c) if i == meld.joker else c for i, c in enumerate(meld.cards)]) == meld


def test_hand_counts_accepts_ids_names_text_and_counts():
    vec = M.hand_counts("AH AH JK")
    assert vec.dtype == np.int8 and vec.shape == (53,) and vec[parse_card("AH")] == 2 and vec[JOKER] == 1
    assert (M.hand_counts(vec) == vec).all()
    assert (M.hand_counts([26, 26, 52]) == vec).all()
    with pytest.raises(ValueError, match="hand"):
        M.hand_counts([60])


# ================================================================================================ brute force
N_CHUNKS = 4
HANDS_PER_CHUNK = 6_000          # 3 deck counts × 4 chunks × 6,000 = 72,000 hands


def random_hand(rng: np.random.Generator, n_decks: int) -> list[int]:
    """A hand from ``n_decks`` shuffled 54-card decks: mostly 13–14 cards (the deal), also 1–12 and 15–20.

    About 40% are drawn from a few suits and a window of consecutive ranks (all copies, all jokers), so that
    runs, sets and openings are frequent.
    """
    u = rng.random()
    size = int(rng.integers(13, 15)) if u < 0.55 else int(rng.integers(1, 13)) if u < 0.9 else int(rng.integers(15, 21))
    if rng.random() < (0.45 if size <= 14 else 0.25):
        suits = rng.choice(4, size=int(rng.integers(1, 5)), replace=False)
        r0, width = int(rng.integers(13)), int(rng.integers(4, 10))
        pool = [int(s) * 13 + (r0 + k) % 13 for s in suits for k in range(width)] * n_decks + [JOKER] * (2 * n_decks)
    else:
        pool = list(range(52)) * n_decks + [JOKER] * (2 * n_decks)
    picked = rng.choice(len(pool), size=min(size, len(pool)), replace=False)
    return sorted(pool[i] for i in picked)


def check_melds(hand: list[int], codes: np.ndarray, n: int, points: int | None, joker_opening_value=0,
                franche_inside=False):
    """The core's melds are valid combinations (R6) taken from the hand, and add up to ``points`` (R7)."""
    melds = [M.decode_meld(codes[i]) for i in range(n)]
    rest = list(hand)
    for m in melds:
        assert verify_combination([(JOKER, c) if i == m.joker else c for i, c in enumerate(m.cards)]) == m
        for c in m.hand_cards:
            rest.remove(c)                             # ValueError if the hand lacks it
    if points is not None:
        assert sum(opening_value(m, joker_opening_value) for m in melds) == points
        assert any(R.is_franche(m, franche_inside) for m in melds)
    return melds, rest


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(N_CHUNKS))
@pytest.mark.parametrize("n_decks", [1, 2, 3])
def test_core_agrees_with_brute_force_on_random_hands(n_decks, chunk):
    """Can it open, the opening's points (and cards laid), the least value left (and cards left): exact match.

    Every 8th hand also checks the melds themselves, the ``represented`` joker value, the rami-sec variant
    (R12) and ``franche_inside_longer_run``.
    """
    rng = np.random.default_rng([20240601, n_decks, chunk])
    ws = M.new_workspace()
    out = np.zeros((M.MAX_OUT, 5), np.int8)
    opened = laid_all = 0
    for k in range(HANDS_PER_CHUNK):
        hand = random_hand(rng, n_decks)
        counts = M.hand_counts(hand)
        every = R.all_melds(hand)
        msg = " ".join(card_name(c) for c in hand)

        ref = R.ref_best_opening(hand, melds=every)
        can, points, n = M.best_opening_nb(counts, 51, False, False, R.R7_MIN_MELDS, ws, out)
        assert (can, points, int(out[:n, 3].sum())) == (ref.laid > 0 and ref.gain >= 51, ref.gain, ref.laid), msg
        assert n == 0 or n >= 2, msg  # R7: the tierce franche and at least one more combination
        if k % 8 == 0:
            check_melds(hand, out, n, points if n else None)
        opened += can

        ref_left, ref_res = R.ref_least_left(hand, melds=every)
        left, left_n, n = M.least_left_nb(counts, False, False, ws, out)
        assert (left, left_n) == (ref_left, len(hand) - ref_res.laid), msg
        if k % 8 == 0:
            _, rest = check_melds(hand, out, n, None)
            assert R.hand_value(rest) == left
        laid_all += left == 0

        if k % 8 == 4:
            ref = R.ref_best_opening(hand, "represented", melds=every)
            can, points, n = M.best_opening_nb(counts, 51, True, False, R.R7_MIN_MELDS, ws, out)
            assert (points, int(out[:n, 3].sum())) == (ref.gain, ref.laid), msg
            check_melds(hand, out, n, points if n else None, "represented")
            ref = R.ref_best_opening(hand, melds=every, opening_single_meld=True)
            can, points, n = M.best_opening_nb(counts, 51, False, False, R.R7_MIN_MELDS_SINGLE, ws, out)
            assert (points, int(out[:n, 3].sum())) == (ref.gain, ref.laid), msg
            check_melds(hand, out, n, points if n else None)
            ref = R.ref_best_opening(hand, franche_inside_longer_run=True, melds=every)
            can, points, n = M.best_opening_nb(counts, 51, False, True, R.R7_MIN_MELDS, ws, out)
            assert (points, int(out[:n, 3].sum())) == (ref.gain, ref.laid), msg
            check_melds(hand, out, n, points if n else None, 0, True)
            ref_left, ref_res = R.ref_least_left(hand, require_franche=True, melds=every)
            left, left_n, n = M.least_left_nb(counts, True, False, ws, out)
            assert (left, left_n) == (ref_left, len(hand) - ref_res.laid), msg
    # the sample is rich enough to mean something
    assert opened > HANDS_PER_CHUNK // 20 and laid_all > HANDS_PER_CHUNK // 20


def test_reference_meld_list_matches_the_one_combination_rulebook():
    """``all_melds`` lists exactly the declared combinations ``verify_combination`` accepts (random card lists)."""
    rng = np.random.default_rng(7)
    accepted = 0
    for _ in range(20_000):
        suit_pool = rng.choice(4, size=int(rng.integers(1, 3)), replace=False)
        r0, width = int(rng.integers(13)), int(rng.integers(3, 14))
        pool = sorted({int(s) * 13 + (r0 + k) % 13 for s in suit_pool for k in range(width)})
        size = int(rng.integers(2, min(len(pool), 13) + 1))
        naturals = [pool[i] for i in rng.choice(len(pool), size=size, replace=False)]
        items: list = list(naturals)
        if rng.random() < 0.5:
            items.insert(int(rng.integers(len(items) + 1)), (JOKER, int(rng.integers(52))))
        physical = [JOKER if isinstance(x, tuple) else x for x in items]
        listed = set(R.all_melds(physical))
        try:
            meld = verify_combination(items)
        except InvalidMeld:
            # nothing declared this way is listed for exactly these physical cards
            same = {m for m in listed if sorted(m.hand_cards) == sorted(physical)
                    and sorted(m.cards) == sorted(x[1] if isinstance(x, tuple) else x for x in items)}
            assert not same, items
            continue
        accepted += 1
        assert meld in listed, str(meld)
    for hand in ("AH 2H 3H 4H JK JK 4C 4D", "QS KS AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS JK"):
        for m in R.all_melds(cards(hand)):
            assert verify_combination([(JOKER, c) if i == m.joker else c for i, c in enumerate(m.cards)]) == m
    assert accepted > 1000


@rule("R8")
@rule("R9")
def test_layoffs_agree_with_trying_every_card_on_every_meld():
    rng = np.random.default_rng(11)
    for _ in range(1500):
        n_decks = int(rng.integers(1, 4))
        source = random_hand(rng, n_decks)
        options = [m for m in R.all_melds(source)]
        if not options:
            continue
        table = [options[i] for i in rng.choice(len(options), size=min(4, len(options)), replace=False)]
        hand = random_hand(rng, n_decks)
        expected = set()
        for t, m in enumerate(table):
            decl = [(JOKER, c) if i == m.joker else c for i, c in enumerate(m.cards)]
            for c in set(hand):
                tries = [(c, c)] if c != JOKER else [((JOKER, d), d) for d in range(52)]
                for item, declared in tries:
                    moves = [(EXTEND_LOW, [item] + decl), (EXTEND_HIGH, decl + [item])] if m.kind == RUN else \
                        [(ADD_TO_SET, decl + [item])]
                    for action, trial in moves:
                        try:
                            new = verify_combination(trial)
                        except InvalidMeld:
                            continue
                        if m.kind == RUN and (new.cards[1:] if action == EXTEND_LOW else new.cards[:-1]) != m.cards:
                            continue  # the card fits the run, but not at this end
                        expected.add(LayOff(c, t, action, declared))
                if c == m.joker_card:
                    expected.add(LayOff(c, t, SWAP_JOKER, c))
        assert set(layoffs(hand, table)) == expected, (hand, [str(m) for m in table])


OPENING_HANDS = 240


@pytest.mark.rule("R7")
@pytest.mark.parametrize("n_decks", [1, 2])
def test_R7_every_opening_style_agrees_with_brute_force_on_random_hands(n_decks):
    """The smallest opening (fewest cards, then most points), the largest (least R13 value left, then fewest cards
    left) and the best keeping the jokers, against every opening of the hand enumerated without a bound
    (``melds_ref.ref_openings``), on 240 random hands of up to 15 cards per deck count; all three can open
    exactly when the best opening can (the jokers aside)."""
    rng = np.random.default_rng([20261205, n_decks])
    ws = M.new_workspace()
    out = np.zeros((M.MAX_OUT, 5), np.int8)
    checked = opened = 0
    while checked < OPENING_HANDS:
        hand = random_hand(rng, n_decks)
        if len(hand) > 15:
            continue
        checked += 1
        counts = M.hand_counts(hand)
        msg = " ".join(card_name(c) for c in hand)
        every = R.ref_openings(hand, 51)
        can_best = M.best_opening_nb(counts, 51, False, False, R.R7_MIN_MELDS, ws, out)[0]
        assert bool(every) == can_best, msg
        opened += can_best

        can, points, n = M.opening_nb(OPENING_SMALLEST, counts, 51, False, False, R.R7_MIN_MELDS, ws, out)
        assert can == can_best, msg
        if every:
            fewest = min(cards for _, cards, _, _ in every)
            most = max(p for p, cards, _, _ in every if cards == fewest)
            assert (points, int(out[:n, 3].sum())) == (most, fewest), msg
            check_melds(hand, out, n, points)

        can, points, n = M.opening_nb(OPENING_LARGEST, counts, 51, False, False, R.R7_MIN_MELDS, ws, out)
        assert can == can_best, msg
        if every:
            value, cards = max((value, cards) for _, cards, value, _ in every)
            melds, rest = check_melds(hand, out, n, points)
            assert (R.hand_value(hand) - R.hand_value(rest), len(hand) - len(rest)) == (value, cards), msg
            assert points >= 51, msg

        without = [c for c in hand if c != JOKER]
        ref = R.ref_best_opening(without)
        can, points, n = M.opening_nb(OPENING_KEEP_JOKERS, counts, 51, False, False, R.R7_MIN_MELDS, ws, out)
        assert (can, points) == (ref.laid > 0 and ref.gain >= 51, ref.gain), msg
        assert all(JOKER not in M.decode_meld(out[i]).hand_cards for i in range(n)), msg
        assert counts[JOKER] == hand.count(JOKER), "the hand's counts are left as they were"
    assert opened >= OPENING_HANDS // 10  # the openings are compared on enough hands that open


def test_R7_the_opening_styles_on_a_hand_that_shows_them_apart():
    """7H 8H 9H (franche, 24) + KS KD KC (30) reaches 51 with six cards; the largest adds 2C 3C 4C (9) and the joker;
    keep-jokers leaves the joker in hand."""
    hand = "7H 8H 9H KS KD KC 2C 3C 4C JK 5D"
    best, smallest, largest, keep = (M.opening(hand, style) for style in M.OPENING_STYLES)
    assert smallest.can_open and sum(len(m.cards) for m in smallest.melds) == 6 and smallest.points == 54
    assert largest.can_open and JOKER in [c for m in largest.melds for c in m.hand_cards]
    assert keep.can_open and all(JOKER not in m.hand_cards for m in keep.melds)
    assert best.points >= largest.points >= smallest.points
    with pytest.raises(ValueError, match="opening style 'big'"):
        M.opening(hand, "big")
