"""The maze functions of the LLM benchmark's ``tools`` mode (``maze_envs.core.maze_tools``) played on a grid env.

``MazeTools`` plays each ``move`` as single-block steps of the env it is given (``Maze-v0`` for the ``full``
variant, ``Maze-PartialObs-v0`` for ``partial``), so walls, the goal and, in the partial variant, the line of sight
are the env's own rules: the window a result shows is the env's observation, and the distances to the walls are
read from it (so they never reach past what the agent can see); in the full variant they are read from the layout.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.codes import MASKED, WALL, draw_codes
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import MOVE_NAMES, MOVES, Cell
from maze_envs.core.maze_tools import LOOK, TOOL_SYMBOLS, VARIANTS, ToolResult
from maze_envs.core.validate import choice


class MazeTools:
    """Plays ``move(direction, steps)`` and ``look()`` on ``env`` for the ``variant`` (``full`` or ``partial``; the
    partial variant needs a partial-view env). ``path`` holds every cell entered (start first), ``moves`` the cells
    moved, ``blocked_moves`` the moves a wall stopped, ``reached`` whether the goal was reached."""

    def __init__(self, env: gym.Env, variant: str) -> None:
        choice(variant, VARIANTS, parameter="variant")
        self.env, self.variant = env, variant
        self.base = env.unwrapped
        if (variant == "partial") != hasattr(self.base, "k"):
            raise MazeConfigError(f"the {variant} variant needs {'a partial-view' if variant == 'partial' else 'a'} "
                                  f"grid env, got {type(self.base).__name__}", parameter="env")
        self.path: list[Cell] = []
        self.moves = self.blocked_moves = 0
        self.reached = False
        self._observation: Any = None
        self._position: Cell = (0, 0)

    def reset(self, seed: int | None = None) -> ToolResult:
        """Start an episode; return what ``look()`` reports at the start."""
        self._observation, info = self.env.reset(seed=seed)
        self._position = tuple(int(v) for v in info["position"])
        self.path = [self._position]
        self.moves = self.blocked_moves = 0
        self.reached = False
        return self._result(0, False)

    def _action(self, direction: int) -> Any:
        if isinstance(self.env.action_space, spaces.Discrete):
            return direction
        return np.array([direction, 0], dtype=np.int64)

    def play(self, name: str, direction: int = -1, steps: int = 0) -> ToolResult:
        """Return the result of one call read by ``read_call``: ``look`` (nothing moves) or ``move`` up to
        ``steps`` blocks in ``direction`` (an index into ``MOVES``), stopping at a wall or on the goal."""
        if name == LOOK:
            return self._result(0, False)
        moved, blocked = 0, False
        for _ in range(steps):
            self._observation, _, terminated, _, info = self.env.step(self._action(direction))
            now = tuple(int(v) for v in info["position"])
            if now == self._position:
                blocked = True
                break
            self._position = now
            self.path.append(now)
            moved += 1
            if terminated:
                self.reached = True
                break
        self.moves += moved
        self.blocked_moves += blocked
        return self._result(moved, blocked)

    def _window(self) -> np.ndarray:
        codes = self._observation["view"] if isinstance(self._observation, dict) else self._observation
        return np.asarray(codes)

    def distances(self) -> dict[str, int]:
        """Return the free blocks in a straight line from the agent in each direction before a wall, the grid's
        edge or (partial variant) a block the agent cannot see."""
        if self.variant == "partial":
            window, k = self._window(), self.base.k
            grid, here, stop = window, (k, k), (WALL, MASKED)
        else:
            grid, here, stop = self.base.layout.blocks, self._position, (1,)
        out = {}
        for name, (dr, dc) in zip(MOVE_NAMES, MOVES, strict=True):
            r, c, count = here[0] + dr, here[1] + dc, 0
            while 0 <= r < grid.shape[0] and 0 <= c < grid.shape[1] and grid[r, c] not in stop:
                count += 1
                r, c = r + dr, c + dc
            out[name] = count
        return out

    def _result(self, moved: int, blocked: bool) -> ToolResult:
        distances = self.distances()
        window = origin = None
        if self.variant == "partial":
            k = self.base.k
            window = tuple(draw_codes(self._window(), symbols=TOOL_SYMBOLS).split("\n"))
            origin = (self._position[0] - k, self._position[1] - k)
        return ToolResult(position=self._position, moved=moved, blocked=blocked,
                          free=tuple(name for name in MOVE_NAMES if distances[name] > 0), distances=distances,
                          goal_reached=self.reached, done=self.reached, window=window, window_origin=origin)
