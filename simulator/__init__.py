"""cardsim simulator: shared core (``simulator.core``) and one package per game."""

from simulator.core import moved

__version__ = "0.1.0"

moved.install()
