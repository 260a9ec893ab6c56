"""A Gymnasium ``VectorEnv`` over the JAX twin, so one rollout loop drives the twin or the native vector env.

``JaxVectorEnv("Maze-PartialObs-v0", num_envs=64, rows=5, cols=5)`` takes the twin's ids and the Gymnasium
id's arguments and steps ``num_envs`` twins in one jitted ``vmap`` call. Its observations, rewards, ends and
infos have the native vector env's (``maze_envs.envs.grid.vector``) shapes and dtypes (numpy arrays, int64
counters, float64 rewards, ``_key`` masks), and ``autoreset_mode`` is Gymnasium's: ``NextStep`` (default, as the
native env: the step after an end resets that sub-env, reward 0) or ``SameStep`` (the ended sub-env resets at
once; its last observation and info are ``info["final_obs"]`` and ``info["final_info"]``). Seeds pick JAX keys:
``reset(seed=s)`` gives the same episodes every time, but not the native env's generated mazes (see
``maze_envs.jax.grid`` for which layouts are the same).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.validate import choice, positive_int
from maze_envs.envs.actions import checked_actions, reset_needed

from .registry import make
from .spaces import to_gymnasium
from .wrappers import NextStepAutoReset

MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def to_numpy(tree: Any) -> Any:
    """Return a pytree of JAX arrays as numpy arrays (integers as int64, floats of rewards as they are)."""
    def convert(x: Any) -> np.ndarray:
        x = np.asarray(x)
        return x.astype(np.int64) if x.dtype.kind in "iu" and x.dtype != np.uint8 else x

    return jax.tree.map(convert, tree)


class JaxVectorEnv(VectorEnv):
    """``num_envs`` twins of ``env_id`` as a Gymnasium vector env (see the module docstring).

    Example:
        >>> from maze_envs.jax.gym_adapter import JaxVectorEnv
        >>> envs = JaxVectorEnv("Maze-PartialObs-v0", num_envs=4, rows=5, cols=5)
        >>> obs, info = envs.reset(seed=0)
        >>> obs.shape, info["steps"].tolist()
        ((4, 7, 7), [0, 0, 0, 0])
        >>> obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
        >>> reward.dtype.name, info["steps"].tolist()
        ('float64', [1, 1, 1, 1])

    Change log:
        * v0.1.0 - Initially added
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, env_id: str, num_envs: int = 1, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 max_episode_steps: int | None = None, **kwargs: Any) -> None:
        try:
            mode = AutoresetMode(autoreset_mode)
        except ValueError:
            mode = None
        if mode not in MODES:
            choice(autoreset_mode, [m.value for m in MODES], parameter="autoreset_mode")
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.num_envs = positive_int(num_envs, name="num_envs")
        self.twin, self.params = make(env_id, max_episode_steps, **kwargs)
        self.single_observation_space = to_gymnasium(self.twin.observation_space(self.params))
        self.single_action_space = to_gymnasium(self.twin.action_space(self.params))
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.shape = self.twin.shape
        stepper = NextStepAutoReset(self.twin) if mode is AutoresetMode.NEXT_STEP else self.twin
        self._stepper = stepper
        batch = (0, None)
        self._reset = jax.jit(jax.vmap(stepper.reset, in_axes=batch))
        self._step = jax.jit(jax.vmap(self._next_step if mode is AutoresetMode.NEXT_STEP else self._same_step,
                                      in_axes=(0, 0, 0, None)))
        self._key = jax.random.key(0)
        self._state = None

    def _next_step(self, key: jax.Array, state: Any, action: Any, params: Any):
        obs, state, reward, _, _, info = self._stepper.step(key, state, action, params)
        return obs, state, reward, info

    def _same_step(self, key: jax.Array, state: Any, action: Any, params: Any):
        env = self.twin
        step_key, reset_key = jax.random.split(key)
        final_obs, after, reward, terminated, truncated, final_info = env.transition(step_key, state, action, params)
        done = terminated | truncated
        fresh_obs, fresh = env.next_episode(reset_key, params, after)
        pick = lambda new, old: jnp.where(done, new, old)  # noqa: E731
        state = jax.tree.map(pick, fresh, after)
        obs = jax.tree.map(pick, fresh_obs, final_obs)
        info = {**jax.tree.map(pick, env.state_info(fresh), env.state_info(after)),
                "terminated": final_info["terminated"], "truncated": final_info["truncated"]}
        return obs, state, reward, {**info, "final_obs": final_obs, "final_info": final_info}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start every sub-env's first episode (keys from ``seed``, else from the last key); return the
        observations and info. ``options`` is not supported (no ``reset_mask`` or ``maze``)."""
        if options:
            raise MazeConfigError(f"the JAX vector env takes no reset options, got {sorted(options)}",
                                  parameter="options")
        if seed is not None:
            self._key = jax.random.key(int(seed))
        self._key, sub = jax.random.split(self._key)
        obs, self._state = self._reset(jax.random.split(sub, self.num_envs), self.params)
        inner = self._state.inner if isinstance(self._stepper, NextStepAutoReset) else self._state
        return to_numpy(obs), self._masked(to_numpy(jax.vmap(self.twin.state_info)(inner)))

    def step(self, actions: Any):
        """Step every sub-env; return ``(observations, rewards, terminated, truncated, info)`` as numpy arrays."""
        if self._state is None:
            raise reset_needed(type(self).__name__)
        actions = checked_actions(self.action_space, actions)
        self._key, sub = jax.random.split(self._key)
        obs, self._state, reward, info = self._step(jax.random.split(sub, self.num_envs), self._state,
                                                    jnp.asarray(actions, dtype=jnp.int32), self.params)
        info = to_numpy(info)
        terminated, truncated = info.pop("terminated"), info.pop("truncated")
        info.pop("reset", None)
        info.pop("invalid_action", None)  # checked_actions refused every action outside the space
        final_obs, final_info = info.pop("final_obs", None), info.pop("final_info", None)
        info = self._masked(info)
        if final_info is not None:
            ended = terminated | truncated
            if ended.any():
                last = np.empty(self.num_envs, dtype=object)
                for i in np.flatnonzero(ended).tolist():
                    last[i] = jax.tree.map(lambda x, i=i: x[i], final_obs)
                final_info = self._masked({k: v for k, v in final_info.items()
                                           if k not in ("terminated", "truncated", "invalid_action")}, ended)
                info.update(final_obs=last, _final_obs=ended, final_info=final_info, _final_info=ended)
        return to_numpy(obs), np.asarray(reward, dtype=np.float64), terminated, truncated, info

    def _masked(self, info: dict[str, np.ndarray], mask: np.ndarray | None = None) -> dict[str, np.ndarray]:
        mask = np.ones(self.num_envs, dtype=bool) if mask is None else mask
        return {**info, **{"_" + key: mask for key in info}}
