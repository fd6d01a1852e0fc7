"""cardsim simulator: shared core (``simulator.core``) and one package per game."""

__version__ = "0.1.0"
