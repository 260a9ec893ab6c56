"""What an LLM agent shows its model: the prompt's symbols and legend, and the partial view cropped to what is
visible (the map explored so far is ``agents.explored.ExploredMaps``). Grids are drawn by the core
(``maze_envs.core.codes.draw_codes``, ``render.benchmark_picture``) as joined text rows, one character a block, in
``PROMPT_SYMBOLS``; ``legend`` writes them as ``'#' = wall, ...`` (which the local oracle policy reads).
"""

from __future__ import annotations

import numpy as np

from maze_envs.core.codes import MASKED, draw_codes
from maze_envs.core.maze import Cell
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
