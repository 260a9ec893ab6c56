"""The table of registered environment ids; ``maze_envs`` registers them on import."""

from __future__ import annotations

import warnings
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


class RegistrationConflictWarning(UserWarning):
    """Another package registered one of our ids first; ``gym.make`` of that id gives the other package's env."""


# One line per environment id. A versioned id keeps its meaning: a change of default behaviour is a new version
# (docs/howto/add-env.md), registered beside the old one, which stays reachable.
# The grid envs are registered without a TimeLimit: they truncate themselves at their size-aware
# ``max_steps`` (default 4 * rows * cols), as Minigrid's envs do. ``max_episode_steps`` passed to
# ``gym.make`` still adds a TimeLimit that caps it. Maze-Openings-v0 episodes end on their one step. The
# GaussianNav envs truncate at ``max_steps`` (default 100), as the registered limit does.
ENV_ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry("Maze-v0", "maze_envs.envs.grid.maze:MazeEnv", None, {}, "maze_envs.envs.grid.vector:MazeVectorEnv"),
    EnvEntry("Maze-PartialObs-v0", "maze_envs.envs.grid.partial:PartialObsMazeEnv", None, {},
             "maze_envs.envs.grid.vector:PartialObsMazeVectorEnv"),
    EnvEntry("Maze-Openings-v0", "maze_envs.envs.openings.env:OpeningsEnv"),
    EnvEntry("GaussianNav-PointGoal-v0", "maze_envs.envs.nav.env:PointGoalNavEnv", 100),
    EnvEntry("GaussianNav-PoiGoal-v0", "maze_envs.envs.nav.env:PoiGoalNavEnv", 100),
)

# Ids for stock RL code that passes no kwargs (CleanRL's ``--env-id``, RLlib, TorchRL's ``GymEnv``): observation
# variants, as ALE registers ``-ram`` ids:
# ``-Flat`` a float32 one-hot vector (MLP policies), ``-Image`` an ``H x W x 3`` uint8 picture (CNN policies),
# ``-Numeric`` the openings and POI envs without their ``Text``/``Sequence`` fields, ``-Box`` the point-goal nav env
# with one ``Box`` action (waypoint and arrive) and a ``Dict`` of ``Box`` observation (SB3's and CleanRL's PPO).
# Each takes every argument of its base env (``maze_envs.envs.variants``).
VARIANT_ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry("Maze-Flat-v0", "maze_envs.envs.variants:flat_maze"),
    EnvEntry("Maze-Image-v0", "maze_envs.envs.variants:image_maze"),
    EnvEntry("Maze-PartialObs-Flat-v0", "maze_envs.envs.variants:flat_partial"),
    EnvEntry("Maze-PartialObs-Image-v0", "maze_envs.envs.variants:image_partial"),
    EnvEntry("Maze-Openings-Numeric-v0", "maze_envs.envs.variants:numeric_openings"),
    EnvEntry("GaussianNav-PoiGoal-Numeric-v0", "maze_envs.envs.variants:numeric_poi_goal", 100),
    EnvEntry("GaussianNav-PointGoal-Box-v0", "maze_envs.envs.variants:box_point_goal", 100),
)


# Sized ids, as Minigrid registers ``MiniGrid-Empty-5x5-v0``: the side is the block grid's, walls included (as
# Minigrid's and MazeBench's sizes), so ``Maze-PartialObs-Flat-5x5-v0`` plays 2x2-cell mazes (5x5 blocks) and
# ``-13x13-`` 6x6-cell ones. The small ones give tools that pass only an id a learnable default: a random policy
# reaches the goal in about one 5x5 episode in five (``benchmarks/id_only_learning.py``).
GRID_SIDES: tuple[int, ...] = (5, 7, 9, 13)
SIZED_FAMILIES: tuple[str, ...] = ("Maze-v0", "Maze-PartialObs-v0", "Maze-Flat-v0", "Maze-Image-v0",
                                   "Maze-PartialObs-Flat-v0", "Maze-PartialObs-Image-v0")


def sized_id(env_id: str, side: int) -> str:
    """Return the sized id of ``env_id`` on a ``side x side`` block grid (``Maze-v0``, 5 -> ``Maze-5x5-v0``)."""
    return env_id.replace("-v0", f"-{side}x{side}-v0")


def _sized(entry: EnvEntry, side: int) -> EnvEntry:
    cells = (side - 1) // 2
    return EnvEntry(sized_id(entry.id, side), entry.entry_point, entry.max_episode_steps,
                    {**entry.kwargs, "rows": cells, "cols": cells}, entry.vector_entry_point)


_BY_ID = {entry.id: entry for entry in ENV_ENTRIES + VARIANT_ENTRIES}
SIZED_ENTRIES: tuple[EnvEntry, ...] = tuple(_sized(_BY_ID[family], side) for family in SIZED_FAMILIES
                                            for side in GRID_SIDES)
ALL_ENTRIES: tuple[EnvEntry, ...] = ENV_ENTRIES + VARIANT_ENTRIES + SIZED_ENTRIES


def _same(spec: gym.envs.registration.EnvSpec, entry: EnvEntry) -> bool:
    return spec.entry_point == entry.entry_point and spec.vector_entry_point == entry.vector_entry_point


def register_envs(replace: bool = False) -> list[str]:
    """Register every entry of ``ALL_ENTRIES`` (base, variant and sized ids) with Gymnasium; return the ids registered
    now.

    Registering again is a no-op. An id that other code registered first is kept (``gym.make`` of it gives that
    code's env) with a ``RegistrationConflictWarning`` naming both entry points, unless ``replace=True``, which
    registers ours over it.
    """
    registered = []
    for entry in ALL_ENTRIES:
        other = gym.registry.get(entry.id)
        if other is not None and _same(other, entry):
            continue
        if other is not None and not replace:
            message = (f"maze_envs: the id {entry.id!r} is already registered by other code (entry point "
                       f"{other.entry_point!r}), so gym.make({entry.id!r}) does NOT make maze-envs' "
                       f"{entry.entry_point!r}; call maze_envs.envs.registration.register_envs(replace=True) "
                       "to register ours over it")
            warnings.warn(message, RegistrationConflictWarning, stacklevel=2)
            continue
        gym.register(id=entry.id, entry_point=entry.entry_point, max_episode_steps=entry.max_episode_steps,
                     kwargs=dict(entry.kwargs), vector_entry_point=entry.vector_entry_point)
        registered.append(entry.id)
    return registered
