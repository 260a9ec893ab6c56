"""RandomAgent: uniform random actions, the lower bound of every table."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces


class RandomAgent:
    """Draw each action uniformly from ``action_space`` (seeded, so runs repeat)."""

    def __init__(self, action_space: spaces.Space, seed: int | None = None) -> None:
        self.action_space = action_space
        self.seed = seed
        self.action_space.seed(seed)

    def reset(self) -> None:
        """Nothing to forget: the random stream continues across episodes."""

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Return a uniform random action."""
        return self.action_space.sample()
