"""The maze core: pure data and algorithms shared by every env, renderer, agent and evaluator (no gym, no network)."""

from .errors import MazeConfigError, MazeEnvsError, MazeFormatError
from .generators import GENERATORS, braid, generate, place_endpoints
from .maze import Cell, Grid, Maze, Opening, as_grid, block_to_cell, cell_to_block
from .solve import PathCheck, border_path_lengths, distance_map, is_perfect, path_length, shortest_path, validate_path

__all__ = [
    "Cell", "GENERATORS", "Grid", "Maze", "MazeConfigError", "MazeEnvsError", "MazeFormatError", "Opening",
    "PathCheck", "as_grid", "block_to_cell", "border_path_lengths", "braid", "cell_to_block", "distance_map",
    "generate", "is_perfect", "path_length", "place_endpoints", "shortest_path", "validate_path",
]
