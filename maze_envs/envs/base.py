"""What Maze-v0 and Maze-PartialObs-v0 share: options, episode state on a wall-padded flat grid, rewards, rendering.

Observation codes (``uint8``) are the same in every maze env: ``FREE``, ``WALL``, ``AGENT``, ``GOAL``
and, where a cell is unseen, ``MASKED``.
"""

from __future__ import annotations

import os
from collections import deque
from typing import Any, Sequence

import gymnasium as gym
import numpy as np

from maze_envs.core.budget import check_budget
from maze_envs.core.errors import MazeConfigError, brief_repr, reject_unknown_arguments
from maze_envs.core.maze import MOVES, Cell, Grid
from maze_envs.core.numbers import is_finite_number
from maze_envs.core.render import block_colours, render_text, upscale
from maze_envs.core.solve import shortest_path

from .layouts import LayoutLike, LayoutSource, positive_int
from .window import Window

FREE, WALL, AGENT, GOAL, MASKED = 0, 1, 2, 3, 4
BYTES_PER_BLOCK = 16  # flat free list (8), codes, observation and per-episode masks of the padded grid
RENDER_MODES = ("human", "rgb_array", "ansi")


def layout_codes(grid: Grid) -> np.ndarray:
    """Return the block grid as observation codes: ``WALL``/``FREE`` with the goal marked ``GOAL``."""
    codes = grid.blocks.astype(np.uint8)
    codes[grid.goal] = GOAL
    return codes


def flat_path_length(free: Sequence[bool], deltas: Sequence[int], start: int, goal: int) -> int:
    """Return the BFS move count from ``start`` to ``goal`` on a wall-padded flat grid (-1 if unreachable).

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


def _number(name: str, value: Any) -> float:
    if not is_finite_number(value):
        raise MazeConfigError(f"{name} must be a finite number, got {brief_repr(value)}")
    return float(value)


class MazeEnvBase(gym.Env):
    """Shared machinery of the grid maze envs (not registered itself; see ``MazeEnv`` and ``PartialObsMazeEnv``)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 30}

    def __init__(
        self, pad: int, /, *, rows: int = 10, cols: int = 10, algorithm: str = "dfs", loops: float = 0.0,
        placement: str = "corner", maze: LayoutLike | None = None, mazes_dir: str | os.PathLike | None = None,
        mazes_size: str | None = None, num_levels: int = 0, start_level: int = 0, goal_reward: float = 1.0,
        step_reward: float = 0.0, max_steps: int | None = None, render_mode: str | None = None,
        cell_px: int = 16, **unknown: Any,
    ) -> None:
        """``pad`` (set by each env, not an argument) is the wall border around the layout in the flat grid."""
        reject_unknown_arguments(type(self).__name__, unknown)
        self.source = LayoutSource(rows, cols, algorithm, loops, placement, maze, mazes_dir, mazes_size,
                                   num_levels, start_level)
        self.goal_reward = _number("goal_reward", goal_reward)
        self.step_reward = _number("step_reward", step_reward)
        rows_c, cols_c = self.source.cell_shape
        if max_steps is None:
            max_steps = 4 * rows_c * cols_c
        self.max_steps = positive_int("max_steps", max_steps)
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise MazeConfigError(f"render_mode must be one of {', '.join(RENDER_MODES)} or None, got {brief_repr(render_mode)}")
        self.cell_px = positive_int("cell_px", cell_px)
        self.render_mode = render_mode
        self.shape = self.source.shape
        padded = (self.shape[0] + 2 * pad) * (self.shape[1] + 2 * pad)
        check_budget("rows/cols" if pad == 1 else "rows/cols with this visibility", padded * BYTES_PER_BLOCK)
        if render_mode in ("rgb_array", "human"):
            self._check_frame_budget()
        self._pad = pad
        self._stride = self.shape[1] + 2 * pad
        self._deltas = tuple(dr * self._stride + dc for dr, dc in MOVES)
        self._episode = 0
        self._window = None
        self.layout: Grid | None = None

    # --- episode state -----------------------------------------------------------------------------

    def _begin(self, options: dict[str, Any] | None) -> None:
        """Pick this episode's layout (``options["maze"]`` overrides it) and reset the counters."""
        if options and options.get("maze") is not None:
            grid = self.source.override(options["maze"])
        else:
            grid = self.source.next(self.np_random, self._episode)
        self._episode += 1
        self._set_layout(grid)
        self.steps = 0
        self.wall_bumps = 0

    def _set_layout(self, grid: Grid) -> None:
        p = self._pad
        self.layout = grid
        self._codes = np.pad(layout_codes(grid), p, constant_values=WALL)
        self._free = (self._codes != WALL).ravel().tolist()
        self._pos = self._flat(grid.start)
        self._goal = self._flat(grid.goal)
        self.optimal_length = flat_path_length(self._free, self._deltas, self._pos, self._goal)

    def _flat(self, cell: Cell) -> int:
        return (cell[0] + self._pad) * self._stride + cell[1] + self._pad

    @property
    def agent_position(self) -> Cell:
        """Return the agent's block ``(row, col)`` (hidden state: not part of the partial env's observation)."""
        r, c = divmod(self._pos, self._stride)
        return (r - self._pad, c - self._pad)

    def _info(self) -> dict[str, Any]:
        r, c = divmod(self._pos, self._stride)
        return {"position": (r - self._pad, c - self._pad), "goal": self.layout.goal,
                "optimal_length": self.optimal_length, "steps": self.steps, "wall_bumps": self.wall_bumps}

    def _outcome(self) -> tuple[float, bool, bool]:
        """Return ``(reward, terminated, truncated)`` after a step's move."""
        if self._pos == self._goal:
            return self.goal_reward, True, False
        return self.step_reward, False, self.steps >= self.max_steps

    # --- rendering --------------------------------------------------------------------------------

    def _visible_for_render(self) -> np.ndarray | None:
        """Return the mask of blocks a render shows (``None``: all of them)."""
        return None

    def _check_frame_budget(self) -> None:
        """Raise ``MazeConfigError`` naming rows/cols and cell_px when one RGB frame would not fit the budget."""
        check_budget("rows/cols and cell_px (the rgb frame)", self.shape[0] * self.shape[1] * self.cell_px ** 2 * 3)

    def render_frame(self, route: list[Cell] | tuple = ()) -> np.ndarray:
        """Return the RGB frame of the layout with the agent (and optionally a route of blocks), ``cell_px`` per block."""
        self._check_frame_budget()
        img = block_colours(self.layout, route=route, agent=self.agent_position, visible=self._visible_for_render())
        return upscale(img, self.cell_px, self.cell_px)

    def shortest_route(self) -> list[Cell]:
        """Return the blocks of a shortest path from the agent to the goal."""
        return shortest_path(self.layout, start=self.agent_position) or []

    def render(self) -> np.ndarray | str | None:
        """Return the frame (``rgb_array``), the text grid (``ansi``), or draw to a pygame window (``human``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to gym.make")
            return None
        if self.render_mode == "ansi":
            return render_text(self.layout, agent=self.agent_position, visible=self._visible_for_render())
        frame = self.render_frame()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = Window(f"maze-envs {self.spec.id if self.spec else type(self).__name__}")
        self._window.show(frame, self.metadata["render_fps"])
        return None

    def close(self) -> None:
        """Close the pygame window if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None
