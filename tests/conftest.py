"""Every test sees the games registered, as every entry point of the library does (``simulator.games``), and reads
cardsim in English whatever the machine's locale (``CARDSIM_LANG``; the French tests choose their language)."""

import os

os.environ["CARDSIM_LANG"] = "en"

import simulator.games  # noqa: E402, F401
