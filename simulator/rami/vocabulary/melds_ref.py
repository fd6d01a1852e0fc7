"""Rami "Kracouil" combinations in plain Python: the readable rulebook for melds, and a brute-force solver.

This module is the executable text of rules R6 (combinations), R7 (opening values, tierce franche), R9
(joker identities) and R13 (end-of-round card values) of ``../shared/rules/INTERPRETATION.md``. The numba
core in :mod:`simulator.rami.vocabulary.melds` answers the same questions fast; the tests check it against the
brute force here (:func:`ref_best_opening`, :func:`ref_least_left`), which shares none of its algorithm:
it lists every *declared* combination that the hand can form (each joker declaration and, for a
13-card run, each starting card separately), then searches disjoint choices with memoisation on the
remaining cards.

Cards are ids ``suit*13 + rank`` (rank 0 = ace … 12 = king, suits C D H S), ``JOKER = 52``
(:mod:`simulator.core.cards`). A combination is a :class:`Meld`: its *declared* cards in table order (a
run from its first card, a set by suit) and the slot a joker fills. In text a joker is written with its
declaration, ``JK=AH``: ``"QH KH JK=AH 2H 3H"``.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple, Sequence

from simulator.core.cards import JOKER, N_RANKS, card_name, parse_card

RUN, SET = 0, 1
KIND_NAMES = ("run", "set")

RANK_VALUE = (11, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""Card value by rank with the ace high (R7 and R13): the ace is 11 except at the start of a run A-2-3…"""
JOKER_END_VALUE = 20
"""R13: a joker left in hand at the end of a round."""
JOKER_OPENING_VALUES = (0, "represented")
"""R7 option ``joker_opening_value``: 0 (default, the seed's "sa valeur est nulle") or the declared card's value."""


class InvalidMeld(ValueError):
    """A card list that is not a combination under R6; ``str(err)`` names the reason."""


class Meld(NamedTuple):
    """One combination (R6).

    ``kind`` is :data:`RUN` or :data:`SET`; ``cards`` are the declared cards (ids 0–51) in table order: a
    run from its first card (so ``Q K A 2 3`` starts at the queen), a set by suit; ``joker`` is the index
    in ``cards`` of the slot a joker fills, ``-1`` when the meld has no joker.
    """

    kind: int
    cards: tuple[int, ...]
    joker: int = -1

    @property
    def hand_cards(self) -> tuple[int, ...]:
        """The physical cards, with :data:`JOKER` in the joker's slot."""
        if self.joker < 0:
            return self.cards
        return self.cards[:self.joker] + (JOKER,) + self.cards[self.joker + 1:]

    @property
    def joker_card(self) -> int:
        """The card the joker stands for (R9), or -1."""
        return self.cards[self.joker] if self.joker >= 0 else -1

    def __str__(self) -> str:
        return " ".join(("JK=" + card_name(c)) if i == self.joker else card_name(c) for i, c in enumerate(self.cards))


# ------------------------------------------------------------------------------------------ card values
def rank_of(card: int) -> int:
    return card % N_RANKS


def suit_of(card: int) -> int:
    return card // N_RANKS


def end_value(card: int) -> int:
    """R13: the value of a card left in hand at the end of a round (ace 11, J/Q/K 10, joker 20)."""
    return JOKER_END_VALUE if card == JOKER else RANK_VALUE[rank_of(card)]


def hand_value(cards: Iterable[int]) -> int:
    """R13: the sum of :func:`end_value` over a list of card ids."""
    return sum(end_value(c) for c in cards)


def check_joker_opening_value(value) -> int:
    """Validate the R7 option ``joker_opening_value``; returns 0 (zero) or 1 (represented)."""
    if value in (0, "0", "zero"):
        return 0
    if value == "represented":
        return 1
    raise ValueError(f"joker_opening_value: {value!r} is not allowed; allowed: 0, 'represented'")


