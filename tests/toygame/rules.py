"""Deux cartes: the rules, numbered T1–T4.

* T1: a deck of 20 cards, values 1 to 10 twice; each player is dealt two.
* T2: from the dealer's left, each player in turn may, up to ``draws`` times, throw its lower card and draw the
  top of the stock.
* T3: the highest total wins the hand; on a tie (``tie``), ``first``: the tied player who played first wins,
  ``none``: nobody does.
* T4: a match is won by the first player to win ``match_wins`` hands (at most 9 hands; then the match is
  drawn). The dealer is seat ``hand mod P``.
"""

from __future__ import annotations

from simulator.core.errors import SpecError
from simulator.core.params import Param, ParamSet

DECK = tuple(v for v in range(1, 11) for _ in range(2))  # T1
HAND_CARDS = 2  # T1
MAX_HANDS = 9  # T4

OPTIONS = ParamSet((
    Param("draws", "int", 1, "times a player may throw its lower card and draw", 0, 3, rule="T2"),
    Param("tie", "choice", "first", "who wins a tied hand", choices=("first", "none"), rule="T3"),
    Param("match_wins", "int", 2, "hands a player must win to win a match", 1, 3, rule="T4"),
))


def check_players(players: int, options: dict) -> None:
    """T1: every player holds two cards and the stock must still offer each of them all its draws."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise SpecError("--players", players, "an integer in [2, 6]")
    if players * (HAND_CARDS + int(options.get("draws", 1))) > len(DECK):
        raise SpecError("--players", players, f"at most {len(DECK) // (HAND_CARDS + int(options['draws']))} players "
                        f"with draws={options['draws']} (a deck of {len(DECK)} cards)")
