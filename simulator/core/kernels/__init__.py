"""What every game's two engines share: the numba decorator and its cache, compile notices, random streams,
event traces, the chunk driver and its buffers, named kernel state, strategy faults, the reference narration."""