def opening_value(meld: Meld, joker_opening_value=0) -> int:
    """R7: what a combination counts toward the 51 of an opening.

    2–10 face value, J/Q/K 10. An ace is 11 in a set, after a king or between a king and a two, and 1 when it
    comes before a two, i.e. when it is the first card of a run (A-2-3…). A joker counts 0, or with
    ``joker_opening_value="represented"`` the value of the card it stands for in its place.
    """
    represented = check_joker_opening_value(joker_opening_value)
    total = 0
    for slot, card in enumerate(meld.cards):
        rank = rank_of(card)
        value = RANK_VALUE[rank]
        if rank == 0 and meld.kind == RUN and slot == 0:
            value = 1  # before a two, not after a king
        if slot == meld.joker and not represented:
            value = 0
        total += value
    return total


R7_MIN_MELDS = 2
"""R7 (seed): the opening is "une tierce franche + une ou plusieurs combinaisons", so at least two melds."""
R7_MIN_MELDS_SINGLE = 1
"""R7 with the option ``opening_single_meld``: one long tierce franche worth the threshold opens alone."""


def opening_min_melds(opening_single_meld: bool = False) -> int:
    """R7: the fewest melds an opening holds (:data:`R7_MIN_MELDS`, or 1 with ``opening_single_meld``)."""
    return R7_MIN_MELDS_SINGLE if opening_single_meld else R7_MIN_MELDS


def is_franche(meld: Meld, franche_inside_longer_run: bool = False) -> bool:
    """R7: is this meld a *tierce franche* (a run of at least 3 natural cards, no joker)?

    Default (``franche_inside_longer_run=False``): the whole meld must be a jokerless run. With the option,
    a run with a joker also qualifies when 3 consecutive natural cards lie on one side of the joker.
    """
    if meld.kind != RUN:
        return False
    if meld.joker < 0:
        return True
    return franche_inside_longer_run and (meld.joker >= 3 or len(meld.cards) - 1 - meld.joker >= 3)


# ------------------------------------------------------------------------------------------ one combination
def _parse_item(item) -> tuple[bool, int | None]:
    """``(is_joker, declared card or None)`` for an int id, a card name (``"JK=AH"``) or ``(JOKER, declared)``."""
    if isinstance(item, tuple):
        card, declared = item
        if card != JOKER:
            raise InvalidMeld(f"only a joker takes a declaration, not {card_name(card)}")
        return True, int(declared)
    if isinstance(item, str):
        text = item.strip()
        if "=" in text:
            head, tail = text.split("=", 1)
            if parse_card(head) != JOKER:
                raise InvalidMeld(f"only a joker takes a declaration: {item!r}")
            return True, parse_card(tail)
        card = parse_card(text)
    else:
        card = int(item)
    if card == JOKER:
        return True, None
    if not 0 <= card < JOKER:
        raise InvalidMeld(f"card id {card} is out of range 0..52")
    return False, card


def _declared_meld(items: list[tuple[bool, int]]) -> Meld:
    """Check a fully declared card list (R6) and put it in table order."""
    jokers = [i for i, (is_joker, _) in enumerate(items) if is_joker]
    cards = [c for _, c in items]
    if any(not 0 <= c < JOKER for c in cards):
        raise InvalidMeld("a joker must stand for a card 0..51")
    if len(set(cards)) != len(cards):
        raise InvalidMeld("two identical cards in one combination")
    n = len(cards)
    if n < 3:
        raise InvalidMeld("a combination has at least 3 cards")
    joker = jokers[0] if jokers else -1
    ranks = [rank_of(c) for c in cards]
    suits = [suit_of(c) for c in cards]
    if len(set(ranks)) == 1:  # a set: distinct suits are implied by distinct cards
        if n > 4:
            raise InvalidMeld("a set has at most 4 cards")
        order = sorted(range(n), key=lambda i: suits[i])
        return Meld(SET, tuple(cards[i] for i in order), order.index(joker) if joker >= 0 else -1)
    if len(set(suits)) != 1:
        raise InvalidMeld("neither a set (one rank) nor a run (one suit)")
    if n > N_RANKS:
        raise InvalidMeld("a run has at most 13 cards")
    present = set(ranks)
    if all((ranks[i] + 1) % N_RANKS == ranks[i + 1] for i in range(n - 1)):
        start = ranks[0]  # given in order: keep it (this fixes the start of a 13-card run)
    else:
        starts = [r for r in present if (r - 1) % N_RANKS not in present]
        if n < N_RANKS and len(starts) != 1:
            raise InvalidMeld("the ranks are not consecutive (wrapping K-A-2 is allowed)")
        start = starts[0] if n < N_RANKS else 1  # an unordered 13-card run starts at the two: ace high
    if any((start + k) % N_RANKS not in present for k in range(n)):
        raise InvalidMeld("the ranks are not consecutive (wrapping K-A-2 is allowed)")
    by_rank = {r: i for i, r in enumerate(ranks)}
    order = [by_rank[(start + k) % N_RANKS] for k in range(n)]
    return Meld(RUN, tuple(cards[i] for i in order), order.index(joker) if joker >= 0 else -1)


