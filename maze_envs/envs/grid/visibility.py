"""Line-of-sight visibility of the partial-observation maze (the LLM maze benchmark's partial-observe rule).

A block is visible from the agent when its Manhattan distance is at most ``k`` and the Bresenham
line from the agent to it crosses no wall block, both endpoints excluded: a wall itself can be
seen, what lies behind it cannot. ``LineTable`` precomputes the lines of every offset once per
``k`` so a whole window is tested with a single gather.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from maze_envs.core.maze import Cell


def bresenham_between(start: Cell, end: Cell) -> list[Cell]:
    """Return the blocks of the Bresenham line from ``start`` to ``end``, both endpoints excluded."""
    (r0, c0), (r1, c1) = start, end
    dr, dc = abs(r1 - r0), abs(c1 - c0)
    sr = 1 if r1 > r0 else -1
    sc = 1 if c1 > c0 else -1
    err = dc - dr
    r, c = r0, c0
    out = []
    while (r, c) != (r1, c1):
        e2 = 2 * err
        if e2 > -dr:
            err -= dr
            c += sc
        if e2 < dc:
            err += dc
            r += sr
        if (r, c) != (r1, c1):
            out.append((r, c))
    return out


@dataclass(frozen=True)
class LineTable:
    """The offsets within Manhattan radius ``k`` and their occluding blocks, as flat indices of the window.

    ``offsets[i]`` is ``(dr, dc)``; ``targets[i]`` its flat index in the ``(2k+1, 2k+1)`` window;
    ``between[i]`` the flat indices of the blocks strictly between the centre and it (padded with
    the centre, which is never a wall).
    """

    k: int
    offsets: np.ndarray
    targets: np.ndarray
    between: np.ndarray

    @property
    def side(self) -> int:
        """Return the window side ``2k + 1``."""
        return 2 * self.k + 1


@lru_cache(maxsize=None)
def line_table(k: int) -> LineTable:
    """Return the (cached) line table of radius ``k``."""
    side = 2 * k + 1
    centre = k * side + k
    offsets = [(dr, dc) for dr in range(-k, k + 1) for dc in range(-k, k + 1) if abs(dr) + abs(dc) <= k]
    lines = [[(k + r) * side + (k + c) for r, c in bresenham_between((0, 0), off)] for off in offsets]
    width = max(1, max(len(line) for line in lines))
    between = np.full((len(offsets), width), centre, dtype=np.intp)
    for i, line in enumerate(lines):
        between[i, : len(line)] = line
    targets = np.array([(k + r) * side + (k + c) for r, c in offsets], dtype=np.intp)
    return LineTable(k, np.array(offsets, dtype=np.intp), targets, between)


def window_visibility(walls: np.ndarray, k: int) -> np.ndarray:
    """Return the visible mask of a ``(..., 2k+1, 2k+1)`` wall window centred on the agent (batched over leading
    axes)."""
    table = line_table(k)
    lead = walls.shape[:-2]
    flat = walls.reshape(*lead, table.side * table.side).astype(bool)
    blocked = flat[..., table.between].any(axis=-1)
    visible = np.zeros(flat.shape, dtype=bool)
    visible[..., table.targets] = ~blocked
    return visible.reshape(walls.shape)


def visible_mask(blocks: np.ndarray, agent: Cell, k: int) -> np.ndarray:
    """Return the boolean mask, shaped like ``blocks`` (1 = wall), of the blocks visible from ``agent``.

    Blocks outside the grid count as walls.
    """
    padded = np.pad(np.asarray(blocks) != 0, k, constant_values=True)
    r, c = agent
    window = padded[r: r + 2 * k + 1, c: c + 2 * k + 1]
    out = np.zeros((blocks.shape[0] + 2 * k, blocks.shape[1] + 2 * k), dtype=bool)
    out[r: r + 2 * k + 1, c: c + 2 * k + 1] = window_visibility(window, k)
    return out[k:-k, k:-k] if k else out
