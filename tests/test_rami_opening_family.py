"""The opening family's discard (R4, R13): usefulness weights and shedding points while an opponent is near out.

The helpers are checked on written hands; the parameters are checked to change play, to leave open-asap's play
as it was at their defaults (the golden rows guard that too), and to play the same games in both engines.
"""

from __future__ import annotations

import numpy as np
import pytest

from simulator.core.cards import JOKER, parse_card
from simulator.rami.engines.engine import raw_kernel
from simulator.rami.vocabulary.rules import Rules
from simulator.rami.vocabulary.views import highest_loose_card, least_useful_card, opponent_near_out, usefulness
from strategies.rami import STRATEGIES, default_params, opening
from test_rami_engines import assert_same, registry_seats

NO_FITS = np.zeros(JOKER + 1, np.int8)


def counts(text: str) -> np.ndarray:
    """``int8[53]``, the hand ``"5H 6H 9S"`` as a count vector."""
    hand = np.zeros(JOKER + 1, np.int8)
    for t in text.split():
        hand[parse_card(t)] += 1
    return hand


def test_usefulness_weighs_each_kind_of_neighbour():
    hand = counts("7H 8H 9H 7S 5H")
    seven = parse_card("7H")  # 8H one away, 9H and 5H two away, 7S the same rank
    assert usefulness(hand, seven) == 4
    assert usefulness(hand, seven, 2, 3, 1) == 2 * 1 + 3 * 1 + 1 * 2
    assert usefulness(hand, seven, 0, 0, 0) == 0
    assert usefulness(hand, JOKER, 0, 0, 0) == 99


def test_weights_change_which_card_goes():
    # 2S pairs with 2D (a set start), 9H is two away from JH (a run start): a tie at weight 1, where the higher
    # card goes; counting a card two away for more keeps the run start and lets a 2 go instead
    hand = counts("2S 2D 9H JH")
    assert least_useful_card(hand, NO_FITS, True) == parse_card("JH")
    assert least_useful_card(hand, NO_FITS, True, 2, 1, 1) == parse_card("JH")
    assert least_useful_card(hand, NO_FITS, True, 1, 1, 2) in (parse_card("2S"), parse_card("2D"))


def test_highest_loose_card_sheds_points_among_cards_with_at_most_one_partner():
    # AS alone (11 points in hand, R13), QH beside JH (one partner), 4C 5C 6C each with two partners or more
    hand = counts("AS QH JH 4C 5C 6C 7D")
    assert highest_loose_card(hand, NO_FITS, True) == parse_card("AS")
    fits = NO_FITS.copy()
    fits[parse_card("AS")] = 1  # AS could be claimed on a table meld: the next loose card goes
    assert highest_loose_card(hand, fits, True) in (parse_card("QH"), parse_card("JH"))
    assert highest_loose_card(counts("4C 5C 6C"), NO_FITS, True) == -1
    only_fitting = counts("AS 4C 5C 6C")
    assert highest_loose_card(only_fitting, fits, True) == parse_card("AS")  # a fitting card, when no other is loose
    assert highest_loose_card(only_fitting, fits, False) == -1  # never under playable_discard=forbidden


def test_opponent_near_out_counts_only_opened_opponents():
    opened = np.array([1, 0, 1], np.int8)
    sizes = np.array([1, 2, 5], np.int64)
    assert not opponent_near_out(0, opened, sizes, 2)  # seat 0 itself, seat 1 unopened, seat 2 holds 5
    assert opponent_near_out(1, opened, sizes, 2)
    assert opponent_near_out(0, opened, sizes, 5)
    assert not opponent_near_out(1, opened, sizes, 0)  # 0 switches it off


def test_discard_sheds_only_when_an_opponent_is_near_out():
    prm = default_params("opening").copy()  # the engines' parameters are read-only
    prm[opening.PARAM.shed_when_opponent_holds] = 2
    hand = counts("KS 2D 3D 8C 9C")  # usefulness: KS 0, 2D 1, 3D 1, 8C 1, 9C 1
    opened = np.array([0, 1], np.int8)
    far, near = np.array([5, 6], np.int64), np.array([5, 2], np.int64)
    assert opening.discard_seeing_sizes(prm, hand, NO_FITS, 0, opened, far, False) == parse_card("KS")
    hand = counts("2S 9D 10D 4C")  # 2S loose, 9D and 10D partners, 4C loose: the least useful is 4C
    assert opening.discard_seeing_sizes(prm, hand, NO_FITS, 0, opened, far, False) == parse_card("4C")
    assert opening.discard_seeing_sizes(prm, hand, NO_FITS, 0, opened, near, False) == parse_card("10D")
    hand = counts("AS 4C 5C 6C")  # the only loose card fits a table meld
    fits = NO_FITS.copy()
    fits[parse_card("AS")] = 1
    assert opening.discard_seeing_sizes(prm, hand, fits, 0, opened, near, False) == parse_card("AS")
    assert opening.discard_seeing_sizes(prm, hand, fits, 0, opened, near, True) != parse_card("AS")


def test_defaults_play_open_asap_and_the_new_parameters_change_play():
    rules = Rules()
    asap = registry_seats(["open-asap"] * 4)
    same = registry_seats(["opening:use_same_rank=1,use_next_in_suit=1,use_two_away=1"] * 4)
    rows = raw_kernel(rules, asap, 3, 0, 200, "rounds", None)
    same_rows = raw_kernel(rules, same, 3, 0, 200, "rounds", None)
    assert all(np.array_equal(rows[k], same_rows[k]) for k in rows)
    for changed in ("opening:use_next_in_suit=3,use_same_rank=2", "opening:shed_when_opponent_holds=3"):
        other = raw_kernel(rules, registry_seats([changed] + ["open-asap"] * 3), 3, 0, 200, "rounds", None)
        assert any(not np.array_equal(rows[k], other[k]) for k in rows), changed


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("playable_discard", ["snap", "forbidden"])
def test_engines_agree_with_weighted_usefulness_and_shedding(players, playable_discard):
    """Under ``forbidden`` (R10) a shed card that fits a table meld would be refused as illegal by both engines."""
    tuned = "opening:use_same_rank=2,use_next_in_suit=3,use_two_away=1,shed_when_opponent_holds=4"
    seats = registry_seats(([tuned, "open-asap"] * 2)[:players])
    ref = assert_same(Rules.from_options({"playable_discard": playable_discard}), seats, 21, 0, 120)
    assert len(ref["rounds"]) == 120


def test_open_asap_keeps_the_old_discard():
    values = STRATEGIES["open-asap"].params.resolve({})
    assert (values["use_same_rank"], values["use_next_in_suit"], values["use_two_away"]) == (1, 1, 1)
    assert values["shed_when_opponent_holds"] == 0
