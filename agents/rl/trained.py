"""What a saved policy was trained on (env id, kwargs, ego map, spaces), and the one check every player of a policy
file makes before an episode: the env it is handed must show the observations and take the actions the policy
knows, else one ``PolicyMismatchError`` names both envs. Both trainers (``ppo_native``, ``ppo_jax``) write it;
``policy_file`` reads it back when it adapts a saved policy to an env."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import gymnasium as gym
from gymnasium import spaces

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.levels import LevelRange


class PolicyMismatchError(MazeConfigError):
    """A policy file was handed an env whose observation or action space differs from the one it was trained on."""


@dataclass(frozen=True)
class TrainedEnv:
    """The env a policy was trained on: its id, kwargs, whether the ego map wrapped it, and the spaces the policy
    saw (Gymnasium's own text of each, e.g. ``Box(0, 4, (7, 7), uint8)``, after the ego map)."""

    env_id: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    ego_map: bool = False
    observation_space: str = ""
    action_space: str = ""

    @classmethod
    def of(cls, env_id: str, kwargs: dict[str, Any], ego_map: bool, observation_space: spaces.Space,
           action_space: spaces.Space) -> "TrainedEnv":
        """Return the record of a policy trained on ``env_id(**kwargs)`` seeing those spaces."""
        return cls(env_id, dict(kwargs), bool(ego_map), str(observation_space), str(action_space))

    @classmethod
    def probe(cls, env_id: str, kwargs: dict[str, Any], ego_map: bool) -> tuple["TrainedEnv", spaces.Space,
                                                                                spaces.Space]:
        """Return the record of ``gym.make(env_id, **kwargs)`` (under the ego map when ``ego_map``) as this version
        makes it, with its observation and action spaces."""
        from .egomap import EgocentricMap

        env = gym.make(env_id, **kwargs)
        if ego_map:
            env = EgocentricMap(env)
        observation_space, action_space = env.observation_space, env.action_space
        env.close()
        return cls.of(env_id, kwargs, ego_map, observation_space, action_space), observation_space, action_space

    @classmethod
    def from_dict(cls, doc: dict[str, Any]) -> "TrainedEnv":
        """Return the record ``to_dict`` wrote."""
        return cls(str(doc["env_id"]), dict(doc.get("kwargs") or {}), bool(doc.get("ego_map", False)),
                   str(doc.get("observation_space", "")), str(doc.get("action_space", "")))

    @property
    def levels(self) -> LevelRange:
        """Return the levels the policy trained on (its kwargs' ``num_levels``/``start_level``; 0 is unlimited)."""
        return LevelRange.of(self.kwargs)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as JSON-ready fields (stored in the policy file), with its training ``levels`` spelt
        out (``num_levels``, ``start_level``, and their description) for readers of the file."""
        levels = self.levels
        return {**asdict(self), "levels": {"num_levels": levels.num_levels, "start_level": levels.start_level,
                                           "description": levels.describe()}}

    def describe(self) -> str:
        """Return one line naming the env and its spaces, e.g. ``Maze-v0 {'rows': 5} (observation ..., action ...)``."""
        ego = ", ego map" if self.ego_map else ""
        return (f"{self.env_id} {self.kwargs}{ego} (observation {self.observation_space}, "
                f"action {self.action_space})")

    def check(self, observation_space: spaces.Space, action_space: spaces.Space | None, *, source: str,
              given: str) -> None:
        """Raise ``PolicyMismatchError`` naming the policy file ``source``, this env and the ``given`` one unless
        the given spaces are the trained ones (``action_space`` None: the caller adapts the actions itself)."""
        seen = str(observation_space)
        acts = None if action_space is None else str(action_space)
        if seen == self.observation_space and (acts is None or acts == self.action_space):
            return
        what = "observation" if seen != self.observation_space else "action"
        raise PolicyMismatchError(
            f"{source}: the policy was trained on {self.describe()}, but {given} gives observation {seen}"
            + (f", action {acts}" if acts is not None else "") + f": the {what} spaces differ; play it on the env "
            "it was trained on", parameter="policy")
