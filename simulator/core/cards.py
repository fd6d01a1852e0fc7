"""Card encoding shared by every game: ``card = suit * 13 + rank`` (0–51), jokers from 52 on.

Ranks: 0 = ace, 1 = two, …, 9 = ten, 10 = jack, 11 = queen, 12 = king.
Suits: 0 = clubs ♣, 1 = diamonds ♦, 2 = hearts ♥, 3 = spades ♠ (0 and 3 black, 1 and 2 red).
Several decks hold the same ids more than once. Per-game values live in each game's lookup tables.
"""

from __future__ import annotations

import numpy as np

N_RANKS = 13
N_SUITS = 4
DECK_SIZE = 52
JOKER = 52

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES = ("C", "D", "H", "S")
SUIT_SYMBOLS = ("♣", "♦", "♥", "♠")

RANK_OF = np.arange(DECK_SIZE, dtype=np.int64) % N_RANKS
"""``int64[52]``: rank of each card id."""
SUIT_OF = np.arange(DECK_SIZE, dtype=np.int64) // N_RANKS
"""``int64[52]``: suit of each card id."""
IS_RED = ((SUIT_OF == 1) | (SUIT_OF == 2))
"""``bool[52]``: diamonds and hearts."""


def card_id(rank: int, suit: int) -> int:
    return suit * N_RANKS + rank


def card_name(card: int) -> str:
    """``'10H'``, ``'KS'``, ``'JK'`` for a joker, ``'??'`` for a negative (unknown) id."""
    if card < 0:
        return "??"
    if card >= JOKER:
        return "JK"
    return RANK_NAMES[card % N_RANKS] + SUIT_NAMES[card // N_RANKS]


def parse_card(text: str) -> int:
    """Inverse of :func:`card_name` (case-insensitive; ``T`` and ``1`` accepted for ten, suit symbols too)."""
    t = text.strip().upper()
    if t in ("JK", "JOKER", "*"):
        return JOKER
    for sym, letter in zip(SUIT_SYMBOLS, SUIT_NAMES):
        t = t.replace(sym, letter)
    if len(t) < 2:
        raise ValueError(f"card {text!r}: expected rank then suit, e.g. 10H, KS, AD, or JK")
    rank_txt, suit_txt = t[:-1], t[-1]
    rank_txt = {"T": "10", "1": "A", "V": "J", "D": "Q", "R": "K"}.get(rank_txt, rank_txt)
    if rank_txt not in RANK_NAMES or suit_txt not in SUIT_NAMES:
        raise ValueError(f"card {text!r}: rank must be one of {' '.join(RANK_NAMES)} and suit one of C D H S")
    return card_id(RANK_NAMES.index(rank_txt), SUIT_NAMES.index(suit_txt))
