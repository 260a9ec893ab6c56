"""The step rules of the grid maze envs, written once for a single env and for a batch of envs.

An episode lives on a ``Board``: the layout's observation codes padded with ``pad`` wall blocks and
flattened row-major, so a position is one integer and a move adds a fixed delta. A single env
passes Python ints and lists (its fast path), a vector env numpy arrays with one entry per sub-env,
its boards stored one after another in one flat array that its positions index. The functions
use only arithmetic, comparisons, ``&``, ``|``, ``^`` and indexing, which mean the same on both.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from maze_envs.core.batch_dfs import DfsTrees
from maze_envs.core.codes import AGENT, FREE, GOAL, MASKED, WALL
from maze_envs.core.maze import MOVES, Cell, Grid

from .visibility import window_visibility


@dataclass(frozen=True)
class Board:
    """The flat wall-padded board of a layout with block shape ``shape``; ``pad`` wall blocks on every side.

    ``stride`` is a padded row's length, ``size`` the number of padded blocks and ``deltas`` the flat
    offset of each move in action order (up, right, down, left).
    """

    shape: tuple[int, int]
    pad: int
    stride: int = field(init=False)
    size: int = field(init=False)
    deltas: tuple[int, ...] = field(init=False)

    def __post_init__(self) -> None:
        stride = self.shape[1] + 2 * self.pad
        object.__setattr__(self, "stride", stride)
        object.__setattr__(self, "size", (self.shape[0] + 2 * self.pad) * stride)
        object.__setattr__(self, "deltas", tuple(dr * stride + dc for dr, dc in MOVES))

    def index(self, block: Cell) -> Any:
        """Return the flat index of layout block ``block`` (a ``(row, col)`` pair of ints, or of arrays giving an
        array)."""
        return (block[0] + self.pad) * self.stride + block[1] + self.pad

    def block(self, index: Any) -> tuple[Any, Any]:
        """Return the layout ``(row, col)`` of flat ``index`` (an int, or an array giving arrays)."""
        r, c = divmod(index, self.stride)
        return r - self.pad, c - self.pad

    def codes(self, grid: Grid) -> np.ndarray:
        """Return ``grid`` as a flat board of observation codes: ``WALL``/``FREE``, the goal ``GOAL``, padding
        ``WALL``."""
        codes = np.pad(grid.blocks, self.pad, constant_values=WALL)
        codes[grid.goal[0] + self.pad, grid.goal[1] + self.pad] = GOAL
        return codes.ravel()

    def tree_codes(self, trees: DfsTrees) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the flat boards ``(B, size)`` of spanning-tree mazes (as ``codes`` of their grids, without
        building a grid) and the flat start and goal indices ``(B,)``: walls, the cells, each tree edge's block."""
        r, c = np.divmod(np.arange(trees.rows * trees.cols), trees.cols)
        cells = self.index((2 * r + 1, 2 * c + 1))
        b = len(trees.parent)
        boards = np.full((b, self.size), WALL, dtype=np.uint8)
        boards[:, cells] = FREE
        boards[np.arange(b)[:, None], (cells[1:] + cells[trees.parent[:, 1:]]) // 2] = FREE
        goal = cells[trees.goal]
        boards[np.arange(b), goal] = GOAL
        return boards, cells[trees.start], goal

    def inner(self, boards: np.ndarray) -> np.ndarray:
        """Return the layout part ``(..., H, W)`` of flat boards ``(..., size)`` (a view)."""
        p = self.pad
        return boards.reshape(*boards.shape[:-1], -1, self.stride)[..., p:-p, p:-p]

    def window_offsets(self, k: int) -> np.ndarray:
        """Return the flat offsets, row-major, of the ``(2k+1, 2k+1)`` window around a position (needs ``pad >= k``)."""
        side = np.arange(-k, k + 1)
        return (side[:, None] * self.stride + side[None, :]).ravel()


def path_length(free: Sequence[bool], deltas: Sequence[int], start: int, goal: int) -> int:
    """Return the BFS move count from ``start`` to ``goal`` on a flat board (-1 if unreachable).

    The envs' hot reset path; it agrees with ``maze_envs.core.solve.distance_map`` (tested), which
    builds a sparse graph and costs several times more on a 10x10 maze.
    """
    if start == goal:
        return 0
    dist = {start: 0}
    queue = deque((start,))
    while queue:
        node = queue.popleft()
        d = dist[node] + 1
        for delta in deltas:
            nxt = node + delta
            if free[nxt] and nxt not in dist:
                if nxt == goal:
                    return d
                dist[nxt] = d
                queue.append(nxt)
    return -1


def move(free: Any, position: Any, delta: Any, active: Any = True) -> tuple[Any, Any]:
    """Return ``(position, blocked)`` after one move by ``delta``: onto the target if it is free, else a wall bump.

    Where ``active`` is False the position stays and no bump counts.
    """
    target = position + delta
    stepped = free[target] & active
    return position + delta * stepped, stepped ^ active


def walk(free: Any, position: Any, delta: Any, count: Any, goal: Any, longest: int,
         active: Any = True) -> tuple[Any, Any, Any]:
    """Return ``(position, moved, blocked)`` after up to ``count`` moves by ``delta`` (``count <= longest``).

    A walk stops at the first wall (``blocked``: one bump) or on ``goal``; ``moved`` counts its moves.
    """
    moved, blocked, going = 0, False, active
    for done in range(longest):
        going = going & (count > done)
        position, bump = move(free, position, delta, going)
        stepped = going ^ bump
        moved = moved + stepped
        blocked = blocked | bump
        going = stepped & (position != goal)
    return position, moved, blocked


@dataclass(frozen=True)
class EpisodeRules:
    """What a step pays and when an episode ends.

    Reaching the goal pays ``goal_reward`` and terminates; every other step pays ``step_reward`` (or,
    when set, ``wall_reward`` if it bumped a wall) and truncates once ``steps >= max_steps`` or, when
    ``max_idle_steps`` is set, once that many steps in a row explored nothing new.
    """

    goal_reward: float
    step_reward: float
    max_steps: int
    max_idle_steps: int | None = None
    wall_reward: float | None = None

    def outcome(self, position: Any, goal: Any, steps: Any, idle_steps: Any = 0,
                blocked: Any = False) -> tuple[Any, Any, Any]:
        """Return ``(reward, terminated, truncated)`` after a step's move (``blocked``: it bumped a wall)."""
        reached = position == goal
        out_of_time = steps >= self.max_steps
        if self.max_idle_steps is not None:
            out_of_time = out_of_time | (idle_steps >= self.max_idle_steps)
        step = self.step_reward
        if self.wall_reward is not None:
            step = step + (self.wall_reward - step) * blocked
        # Exact either way: x * 1 == x and adding a zero changes nothing.
        reward = self.goal_reward * reached + step * (1 - reached)
        return reward, reached, out_of_time & (position != goal)


def idle_steps(previous: Any, revealed: Any) -> Any:
    """Return the count of steps in a row that revealed nothing: 0 after a step that ``revealed``, else one more."""
    return (previous + 1) * (1 - revealed)


def idle_after_visit(previous: int, entered_new: bool, failed: bool) -> int:
    """Return the no-exploration count after a step under the ``visited`` rule: 0 when it entered a block not
    visited before, else one more, and one more again when it ``failed`` without moving (MazeBench's rule)."""
    return 0 if entered_new else previous + 1 + int(failed)


def look(codes: np.ndarray, position: Any, offsets: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(window, shown, visible)`` of the line-of-sight window of radius ``k`` around ``position``.

    ``window`` holds the codes of the visible blocks, ``MASKED`` elsewhere and ``AGENT`` at the
    centre; ``shown`` the flat board indices of the window's blocks and ``visible`` which of them
    are seen. All three are flat over the window, with a leading axis when ``position`` is an array.
    """
    shown = np.asarray(position)[..., None] + offsets
    around = codes[shown]
    side = 2 * k + 1
    walls = (around == WALL).reshape(*around.shape[:-1], side, side)
    visible = window_visibility(walls, k).reshape(around.shape)
    window = np.where(visible, around, MASKED).astype(np.uint8)
    window[..., window.shape[-1] // 2] = AGENT
    return window, shown, visible


def newly_seen(seen: np.ndarray, shown: np.ndarray, visible: np.ndarray) -> np.ndarray:
    """Return the mask over ``shown`` of the blocks ``visible`` now and not ``seen`` before."""
    return visible & ~seen[shown]


def explored_codes(codes: np.ndarray, seen: np.ndarray) -> np.ndarray:
    """Return the codes of every block ``seen`` so far, ``MASKED`` elsewhere."""
    return np.where(seen, codes, MASKED).astype(np.uint8)
