"""The game's vocabulary, below strategies: card and action codes, rule options, output records, the legal
choices, what a player may see (views) and the strategy contract with its answer checks. Nothing here imports
strategies/ or the engines."""
