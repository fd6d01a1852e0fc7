"""The games cardsim knows: ``simulator.games`` registers every game's plugin here, and the core finds them by
name (:func:`get_game`). The core never imports a game itself."""

from __future__ import annotations

import importlib

from simulator.core.errors import SpecError

GamePlugin = object
"""What the registry holds: :class:`simulator.core.contract.game.GamePlugin` (which imports this module)."""


_REGISTRY: dict[str, GamePlugin] = {}


def _restore(home: str) -> GamePlugin:
    """Unpickling a plugin (a spec sent to a cluster's worker): the ``PLUGIN`` of module ``home``, registered there
    too, so that the names the worker reads resolve without importing every game."""
    plugin = importlib.import_module(home).PLUGIN
    _REGISTRY.setdefault(plugin.name, plugin)
    return plugin


def register_games(plugins) -> dict[str, GamePlugin]:
    """Add ``plugins`` to the games :func:`get_game` knows (``simulator.games`` does it once, for every game;
    a game registered before, e.g. a test's, stays); returns the registry ``{name: plugin}``."""
    _REGISTRY.update({p.name: p for p in plugins})
    return _REGISTRY


def register_game(plugin: GamePlugin) -> None:
    """Add one game (a game outside this package, e.g. a test's)."""
    _REGISTRY[plugin.name] = plugin


def unregister_game(name: str) -> None:
    _REGISTRY.pop(name, None)


def game_names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def registered_games() -> tuple[GamePlugin, ...]:
    return tuple(_REGISTRY.values())


def get_game(name) -> GamePlugin:
    """The plugin of the game called ``name`` (or ``name`` itself when it is a plugin)."""
    if not isinstance(name, str) and hasattr(name, "simulate_chunk"):  # a plugin already
        return name
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise SpecError("game", name, ", ".join(_REGISTRY) or "(no game registered: import simulator.games)") from None
