"""Human play of the maze envs: turn-based keyboard play in the envs' pygame window."""