def verify_combination(cards: Sequence) -> Meld:
    """R6: return the combination formed by ``cards`` in table order, or raise :class:`InvalidMeld` saying why.

    ``cards`` items are card ids (0–51, 52 = joker), names (``"QH"``, ``"JK=AH"``, ``"JK"``) or
    ``(JOKER, declared_id)``. A set is 3–4 cards of one rank and different suits; a run is 3–13 consecutive
    ranks of one suit, wrapping allowed (Q-K-A-2-3); never two identical cards; at most one joker, at least
    two natural cards. A joker given without a declaration takes the declaration that makes the meld valid
    and is worth most toward an opening (represented value, then the lowest card id).
    """
    items = [_parse_item(item) for item in cards]
    n_jokers = sum(1 for is_joker, _ in items if is_joker)
    if n_jokers > 1:
        raise InvalidMeld("at most one joker per combination")
    if len(items) - n_jokers < 2:
        raise InvalidMeld("a combination needs at least 2 natural cards")
    undeclared = [i for i, (is_joker, d) in enumerate(items) if is_joker and d is None]
    if not undeclared:
        return _declared_meld(items)  # type: ignore[arg-type]
    best, best_value, reason = None, -1, None
    for declared in range(JOKER):
        trial = list(items)
        trial[undeclared[0]] = (True, declared)
        try:
            meld = _declared_meld(trial)  # type: ignore[arg-type]
        except InvalidMeld as err:
            reason = reason or str(err)
            continue
        value = opening_value(meld, "represented")
        if value > best_value:
            best, best_value = meld, value
    if best is None:
        raise InvalidMeld(f"no declaration of the joker makes a combination ({reason})")
    return best


def is_combination(cards: Sequence) -> bool:
    """R6: whether ``cards`` form a valid combination (see :func:`verify_combination`)."""
    try:
        verify_combination(cards)
    except (InvalidMeld, ValueError):
        return False
    return True


def parse_meld(text: str) -> Meld:
    """``"QH KH JK=AH 2H"`` → :class:`Meld` (validated)."""
    return verify_combination(text.split())


# ------------------------------------------------------------------------------------------ brute force
def hand_list(hand) -> list[int]:
    """A hand as a sorted list of ids: from ids, names, a text ``"AH 2H JK"`` or a numpy count vector ``[53]``."""
    if isinstance(hand, str):
        hand = hand.split()
    if getattr(hand, "shape", None) == (JOKER + 1,):  # a numpy count vector
        return [c for c in range(JOKER + 1) for _ in range(int(hand[c]))]
    return sorted(parse_card(x) if isinstance(x, str) else int(x) for x in hand)


