"""What every game shares: cards, random streams, run specs, the runner and the Parquet store."""
