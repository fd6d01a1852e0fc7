"""Statistics and answers over run datasets: pure functions over polars frames."""
