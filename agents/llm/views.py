"""What an LLM agent shows its model: the prompt's symbols and legend, and the partial view cropped to what is
visible. Grids are drawn by the core (``maze_envs.core.codes.draw_codes``, ``render.benchmark_picture``) as
joined text rows, one character a block, in ``PROMPT_SYMBOLS``; ``legend`` writes them as ``'#' = wall, ...``
(which the local oracle policy reads).
"""

from __future__ import annotations

import numpy as np

from maze_envs.core.codes import AGENT, FREE, MASKED, draw_codes
from maze_envs.core.maze import MOVES, Cell
from maze_envs.core.render import Symbols

PROMPT_SYMBOLS = Symbols(wall="#", path=".", start="S", goal="G", agent="A", masked="?")
PROMPT_LABELS = {"start": "start (where you began)", "agent": "agent (you)", "masked": "unknown (not visible)"}


def legend(symbols: Symbols = PROMPT_SYMBOLS, *, masked: bool = False) -> str:
    """Return the legend line of the symbols (with the unknown symbol when ``masked``)."""
    fields = ("wall", "path", "start", "goal", "agent") + (("masked",) if masked else ())
    return symbols.legend(fields, labels=PROMPT_LABELS)


def draw(codes: np.ndarray, *, start: Cell | None = None, coordinates: bool = False) -> str:
    """Return observation ``codes`` as text rows in ``PROMPT_SYMBOLS``, the free block ``start`` drawn as the
    start; ``coordinates`` adds column numbers and each row's number, ``|``-separated from the grid."""
    return draw_codes(codes, symbols=PROMPT_SYMBOLS, start=start, coordinates=coordinates, separator=" | ")


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
