"""Episode metrics for every registered env, measured the same way for every kind of agent.

``EpisodeMetricsWrapper`` (one env) and ``VectorEpisodeMetrics`` (any Gymnasium ``VectorEnv``, the
native ones included) add ``info["episode_metrics"]`` on the step an episode ends, the way
Gymnasium's ``RecordEpisodeStatistics`` adds ``info["episode"]``. They read only ``info`` and the
step's reward and end flags, so they work under any agent and any observation wrapper.

Metric keys (``METRIC_KEYS``):

- ``success``: ``info["success"]`` when the env gives it (navigation envs), else ``info["correct"]``
  (Maze-Openings-v0), else ``terminated`` (the grid envs terminate only on the goal).
- ``steps``: actions taken; ``return``: summed reward.
- ``optimal_length``: ``info["optimal_length"]`` (BFS moves from the start).
- ``moves``: blocks actually moved, the Manhattan length of the walk through ``info["position"]``
  (a multi-block action of the partial env counts every block it moved).
- ``path_efficiency``: ``optimal_length / moves`` on success and 0 on failure (success weighted,
  like SPL; 1.0 for an optimal walk).
- ``wall_bumps``: ``info["wall_bumps"]``; ``revealed_share``: ``info["revealed"]`` over the
  layout's block count (the partial view's share of the maze seen).
- ``spl`` and ``collisions``: ``info["spl"]`` and ``info["collisions"]`` from the navigation envs.

A metric the env does not provide is ``None`` (single env) or NaN (vector form).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv, VectorWrapper

METRIC_KEYS = ("success", "steps", "return", "optimal_length", "moves", "path_efficiency", "wall_bumps",
               "revealed_share", "spl", "collisions")


def _block_count(env: Any) -> int | None:
    shape = getattr(env.unwrapped, "shape", None)
    return int(np.prod(shape)) if shape is not None and len(shape) == 2 else None


def episode_metrics(terminated: bool, steps: int, total_reward: float, moves: int | None, info: dict[str, Any],
                    blocks: int | None) -> dict[str, Any]:
    """Return the metric dict (``METRIC_KEYS``) of an episode that ended with ``info``."""
    success = bool(info.get("success", info.get("correct", terminated)))
    optimal = info.get("optimal_length")
    optimal = None if optimal is None else int(optimal)
    efficiency = None
    if optimal is not None and moves is not None:
        efficiency = (1.0 if optimal == 0 else optimal / max(moves, optimal)) if success else 0.0
    revealed = info.get("revealed")
    return {
        "success": success, "steps": int(steps), "return": float(total_reward), "optimal_length": optimal,
        "moves": moves, "path_efficiency": efficiency,
        "wall_bumps": None if info.get("wall_bumps") is None else int(info["wall_bumps"]),
        "revealed_share": None if revealed is None or not blocks else float(revealed) / blocks,
        "spl": None if info.get("spl") is None else float(info["spl"]),
        "collisions": None if info.get("collisions") is None else int(info["collisions"]),
    }


class EpisodeMetricsWrapper(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Adds ``info["episode_metrics"]`` (a dict over ``METRIC_KEYS``, see the module doc) when an episode ends.

    Example:
        >>> import gymnasium as gym, maze_envs
        >>> env = EpisodeMetricsWrapper(gym.make("Maze-v0", rows=2, cols=2, max_steps=3))
        >>> _ = env.reset(seed=0)
        >>> for action in (0, 0, 0):
        ...     _, _, terminated, truncated, info = env.step(action)
        >>> truncated, info["episode_metrics"]["steps"], info["episode_metrics"]["success"]
        (True, 3, False)
    """

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)
        gym.Wrapper.__init__(self, env)
        self._blocks = _block_count(env)
        self._start_episode({})

    def _start_episode(self, info: dict[str, Any]) -> None:
        self._steps, self._return = 0, 0.0
        self._position = info.get("position")
        self._moves: int | None = 0 if self._position is not None else None

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the episode counters; return its observation and info."""
        observation, info = self.env.reset(**kwargs)
        self._start_episode(info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; on the episode's last step return ``info`` with ``episode_metrics`` added."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        self._steps += 1
        self._return += float(reward)
        position = info.get("position")
        if self._moves is not None and position is not None:
            self._moves += int(abs(position[0] - self._position[0]) + abs(position[1] - self._position[1]))
            self._position = position
        if terminated or truncated:
            info = dict(info)
            info["episode_metrics"] = episode_metrics(terminated, self._steps, self._return, self._moves, info,
                                                      self._blocks)
        return observation, reward, terminated, truncated, info


def reset_envs(options: dict[str, Any] | None, num_envs: int) -> np.ndarray:
    """Return the indices of the sub-envs a vector ``reset(options=...)`` resets: ``options["reset_mask"]``'s, else
    all."""
    mask = (options or {}).get("reset_mask")
    return np.arange(num_envs) if mask is None else np.flatnonzero(mask)


def _array(info: dict[str, Any], key: str, num_envs: int) -> np.ndarray | None:
    value = info.get(key)
    if value is None:
        return None
    value = np.asarray(value)
    if value.dtype == object:  # Gymnasium's SyncVectorEnv keeps tuples (a position) as an object array of them
        value = np.array(value.tolist())
    return value.reshape(num_envs, *value.shape[1:])


class VectorEpisodeMetrics(VectorWrapper):
    """The vector form of ``EpisodeMetricsWrapper`` for next-step autoreset vector envs.

    On a step where sub-env ``i``'s episode ends, ``info["episode_metrics"]`` holds one float array per
    metric key (NaN where the env gives no value) and ``info["_episode_metrics"][i]`` is True.
    The reset step that follows (next-step autoreset) starts the sub-env's new episode and is not counted.
    """

    def __init__(self, env: VectorEnv) -> None:
        super().__init__(env)
        self._blocks = _block_count(env)
        n = self.num_envs
        self._steps = np.zeros(n, dtype=np.int64)
        self._return = np.zeros(n, dtype=np.float64)
        self._moves = np.zeros(n, dtype=np.int64)
        self._position: np.ndarray | None = None
        self._restart = np.zeros(n, dtype=bool)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs (those of ``options["reset_mask"]`` if given) and their counters; return the batch."""
        observation, info = self.env.reset(**kwargs)
        envs = reset_envs(kwargs.get("options"), self.num_envs)
        self._steps[envs] = 0
        self._return[envs] = 0.0
        self._moves[envs] = 0
        self._restart[envs] = False
        self._position = _array(info, "position", self.num_envs)
        return observation, info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env; ``info["episode_metrics"]`` reports the episodes that ended on this step."""
        observation, reward, terminated, truncated, info = self.env.step(actions)
        counted = ~self._restart
        self._steps[self._restart] = 0
        self._return[self._restart] = 0.0
        self._moves[self._restart] = 0
        self._steps += counted
        self._return += np.where(counted, reward, 0.0)
        position = _array(info, "position", self.num_envs)
        if position is not None and self._position is not None:
            self._moves += np.where(counted, np.abs(position - self._position).sum(axis=1), 0)
        self._position = position
        done = np.asarray(terminated) | np.asarray(truncated)
        if done.any():
            info = dict(info)
            info["episode_metrics"] = self._metrics(np.flatnonzero(done), np.asarray(terminated), info)
            info["_episode_metrics"] = done.copy()
        self._restart = done
        return observation, reward, terminated, truncated, info

    def _metrics(self, ended: np.ndarray, terminated: np.ndarray, info: dict[str, Any]) -> dict[str, np.ndarray]:
        columns = {key: np.full(self.num_envs, np.nan) for key in METRIC_KEYS}
        moves = self._moves if self._position is not None else [None] * self.num_envs
        for i in ended.tolist():
            sub_info = {key: value[i] for key, value in info.items()
                        if not key.startswith("_") and isinstance(value, np.ndarray) and len(value) == self.num_envs}
            row = episode_metrics(bool(terminated[i]), int(self._steps[i]), float(self._return[i]),
                                  None if moves[i] is None else int(moves[i]), sub_info, self._blocks)
            for key, value in row.items():
                if value is not None:
                    columns[key][i] = float(value)
        return columns
