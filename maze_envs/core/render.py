"""Renderers: text grids and pure-colour task images (puzzle and solution) with their pixel geometry."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

import numpy as np
from PIL import Image

from .maze import Cell, Grid, Maze, as_grid, cell_to_block
from .solve import shortest_path

WALL = (0, 0, 0)
FREE = (255, 255, 255)
START = (0, 255, 0)
GOAL = (255, 0, 0)
PATH = (0, 0, 255)
AGENT = (255, 160, 0)
MASKED = (128, 128, 128)


@dataclass(frozen=True)
class Symbols:
    """Characters of the text renderer (the LLM benchmark's defaults)."""

    wall: str = "█"
    path: str = " "
    start: str = "S"
    goal: str = "G"
    agent: str = "A"
    masked: str = "?"
    route: str = "·"


def render_text(layout: Maze | Grid, *, agent: Cell | None = None, route: Iterable[Cell] = (),
                visible: np.ndarray | None = None, symbols: Symbols = Symbols()) -> str:
    """Return the block grid as text rows joined by newlines.

    ``agent`` and ``route`` are block coordinates (a ``Maze``'s are its ``to_grid()`` blocks);
    cells where ``visible`` is False show ``symbols.masked``.
    """
    grid = as_grid(layout)
    chars = np.where(grid.blocks == 1, symbols.wall, symbols.path).astype(object)
    for cell in route:
        chars[tuple(cell)] = symbols.route
    chars[grid.start] = symbols.start
    chars[grid.goal] = symbols.goal
    if agent is not None:
        chars[tuple(agent)] = symbols.agent
    if visible is not None:
        chars[~np.asarray(visible, dtype=bool)] = symbols.masked
    return "\n".join("".join(row) for row in chars)


@dataclass(frozen=True)
class PixelGeometry:
    """Where a rendered maze's cells lie in the image.

    Cell ``(r, c)`` covers ``x in [origin_x + c*pitch, origin_x + c*pitch + cell_px)`` and
    likewise for ``y`` with ``r``; walls are ``wall_px`` thick; ``pitch = cell_px + wall_px``.
    """

    rows: int
    cols: int
    cell_px: int
    wall_px: int
    margin: int
    width: int
    height: int

    @property
    def pitch(self) -> int:
        """Return the distance in pixels between neighbouring cell origins."""
        return self.cell_px + self.wall_px

    @property
    def origin(self) -> tuple[int, int]:
        """Return the ``(x, y)`` pixel of cell (0, 0)'s top-left corner."""
        return (self.margin + self.wall_px, self.margin + self.wall_px)

    def cell_box(self, cell: Cell) -> tuple[int, int, int, int]:
        """Return ``(x0, y0, x1, y1)`` (exclusive ends) of ``cell``'s pixels."""
        x0 = self.origin[0] + cell[1] * self.pitch
        y0 = self.origin[1] + cell[0] * self.pitch
        return (x0, y0, x0 + self.cell_px, y0 + self.cell_px)

    def cell_center(self, cell: Cell) -> tuple[float, float]:
        """Return the ``(x, y)`` pixel centre of ``cell``."""
        x0, y0, x1, y1 = self.cell_box(cell)
        return ((x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2)

    def to_dict(self) -> dict[str, int]:
        """Return the JSON-ready fields."""
        return asdict(self)


@dataclass(frozen=True)
class ImageStyle:
    """Sizes of a task image in pixels. ``wall_px == cell_px`` gives the block style."""

    cell_px: int = 32
    wall_px: int = 8
    margin: int = 0

    @classmethod
    def fit(cls, rows: int, cols: int, image_px: int, wall_ratio: float = 0.25, margin: int = 0) -> "ImageStyle":
        """Return the largest style whose image of ``rows x cols`` fits in ``image_px`` square."""
        best = cls(1, 1, margin)
        for cell in range(1, image_px + 1):
            wall = max(1, int(round(cell * wall_ratio)))
            side = 2 * margin + max(rows, cols) * (cell + wall) + wall
            if side > image_px:
                break
            best = cls(cell, wall, margin)
        return best

    def geometry(self, rows: int, cols: int) -> PixelGeometry:
        """Return the pixel geometry of a ``rows x cols`` maze in this style."""
        width = 2 * self.margin + cols * self.cell_px + (cols + 1) * self.wall_px
        height = 2 * self.margin + rows * self.cell_px + (rows + 1) * self.wall_px
        return PixelGeometry(rows, cols, self.cell_px, self.wall_px, self.margin, width, height)


def _block_sizes(n_blocks: int, cell_px: int, wall_px: int) -> np.ndarray:
    sizes = np.full(n_blocks, wall_px)
    sizes[1::2] = cell_px
    return sizes


def block_colours(layout: Maze | Grid, *, route: Sequence[Cell] = (), agent: Cell | None = None,
                  visible: np.ndarray | None = None) -> np.ndarray:
    """Return an ``(H, W, 3)`` uint8 image with one pixel per block (walls, free, start, goal, route, agent)."""
    grid = as_grid(layout)
    img = np.where(grid.blocks[..., None] == 1, np.array(WALL, np.uint8), np.array(FREE, np.uint8))
    for cell in route:
        img[tuple(cell)] = PATH
    img[grid.start] = START
    img[grid.goal] = GOAL
    if agent is not None:
        img[tuple(agent)] = AGENT
    if visible is not None:
        img[~np.asarray(visible, dtype=bool)] = MASKED
    return img


def upscale(blocks_rgb: np.ndarray, cell_px: int, wall_px: int, margin: int = 0) -> np.ndarray:
    """Return a block image scaled so odd rows/cols are ``cell_px`` and even ones ``wall_px``, with a white margin."""
    h, w = blocks_rgb.shape[:2]
    img = np.repeat(blocks_rgb, _block_sizes(h, cell_px, wall_px), axis=0)
    img = np.repeat(img, _block_sizes(w, cell_px, wall_px), axis=1)
    if margin:
        img = np.pad(img, ((margin, margin), (margin, margin), (0, 0)), constant_values=255)
    return img


def solution_blocks(maze: Maze) -> list[Cell]:
    """Return the block coordinates of the shortest path, passages between its cells included."""
    path = shortest_path(maze) or []
    blocks = [cell_to_block(path[0])] if path else []
    for (r0, c0), (r1, c1) in zip(path, path[1:]):
        blocks.append((r0 + r1 + 1, c0 + c1 + 1))
        blocks.append(cell_to_block((r1, c1)))
    return blocks


def render_task(maze: Maze, style: ImageStyle = ImageStyle(), *, solution: bool = False) -> tuple[Image.Image, PixelGeometry]:
    """Return the puzzle image (or, with ``solution``, the solution image) and its pixel geometry.

    Pure colours, no anti-aliasing: white free space, black walls, the start cell green, the
    goal cell red, and on the solution every shortest-path cell and passage blue.
    """
    route = solution_blocks(maze) if solution else ()
    pixels = upscale(block_colours(maze, route=route), style.cell_px, style.wall_px, style.margin)
    return Image.fromarray(pixels), style.geometry(maze.rows, maze.cols)
