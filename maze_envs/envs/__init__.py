"""Gymnasium environments; importing ``maze_envs`` registers every id listed in ``registration``."""
