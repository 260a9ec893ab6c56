"""A dead-reckoned egocentric map: memory for the partial view, built from observations and own actions only.

``Maze-PartialObs-v0`` shows a window around the agent and never its coordinates, so a memoryless policy
cannot know where it has been. These wrappers give the policy that memory the way ``FrontierExplorer``
keeps it (``agents.explored.ExploredMaps``): a map in a frame fixed at the episode's start, advanced by dead
reckoning. Dead reckoning is exact from the window alone: a ``(direction, steps)`` action moves until ``steps + 1``
blocks or the first wall, and the straight line in that direction is visible up to and including that wall. (Reaching
the goal also stops a move, but ends the episode.) The observation becomes the map cropped around the agent,
``(2H - 1, 2W - 1)`` codes for an ``H x W`` block grid, so every block of the maze fits wherever the agent stands: 0
free, 1 wall, 2 agent (the centre), 3 goal, 4 not seen yet.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper

from maze_envs.core.codes import MASKED
from maze_envs.envs.metrics import reset_envs

from ..explored import ExploredMaps, steps_seen


class EgocentricMapState:
    """The maps of ``num_envs`` episodes (an ``ExploredMaps`` sized so it never grows): ``reset`` starts some
    sub-envs' maps, ``step`` advances them by their actions, ``observe`` crops."""

    def __init__(self, num_envs: int, shape: tuple[int, int], side: int, action_space: spaces.Space) -> None:
        self.h, self.w = shape
        self.single = isinstance(action_space, spaces.Discrete)
        self.maps = ExploredMaps(num_envs, reach=(2 * self.h + side // 2, 2 * self.w + side // 2))

    def reset(self, envs: np.ndarray, views: np.ndarray) -> None:
        """Start fresh maps for the sub-envs ``envs`` from their first windows ``views[envs]``."""
        self.maps.reset(envs, views)

    def step(self, envs: np.ndarray, actions: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:
        """Advance the sub-envs ``envs`` by their ``actions``, given the windows ``before`` and ``after`` them."""
        actions = np.asarray(actions)[envs]
        if self.single:
            direction, count = actions.reshape(-1).astype(np.int64), np.ones(envs.size, dtype=np.int64)
        else:
            direction, count = actions[:, 0].astype(np.int64), actions[:, 1].astype(np.int64) + 1
        self.maps.move(direction, steps_seen(before[envs], direction, count), envs)
        self.maps.integrate(after[envs], envs)

    def observe(self) -> np.ndarray:
        """Return every sub-env's map cropped around its agent, the agent marked at the centre."""
        return self.maps.crop(self.h - 1, self.w - 1)


def _view(observation: Any) -> np.ndarray:
    return np.asarray(observation["view"] if isinstance(observation, dict) else observation)


def _map_space(shape: tuple[int, int]) -> spaces.Box:
    return spaces.Box(0, MASKED, (2 * shape[0] - 1, 2 * shape[1] - 1), np.uint8)


class EgocentricMapVector(VectorWrapper):
    """Vector form for next-step autoreset envs (the native ``Maze-PartialObs-v0`` vector env): observations
    become the egocentric maps, ``(num_envs, 2H - 1, 2W - 1)`` uint8."""

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        shape = env.unwrapped.shape
        side = _view(env.single_observation_space.sample()).shape[0]
        self.state = EgocentricMapState(self.num_envs, shape, side, env.single_action_space)
        self.single_observation_space = _map_space(shape)
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, self.num_envs)
        self._restart = np.zeros(self.num_envs, dtype=bool)
        self._last: np.ndarray | None = None

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the sub-envs (those of ``options["reset_mask"]`` if given) and their maps; return the maps and info."""
        observation, info = self.env.reset(**kwargs)
        envs = reset_envs(kwargs.get("options"), self.num_envs)
        self._last = _view(observation)
        self.state.reset(envs, self._last)
        self._restart[envs] = False
        return self.state.observe(), info

    def step(self, actions: Any) -> tuple[np.ndarray, Any, Any, Any, dict[str, Any]]:
        """Step the env, advance each map (restart those whose sub-env reset); return the maps."""
        observation, reward, terminated, truncated, info = self.env.step(actions)
        view = _view(observation)
        restarted = np.flatnonzero(self._restart)
        moving = np.flatnonzero(~self._restart)
        self.state.reset(restarted, view)
        self.state.step(moving, actions, self._last, view)
        self._last = view
        self._restart = np.asarray(terminated) | np.asarray(truncated)
        return self.state.observe(), reward, terminated, truncated, info


class EgocentricMap(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Single-env form (``gym.make("Maze-PartialObs-v0", ...)``): observations become the egocentric map."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        shape = env.unwrapped.shape
        side = _view(env.observation_space.sample()).shape[0]
        self.state = EgocentricMapState(1, shape, side, env.action_space)
        self.observation_space = _map_space(shape)
        self._last: np.ndarray | None = None

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset the env and the map; return the map and the env's info."""
        observation, info = self.env.reset(**kwargs)
        self._last = _view(observation)[None]
        self.state.reset(np.arange(1), self._last)
        return self.state.observe()[0], info

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Step the env and advance the map; return the map in place of the window."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        view = _view(observation)[None]
        self.state.step(np.arange(1), np.asarray(action)[None], self._last, view)
        self._last = view
        return self.state.observe()[0], reward, terminated, truncated, info


class EgocentricMapAgent:
    """An agent trained on ``EgocentricMap`` observations, playing an env without the wrapper (an env someone
    else made, such as a benchmark trial's): it keeps the same dead-reckoned map from the raw windows and its own
    actions, and hands ``policy`` the map in place of the window. ``env`` must be a partial-view env of the block
    grid shape the policy was trained on."""

    def __init__(self, policy: Any, env: gym.Env) -> None:
        self.policy = policy
        self.name = getattr(policy, "name", type(policy).__name__)
        side = _view(env.observation_space.sample()).shape[0]
        self.state = EgocentricMapState(1, env.unwrapped.shape, side, env.action_space)
        self.observation_space = _map_space(env.unwrapped.shape)
        self.reset()

    def reset(self) -> None:
        """Forget the map; the next observation starts a new one."""
        self._last: np.ndarray | None = None
        self._action: Any = None
        self.policy.reset()

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """Advance the map by the last action to ``observation``'s window; return the policy's action on the map."""
        view = _view(observation)[None]
        if self._last is None:
            self.state.reset(np.arange(1), view)
        else:
            self.state.step(np.arange(1), np.asarray(self._action)[None], self._last, view)
        self._last = view
        self._action = self.policy.act(self.state.observe()[0], info)
        return self._action
