"""Renderers: text grids, and block colours upscaled to pure-colour images with their pixel geometry (the task
images are ``maze_envs.tasks.render``'s)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

from .maze import Cell, Grid, Maze, as_grid

WALL = (0, 0, 0)
FREE = (255, 255, 255)
START = (0, 255, 0)
GOAL = (255, 0, 0)
PATH = (0, 0, 255)
AGENT = (255, 160, 0)
MASKED = (128, 128, 128)
SIGHT = (255, 236, 140)  # a free block in the agent's line of sight, in the partial-view picture
WINDOW_EDGE = (30, 110, 255)  # the frame around the agent's window, in the partial-view picture
UNSEEN_SHADE, SEEN_SHADE = 0.45, 0.8  # how much of a block's colour is left (the rest is MASKED grey)


LEGEND_LABELS = {"wall": "wall", "path": "passage", "start": "start", "goal": "goal", "agent": "agent",
                 "masked": "unknown", "route": "path"}


@dataclass(frozen=True)
class Symbols:
    """The one symbol table of every text view of a grid: a character per kind of block (the LLM benchmark's
    defaults; prompts, presentations and sandboxes use their own instances)."""

    wall: str = "█"
    path: str = " "
    start: str = "S"
    goal: str = "G"
    agent: str = "A"
    masked: str = "?"
    route: str = "·"

    def legend(self, fields: Sequence[str] = ("wall", "path", "start", "goal"), *,
               labels: Mapping[str, str] | None = None, entry: str = "'{symbol}' = {label}") -> str:
        """Return the legend of ``fields`` joined by ``, ``: each ``entry`` filled with the field's symbol and
        its label (``labels`` overrides ``LEGEND_LABELS``), e.g. ``'#' = wall, '.' = passage, ...``."""
        names = {**LEGEND_LABELS, **(labels or {})}
        return ", ".join(entry.format(symbol=getattr(self, f), label=names[f]) for f in fields)


def text_rows(chars: np.ndarray, *, coordinates: bool = False, separator: str = " ") -> str:
    """Return a 2-D array of characters as text rows joined by newlines. ``coordinates`` adds a header of column
    numbers and each row's number, ``separator`` between the row numbers and the row, every character then
    right-aligned to the widest number and the characters spaced apart."""
    rows = ["".join(row) for row in chars]
    if not coordinates:
        return "\n".join(rows)
    width = len(str(max(chars.shape) - 1))
    header = " " * width + separator + " ".join(str(c).rjust(width) for c in range(chars.shape[1]))
    return "\n".join([header] + [f"{r:>{width}}{separator}" + " ".join(ch.rjust(width) for ch in row)
                                 for r, row in enumerate(chars)])


def grid_chars(layout: Maze | Grid, *, agent: Cell | None = None, route: Iterable[Cell] = (),
               visible: np.ndarray | None = None, symbols: Symbols = Symbols()) -> np.ndarray:
    """Return the block grid as a 2-D array of ``symbols`` characters: walls and passages, then the ``route``,
    the start, the goal and the ``agent`` drawn over them, and ``symbols.masked`` where ``visible`` is False."""
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
    return chars


def render_text(layout: Maze | Grid, *, agent: Cell | None = None, route: Iterable[Cell] = (),
                visible: np.ndarray | None = None, symbols: Symbols = Symbols(), coordinates: bool = False) -> str:
    """Return the block grid as text rows joined by newlines (``grid_chars`` joined by ``text_rows``).

    ``agent`` and ``route`` are block coordinates (a ``Maze``'s are its ``to_grid()`` blocks);
    cells where ``visible`` is False show ``symbols.masked``; ``coordinates`` numbers rows and columns.
    """
    chars = grid_chars(layout, agent=agent, route=route, visible=visible, symbols=symbols)
    return text_rows(chars, coordinates=coordinates)


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


def partial_view_colours(layout: Maze | Grid, *, agent: Cell, seen: np.ndarray, window: np.ndarray,
                         sight: np.ndarray, route: Sequence[Cell] = ()) -> np.ndarray:
    """Return the ``(H, W, 3)`` block colours of what a partial-view agent sees, over the whole maze: blocks never
    ``seen`` dimmed toward grey (walls still darker than passages), seen ones a little dimmed, the agent's
    ``window`` (a mask of blocks) in full colour and the free blocks in its line of ``sight`` tinted ``SIGHT``."""
    img = block_colours(layout, route=route, agent=agent).astype(np.float32)
    grey = np.array(MASKED, np.float32)
    shade = np.where(np.asarray(seen, bool), SEEN_SHADE, UNSEEN_SHADE)
    shade[np.asarray(window, bool)] = 1.0
    img = img * shade[..., None] + grey * (1.0 - shade[..., None])
    free_sight = np.asarray(sight, bool) & (as_grid(layout).blocks == 0)
    plain = np.all(img == np.array(FREE, np.float32), axis=-1)
    img[free_sight & plain] = SIGHT
    return np.rint(img).astype(np.uint8)


def frame_box(img: np.ndarray, box: tuple[int, int, int, int], colour: tuple[int, int, int] = WINDOW_EDGE,
              width: int = 2) -> np.ndarray:
    """Return ``img`` with a ``width``-pixel frame of ``colour`` drawn just inside the pixel ``box`` (top, left,
    bottom, right; bottom and right exclusive), clipped to the image."""
    out = img.copy()
    top, left = max(box[0], 0), max(box[1], 0)
    bottom, right = min(box[2], img.shape[0]), min(box[3], img.shape[1])
    out[top:top + width, left:right] = colour
    out[bottom - width:bottom, left:right] = colour
    out[top:bottom, left:left + width] = colour
    out[top:bottom, right - width:right] = colour
    return out


def upscale(blocks_rgb: np.ndarray, cell_px: int, wall_px: int, margin: int = 0) -> np.ndarray:
    """Return a block image scaled so odd rows/cols are ``cell_px`` and even ones ``wall_px``, with a white margin."""
    h, w = blocks_rgb.shape[:2]
    img = np.repeat(blocks_rgb, _block_sizes(h, cell_px, wall_px), axis=0)
    img = np.repeat(img, _block_sizes(w, cell_px, wall_px), axis=1)
    if margin:
        img = np.pad(img, ((margin, margin), (margin, margin), (0, 0)), constant_values=255)
    return img


def benchmark_picture(layout: Maze | Grid, cell_px: int, *, agent: Cell | None = None) -> np.ndarray:
    """Return MazeBench's picture of a grid: one ``cell_px`` square a block (black walls, white passages, the
    start green, the goal red), no grid lines or border; the ``agent``'s block orange when it is given and away
    from the start."""
    grid = as_grid(layout)
    shown = agent if agent is not None and tuple(agent) != grid.start else None
    rgb = block_colours(grid, agent=shown)
    return np.repeat(np.repeat(rgb, cell_px, axis=0), cell_px, axis=1)

