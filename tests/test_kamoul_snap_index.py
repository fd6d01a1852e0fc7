"""K6's snap index (simulator/kamoul/engines/beliefs.py): the engine skips asking a player who cannot snap.

Results may not change: a skipped player must be one whose answer would have been "no" with no random draw. Three
things make that so, each tested here; the golden rows and the engines' agreement (the reference asks every
player) test the whole.

* the index counts exactly the own beliefs, whatever sequence of writes made them;
* the kernel writes the players' memory only through the index's functions;
* a family that declares ``SNAPS_ON_BELIEF`` answers "no", drawing nothing, when it believes no own card of the
  rank (and ``snap_others`` is off); the others are always asked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from simulator.core.contract.decisions import python_twin
from simulator.core.kernels.jit import njit
from simulator.kamoul.engines import beliefs
from simulator.kamoul.engines.kernel_state import new_state
from simulator.kamoul.vocabulary.codes import SNAP_NONE
from simulator.kamoul.vocabulary.contract import Snap
from strategies.kamoul import STRATEGIES, params_array
from strategies.kamoul.policy import BELIEF_SNAPPERS, BUILTIN, FAMILIES, HEURISTIC, RANDOM

ROOT = Path(__file__).resolve().parents[1]
N_RANKS = 13


def recount(know: np.ndarray) -> np.ndarray:
    """``held`` made from scratch: ``int16[P, 13]``, own positions each player believes hold each rank."""
    P = know.shape[0]
    held = np.zeros((P, N_RANKS), np.int16)
    for o in range(P):
        for card in know[o, o]:
            if card >= 0:
                held[o, card % N_RANKS] += 1
    return held


@njit
def _apply(table, ops):
    """Play ``ops`` (``int64[n, 7]``: kind, o, p1, s1, p2, s2, card) through the index's writes on ``table[0]``."""
    state = table[0]
    for i in range(ops.shape[0]):
        kind, o, p1, s1, p2, s2, card = ops[i, 0], ops[i, 1], ops[i, 2], ops[i, 3], ops[i, 4], ops[i, 5], ops[i, 6]
        if kind == 0:
            beliefs.believe(state, o, p1, s1, card)
        elif kind == 1:
            beliefs.everyone_believes(state, p1, s1, card)
        else:
            beliefs.swap_beliefs(state, o, p1, s1, p2, s2)


@njit
def _forget_all(table):
    beliefs.forget_all(table[0])


@pytest.mark.parametrize("players", [2, 4, 6])
def test_k6_the_snap_index_counts_exactly_the_own_beliefs_after_any_writes(players):
    """``held`` equals a recount and ``holders[r]`` has bit ``o`` exactly where ``held[o, r] > 0``."""
    rng = np.random.default_rng(players)
    table = new_state(players)
    state = table.view(np.recarray)[0]  # the same memory, read by field
    state.nslots[:players] = 8
    for _ in range(5):
        n = 400
        ops = np.column_stack([rng.integers(0, 3, n), rng.integers(0, players, n), rng.integers(0, players, n),
                               rng.integers(0, 8, n), rng.integers(0, players, n), rng.integers(0, 8, n),
                               rng.integers(-1, 104, n)]).astype(np.int64)
        for column in (2, 4):  # half the positions are the believer's own: the writes the index counts
            own = rng.random(n) < 0.5
            ops[own, column] = ops[own, 1]
        _apply(table, ops)
        held = recount(state.know[:players, :players])
        assert (state.held[:players] == held).all()
        assert state.held.min() >= 0
        assert list(state.holders) == [sum(1 << o for o in range(players) if held[o, r] > 0) for r in range(N_RANKS)]
    _forget_all(table)
    assert (state.know[:, :, :8] == -1).all() and not state.held.any() and not state.holders.any()


def test_k6_the_kernel_writes_the_players_memory_only_through_the_snap_index():
    """No assignment to ``know[...]`` (or ``state.know[...]``) in the numba engine outside beliefs.py: a raw write
    would leave the index stale and a player who can snap unasked."""
    found = []
    for path in sorted((ROOT / "simulator" / "kamoul").glob("*.py")):
        if path.name in ("beliefs.py", "hand.py", "match.py", "reference.py"):  # the index; the reference engine
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AugAssign) else [])
            for target in targets:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Subscript) and ast.unparse(sub.value).split(".")[-1] in ("know", "held"):
                        found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "raw writes to the players' memory:\n" + "\n".join(found)


