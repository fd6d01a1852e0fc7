"""Statistics and answers over run datasets: pure functions over polars frames; each study, one package of
``analysis/studies/``."""

import simulator  # noqa: F401  (module names from before the layered layout resolve: simulator.core.moved)
