"""Wrappers of the twin: the Flat/Image observation variants and next-step auto-reset.

``FlatObservation`` and ``ImageObservation`` compute what the Gymnasium wrappers of the same names
(``maze_envs.envs.grid.wrappers``) compute, so ``Maze-Flat-v0``, ``Maze-Image-v0``,
``Maze-PartialObs-Flat-v0`` and ``Maze-PartialObs-Image-v0`` have twins. ``NextStepAutoReset`` gives a twin
Gymnasium's next-step auto-reset (the native vector env's default): the step after an episode's end starts
the next episode, with reward 0 and no end, instead of gymnax's reset on the same step.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from maze_envs.core.codes import NUM_CODES, PALETTE

from . import spaces


class Wrapper:
    """A twin wrapper: everything it does not override is the wrapped env's."""

    def __init__(self, env: Any) -> None:
        self._env = env

    def __getattr__(self, name: str) -> Any:
        if name == "_env" or name.startswith("__"):  # copy and pickle probe a bare instance before __init__
            raise AttributeError(name)
        return getattr(self._env, name)


class ObservationWrapper(Wrapper):
    """Maps every observation the wrapped env returns through ``observation``."""

    def observation(self, obs: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, Any]:
        """Return the wrapped env's ``(obs, state)`` with ``obs`` mapped."""
        obs, state = self._env.reset(key, params)
        return self.observation(obs), state

    def reset_env(self, key: jax.Array, params: Any) -> tuple[Any, Any]:
        """Return the wrapped env's ``reset_env`` with ``obs`` mapped."""
        obs, state = self._env.reset_env(key, params)
        return self.observation(obs), state

    def step(self, key: jax.Array, state: Any, action: Any, params: Any = None):
        """Return the wrapped env's ``step`` with ``obs`` and ``info["final_observation"]`` mapped."""
        obs, state, reward, terminated, truncated, info = self._env.step(key, state, action, params)
        info = {**info, "final_observation": self.observation(info["final_observation"])}
        return self.observation(obs), state, reward, terminated, truncated, info

    def step_env(self, key: jax.Array, state: Any, action: Any, params: Any):
        """Return the wrapped env's ``step_env`` with ``obs`` mapped."""
        obs, state, reward, terminated, info = self._env.step_env(key, state, action, params)
        return self.observation(obs), state, reward, terminated, info

    def transition(self, key: jax.Array, state: Any, action: Any, params: Any):
        """Return the wrapped env's ``transition`` with ``obs`` mapped."""
        obs, state, reward, terminated, truncated, info = self._env.transition(key, state, action, params)
        return self.observation(obs), state, reward, terminated, truncated, info

    def next_episode(self, key: jax.Array, params: Any, state: Any) -> tuple[Any, Any]:
        """Return the wrapped env's ``next_episode`` with ``obs`` mapped."""
        obs, state = self._env.next_episode(key, params, state)
        return self.observation(obs), state

    def start_on(self, table: Any, row: Any = 0, episode: Any = 0, key: Any = None) -> tuple[Any, Any]:
        """Return the wrapped env's ``start_on`` with ``obs`` mapped."""
        obs, state = self._env.start_on(table, row, episode, key)
        return self.observation(obs), state


def one_hot_codes(codes: jax.Array) -> jax.Array:
    """Return observation codes as one-hot planes ``(..., NUM_CODES)`` (``OneHotObservation``'s order)."""
    return (codes[..., None] == jnp.arange(NUM_CODES, dtype=codes.dtype)).astype(jnp.uint8)


class FlatObservation(ObservationWrapper):
    """Observation: one flat ``float32`` one-hot vector of every key (sorted), as ``FlatObservation`` has."""

    def __init__(self, env: Any) -> None:
        super().__init__(env)
        inner = env.observation_space(env.default_params)
        boxes = [inner.spaces[k] for k in sorted(inner.spaces)] if isinstance(inner, spaces.Dict) else [inner]
        size = sum(math.prod(b.shape) * NUM_CODES for b in boxes)
        self._space = spaces.Box(0.0, 1.0, (size,), jnp.float32)

    def observation(self, obs: Any) -> jax.Array:
        """Return the flat one-hot vector."""
        parts = [obs[k] for k in sorted(obs)] if isinstance(obs, dict) else [obs]
        return jnp.concatenate([one_hot_codes(p).reshape(-1) for p in parts]).astype(jnp.float32)

    def observation_space(self, params: Any = None) -> spaces.Box:
        """Return ``Box(0, 1, (size,), float32)`` (static: it works inside ``jit``)."""
        return self._space


class ImageObservation(ObservationWrapper):
    """Observation: the RGB picture of the codes, ``px`` pixels a block (of ``"view"`` for a Dict), as
    ``RGBImageObservation`` draws it."""

    def __init__(self, env: Any, px: int = 8) -> None:
        super().__init__(env)
        self.px = px
        self._palette = jnp.asarray(PALETTE)
        inner = env.observation_space(env.default_params)
        h, w = (inner.spaces["view"] if isinstance(inner, spaces.Dict) else inner).shape
        self._space = spaces.Box(0, 255, (h * px, w * px, 3), jnp.uint8)

    def observation(self, obs: Any) -> jax.Array:
        """Return the ``(H*px, W*px, 3)`` uint8 image."""
        codes = obs["view"] if isinstance(obs, dict) else obs
        image = self._palette[codes]
        return jnp.repeat(jnp.repeat(image, self.px, axis=0), self.px, axis=1)

    def observation_space(self, params: Any = None) -> spaces.Box:
        """Return ``Box(0, 255, (H*px, W*px, 3), uint8)`` (static: it works inside ``jit``)."""
        return self._space


class NextStepState(NamedTuple):
    """The wrapped env's state and whether its episode ended on the last step."""

    inner: Any
    ended: jax.Array


class NextStepAutoReset(Wrapper):
    """Gymnasium's next-step auto-reset over a twin: on the step after an episode ends, the env starts its next
    episode (the observation and info of that reset, reward 0, neither terminated nor truncated) and the action
    is ignored. ``info`` adds ``"reset"`` (True on such a step)."""

    def reset(self, key: jax.Array, params: Any = None) -> tuple[Any, NextStepState]:
        """Start the first episode; return ``(obs, state)``."""
        obs, state = self._env.reset(key, params)
        return obs, NextStepState(state, jnp.asarray(False))

    def step(self, key: jax.Array, state: NextStepState, action: Any, params: Any = None):
        """Step, or start the next episode if the last step ended one; return ``(obs, state, reward, terminated,
        truncated, info)``."""
        env = self._env
        params = env.default_params if params is None else params
        step_key, reset_key = jax.random.split(key)
        obs, after, reward, terminated, truncated, info = env.transition(step_key, state.inner, action, params)
        fresh_obs, fresh = env.next_episode(reset_key, params, after)
        no = jnp.asarray(False)
        fresh_info = {**env.state_info(fresh), "terminated": no, "truncated": no, "invalid_action": no}
        ended = state.ended
        pick = lambda new, old: jnp.where(ended, new, old)  # noqa: E731
        inner = jax.tree.map(pick, fresh, after)
        obs = jax.tree.map(pick, fresh_obs, obs)
        info = {**jax.tree.map(pick, fresh_info, info), "reset": ended}
        terminated, truncated = terminated & ~ended, truncated & ~ended
        reward = jnp.where(ended, jnp.zeros_like(reward), reward)
        return obs, NextStepState(inner, terminated | truncated), reward, terminated, truncated, info
