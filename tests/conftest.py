"""Every test sees the games registered, as every entry point of the library does (``simulator.games``)."""

import simulator.games  # noqa: F401
