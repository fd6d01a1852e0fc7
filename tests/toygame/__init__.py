"""Deux cartes, a two-card toy game that lives outside cardsim: a whole game package (rules, strategies, an
engine, a plugin) made only of what ``simulator.core`` offers. Registering its plugin
(``simulator.core.contract.registry.register_game(toygame.PLUGIN)``) is all it takes for simulate, replay, tournament,
sweep, reports and the balance study to play it (``tests/test_new_game.py``).
"""

from tests.toygame.plugin import PLUGIN

__all__ = ["PLUGIN"]
