"""SB3VecEnv: a Gymnasium next-step-autoreset ``VectorEnv`` (the native maze vector envs) as a stable-baselines3
``VecEnv``.

Stable-baselines3 expects a finished sub-env to be reset on the step it ends, with its last observation in
``infos[i]["terminal_observation"]``; the native envs reset it on the following step instead. The adapter
resets finished sub-envs at once through ``reset(options={"reset_mask": done})`` and fills SB3's info keys:
``terminal_observation``, ``TimeLimit.truncated``, ``episode`` (``r``, ``l``: SB3's episode reward and length
logs) and ``is_success`` (SB3's success-rate log), plus ``episode_metrics`` from ``VectorEpisodeMetrics``.
"""

from __future__ import annotations

from typing import Any, Sequence

import gymnasium as gym
import numpy as np
from gymnasium.vector import VectorEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from maze_envs.envs.metrics import EpisodeMetricsWrapper, VectorEpisodeMetrics

from .egomap import EgocentricMapVector


def _take(observation: Any, i: int) -> Any:
    if isinstance(observation, dict):
        return {k: v[i].copy() for k, v in observation.items()}
    return observation[i].copy()


def _replace(observation: Any, fresh: Any, mask: np.ndarray) -> Any:
    if isinstance(observation, dict):
        return {k: np.where(mask.reshape(-1, *[1] * (v.ndim - 1)), fresh[k], v) for k, v in observation.items()}
    return np.where(mask.reshape(-1, *[1] * (observation.ndim - 1)), fresh, observation)


class SB3VecEnv(VecEnv):
    """A stable-baselines3 ``VecEnv`` over ``env`` (wrapped in ``VectorEpisodeMetrics`` here).

    The vector env is one object, so ``get_attr``/``set_attr``/``env_method`` act on it once and report the
    result for every requested index.
    """

    def __init__(self, env: VectorEnv) -> None:
        self.env = VectorEpisodeMetrics(env)
        super().__init__(env.num_envs, env.single_observation_space, env.single_action_space)
        self._actions: np.ndarray | None = None

    def reset(self) -> VecEnvObs:
        """Reset every sub-env with the seeds given to ``seed()`` (if any); return the observations."""
        seeds = None if all(s is None for s in self._seeds) else list(self._seeds)
        observation, info = self.env.reset(seed=seeds)
        self._reset_seeds()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return observation

    def step_async(self, actions: np.ndarray) -> None:
        """Store the actions for ``step_wait``."""
        self._actions = actions

    def step_wait(self) -> VecEnvStepReturn:
        """Step every sub-env, reset the finished ones; return ``(observations, rewards, dones, infos)``."""
        observation, reward, terminated, truncated, info = self.env.step(self._actions)
        terminated, truncated = np.asarray(terminated), np.asarray(truncated)
        done = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(done).tolist():
            metrics = {k: v[i].item() for k, v in info["episode_metrics"].items()}
            infos[i] = {"terminal_observation": _take(observation, i),
                        "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                        "episode_metrics": metrics, **sb3_episode_info(metrics)}
        if done.any():
            fresh, _ = self.env.reset(options={"reset_mask": done})
            observation = _replace(observation, fresh, done)
        return observation, np.asarray(reward, dtype=np.float32), done, infos

    def close(self) -> None:
        """Close the vector env."""
        self.env.close()

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Return the vector env's attribute ``attr_name`` once per index."""
        value = getattr(self.env.unwrapped, attr_name)
        return [value for _ in self._get_indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set ``attr_name`` on the vector env."""
        setattr(self.env.unwrapped, attr_name, value)

    def env_method(self, method_name: str, *method_args: Any, indices: VecEnvIndices = None,
                   **method_kwargs: Any) -> list[Any]:
        """Call ``method_name`` on the vector env once; return its result once per index."""
        result = getattr(self.env.unwrapped, method_name)(*method_args, **method_kwargs)
        return [result for _ in self._get_indices(indices)]

    def env_is_wrapped(self, wrapper_class: type[gym.Wrapper], indices: VecEnvIndices = None) -> Sequence[bool]:
        """Return False per index: the sub-envs are not separate Gymnasium envs that single-env wrappers could wrap."""
        return [False for _ in self._get_indices(indices)]


def make_sb3_vec_env(env_id: str, num_envs: int, *, ego_map: bool = False, **env_kwargs: Any) -> SB3VecEnv:
    """Return the native vector env of ``env_id`` (under the ego map if asked) as a stable-baselines3 ``VecEnv``."""
    env = gym.make_vec(env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **env_kwargs)
    return SB3VecEnv(EgocentricMapVector(env) if ego_map else env)


def sb3_episode_info(metrics: dict[str, Any]) -> dict[str, Any]:
    """Return SB3's episode-end info keys for a metrics dict: ``episode`` (``r``, ``l``) and ``is_success``."""
    return {"episode": {"r": float(metrics["return"]), "l": int(metrics["steps"])},
            "is_success": bool(metrics["success"])}


class SB3EpisodeInfo(gym.Wrapper):
    """Single-env counterpart of the adapter's infos: measures episodes with ``EpisodeMetricsWrapper`` and adds
    SB3's ``episode`` and ``is_success`` keys at their end (for SB3's ``rollout/`` logs)."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(EpisodeMetricsWrapper(env))

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step the env; at an episode's end add SB3's keys to ``info``."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        if "episode_metrics" in info:
            info.update(sb3_episode_info(info["episode_metrics"]))
        return observation, reward, terminated, truncated, info
