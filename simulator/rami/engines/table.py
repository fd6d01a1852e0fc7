"""Table and meld-solver helpers of the Rami reference engine (R5–R12), kept apart from the turn logic.

:class:`TableOps` is mixed into :class:`simulator.rami.engines.reference.Round`; it reads and writes the round's
arrays (``hands``, ``sizes``, ``laid``, ``table``, ``owner``, ``n_table``) and asks the exact meld solver of
:mod:`simulator.rami.vocabulary.melds`. Every method is check-then-act: a meld or lay-off is validated against R6
(``verify_combination``) and against the hand before anything moves.
"""

from __future__ import annotations

import numpy as np

from simulator.core.cards import JOKER, N_RANKS, card_name
from simulator.rami.vocabulary.codes import (
    END_VALUE, EV_LAYOFF, EV_MELD, EV_SWAP, KEPT_FOR_DISCARD, MAX_CARD_VALUE, MAX_MELDS, MIN_MELD_CARDS, N_IDS,
    meld_word, move_word,
)
from simulator.rami.vocabulary.legal import opening_choices
from simulator.rami.vocabulary.melds import (
    ACTION_NAMES, ADD_TO_SET, EXTEND_HIGH, EXTEND_LOW, RUN, SWAP_JOKER, best_opening_nb, decode_meld, least_left_nb,
    layoffs_nb, new_workspace, opening_nb, opening_value_nb, verify_combination,
)
from simulator.rami.vocabulary.melds_ref import is_franche


def name(card: int) -> str:
    return card_name(int(card))


def meld_text(code) -> str:
    return str(decode_meld(code))


def physical(code) -> list[int]:
    """The cards a table meld holds, jokers as ``JOKER``."""
    return list(decode_meld(code).hand_cards)


_WS = None


def workspace():
    """The meld solver's scratch arrays (one per process: the reference engine is single-threaded)."""
    global _WS
    if _WS is None:
        _WS = new_workspace()
    return _WS


