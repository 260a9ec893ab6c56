"""Tabular Q-learning with no dependency beyond numpy: one table row per distinct observation.

Fits a fixed layout (``gym.make("Maze-v0", maze=...)`` or ``num_levels=1``), where the full observation
is the agent's position; with the partial view it learns what a memoryless policy can. Actions must be
``Discrete`` (use ``action_mode="single"`` for the partial env).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from maze_envs.envs.metrics import EpisodeMetricsWrapper


def observation_key(observation: Any) -> bytes:
    """Return the table key of an observation (array or dict of arrays): its bytes."""
    if isinstance(observation, dict):
        return b"|".join(np.asarray(observation[k]).tobytes() for k in sorted(observation))
    return np.asarray(observation).tobytes()


@dataclass
class QConfig:
    """Learning settings: episodes, step size, discount, epsilon decayed linearly to ``epsilon_end``, seed, and
    the optimistic initial value of unseen actions (untried moves look best, so the agent explores them
    systematically; a random walk rarely finds the goal of a winding maze in its step limit)."""

    episodes: int = 300
    alpha: float = 0.5
    gamma: float = 0.95
    epsilon_start: float = 1.0
    epsilon_end: float = 0.05
    seed: int = 0
    initial_value: float = 1.0


@dataclass
class QLearningAgent:
    """A Q table over observation keys, greedy under the agent interface; ``train`` fills it."""

    num_actions: int
    initial_value: float = 0.0
    table: dict[bytes, np.ndarray] = field(default_factory=dict)
    name: str = "tabular_q"

    def values(self, observation: Any) -> np.ndarray:
        """Return (creating a row of ``initial_value`` if new) the action values of ``observation``."""
        key = observation_key(observation)
        row = self.table.get(key)
        if row is None:
            row = self.table[key] = np.full(self.num_actions, self.initial_value)
        return row

    def reset(self) -> None:
        """Nothing to forget between episodes."""

    def act(self, observation: Any, info: dict[str, Any]) -> int:
        """Return the greedy action (lowest index among ties)."""
        return int(np.argmax(self.values(observation)))


def train_q(env: gym.Env, config: QConfig = QConfig()) -> tuple[QLearningAgent, list[dict[str, Any]]]:
    """Return the agent learnt by epsilon-greedy Q-learning in ``env`` and one metrics dict per training episode."""
    if not isinstance(env.action_space, spaces.Discrete):
        raise ValueError(f"tabular Q-learning needs Discrete actions, got {env.action_space}")
    env = EpisodeMetricsWrapper(env)
    agent = QLearningAgent(int(env.action_space.n), config.initial_value)
    rng = np.random.default_rng(config.seed)
    history = []
    for episode in range(config.episodes):
        fraction = episode / max(1, config.episodes - 1)
        epsilon = config.epsilon_start + fraction * (config.epsilon_end - config.epsilon_start)
        observation, _ = env.reset(seed=config.seed + episode)
        done = False
        while not done:
            row = agent.values(observation)
            best = np.flatnonzero(row == row.max())
            action = int(rng.integers(agent.num_actions)) if rng.random() < epsilon else int(rng.choice(best))
            observation, reward, terminated, truncated, info = env.step(action)
            target = reward if terminated else reward + config.gamma * agent.values(observation).max()
            row[action] += config.alpha * (target - row[action])
            done = terminated or truncated
        history.append(info["episode_metrics"])
    return agent, history
