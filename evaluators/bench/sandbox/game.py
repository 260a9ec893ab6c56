"""The sandbox game: one benchmark maze played move by move on ``Maze-v0``, with MazeBench's sandbox semantics.

Positions are benchmark ``(row, col)`` (no outer ring). ``steps`` counts cells moved; a wall or out-of-bounds
move changes nothing and earns -1, a move -0.1, reaching the goal +100 once; after the goal every move
answers ``Game ended`` with reward 0 (MazeBench paid +100 again for each).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from maze_envs.core.maze import MOVE_NAMES
from maze_envs.core.render import Symbols, render_text

from ..mazes import BenchMaze

ACTIONS = ("up", "down", "left", "right")
STEP_REWARD, WALL_REWARD, GOAL_REWARD = -0.1, -1.0, 100.0
SANDBOX_SYMBOLS = Symbols(route="*")


class SandboxGame:
    """One maze being played: ``reset()``, ``step(action)``, ``state()``, ``info()`` and ``render()``."""

    def __init__(self, maze: BenchMaze):
        self.maze = maze
        self.env = gym.make("Maze-v0", maze=maze.layout, max_steps=2 ** 31 - 1, max_episode_steps=None).unwrapped
        self.reset()

    def reset(self) -> dict[str, Any]:
        """Return the state after going back to the start."""
        _, info = self.env.reset(seed=0)
        self.position = tuple(info["position"])
        self.steps = 0
        self.done = False
        return self.state()

    def state(self) -> dict[str, Any]:
        """Return ``{position [row, col], done, steps}``."""
        return {"position": list(self.position), "done": self.done, "steps": self.steps}

    def step(self, action: str) -> tuple[dict[str, Any], float, bool]:
        """Play ``action`` (up/down/left/right); return the outcome (``message`` or ``error``), the reward and
        whether the move was made. Raises ``ValueError`` for any other action."""
        if action not in ACTIONS:
            raise ValueError(f"invalid action {action!r}; use one of {', '.join(ACTIONS)}")
        if self.done:
            return {"info": "Game ended"}, 0.0, False
        _, _, terminated, _, info = self.env.step(MOVE_NAMES.index(action))
        position = tuple(info["position"])
        if position == self.position:
            r, c = self.position
            dr, dc = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}[action]
            inside = 0 <= r + dr < self.maze.shape[0] and 0 <= c + dc < self.maze.shape[1]
            return {"error": f"Wall collision: {'hit wall' if inside else 'out of bounds'}"}, WALL_REWARD, False
        self.position, self.steps = position, self.steps + 1
        if terminated:
            self.done = True
            return {"message": "Goal reached!", "position": list(position)}, GOAL_REWARD, True
        return {"message": f"Moved {action}", "position": list(position)}, STEP_REWARD, True

    def available_actions(self) -> list[str]:
        """Return the moves into free in-bounds cells from here (up, down, left, right order; [] after the goal)."""
        if self.done:
            return []
        height, width = self.maze.shape
        r, c = self.position
        steps = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}
        return [a for a in ACTIONS if 0 <= r + steps[a][0] < height and 0 <= c + steps[a][1] < width
                and self.maze.grid[r + steps[a][0], c + steps[a][1]] == 0]

    def info(self) -> dict[str, Any]:
        """Return the maze and game facts: size ``HxW``, start, goal, current position, steps, done, actions."""
        height, width = self.maze.shape
        return {"maze_name": self.maze.name, "size": f"{height}x{width}", "start": list(self.maze.start),
                "goal": list(self.maze.goal), "current_position": list(self.position), "steps": self.steps,
                "done": self.done, "available_actions": self.available_actions()}

    def render(self, *, show_path: bool = False, visibility: int = -1) -> str:
        """Return the maze as text rows (``█`` wall, ``S``, ``G``, ``A`` the player, ``*`` the shortest path when
        ``show_path``); with ``visibility`` k >= 0 cells farther than k moves (Manhattan) show ``?``."""
        visible = None
        if visibility >= 0:
            rows, cols = np.indices(self.maze.shape)
            visible = np.abs(rows - self.position[0]) + np.abs(cols - self.position[1]) <= visibility
        return render_text(self.maze.layout, agent=self.position, route=self.maze.shortest_path if show_path else (),
                           visible=visible, symbols=SANDBOX_SYMBOLS)
