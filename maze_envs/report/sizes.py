"""The one size vocabulary of the reports: a benchmark size ``HxW`` names the benchmark grid (blocks, no outer
wall ring, as MazeBench names its mazes), and wherever a report shows one it says how many cells that grid
holds, ``5x5 grid, 3x3 cells``; a size given in cells (the grid envs' ``rows`` x ``cols``) says ``cells``."""

from __future__ import annotations

from maze_envs.core.mazebench_files import cells_for_size, parse_size


def size_area(size: str) -> int:
    """Return the block count of benchmark size ``size`` (``HxW``): the order in which reports list sizes."""
    height, width = parse_size(size)
    return height * width


def size_label(size: str) -> str:
    """Return how a report shows benchmark size ``size``: ``"5x5 grid, 3x3 cells"``."""
    rows, cols = cells_for_size(*parse_size(size))
    return f"{size} grid, {cells_label(rows, cols)}"


def cells_label(rows: int, cols: int) -> str:
    """Return how a report shows a maze of ``rows`` x ``cols`` cells: ``"3x3 cells"``."""
    return f"{rows}x{cols} cells"
