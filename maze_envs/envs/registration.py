"""The table of registered environment ids; ``maze_envs`` registers them on import."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym


@dataclass(frozen=True)
class EnvEntry:
    """One registered id: its entry point, episode step limit, default kwargs and vector entry point."""

    id: str
    entry_point: str
    max_episode_steps: int | None = None
    kwargs: dict[str, Any] = field(default_factory=dict)
    vector_entry_point: str | None = None


# One line per environment id; versioned ids never change their observation semantics.
# The grid envs also truncate themselves at ``max_steps`` (default 4 * rows * cols); the registered
# TimeLimit matches that default for the default 10x10 size. Pass ``max_episode_steps`` to
# ``gym.make`` with other sizes. Maze-Openings-v0 episodes always terminate on their one step. The GaussianNav
# envs truncate at ``max_steps`` (default 100), as the registered limit does.
ENV_ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry("Maze-v0", "maze_envs.envs.maze:MazeEnv", 400, {}, "maze_envs.envs.vector:MazeVectorEnv"),
    EnvEntry("Maze-PartialObs-v0", "maze_envs.envs.partial:PartialObsMazeEnv", 400, {},
             "maze_envs.envs.vector:PartialObsMazeVectorEnv"),
    EnvEntry("Maze-Openings-v0", "maze_envs.envs.openings:OpeningsEnv"),
    EnvEntry("GaussianNav-PointGoal-v0", "maze_envs.envs.nav.env:PointGoalNavEnv", 100),
    EnvEntry("GaussianNav-PoiGoal-v0", "maze_envs.envs.nav.env:PoiGoalNavEnv", 100),
)


def register_envs() -> None:
    """Register every entry of ``ENV_ENTRIES`` with Gymnasium (idempotent)."""
    for entry in ENV_ENTRIES:
        if entry.id in gym.registry:
            continue
        gym.register(id=entry.id, entry_point=entry.entry_point, max_episode_steps=entry.max_episode_steps,
                     kwargs=dict(entry.kwargs), vector_entry_point=entry.vector_entry_point)
