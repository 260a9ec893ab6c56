"""The observation codes of the grid envs, the one table every env, wrapper and agent imports.

A code observation holds one small integer a block: ``FREE``, ``WALL``, ``AGENT``, ``GOAL`` or ``MASKED``
(not visible). ``PALETTE[code]`` is its pure colour (the task-image colours of ``maze_envs.core.render``)
and ``code_symbols(symbols)[code]`` the character a text view draws for it.
"""

from __future__ import annotations

import numpy as np

from . import render
from .maze import Cell

FREE, WALL, AGENT, GOAL, MASKED = 0, 1, 2, 3, 4
NUM_CODES = 5
CODE_NAMES: tuple[str, ...] = ("free", "wall", "agent", "goal", "masked")

PALETTE = np.zeros((NUM_CODES, 3), dtype=np.uint8)
PALETTE[FREE], PALETTE[WALL], PALETTE[AGENT] = render.FREE, render.WALL, render.AGENT
PALETTE[GOAL], PALETTE[MASKED] = render.GOAL, render.MASKED
PALETTE.setflags(write=False)


def code_symbols(symbols: render.Symbols = render.Symbols()) -> np.ndarray:
    """Return the characters of ``symbols`` indexed by code (free as ``path``, wall, agent, goal, masked)."""
    return np.array([symbols.path, symbols.wall, symbols.agent, symbols.goal, symbols.masked], dtype=object)


def draw_codes(codes: np.ndarray, *, symbols: render.Symbols = render.Symbols(), start: Cell | None = None,
               coordinates: bool = False, separator: str = " ") -> str:
    """Return a code grid as text rows in ``symbols``, the ``FREE`` block ``start`` (when given) drawn as the
    start; ``coordinates`` numbers rows and columns, ``separator`` between a row's number and the row
    (``render.text_rows``)."""
    codes = np.asarray(codes)
    chars = code_symbols(symbols)[codes]
    if start is not None and codes[start] == FREE:
        chars[start] = symbols.start
    return render.text_rows(chars, coordinates=coordinates, separator=separator)
