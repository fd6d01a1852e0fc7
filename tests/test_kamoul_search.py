"""The searching Kamoul player (issue 63): both engines play it alike, it never reads a card its player does not
know, and it searches: it takes the action whose sampled worlds score best, where its base player would not.

At a few worlds: a search seat replays the rest of the hand for every action and world, which the reference
engine does in plain Python."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from kamoul_helpers import C, rig
from simulator.core.contract.game import seats_of
from simulator.core.kernels.rng import stream_state
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import raw_kernel, raw_reference, rules_of
from simulator.kamoul.engines.hand import Hand
from simulator.kamoul.engines.search_reference import search_values, turn_actions
from simulator.kamoul.vocabulary.codes import ACT_CALL, ACT_STOCK, ACT_TAKE
from simulator.kamoul.vocabulary.contract import Turn
from strategies.kamoul import STRATEGIES
from strategies.kamoul.policy import SEARCH
from strategies.kamoul.search import preferred

OPTION_SETS = {
    "default": {},
    "snaps": {"snap_chain": "true", "snap_others": "true", "race_policy": "uniform"},
    "tamalou": {"false_call_mode": "tamalou", "swap_scope": "own_vs_opponent", "king_power": "black_only"},
    "physical": {"p_stick": "0.05", "p_out_of_turn": "0.02", "allow_reorder": "true", "p_reorder": "0.05"},
    "two_decks": {"n_decks": "2", "on_stock_empty": "end_hand", "hand_size": "6", "min_turns_before_call": "2"},
}
"""Variants whose steps a rollout replays (snaps, a false call checked at once, the physical layer, two decks and
an empty stock ending the hand)."""
TABLE = ["search:worlds=2", "tuned-4p", "search:worlds=1,margin=true,call_threshold=5,keep_max=4", "random"]


def same_rows(a: dict, b: dict) -> bool:
    return all(np.array_equal(a[k], b[k], equal_nan=a[k].dtype.kind == "f") for k in a)


@pytest.mark.parametrize("option_set", sorted(OPTION_SETS))
def test_both_engines_play_a_search_seat_alike(option_set):
    """Hand for hand, the kernel's rows and traces are the reference engine's, two searching seats at the table."""
    spec = build_spec("kamoul", n=10, seed=41, strategies=TABLE, options=OPTION_SETS[option_set])
    assert same_rows(raw_reference(spec, 0, 10), raw_kernel(spec, 0, 10))


def test_both_engines_play_a_search_seat_alike_at_two_players_to_the_end_of_a_manche():
    spec = build_spec("kamoul", n=2, seed=3, players=2, level="manches", strategies=["search:worlds=3", "tuned-2p"])
    ref = raw_reference(spec, 0, 2)
    assert len(ref["manches"]) == 2 and same_rows(ref, raw_kernel(spec, 0, 2))


def test_the_kernel_plays_a_search_seat_alike_on_any_threads_and_blocks():
    """The search's workspace is per thread: one thread, two, or the games split in two chunks give the same rows."""
    spec = build_spec("kamoul", n=60, seed=8, strategies=TABLE)
    one = raw_kernel(spec, 0, 60, threads=1)
    assert same_rows(one, raw_kernel(spec, 0, 60, threads=2))
    split = [raw_kernel(spec, 0, 25, threads=2), raw_kernel(spec, 25, 60, threads=1)]
    assert same_rows(one, {k: np.concatenate([split[0][k], split[1][k]]) for k in one})


def test_a_search_seat_plays_otherwise_than_its_base_player():
    """``search`` answers every other decision as its base player (``tuned-4p``'s parameters): the rows differ
    from that player's only because it searches its turns."""
    assert [p.default for p in STRATEGIES["search"].params.params][:len(STRATEGIES["tuned-4p"].params.params)] == [
        p.default for p in STRATEGIES["tuned-4p"].params.params]
    searched = raw_kernel(build_spec("kamoul", n=200, seed=2, strategies=["search:worlds=2"] + ["tuned-4p"] * 3),
                          0, 200)
    base = raw_kernel(build_spec("kamoul", n=200, seed=2, strategies=["tuned-4p"]), 0, 200)
    assert not np.array_equal(searched["traces"], base["traces"])


class Captured(Hand):
    """A hand that keeps a copy of itself at the first searched turn with a choice, from the fifth turn on."""

    at = None

    def turn_answer(self, loop, seat, c):
        if self.at is None and seat.sid == SEARCH and loop.turns >= 5 and len(turn_actions(c)) > 2:
            self.at = copy.deepcopy((self, loop, c))
        return super().turn_answer(loop, seat, c)


def _hidden_from(hand: Hand, p: int) -> list[tuple[int, int]]:
    """The face-down positions whose card ``p`` does not know for what it is (unseen, or remembered wrong)."""
    return [(q, s) for q in range(hand.P) for s in range(hand.nslots[q])
            if hand.occ[q, s] and not hand.faceup[q, s] and hand.know[p, q, s] != hand.hand[q, s]]


