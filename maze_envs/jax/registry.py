"""The twin's ids: ``make(env_id, **kwargs)`` gives ``(env, params)`` as ``gymnax.make`` does.

The ids are the Gymnasium ids of the grid envs and their Flat/Image variants (``maze_envs.envs.variants``), and
take the same keyword arguments (``px`` for the Image ids; ``max_episode_steps`` caps episodes as
``gym.make``'s TimeLimit does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from maze_envs.core.validate import choice
from maze_envs.envs.grid.maze import MazeEnv
from maze_envs.envs.grid.partial import PartialObsMazeEnv

from .grid import EnvParams, MazeTwin, PartialObsTwin
from .wrappers import FlatObservation, ImageObservation


@dataclass(frozen=True)
class TwinEntry:
    """One id: the Gymnasium env class that validates the arguments, its twin, and the observation variant."""

    template: type
    twin: type
    variant: Callable[..., Any] | None = None


TWIN_ENTRIES: dict[str, TwinEntry] = {
    "Maze-v0": TwinEntry(MazeEnv, MazeTwin),
    "Maze-Flat-v0": TwinEntry(MazeEnv, MazeTwin, FlatObservation),
    "Maze-Image-v0": TwinEntry(MazeEnv, MazeTwin, ImageObservation),
    "Maze-PartialObs-v0": TwinEntry(PartialObsMazeEnv, PartialObsTwin),
    "Maze-PartialObs-Flat-v0": TwinEntry(PartialObsMazeEnv, PartialObsTwin, FlatObservation),
    "Maze-PartialObs-Image-v0": TwinEntry(PartialObsMazeEnv, PartialObsTwin, ImageObservation),
}


def make(env_id: str, max_episode_steps: int | None = None, **kwargs: Any) -> tuple[Any, EnvParams]:
    """Return ``(env, params)`` of the twin of ``env_id`` made with the Gymnasium id's ``kwargs``.

    Raises ``MazeConfigError`` naming ``env_id`` for an id without a twin, and naming the argument for an
    option the twin does not have (``grid.check_twinnable``) or the Gymnasium env refuses.
    """
    entry = TWIN_ENTRIES.get(env_id) if isinstance(env_id, str) else None
    if entry is None:
        choice(env_id, TWIN_ENTRIES, parameter="env_id")
    px = kwargs.pop("px", 8) if entry.variant is ImageObservation else None
    if max_episode_steps is not None:
        max_episode_steps = int(max_episode_steps)
    env = entry.twin(entry.template(**kwargs), max_episode_steps)
    if entry.variant is ImageObservation:
        env = ImageObservation(env, px=px)
    elif entry.variant is not None:
        env = entry.variant(env)
    return env, env.default_params
