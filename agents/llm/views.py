"""What an LLM agent shows its model: text rows with a legend, the partial view cropped to what is visible,
the map explored so far, and the MazeBench picture for vision models.

Grids are drawn as joined text rows (never a numpy repr), one character a block, in the symbols of
``PROMPT_SYMBOLS``; ``legend`` writes them as ``'#' = wall, ...`` (which the local oracle policy reads).
"""

from __future__ import annotations

import numpy as np

from maze_envs.core.maze import MOVES, Cell, Grid
from maze_envs.core.render import Symbols, block_colours
from maze_envs.envs.rules import AGENT, FREE, MASKED

PROMPT_SYMBOLS = Symbols(wall="#", path=".", start="S", goal="G", agent="A", masked="?")


def legend(symbols: Symbols = PROMPT_SYMBOLS, *, masked: bool = False) -> str:
    """Return the legend line of the symbols (with the unknown symbol when ``masked``)."""
    entries = [f"'{symbols.wall}' = wall", f"'{symbols.path}' = passage",
               f"'{symbols.start}' = start (where you began)", f"'{symbols.goal}' = goal",
               f"'{symbols.agent}' = agent (you)"]
    if masked:
        entries.append(f"'{symbols.masked}' = unknown (not visible)")
    return ", ".join(entries)


def draw(codes: np.ndarray, *, start: Cell | None = None, symbols: Symbols = PROMPT_SYMBOLS,
         coordinates: bool = False) -> str:
    """Return observation ``codes`` as text rows, the free block ``start`` drawn as the start; ``coordinates``
    adds a header of column numbers and each row's number, ``|``-separated from the grid."""
    lut = np.array([symbols.path, symbols.wall, symbols.agent, symbols.goal, symbols.masked], dtype=object)
    chars = lut[np.asarray(codes)]
    if start is not None and codes[start] == FREE:
        chars[start] = symbols.start
    rows = ["".join(row) for row in chars]
    if not coordinates:
        return "\n".join(rows)
    width = len(str(max(chars.shape) - 1))
    header = " " * width + " | " + " ".join(str(c).rjust(width) for c in range(chars.shape[1]))
    return "\n".join([header] + [f"{r:>{width}} | " + " ".join(ch.rjust(width) for ch in row)
                                 for r, row in enumerate(chars)])


def visible_box(codes: np.ndarray) -> tuple[slice, slice]:
    """Return the bounding box of the blocks of ``codes`` that are not ``MASKED``."""
    seen = np.argwhere(np.asarray(codes) != MASKED)
    (top, left), (bottom, right) = seen.min(axis=0), seen.max(axis=0)
    return slice(int(top), int(bottom) + 1), slice(int(left), int(right) + 1)


class ExploredMap:
    """The blocks an agent without coordinates has seen, in its own frame: the start is ``(0, 0)``, later
    positions are dead-reckoned from the blocks each move covered."""

    def __init__(self) -> None:
        self.codes: dict[Cell, int] = {}
        self.position: Cell = (0, 0)

    def move(self, direction: int, blocks: int) -> None:
        """Advance the dead-reckoned position ``blocks`` blocks in ``direction`` (0 up, 1 right, 2 down, 3 left)."""
        dr, dc = MOVES[direction]
        self.position = (self.position[0] + dr * blocks, self.position[1] + dc * blocks)

    def integrate(self, window: np.ndarray) -> None:
        """Record the visible blocks of an egocentric ``window`` (the agent at its centre)."""
        k = window.shape[0] // 2
        for r, c in np.argwhere(window != MASKED).tolist():
            code = int(window[r, c])
            self.codes[(self.position[0] + r - k, self.position[1] + c - k)] = FREE if code == AGENT else code

    def grid(self) -> tuple[np.ndarray, Cell, Cell]:
        """Return ``(codes, agent, start)``: the seen blocks' bounding box with a one-block unknown margin
        (what lies beyond a seen block may be open), the agent marked, and both positions in that grid."""
        rows = [r for r, _ in self.codes] + [self.position[0]]
        cols = [c for _, c in self.codes] + [self.position[1]]
        top, left = min(rows) - 1, min(cols) - 1
        codes = np.full((max(rows) - top + 2, max(cols) - left + 2), MASKED, dtype=np.uint8)
        for (r, c), code in self.codes.items():
            codes[r - top, c - left] = code
        agent = (self.position[0] - top, self.position[1] - left)
        codes[agent] = AGENT
        return codes, agent, (-top, -left)


def benchmark_picture(blocks: np.ndarray, start: Cell, goal: Cell, agent: Cell | None, cell_px: int) -> np.ndarray:
    """Return MazeBench's picture of a benchmark grid: black walls, white passages, the start cell green, the
    goal cell red, ``cell_px`` pixels a cell and no border; the agent's cell (when away from the start) orange."""
    grid = Grid(np.asarray(blocks, dtype=np.uint8), start, goal)
    shown = agent if agent is not None and tuple(agent) != tuple(start) else None
    rgb = block_colours(grid, agent=shown)
    return np.repeat(np.repeat(rgb, cell_px, axis=0), cell_px, axis=1)

