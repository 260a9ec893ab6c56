"""Human play: a pygame window for the maze envs (pygame is imported lazily, only when a window opens)."""
