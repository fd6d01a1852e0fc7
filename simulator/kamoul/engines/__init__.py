"""The game's engines, above strategies: the readable reference engine, the numba kernels, and the plugin that
hands them to the core."""
