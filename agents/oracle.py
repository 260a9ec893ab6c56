"""OracleAgent: follows a BFS shortest path on the true layout, the upper bound of every table."""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from maze_envs.core.maze import Cell
from maze_envs.core.solve import shortest_path

from .base import action_along


class OracleAgent:
    """Read the hidden layout and position from ``env.unwrapped`` and walk a shortest path to the goal.

    In ``Maze-v0`` it reaches the goal in exactly ``info["optimal_length"]`` moves; in the partial env
    with multi-block actions it also uses as few actions as a straight-run split of that path allows.
    """

    def __init__(self, env: gym.Env) -> None:
        self.env = env.unwrapped
        self._path: list[Cell] = []

    def reset(self) -> None:
        """Drop the cached path."""
        self._path = []

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the action along the shortest path from the agent's true position."""
        here = self.env.agent_position
        if here in self._path:
            self._path = self._path[self._path.index(here):]
        else:
            self._path = shortest_path(self.env.layout, start=here) or []
        if len(self._path) < 2:
            raise RuntimeError(f"no path from {here} to the goal {self.env.layout.goal}")
        return action_along(self._path, self.env.action_space)