def all_melds(cards: Sequence[int]) -> list[Meld]:
    """Every declared combination whose physical cards the hand holds (R6), one entry per declaration.

    Runs: every suit, first rank, length 3–13 and joker slot (none or one). Sets: every rank, set of 3–4
    suits and joker slot. The same natural cards therefore appear once per possible joker declaration and
    (13-card runs) once per starting card.
    """
    count = [0] * (JOKER + 1)
    for c in cards:
        count[c] += 1
    have_joker = count[JOKER] > 0
    out: list[Meld] = []
    for suit in range(4):
        for start in range(N_RANKS):
            missing: list[int] = []
            for length in range(1, N_RANKS + 1):
                slot = length - 1
                if count[suit * N_RANKS + (start + slot) % N_RANKS] == 0:
                    missing.append(slot)
                if len(missing) > (1 if have_joker else 0):
                    break
                if length < 3:
                    continue
                run = tuple(suit * N_RANKS + (start + k) % N_RANKS for k in range(length))
                if not missing:
                    out.append(Meld(RUN, run, -1))
                    if have_joker:
                        out.extend(Meld(RUN, run, j) for j in range(length))
                else:
                    out.append(Meld(RUN, run, missing[0]))
    for rank in range(N_RANKS):
        for mask in range(16):
            suits = [s for s in range(4) if mask >> s & 1]
            if len(suits) < 3:
                continue
            cards_ = tuple(s * N_RANKS + rank for s in suits)
            missing = [i for i, c in enumerate(cards_) if count[c] == 0]
            if not missing:
                out.append(Meld(SET, cards_, -1))
                if have_joker:
                    out.extend(Meld(SET, cards_, j) for j in range(len(cards_)))
            elif len(missing) == 1 and have_joker:
                out.append(Meld(SET, cards_, missing[0]))
    return out


class RefResult(NamedTuple):
    """Outcome of a brute-force search: the best gain, the number of cards laid, the melds."""

    gain: int
    laid: int
    melds: list[Meld]


def _search(cards: Sequence[int], melds: list[Meld], weight, need_franche: bool,
            franche_inside_longer_run: bool, min_melds: int = 0) -> RefResult:
    """Best disjoint choice of melds by ``(sum of weight(meld), cards laid)``; laying nothing is allowed.

    With ``need_franche`` a non-empty choice must include a tierce franche, and it must hold at least
    ``min_melds`` melds (R7). Branching: either every copy of the lowest natural card left stays in hand, or
    one copy goes into a meld (whose lowest card it then is).
    """
    by_low: dict[int, list[tuple[tuple[int, ...], int, int, bool, Meld]]] = {}
    for m in melds:
        physical = tuple(sorted(m.hand_cards))
        by_low.setdefault(physical[0], []).append(
            (physical, weight(m), len(physical), is_franche(m, franche_inside_longer_run), m))
    memo: dict = {}  # (remaining counts, franche still needed, melds still needed) -> (best, meld, next key)

    def best(t: bytes, need: bool, more: int):
        key = (t, need, more)
        if key in memo:
            return memo[key][0]
        low = len(t) - len(t.lstrip(b"\0"))  # lowest card left
        if low >= JOKER:  # only jokers left: they stay in hand
            memo[key] = (None if need or more else (0, 0), None, None)
            return memo[key][0]
        keep = bytearray(t)
        keep[low] = 0  # every copy of it stays in hand...
        top, choice, nxt = best(bytes(keep), need, more), None, (bytes(keep), need, more)
        for physical, w, n, franche, m in by_low.get(low, ()):  # ...or one copy goes into a meld
            rest = bytearray(t)
            for c in physical:
                if rest[c] == 0:
                    break
                rest[c] -= 1
            else:
                sub_key = (bytes(rest), need and not franche, max(more - 1, 0))
                sub = best(*sub_key)
                if sub is not None and (top is None or (sub[0] + w, sub[1] + n) > top):
                    top, choice, nxt = (sub[0] + w, sub[1] + n), m, sub_key
        memo[key] = (top, choice, nxt)
        return top

    live = {c for m in melds for c in m.hand_cards}
    counts = bytearray(JOKER + 1)
    for c in cards:
        if c in live:  # a card in no meld stays in hand: leave it out of the search
            counts[c] += 1
    top = best(bytes(counts), need_franche, min_melds)
    if top is None:
        return RefResult(0, 0, [])
    chosen, key = [], (bytes(counts), need_franche, min_melds)
    while True:
        _, choice, nxt = memo[key]
        if nxt is None:
            break
        if choice is not None:
            chosen.append(choice)
        key = nxt
    return RefResult(top[0], top[1], chosen)


