"""The registry of games: one line per game. Adding a game is its packages (``simulator/<game>/``,
``strategies/<game>/``) and its line here; nothing else in cardsim names a game.

Importing this module registers the games with the core (:func:`simulator.core.contract.registry.register_games`), which
resolves the names stored in specs and manifests; the library's entry points (``cardsim``, the CLI,
analysis) import it.
"""

from __future__ import annotations

from simulator.core.contract.game import GamePlugin
from simulator.core.contract.registry import game_names, get_game, register_games
from simulator.kamoul.engines.plugin import PLUGIN as KAMOUL
from simulator.kems.engines.plugin import PLUGIN as KEMS
from simulator.rami.engines.plugin import PLUGIN as RAMI

GAMES: dict[str, GamePlugin] = register_games((KAMOUL, RAMI, KEMS))

__all__ = ["GAMES", "game_names", "get_game"]
