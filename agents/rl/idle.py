"""The no-exploration cutoff seen from the learner's side.

``Maze-PartialObs-v0`` truncates an episode after ``max_no_exploration_steps`` steps that reveal nothing new. The env
scores that end as a failure, and the cutoff is the agent's own doing (a loop), not a clock outside the task. A
learner that bootstraps it like a time limit is told that looping costs nothing, and a memoryless policy that
settles into a loop before it first meets the goal never learns to leave it. The single-file PPOs therefore treat
an end by this cutoff as terminal (value 0) unless ``--no-idle-end-fails``; time limits (``max_steps``,
``max_episode_steps``) still bootstrap. The env's reward, termination and success are unchanged.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym


def idle_limit(env_id: str, kwargs: dict[str, Any]) -> int | None:
    """Return the no-exploration cutoff of ``gym.make(env_id, **kwargs)`` in steps, or None when it has none."""
    env = gym.make(env_id, **kwargs)
    try:
        rules = getattr(env.unwrapped, "rules", None)
        return getattr(rules, "max_idle_steps", None)
    finally:
        env.close()
