"""The worlds a searching Kamoul player samples (simulator/kamoul/engines/worlds.py, issue 63): the same table in
everything the player knows, every deck card once per copy, the unknown cards dealt uniformly, and nothing that
depends on a card the player does not know."""

from __future__ import annotations

import copy

import numba
import numpy as np
import pytest

from simulator.core.contract.game import seats_of
from simulator.core.kernels.rng import shuffle_py, stream_state
from simulator.core.storage.spec import build_spec
from simulator.kamoul.engines.engine import rules_of
from simulator.kamoul.engines.hand import Hand
from simulator.kamoul.engines.kernel_state import ST, new_state
from simulator.kamoul.engines.world_reference import sample_world as reference_world
from simulator.kamoul.engines.worlds import CARD_CODES, sample_world
from simulator.kamoul.vocabulary.rules import Rules

HAND_SIZE = 4


def rec(table):
    """The one record of a table array, its fields read and written by name (``numpy.record``)."""
    return table.view(np.recarray)[0]


@numba.njit
def _sample(table, p, n_decks, rng, world_table, counts, pool):
    sample_world(table[0], p, n_decks, rng, world_table[0], counts, pool)


def table(players: int, n_decks: int, seed: int):
    """A table in the middle of a hand: dealt from a shuffled deck, a discard pile, some cards face up, and
    memories (player 0 remembers some own and some others' cards, one of them wrongly; the others some of their
    own). Returns the state record's array."""
    rng = np.random.default_rng(seed)
    cards = [c for _ in range(n_decks) for c in range(CARD_CODES)]
    rng.shuffle(cards)
    t = new_state(players)
    state = rec(t)
    for q in range(players):
        for s in range(HAND_SIZE + q % 2):  # uneven layouts
            state.hand[q, s] = cards.pop()
            state.occ[q, s] = 1
        state.nslots[q] = HAND_SIZE + q % 2 + 1  # one empty position at the end
    for i in range(5):
        state.discard[i] = cards.pop()
    state.scalars[ST.n_discard] = 5
    state.scalars[ST.n_stock] = len(cards)
    state.stock[: len(cards)] = cards
    state.faceup[1, 0] = 1
    for o in range(players):
        state.know[o, 1, 0] = state.hand[1, 0]
    for q, s in ((0, 0), (0, 2), (1, 1), (2, 3)):
        state.know[0, q, s] = state.hand[q, s]
    state.know[0, 0, 3] = state.stock[0]  # a wrong memory (a card in the stock): played as believed
    state.know[0, 2, 0] = state.discard[0]  # an impossible one (with one deck): that card is in the discard pile
    for o in range(1, players):
        state.know[o, o, 0] = state.hand[o, 0]
        state.know[o, 0, 1] = state.hand[0, 1]  # o looked at player 0's second card
    for o in range(players):  # the snap index of those memories, as the engine keeps it (beliefs.believe)
        for x in range(state.nslots[o]):
            if state.know[o, o, x] >= 0:
                rank = state.know[o, o, x] % 13
                state.held[o, rank] += 1
                state.holders[rank] |= 1 << o
    return t


def worlds(t, p: int, n_decks: int, seed: int, n: int) -> list:
    rng = stream_state(seed, 0)
    out = []
    for _ in range(n):
        w = new_state(int(rec(t).players))
        _sample(t, p, n_decks, rng, w, np.zeros(CARD_CODES, np.int64), np.zeros(52 * n_decks, np.int16))
        out.append(rec(w))
    return out


def _cards(state) -> list[int]:
    P = int(state.players)
    on_table = [int(state.hand[q, s]) for q in range(P) for s in range(state.nslots[q]) if state.occ[q, s]]
    return sorted(on_table + state.stock[: state.scalars[ST.n_stock]].tolist()
                  + state.discard[: state.scalars[ST.n_discard]].tolist())


@pytest.mark.parametrize("players,n_decks", [(2, 1), (4, 1), (6, 2)])
def test_a_world_keeps_what_the_player_knows_and_every_card_once_per_copy(players, n_decks):
    t = table(players, n_decks, seed=players)
    s = rec(t)
    for w in worlds(t, 0, n_decks, seed=1, n=20):
        world = w
        assert _cards(world) == sorted(c for _ in range(n_decks) for c in range(CARD_CODES))
        for name in ("occ", "faceup", "nslots", "discard", "scalars"):
            assert np.array_equal(getattr(world, name), getattr(s, name)), name
        assert world.hand[1, 0] == s.hand[1, 0]  # face up: public
        for q, sl in ((0, 0), (0, 2), (1, 1), (2, 3)):
            assert world.hand[q, sl] == s.know[0, q, sl]  # remembered
        assert world.hand[0, 3] == s.know[0, 0, 3]  # a wrong memory is played as believed
        if n_decks == 1:  # a memory no copy can answer is no memory
            assert world.hand[2, 0] != s.know[0, 2, 0]
        assert np.array_equal(world.know[0], s.know[0])  # its own memory
        for o in range(1, players):  # the others remember the world's card where they remember one
            assert (world.know[o] >= 0).sum() == (s.know[o] >= 0).sum()
            assert world.know[o, 0, 1] == world.hand[0, 1] and world.know[o, o, 0] == world.hand[o, 0]
        for o in range(players):  # the snap index, rebuilt from the world's memories
            for rank in range(13):
                believed = sum(1 for x in range(world.nslots[o]) if world.know[o, o, x] >= 0
                               and world.know[o, o, x] % 13 == rank)
                assert world.held[o, rank] == believed
                assert bool(world.holders[rank] >> o & 1) == (believed > 0)


