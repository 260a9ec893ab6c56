"""The twin's ids: ``make(env_id, **kwargs)`` gives ``(env, params)`` as ``gymnax.make`` does.

The ids are those of the one registration table (``maze_envs.envs.registration.ALL_ENTRIES``) whose env is a grid
env or its Flat/Image variant: ``Maze[-PartialObs][-Flat|-Image][-{5x5,7x7,9x9,13x13}]-v0``. ``make`` builds the
Gymnasium env of the id with the id's registered arguments and ``kwargs``, exactly as ``gym.make`` does, so every
argument (``px`` of the Image ids and the level counts included) passes the same validators and cost budget
(``maze_envs.envs.costs``) before any twin work; ``max_episode_steps`` (a positive integer or None) caps episodes
as ``gym.make``'s ``TimeLimit`` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from gymnasium.envs.registration import load_env_creator

from maze_envs.core.validate import choice, integer
from maze_envs.envs.registration import ALL_ENTRIES, EnvEntry

from .grid import NO_LIMIT, EnvParams, MazeTwin, PartialObsTwin
from .wrappers import FlatObservation, ImageObservation


@dataclass(frozen=True)
class TwinEntry:
    """One id: its registration entry, its twin, and the observation variant (None for the base observation)."""

    entry: EnvEntry
    twin: type
    variant: Callable[..., Any] | None = None


TWINS_BY_ENTRY_POINT: dict[str, tuple[type, Callable[..., Any] | None]] = {
    "maze_envs.envs.grid.maze:MazeEnv": (MazeTwin, None),
    "maze_envs.envs.variants:flat_maze": (MazeTwin, FlatObservation),
    "maze_envs.envs.variants:image_maze": (MazeTwin, ImageObservation),
    "maze_envs.envs.grid.partial:PartialObsMazeEnv": (PartialObsTwin, None),
    "maze_envs.envs.variants:flat_partial": (PartialObsTwin, FlatObservation),
    "maze_envs.envs.variants:image_partial": (PartialObsTwin, ImageObservation),
}

TWIN_ENTRIES: dict[str, TwinEntry] = {entry.id: TwinEntry(entry, *TWINS_BY_ENTRY_POINT[entry.entry_point])
                                      for entry in ALL_ENTRIES if entry.entry_point in TWINS_BY_ENTRY_POINT}


def make(env_id: str, max_episode_steps: int | None = None, **kwargs: Any) -> tuple[Any, EnvParams]:
    """Return ``(env, params)`` of the twin of ``env_id`` made with the Gymnasium id's ``kwargs``.

    Raises ``MazeConfigError`` naming ``env_id`` for an id without a twin, ``max_episode_steps`` when it is not an
    integer from 1 to 2**31-1 or None, and the argument for an option the twin does not have
    (``grid.check_twinnable``) or the Gymnasium env refuses (``gym.make``'s checks and cost budget).
    """
    twin = TWIN_ENTRIES.get(env_id) if isinstance(env_id, str) else None
    if twin is None:
        choice(env_id, TWIN_ENTRIES, parameter="env_id")
    entry = twin.entry
    limit = entry.max_episode_steps if max_episode_steps is None else max_episode_steps
    limit = integer(limit, 1, NO_LIMIT, optional=True, parameter="max_episode_steps")
    gym_env = load_env_creator(entry.entry_point)(**{**entry.kwargs, **kwargs})
    env = twin.twin(gym_env.unwrapped, limit)
    if twin.variant is ImageObservation:
        env = ImageObservation(env, px=gym_env.px)
    elif twin.variant is not None:
        env = twin.variant(env)
    return env, env.default_params