def test_the_search_does_not_depend_on_a_card_its_player_does_not_know():
    """The same searched turn with the cards the player cannot place dealt otherwise among their positions and the
    stock (the others remembering the cards they saw) gives every action the same total: the worlds are sampled
    from what the player knows only."""
    spec = build_spec("kamoul", n=1, seed=0, strategies=["search:worlds=3", "tuned-4p"] * 2)
    rules, seats = rules_of(spec), seats_of(spec)
    checked = 0
    for game in range(6):
        hand = Captured(rules, seats, stream_state(12, game))
        hand.play(game % 4, [0, 0, 0, 0])
        if hand.at is None:
            continue
        answers = []
        for shuffle in range(3):
            h, loop, c = copy.deepcopy(hand.at)
            hidden = _hidden_from(h, c.me)
            cards = [int(h.hand[q, s]) for q, s in hidden] + h.stock
            np.random.default_rng(shuffle).shuffle(cards)
            for k, (q, s) in enumerate(hidden):
                h.hand[q, s] = cards[k]
                h.know[:, q, s] = np.where(h.know[:, q, s] >= 0, cards[k], -1)  # the others saw the new card
                h.know[c.me, q, s] = hand.at[0].know[c.me, q, s]  # the player's own memory is unchanged
            h.stock = cards[len(hidden):]
            answers.append(search_values(h, loop, c))
        assert answers[0] == answers[1] == answers[2]
        assert len(set(answers[0][2])) > 1  # the actions' totals differ: a comparison that could fail
        checked += 1
    assert checked >= 3


def test_the_search_takes_the_action_its_worlds_score_best_where_its_base_player_draws():
    """Player 0 knows its whole layout (two red kings and two aces: 2 points), the discard shows the black king
    (15 points), and its base player calls only at 0 points: the base draws. In the search's worlds, calling wins
    the hand far more than drawing does, and taking the black king wins most: the ace it lets go is snapped by the
    other ace, and the king, discarded, by both red kings (K7: ULTIME, -15). The search takes it, sure of it by
    more than its ``min_z`` standard errors."""
    spec = build_spec("kamoul", n=1, seed=0, strategies=["search:worlds=8,call_threshold=0,contre_threshold=0",
                                                         "tuned-4p", "tuned-4p", "tuned-4p"],
                      options={"min_turns_before_call": "0"})
    rules, seats = rules_of(spec), seats_of(spec)
    hand = Hand(rules, seats, stream_state(1, 0))
    rig(hand, 3, {0: ["KD", "KH", "AS", "AC"], 1: ["9S", "9H", "QC", "JD"], 2: ["8S", "7H", "6C", "10D"],
                  3: ["5S", "4H", "3C", "2D"]}, upcard="KS")
    loop = hand.begin(3, [0, 0, 0, 0])
    hand.know[0, 0, :4] = [C("KD"), C("KH"), C("AS"), C("AC")]
    p = 0  # the dealer's left plays first (K3)
    assert loop.current == p
    hand.turn_start(p)
    loop.turns, loop.own_turns[p] = 1, 1
    base = copy.deepcopy(hand)
    base.seats = [copy.copy(s) for s in base.seats]
    base.seats[0].sid = STRATEGIES["heuristic"].kernel_id
    c = Turn(p, hand.know[p], hand.occ, hand.nslots, hand.faceup, hand.own(p), hand.discard[-1], True, False, True, 0,
             False, hand.rng, hand.tmp)
    acts, base_index, totals, _ = search_values(copy.deepcopy(hand), loop, c)
    assert acts == [ACT_CALL, ACT_STOCK, ACT_TAKE] and base_index == 1  # totals: less the base's, the stock's
    assert totals[2] < totals[0] < totals[1] == 0
    assert hand.choose(loop, p, None, True, False) == ACT_TAKE
    assert base.choose(loop, p, None, True, False) == ACT_STOCK


@pytest.mark.parametrize("totals,squares,worlds,min_z,expected", [
    ([0.0, -3.0, -1.0], [0.0, 1.0, 1.0], 9, 1.0, 1),      # -1/3 in every world: no spread, sure
    ([0.0, -3.0, -1.0], [0.0, 90.0, 1.0], 9, 1.0, 0),     # the same mean, but a standard error of 1.05: the base
    ([0.0, -3.0, -1.0], [0.0, 90.0, 1.0], 9, 0.0, 1),     # min_z = 0: the best mean, however noisy
    ([0.0, -3.0, -3.0], [0.0, 1.0, 1.0], 9, 1.0, 1),      # a tie: the first listed
    ([0.0, -1.0, 2.0], [0.0, 1.0, 4.0], 1, 1.0, 0),       # one world: no spread to judge by, the base
])
def test_the_search_leaves_its_base_player_only_when_sure(totals, squares, worlds, min_z, expected):
    """``preferred``: the best mean difference to the base player's action (index 0 here), taken only when it is
    below zero by ``min_z`` standard errors of the worlds' paired differences."""
    assert preferred(np.array([2, 3, 0]), 3, 0, np.array(totals), np.array(squares), worlds, min_z) == expected
