"""Charts and report builders: they draw frames computed by ``analysis``; they never compute."""

import simulator  # noqa: F401  (module names from before the layered layout resolve: simulator.core.moved)
