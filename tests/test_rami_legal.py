"""The engine's legal lists (simulator/rami/vocabulary/legal.py) against the engines' checks (simulator/rami/vocabulary/answers.py).

Every candidate answer, in range or not, is accepted by the check exactly when the list holds it: rules R4/R5 (the
draw), R7/R12 (opening, rami sec), R8/R9 (lay-down plans, lay-off moves) and R10 (the discard under
``playable_discard``). The checks run in both engines on every answer of a strategy file, so the lists are what a
strategy may answer.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from simulator.core.cards import JOKER
from simulator.core.contract.decisions import python_twin
from contract_checks import accepts
from simulator.rami.vocabulary import answers, legal

L = {name: python_twin(getattr(legal, name)) for name in
     ("draw_choices", "open_choices", "lay_choices", "layoff_choices", "discard_choices", "claim_choices")}
A = {name: python_twin(getattr(answers, name)) for name in
     ("legal_draw", "legal_open", "legal_open_with", "legal_lay", "legal_layoff", "legal_discard",
      "first_legal_discard")}


def listed(fill, *args) -> list[int]:
    out = np.full(JOKER + 64, -9, np.int64)
    n = fill(*args, out)
    return [int(x) for x in out[:n]]


@pytest.mark.rule("R5")
@pytest.mark.parametrize("can_take", [False, True])
def test_R4_R5_the_draw_accepts_exactly_the_listed_sources(can_take):
    sources = listed(L["draw_choices"], can_take)
    assert len(sources) == 1 + can_take
    for a in range(-2, 4):
        assert accepts(A["legal_draw"], a, can_take) == (a in sources), a


@pytest.mark.rule("R7")
@pytest.mark.parametrize("can_open, can_sec", list(itertools.product([False, True], repeat=2)))
def test_R7_R12_the_unopened_choice_accepts_exactly_the_listed_ones(can_open, can_sec):
    choices = listed(L["open_choices"], can_open, can_sec)
    assert len(choices) == len(set(choices)) == 1 + can_open + can_sec
    for a in range(-2, 5):
        assert accepts(A["legal_open"], a, can_open, can_sec) == (a in choices), a


@pytest.mark.rule("R8")
def test_R8_the_lay_down_plan_and_R9_the_lay_offs_accept_exactly_the_listed_ones():
    plans = listed(L["lay_choices"])
    for a in range(-2, 5):
        assert accepts(A["legal_lay"], a) == (a in plans), a
    for n_moves, forced in itertools.product(range(0, 6), [False, True]):
        moves = listed(L["layoff_choices"], n_moves, forced)
        assert (legal.STOP in moves) == (not forced)
        for a in range(-3, n_moves + 3):
            assert accepts(A["legal_layoff"], a, n_moves, forced) == (a in moves), (a, n_moves, forced)


def hands(count: int, seed: int = 11):
    """``count`` random ``(hand_me, fits)`` pairs, ``int8[53]`` each: 1 to 15 cards of up to three decks, and a
    random subset of the cards marked as fitting a table meld (sometimes all of them)."""
    rng = np.random.default_rng(seed)
    for k in range(count):
        hand = np.zeros(JOKER + 1, np.int8)
        for c in rng.choice(JOKER + 1, size=int(rng.integers(1, 16))):
            hand[c] = min(hand[c] + 1, 3)
        fits = (rng.random(JOKER + 1) < (1.0 if k % 7 == 0 else 0.3)).astype(np.int8)
        yield hand, fits


@pytest.mark.rule("R10")
def test_R4_R10_the_discard_accepts_exactly_the_listed_cards_and_the_fallback_is_one_of_them():
    for hand, fits in hands(300):
        for forbid in (False, True):
            cards = listed(L["discard_choices"], hand, fits, forbid)
            assert cards, "a hand always has a legal discard"
            if not forbid:
                assert cards == [c for c in range(JOKER + 1) if hand[c] > 0]
            for a in range(-2, JOKER + 3):
                assert accepts(A["legal_discard"], a, hand, fits, forbid) == (a in cards), (a, forbid)
            assert A["first_legal_discard"](hand, fits, forbid) == cards[0]


@pytest.mark.rule("R10")
def test_R10_a_claim_is_a_pass_or_a_claim():
    assert listed(L["claim_choices"]) == [0, 1]


@pytest.mark.rule("R7")
def test_R7_the_opening_accepts_exactly_the_offered_styles_and_each_offered_style_opens():
    """On random hands that can open: the best is offered first, each offered style is an opening of the hand that
    reaches the threshold (and under R11 ``final_discard_required`` leaves a card), the largest is left out only
    when it lays every card under R11, keep-jokers is offered exactly when the jokerless hand opens, and the check
    accepts exactly the offered codes."""
    from simulator.rami.vocabulary import melds as M
    from simulator.rami.vocabulary.codes import OPENING_BEST, OPENING_KEEP_JOKERS, OPENING_LARGEST, OPENING_SMALLEST
    from simulator.rami.vocabulary.melds_ref import R7_MIN_MELDS

    rng = np.random.default_rng(7)
    ws, scratch = M.new_workspace(), np.zeros((M.MAX_OUT, 5), np.int8)
    tried = 0
    while tried < 150:
        hand = np.zeros(JOKER + 1, np.int8)
        for c in rng.choice(JOKER + 1, size=int(rng.integers(10, 16))):
            hand[c] = min(hand[c] + 1, 2)
        can, _, n = M.best_opening_nb(hand, 51, False, False, R7_MIN_MELDS, ws, scratch)
        if not can:
            continue
        tried += 1
        best_lays_all = int(scratch[:n, 3].sum()) >= int(hand.sum())
        for keep_one in (False, True):
            if keep_one and best_lays_all:
                continue  # the engine asks only a player who can open: under R11 its best leaves a card
            styles = listed(lambda out: legal.opening_choices(hand, 51, False, False, R7_MIN_MELDS, keep_one, ws,
                                                              scratch, out))
            assert styles[0] == OPENING_BEST and len(set(styles)) == len(styles)
            assert (OPENING_KEEP_JOKERS in styles) <= (hand[JOKER] > 0)
            for style in (OPENING_SMALLEST, OPENING_LARGEST, OPENING_KEEP_JOKERS):
                can, points, n = M.opening_nb(style, hand, 51, False, False, R7_MIN_MELDS, ws, scratch)
                opens = can and points >= 51 and not (keep_one and int(scratch[:n, 3].sum()) >= int(hand.sum()))
                if style == OPENING_KEEP_JOKERS:
                    opens = opens and hand[JOKER] > 0
                assert (style in styles) == opens, (style, styles, keep_one)
            offered = np.array(styles + [0] * (4 - len(styles)), np.int64)
            for a in range(-2, 6):
                assert accepts(A["legal_open_with"], a, offered, len(styles)) == (a in styles), (a, styles)