def _snap_positions(count: int, seed: int):
    """Random tables where ``me`` believes no own card of ``rank``: ``(me, rank, know_me, occ, faceup, nslots,
    locked)``; its beliefs about the others' cards are random, matching ``rank`` or not."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        P, S = int(rng.integers(2, 7)), int(rng.integers(1, 9))
        me, rank = int(rng.integers(0, P)), int(rng.integers(0, N_RANKS))
        occ = (rng.random((P, S)) < 0.8).astype(np.int8)
        faceup = (occ * (rng.random((P, S)) < 0.2)).astype(np.int8)
        nslots = np.full(P, S, np.int64)
        know_me = np.where(rng.random((P, S)) < 0.6, rng.integers(0, 52, (P, S)), -1).astype(np.int16)
        mine = know_me[me]
        mine[(mine >= 0) & (mine % N_RANKS == rank)] = -1
        yield me, rank, know_me, occ, faceup, nslots, int(rng.integers(-1, P))


def test_k6_the_built_in_families_declare_belief_snaps_as_they_play():
    """heuristic and its heirs (the presets, call-table) declare it; random snaps blind, so it does not."""
    assert BELIEF_SNAPPERS[HEURISTIC] and not BELIEF_SNAPPERS[RANDOM]
    assert all(BELIEF_SNAPPERS[sid] == (sid != RANDOM) for sid in FAMILIES)


@pytest.mark.parametrize("name", ["balanced", "aggressive", "cautious", "call-table", "random"])
def test_k6_a_belief_snapper_asked_without_an_own_matching_belief_says_no_and_draws_nothing(name):
    """What makes skipping it safe: over random tables (snap probability below 1, so a draw would show), the
    answer is SNAP_NONE and the random stream is untouched; ``random`` does draw, which is why it is asked."""
    definition = STRATEGIES[name]
    values = {p.name: p.default for p in definition.params.params}
    values.update({"snap": 0.5} if "snap" in values else {"snap_prob": 0.5})
    prm = params_array(definition, values)
    snap = python_twin(BUILTIN["snap"])
    drew = 0
    for me, rank, know_me, occ, faceup, nslots, locked in _snap_positions(300, seed=len(name)):
        rng = np.array([1, 2, 3, 4], np.uint64)
        before = rng.copy()
        answer = snap(definition.kernel_id, prm, Snap(me, rank, know_me, occ, nslots, faceup, False, locked, rng,
                                                      np.zeros(2 * occ.size + 8, np.int64),
                                                      np.zeros(occ.shape[1] + 8, np.int64)))
        if BELIEF_SNAPPERS[definition.kernel_id]:
            assert answer == SNAP_NONE and (rng == before).all()
        drew += int((rng != before).any())
    if not BELIEF_SNAPPERS[definition.kernel_id]:
        assert drew > 0


def test_k6_a_window_asks_the_holders_and_the_seats_that_snap_blind_never_the_caller():
    """``askable``: with the index, the players believing an own card of the rank plus the seats it cannot skip
    (``always_asked``: ``random`` and files without the declaration); without it, everyone; the caller never."""
    from simulator.core.kernels.faults import new_fault
    from simulator.core.contract.user_table import NO_TABLE, KernelSeats

    sids = np.array([HEURISTIC, RANDOM, HEURISTIC, 1000], np.int64)  # seat 3: a file, declaring on seat 3 only
    seats = KernelSeats(sids, np.zeros((4, 1)), NO_TABLE, new_fault(), np.array([False, False, False, True]))
    assert beliefs.always_asked(seats) == 0b0010
    seats = seats._replace(snaps_on_belief=np.zeros(4, np.bool_))
    assert beliefs.always_asked(seats) == 0b1010
    table = new_state(4)
    table.view(np.recarray)[0].nslots[:4] = 4
    believe = njit(lambda t, o, p, s, card: beliefs.believe(t[0], o, p, s, card))
    believe(table, 2, 2, 0, 7)       # seat 2 believes a rank-7 card of its own
    believe(table, 0, 1, 0, 7)       # seat 0 believes one at seat 1's: not its own
    ask = njit(lambda rank, caller, use, always, t: beliefs.askable(rank, caller, use, always, t[0]))
    assert ask(7, -1, True, 0b0010, table) == 0b0110
    assert ask(7, 2, True, 0b0010, table) == 0b0010
    assert ask(8, -1, True, 0, table) == 0
    assert ask(8, 1, False, 0, table) == 0b1101