def test_a_world_does_not_depend_on_a_card_the_player_does_not_know():
    """Shuffling every card player 0 cannot place (face-down unknown positions and the stock) among themselves,
    with the other players' memories following them, leaves its worlds the same."""
    t = table(4, 1, seed=7)
    s = rec(t)
    hidden = [(q, x) for q in range(4) for x in range(s.nslots[q])
              if s.occ[q, x] and not s.faceup[q, x] and s.know[0, q, x] < 0]
    cards = [int(s.hand[q, x]) for q, x in hidden] + s.stock[: s.scalars[ST.n_stock]].tolist()
    shuffle_py(cards, stream_state(99, 0))
    other = table(4, 1, seed=7)
    o = rec(other)
    for (q, x), c in zip(hidden, cards):
        o.hand[q, x] = c
        for k in range(1, 4):
            if o.know[k, q, x] >= 0:
                o.know[k, q, x] = c
    o.stock[: o.scalars[ST.n_stock]] = cards[len(hidden):]
    assert not np.array_equal(o.hand, s.hand)
    for a, b in zip(worlds(t, 0, 1, seed=3, n=10), worlds(other, 0, 1, seed=3, n=10)):
        assert np.array_equal(a.hand, b.hand) and np.array_equal(a.stock, b.stock)
        assert np.array_equal(a.know, b.know)


def test_the_unknown_cards_are_dealt_uniformly():
    """Over n worlds, each card player 0 cannot place lands at a given unknown position with frequency 1/m (m such
    cards): every observed count within 5 binomial standard deviations (seed fixed)."""
    t = table(2, 1, seed=11)
    s = rec(t)
    n = 4000
    position = next((q, x) for q in range(2) for x in range(s.nslots[q])
                    if s.occ[q, x] and not s.faceup[q, x] and s.know[0, q, x] < 0)
    counts = np.zeros(CARD_CODES, np.int64)
    for w in worlds(t, 0, 1, seed=5, n=n):
        counts[w.hand[position]] += 1
    placed = set(s.discard[: s.scalars[ST.n_discard]].tolist()) | {int(s.hand[1, 0])} | {
        int(s.know[0, q, x]) for q in range(2) for x in range(s.nslots[q]) if s.know[0, q, x] >= 0}
    candidates = np.array([c not in placed for c in range(CARD_CODES)])
    assert counts[~candidates].sum() == 0  # a placed card is never dealt elsewhere (one deck)
    m = int(candidates.sum())
    expected, sd = n / m, np.sqrt(n * (1 / m) * (1 - 1 / m))
    assert m >= 30  # the pool: most of the deck
    assert np.all(np.abs(counts[candidates] - expected) <= 5 * sd), counts[candidates]


@pytest.mark.parametrize("players,n_decks", [(4, 1), (6, 2)])
def test_both_engines_sample_the_same_worlds(players, n_decks):
    """The reference engine's worlds (simulator/kamoul/engines/world_reference.py) of the same table, from the same
    stream, are the kernel's, card for card and memory for memory."""
    t = table(players, n_decks, seed=players + 20)
    s = rec(t)
    rules = Rules(n_decks=n_decks)
    hand = Hand(rules, seats_of(build_spec("kamoul", n=1, seed=0, players=players, strategies=["balanced"],
                                           options={"n_decks": str(n_decks)})), stream_state(0, 0))
    S = hand.S
    hand.hand[:], hand.occ[:], hand.faceup[:] = s.hand[:players, :S], s.occ[:players, :S], s.faceup[:players, :S]
    hand.know[:] = s.know[:players, :players, :S]
    hand.nslots[:] = s.nslots[:players]
    hand.stock = s.stock[: s.scalars[ST.n_stock]].tolist()
    hand.discard = s.discard[: s.scalars[ST.n_discard]].tolist()
    rng = stream_state(4, 0)
    for w in worlds(t, 2, n_decks, seed=4, n=5):
        mirror = reference_world(hand, 2, rng)
        world = w
        assert np.array_equal(mirror.hand, world.hand[:players, :S])
        assert mirror.stock == world.stock[: world.scalars[ST.n_stock]].tolist()
        assert np.array_equal(mirror.know, world.know[:players, :players, :S])
        assert mirror.discard == hand.discard and mirror.log is None


@pytest.mark.parametrize("strategy,options", [("balanced", {}), ("random", {"snap_others": "true"}),
                                              ("aggressive", {"false_call_mode": "tamalou"})])
def test_a_hand_stopped_before_a_turn_and_copied_plays_on_as_the_hand_itself(strategy, options):
    """The reference engine's hand resumable from a turn (what a searching player's rollouts play on from): stopped
    before turn k, the copy of the hand and of where its turns stand ends exactly as the uninterrupted hand
    (its result, its trace, the stream after it), and so does the original played on."""
    spec = build_spec("kamoul", n=1, seed=0, players=4, strategies=[strategy], options=options)
    rules, seats = rules_of(spec), seats_of(spec)
    stopped = 0
    for game in range(12):
        whole = Hand(rules, seats, stream_state(8, game))
        expected = whole.play(game % 4, [0, 10, 20, 30])
        for k in (2, 7, 15):
            hand = Hand(rules, seats, stream_state(8, game))
            loop = hand.begin(game % 4, [0, 10, 20, 30])
            if not hand.play_turns(loop, stop_before=k):
                assert hand.finish(loop) == expected  # the hand ended before turn k
                continue
            stopped += 1
            copy_hand, copy_loop = copy.deepcopy((hand, loop))
            copy_hand.play_turns(copy_loop)
            assert copy_hand.finish(copy_loop) == expected and np.array_equal(copy_hand.rng, whole.rng)
            hand.play_turns(loop)
            assert hand.finish(loop) == expected
    assert stopped >= 12  # not vacuous
