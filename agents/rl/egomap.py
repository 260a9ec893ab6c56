"""A dead-reckoned egocentric map: memory for the partial view, built from observations and own actions only.

``Maze-PartialObs-v0`` shows a window around the agent and never its coordinates, so a memoryless policy
cannot know where it has been. These wrappers give the policy that memory the way ``FrontierExplorer``
keeps it: a map in a frame fixed at the episode's start, advanced by dead reckoning. Dead reckoning is
exact from the window alone: a ``(direction, steps)`` action moves until ``steps + 1`` blocks or the first
wall, and the straight line in that direction is visible up to and including that wall. (Reaching the goal
also stops a move, but ends the episode.) The observation becomes the map cropped around the agent,
``(2H - 1, 2W - 1)`` codes for an ``H x W`` block grid, so every block of the maze fits wherever the agent
stands: 0 free, 1 wall, 2 agent (the centre), 3 goal, 4 not seen yet.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import VectorEnv, VectorWrapper

from maze_envs.core.maze import MOVES
from maze_envs.envs.rules import AGENT, FREE, MASKED, WALL
from maze_envs.envs.metrics import reset_envs


class EgocentricMapState:
    """The maps of ``num_envs`` episodes: ``reset`` starts some sub-envs' maps, ``step`` advances them, ``observe`` crops."""

    def __init__(self, num_envs: int, shape: tuple[int, int], side: int, action_space: spaces.Space) -> None:
        self.h, self.w = shape
        self.k = side // 2
        self.single = isinstance(action_space, spaces.Discrete)
        self.canvas = np.full((num_envs, 4 * self.h + side, 4 * self.w + side), MASKED, dtype=np.uint8)
        self.origin = np.array([2 * self.h + self.k, 2 * self.w + self.k])
        self.pos = np.tile(self.origin, (num_envs, 1))
        k = self.k
        centre = k * side + k
        run = np.arange(1, k + 1)
        # flat window indices of the blocks 1..k away in each direction
        self.ray = np.stack([centre - run * side, centre + run, centre + run * side, centre - run])
        self.step_of = np.array(MOVES)

    def reset(self, envs: np.ndarray, views: np.ndarray) -> None:
        """Start fresh maps for the sub-envs ``envs`` from their first windows ``views[envs]``."""
        self.canvas[envs] = MASKED
        self.pos[envs] = self.origin
        self._write(envs, views[envs])

    def step(self, envs: np.ndarray, actions: np.ndarray, before: np.ndarray, after: np.ndarray) -> None:
        """Advance the sub-envs ``envs`` by their ``actions``, given the windows ``before`` and ``after`` them."""
        actions = np.asarray(actions)[envs]
        if self.single:
            direction, count = actions.reshape(-1).astype(np.int64), np.ones(envs.size, dtype=np.int64)
        else:
            direction, count = actions[:, 0].astype(np.int64), actions[:, 1].astype(np.int64) + 1
        along = before[envs].reshape(envs.size, -1)[np.arange(envs.size)[:, None], self.ray[direction]]
        reach = np.arange(1, self.k + 1)[None, :] <= count[:, None]
        moved = np.cumprod((along != WALL) & reach, axis=1).sum(axis=1)
        self.pos[envs] += self.step_of[direction] * moved[:, None]
        self._write(envs, after[envs])

    def _write(self, envs: np.ndarray, views: np.ndarray) -> None:
        span = np.arange(-self.k, self.k + 1)
        rows = self.pos[envs, 0, None, None] + span[None, :, None]
        cols = self.pos[envs, 1, None, None] + span[None, None, :]
        where = (envs[:, None, None], rows, cols)
        patch = np.where(views != MASKED, views, self.canvas[where])
        patch[:, self.k, self.k] = FREE
        self.canvas[where] = patch

    def observe(self) -> np.ndarray:
        """Return every sub-env's map cropped around its agent, the agent marked at the centre."""
        n = self.pos.shape[0]
        hh, hw = self.h - 1, self.w - 1
        rows = self.pos[:, 0, None] + np.arange(-hh, hh + 1)[None, :]
        cols = self.pos[:, 1, None] + np.arange(-hw, hw + 1)[None, :]
        out = self.canvas[np.arange(n)[:, None, None], rows[:, :, None], cols[:, None, :]]
        out[:, hh, hw] = AGENT
        return out


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