class TableOps:
    """Table, lay-off and solver helpers of a :class:`~simulator.rami.engines.reference.Round` (mixin)."""

    def census(self) -> list[int]:
        """Counts of every card id in hands, stock, discard pile and table melds (for invariant checks)."""
        counts = self.hands.sum(axis=0).astype(np.int64)
        for c in self.stock + self.discard:
            counts[c] += 1
        for t in range(self.n_table):
            for c in physical(self.table[t]):
                counts[c] += 1
        return [int(x) for x in counts]

    def fits(self) -> np.ndarray:
        """R10: ``int8[53]``, 1 for each card id that a table meld would take as a lay-off (swaps excluded)."""
        fits = np.zeros(N_IDS, dtype=np.int8)
        everything = np.ones(N_IDS, dtype=np.int8)
        n = layoffs_nb(everything, self.table, self.n_table, self.moves)
        for i in range(n):
            if self.moves[i, 2] != SWAP_JOKER:
                fits[self.moves[i, 0]] = 1
        return fits

    def card_moves(self, card: int) -> np.ndarray:
        """Lay-offs of one card onto the table (no joker swap): ``int16[k, 4]`` rows of :func:`layoffs_nb`."""
        self.one[:] = 0
        self.one[card] = 1
        n = layoffs_nb(self.one, self.table, self.n_table, self.moves)
        return np.ascontiguousarray(self.moves[:n][self.moves[:n, 2] != SWAP_JOKER])

    # ------------------------------------------------------------------ R6/R8/R9: the table
    def lay_meld(self, p: int, code) -> None:
        """Check-then-act: ``code`` is a valid combination (R6) whose cards ``p`` holds; it goes to the table."""
        meld = decode_meld(code)
        verify_combination([(JOKER, c) if i == meld.joker else c for i, c in enumerate(meld.cards)])
        for c in meld.hand_cards:
            self.remove(p, c)
        assert self.n_table < MAX_MELDS, "table full"
        t = self.n_table
        self.table[t] = code
        self.owner[t] = p
        self.n_table += 1
        self.laid[p] = 1
        if meld.joker >= 0:
            self.jokers_laid += 1
        self.trace(EV_MELD, p, meld_word(self.table[t]), t)
        self.say(f"  P{p} lays {meld}")

    def apply_move(self, p: int, move) -> None:
        """One lay-off (R8) or joker swap (R9) from ``p``'s hand onto table meld ``move[1]``.

        A move onto a meld another player owns sets ``on_others_melds`` (R12: such a turn is no rami sec)."""
        card, t, action, declared = (int(x) for x in move)
        if self.owner[t] != p:
            self.on_others_melds = True
        code = self.table[t].copy()
        kind, a, b, n, j = (int(x) for x in code)
        if action == SWAP_JOKER:
            assert j >= 0 and card != JOKER
            code[4] = -1
            self.remove(p, card)
            self.give(p, JOKER)
        elif kind == RUN:
            assert action in (EXTEND_LOW, EXTEND_HIGH) and n < N_RANKS
            if action == EXTEND_LOW:
                code[2] = (b - 1) % N_RANKS  # b is the run's first rank
                code[4] = 0 if card == JOKER else (j + 1 if j >= 0 else -1)
            else:
                code[4] = n if card == JOKER else j
            code[3] = n + 1
            self.remove(p, card)
        else:
            assert action == ADD_TO_SET and n < 4
            code[2] = b | (1 << (declared // N_RANKS))
            code[3] = n + 1
            if card == JOKER:
                code[4] = declared // N_RANKS
            self.remove(p, card)
        meld = decode_meld(code)
        verify_combination([(JOKER, c) if i == meld.joker else c for i, c in enumerate(meld.cards)])
        assert (declared in meld.cards) and (card == JOKER or card == declared), (move, code, meld)
        self.table[t] = code
        self.laid[p] = 1
        if action == SWAP_JOKER:
            self.jokers_swapped += 1
        elif card == JOKER:
            self.jokers_laid += 1
        self.trace(EV_SWAP if action == SWAP_JOKER else EV_LAYOFF, p, t, move_word(card, action, declared))
        verb = "swaps in" if action == SWAP_JOKER else f"lays off ({ACTION_NAMES[action]})"
        self.say(f"  P{p} {verb} {name(card)}{'=' + name(declared) if card == JOKER else ''} on meld {t}: {meld}")

    def legal_moves(self, p: int) -> np.ndarray:
        """R8/R9 lay-offs open to ``p`` now, filtered by the options (``int16[k, 4]``)."""
        r = self.r
        n = layoffs_nb(self.hands[p], self.table, self.n_table, self.moves)
        keep = []
        for i in range(n):
            mv = self.moves[i]
            if mv[2] == SWAP_JOKER:
                if r.joker_swap == "forbidden":
                    continue
                if r.joker_swap == "must_reuse":
                    if r.final_discard_required and self.sizes[p] <= KEPT_FOR_DISCARD:
                        continue
                    if not self.joker_reusable_after(int(mv[1])):
                        continue
            elif r.final_discard_required and self.sizes[p] <= KEPT_FOR_DISCARD:
                continue  # R11: the last card must be kept for the discard
            keep.append(i)
        return np.ascontiguousarray(self.moves[keep])

    def joker_reusable_after(self, t: int) -> bool:
        """R9 ``must_reuse``: after swapping the joker out of meld ``t``, could it be laid off at once?"""
        saved = self.table[t].copy()
        self.table[t, 4] = -1
        self.one[:] = 0
        self.one[JOKER] = 1
        n = layoffs_nb(self.one, self.table, self.n_table, self.moves2)
        self.table[t] = saved
        return n > 0

    # ------------------------------------------------------------------ R5/R7/R12: what the hand allows
    def opening_melds(self, counts: np.ndarray) -> tuple[bool, int, list]:
        """R7: the solver's best opening of ``counts``: ``(reaches the threshold, points, meld codes)``; it holds
        a tierce franche and at least ``min_melds`` melds (``opening_single_meld``)."""
        can, points, n = best_opening_nb(counts, self.r.opening_points, self.represented, self.inside,
                                         self.min_melds, workspace(), self.out)
        melds = [self.out[i].copy() for i in range(n)]
        if self.r.final_discard_required and sum(len(physical(m)) for m in melds) >= counts.sum():
            can = False  # R11: an opening that uses every card leaves nothing to discard
        return bool(can), int(points), melds

    def opening_styles(self, counts: np.ndarray) -> tuple[np.ndarray, int]:
        """R7, R11: the openings ``counts`` offers once its player opens: ``(styles int64[4], how many)``, the
        ``OPENING_*`` codes first in the buffer (:func:`simulator.rami.vocabulary.legal.opening_choices`)."""
        styles = np.zeros(4, np.int64)
        n = opening_choices(counts, self.r.opening_points, self.represented, self.inside, self.min_melds,
                            bool(self.r.final_discard_required), workspace(), self.out, styles)
        return styles, int(n)

    def styled_opening(self, style: int, counts: np.ndarray) -> tuple[int, list]:
        """R7: ``(points, meld codes)`` of the opening of ``style`` (``OPENING_*``) of ``counts``."""
        _, points, n = opening_nb(style, counts, self.r.opening_points, self.represented, self.inside,
                                  self.min_melds, workspace(), self.out)
        return int(points), [self.out[i].copy() for i in range(n)]

    def melds_points(self, melds: list) -> int:
        """R7 value of ``melds`` (``joker_opening_value`` applied): what a rami sec lay-down was worth (R12)."""
        return sum(int(opening_value_nb(m, self.represented)) for m in melds)

    def least_left(self, counts: np.ndarray, franche: bool) -> tuple[int, list]:
        value, _, n = least_left_nb(counts, franche, self.inside, workspace(), self.out)
        return int(value), [self.out[i].copy() for i in range(n)]

    def rami_sec_plan(self, p: int) -> tuple[list, int] | None:
        """R12: melds with a tierce franche that empty ``p``'s hand, with or without a last discard.

        ``(melds, discard)`` (``discard`` -1 when every card is laid), or None. Only for a player who has
        laid nothing this round. The last-discard form drops the lowest card id that allows it."""
        if self.laid[p]:
            return None
        counts = self.hands[p].copy()
        value, melds = self.least_left(counts, True)
        if value == 0 and melds and not self.r.final_discard_required:
            return melds, -1
        if value > MAX_CARD_VALUE or counts.sum() < MIN_MELD_CARDS + KEPT_FOR_DISCARD:  # leaving one card x needs value(x) <= 20 left
            return None
        for x in range(N_IDS):
            if counts[x] == 0:
                continue
            counts[x] -= 1
            value, melds = self.least_left(counts, True)
            counts[x] += 1
            if value == 0 and melds:
                return melds, x
        return None

    def opening_uses(self, melds: list, c: int) -> bool:
        """R5: does the opening lay card ``c``? With ``discard_in_tierce`` false the opening must also hold a
        tierce franche without ``c`` (the card may not be part of the tierce franche)."""
        holding = [i for i, m in enumerate(melds) if c in physical(m)]
        if not holding:
            return False
        if self.r.discard_in_tierce:
            return True
        franches = [i for i, m in enumerate(melds) if is_franche(decode_meld(m), self.inside)]
        return any(i not in holding for i in franches)

    def meld_with(self, counts: np.ndarray, c: int):
        """A meld of the least-left lay-down of ``counts`` + ``c`` holding ``c``, when that lay-down needs ``c``
        (it leaves strictly less than the hand alone plus ``c``); else None."""
        without, _ = self.least_left(counts, False)
        counts = counts.copy()
        counts[c] += 1
        value, melds = self.least_left(counts, False)
        if value >= without + END_VALUE[c]:
            return None
        for m in melds:
            if c in physical(m):
                if self.r.final_discard_required and len(physical(m)) >= counts.sum():
                    return None
                return m
        return None
