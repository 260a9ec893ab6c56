"""The task images: a maze's puzzle and its solution in pure colours, drawn with the core's block colours."""

from __future__ import annotations

from PIL import Image

from maze_envs.core.maze import Cell, Maze, cell_to_block
from maze_envs.core.render import ImageStyle, PixelGeometry, block_colours, upscale
from maze_envs.core.solve import shortest_path


def solution_blocks(maze: Maze) -> list[Cell]:
    """Return the block coordinates of the shortest path, passages between its cells included."""
    path = shortest_path(maze) or []
    blocks = [cell_to_block(path[0])] if path else []
    for (r0, c0), (r1, c1) in zip(path, path[1:], strict=False):
        blocks.append((r0 + r1 + 1, c0 + c1 + 1))
        blocks.append(cell_to_block((r1, c1)))
    return blocks


def render_task(
    maze: Maze, style: ImageStyle = ImageStyle(), *, solution: bool = False
) -> tuple[Image.Image, PixelGeometry]:
    """Return the puzzle image (or, with ``solution``, the solution image) and its pixel geometry.

    Pure colours, no anti-aliasing: white free space, black walls, the start cell green, the
    goal cell red, and on the solution every shortest-path cell and passage blue.
    """
    route = solution_blocks(maze) if solution else ()
    pixels = upscale(block_colours(maze, route=route), style.cell_px, style.wall_px, style.margin)
    return Image.fromarray(pixels), style.geometry(maze.rows, maze.cols)