def ref_best_opening(hand, joker_opening_value=0, franche_inside_longer_run: bool = False,
                     melds: list[Meld] | None = None, opening_single_meld: bool = False) -> RefResult:
    """R7 brute force: the most opening points over disjoint melds that include a tierce franche and number
    at least :func:`opening_min_melds` (two by default).

    ``gain`` is the points (0 with no melds when the hand holds no such choice), ties broken by most cards.
    ``melds``: :func:`all_melds` of the hand, when the caller already has it.
    """
    option = "represented" if check_joker_opening_value(joker_opening_value) else 0
    cards = hand_list(hand)
    return _search(cards, all_melds(cards) if melds is None else melds, lambda m: opening_value(m, option), True,
                   franche_inside_longer_run, opening_min_melds(opening_single_meld))


def ref_least_left(hand, require_franche: bool = False, franche_inside_longer_run: bool = False,
                   melds: list[Meld] | None = None) -> tuple[int, RefResult]:
    """R13 brute force: the least value left in hand over disjoint melds (``require_franche``: R12 rami sec).

    Returns ``(value left, result)``; with ``require_franche`` and no tierce franche nothing is laid.
    """
    cards = hand_list(hand)
    res = _search(cards, all_melds(cards) if melds is None else melds, lambda m: hand_value(m.hand_cards),
                  require_franche, franche_inside_longer_run)
    return hand_value(cards) - res.gain, res


def ref_openings(hand, threshold: int = 51, joker_opening_value=0, franche_inside_longer_run: bool = False,
                 opening_single_meld: bool = False) -> list[tuple[int, int, int, list[Meld]]]:
    """R7 brute force without a bound: every opening of ``hand`` (disjoint melds with a tierce franche, at least
    :func:`opening_min_melds` of them, worth at least ``threshold`` points), as ``(points, cards laid, R13 value
    laid, melds)``. Exponential: for the tests' oracles on hands of a round's size."""
    option = "represented" if check_joker_opening_value(joker_opening_value) else 0
    cards = hand_list(hand)
    min_melds = opening_min_melds(opening_single_meld)
    by_low: dict[int, list[tuple[tuple[int, ...], Meld]]] = {}
    for m in all_melds(cards):
        physical = tuple(sorted(m.hand_cards))
        by_low.setdefault(physical[0], []).append((physical, m))
    counts = [0] * (JOKER + 1)
    for c in cards:
        counts[c] += 1
    found: list[tuple[int, int, int, list[Meld]]] = []

    def walk(low: int, chosen: list[Meld]) -> None:
        while low < JOKER and counts[low] == 0:
            low += 1
        if low >= JOKER:  # only jokers left: they stay in hand
            points = sum(opening_value(m, option) for m in chosen)
            if (len(chosen) >= min_melds and points >= threshold
                    and any(is_franche(m, franche_inside_longer_run) for m in chosen)):
                laid = [c for m in chosen for c in m.hand_cards]
                found.append((points, len(laid), hand_value(laid), list(chosen)))
            return
        for physical, m in by_low.get(low, ()):  # one copy of the lowest card goes into a meld...
            if all(counts[c] >= physical.count(c) for c in set(physical)):
                for c in physical:
                    counts[c] -= 1
                chosen.append(m)
                walk(low, chosen)
                chosen.pop()
                for c in physical:
                    counts[c] += 1
        kept = counts[low]  # ...or every copy of it stays in hand
        counts[low] = 0
        walk(low + 1, chosen)
        counts[low] = kept

    walk(0, [])
    return found
