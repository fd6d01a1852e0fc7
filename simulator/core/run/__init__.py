"""Running: the chunked runner and its backends (local, Dask), batches of cells, study plans, the second Ctrl-C,
and `cardsim verify`."""
