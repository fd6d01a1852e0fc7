"""What a run is and how it is kept: the run spec, the Parquet store and its manifest, sealed metadata files,
checksum ledgers, directory locks and the check of where a command may write."""
