"""What a game and a strategy hand the core: the game plugin and its registry, seats, the decision dispatch,
strategies from users' files (their code watched, tried, compiled), presets and the strategy scaffold."""
