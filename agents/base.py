"""Helpers of the baseline agents (the ``Agent`` interface they follow is ``maze_envs.envs.agent.Agent``) and a
runner that plays one episode with an agent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.core.maze import Cell, move_index
from maze_envs.envs.agent import Agent, episode_steps


def action_along(path: Sequence[Cell], action_space: spaces.Space) -> Any:
    """Return the action that follows ``path`` (blocks, current position first) as far as one action can.

    ``Discrete(4)``: the first move's direction. ``MultiDiscrete([4, k])``: the direction and as many
    consecutive moves in it as the path has, at most ``k`` (encoded as ``steps - 1``).
    """
    steps = [move_index(a, b) for a, b in zip(path, path[1:], strict=False)]
    if not steps:
        raise ValueError("path has no moves")
    if isinstance(action_space, spaces.Discrete):
        return steps[0]
    limit = int(action_space.nvec[1])
    run = 1
    while run < min(limit, len(steps)) and steps[run] == steps[0]:
        run += 1
    return np.array([steps[0], run - 1], dtype=action_space.dtype)



class OneBlockMoves:
    """An agent adapter: ``agent`` picks a direction (a ``Discrete(4)`` action, e.g. a policy trained on the
    partial env's default), sent to an env of ``action_space`` as its one-block move (``[direction, 0]`` for
    ``MultiDiscrete([4, k])``, the direction itself for ``Discrete(4)``)."""

    def __init__(self, agent: Agent, action_space: spaces.Space) -> None:
        self.agent = agent
        self.action_space = action_space
        self.name = getattr(agent, "name", type(agent).__name__)

    def reset(self) -> None:
        """Forget the previous episode (the wrapped agent's reset)."""
        self.agent.reset()

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return the env action of the wrapped agent's direction."""
        direction = int(self.agent.act(observation, info))
        if isinstance(self.action_space, spaces.Discrete):
            return direction
        return np.array([direction, 0], dtype=self.action_space.dtype)

@dataclass(frozen=True)
class EpisodeResult:
    """One played episode: whether it reached the goal, env steps taken, total reward and the final info."""

    success: bool
    steps: int
    total_reward: float
    info: dict[str, Any]


def run_episode(env: gym.Env, agent: Agent, seed: int | None = None, *, hide: Sequence[str] = ()) -> EpisodeResult:
    """Play one episode of ``agent`` in ``env`` and return its result; ``hide`` drops those keys from the info it
    sees."""
    total, steps = 0.0, 0
    for step in episode_steps(env, agent, seed, hide=hide):
        total += step.reward
        steps += 1
    return EpisodeResult(step.terminated, steps, total, step.info)
