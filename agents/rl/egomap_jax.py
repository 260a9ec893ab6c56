"""The dead-reckoned egocentric map (``egomap.py``) for the JAX twin of ``Maze-PartialObs-v0``, pure and jittable.

The same map as ``EgocentricMapState`` keeps, computed the same way (tests/agents/rl/test_jax_agents.py checks
them equal step for step): a canvas fixed at the episode's start, sized so it never grows, each window written over it
(the agent's block as free), the position advanced by the blocks a move covered as read from the window seen
before it (``explored.steps_seen``), and the ``(2H - 1, 2W - 1)`` crop around the agent, the agent marked at the
centre. ``EgoMap`` wraps a twin env (gymnax's same-step auto-reset: a new episode starts a new map); its
``info["final_obs"]`` is the map of the step that ended an episode, for bootstrapping truncated episodes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from maze_envs.core.codes import AGENT, FREE, MASKED, WALL
from maze_envs.core.maze import MOVES


class EgoState(NamedTuple):
    """The twin's state, the map canvas, the agent's canvas position and the last window it saw."""

    inner: Any
    canvas: jax.Array
    pos: jax.Array
    view: jax.Array


class EgoMap:
    """A twin env whose observation is the egocentric map of ``egomap.EgocentricMap`` (see the module doc)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.h, self.w = env.shape
        self.side = 2 * env.k + 1
        self.multi = env.multi
        reach = (2 * self.h + self.side // 2, 2 * self.w + self.side // 2)
        self._origin = jnp.asarray(reach, dtype=jnp.int32)
        self._canvas_shape = (2 * reach[0] + 1, 2 * reach[1] + 1)
        k = env.k
        run = np.arange(1, k + 1)
        centre = k * self.side + k
        self._rays = jnp.asarray(np.stack([centre - run * self.side, centre + run, centre + run * self.side,
                                           centre - run]), dtype=jnp.int32)
        self._run = jnp.asarray(run, dtype=jnp.int32)
        self._moves = jnp.asarray(MOVES, dtype=jnp.int32)
        self.shape = (2 * self.h - 1, 2 * self.w - 1)

    @property
    def default_params(self) -> Any:
        """Return the wrapped twin's params."""
        return self.env.default_params

    def action_space(self, params: Any = None) -> Any:
        """Return the twin's action space."""
        return self.env.action_space(params)

    def _integrate(self, canvas: jax.Array, pos: jax.Array, view: jax.Array) -> jax.Array:
        k = self.side // 2
        corner = pos - k
        patch = jax.lax.dynamic_slice(canvas, corner, (self.side, self.side))
        patch = jnp.where(view != MASKED, view, patch).at[k, k].set(FREE)
        return jax.lax.dynamic_update_slice(canvas, patch, corner)

    def _fresh(self, view: jax.Array) -> tuple[jax.Array, jax.Array]:
        canvas = jnp.full(self._canvas_shape, MASKED, dtype=jnp.uint8)
        return self._integrate(canvas, self._origin, view), self._origin

    def observe(self, canvas: jax.Array, pos: jax.Array) -> jax.Array:
        """Return the map cropped around ``pos``, ``(2H - 1, 2W - 1)``, the agent marked at the centre."""
        crop = jax.lax.dynamic_slice(canvas, pos - jnp.array([self.h - 1, self.w - 1]), self.shape)
        return crop.at[self.h - 1, self.w - 1].set(AGENT)

    def steps_seen(self, view: jax.Array, direction: jax.Array, count: jax.Array) -> jax.Array:
        """Return how many blocks a move of ``count`` in ``direction`` covers, read from the window ``view``
        (``explored.steps_seen``)."""
        along = view.reshape(-1)[self._rays[direction]]
        return jnp.cumprod((along != WALL) & (self._run <= count)).sum()

    def reset(self, key: jax.Array, params: Any = None) -> tuple[jax.Array, EgoState]:
        """Reset the twin and start a map from its first window; return ``(map, state)``."""
        view, inner = self.env.reset(key, params)
        canvas, pos = self._fresh(view)
        return self.observe(canvas, pos), EgoState(inner, canvas, pos, view)

    def step(self, key: jax.Array, state: EgoState, action: Any, params: Any = None):
        """Step the twin and advance the map (a new map where an episode ended); return ``(map, state, reward,
        done, info)`` with ``info["final_obs"]`` the map before any reset."""
        env = self.env
        params = env.default_params if params is None else params
        step_key, reset_key = jax.random.split(key)
        final_view, after, reward, terminated, truncated, info = env.transition(step_key, state.inner, action, params)
        done = terminated | truncated
        fresh_view, fresh = env.next_episode(reset_key, params, after)
        inner = jax.tree.map(lambda new, old: jnp.where(done, new, old), fresh, after)
        view = jnp.where(done, fresh_view, final_view)
        action = jnp.asarray(action, dtype=jnp.int32)
        direction, count = (action[0], action[1] + 1) if self.multi else (action.reshape(()), jnp.int32(1))
        pos = state.pos + self._moves[direction] * self.steps_seen(state.view, direction, count)
        canvas = self._integrate(state.canvas, pos, final_view)
        final_obs = self.observe(canvas, pos)
        fresh_canvas, fresh_pos = self._fresh(view)
        canvas = jnp.where(done, fresh_canvas, canvas)
        pos = jnp.where(done, fresh_pos, pos)
        return (self.observe(canvas, pos), EgoState(inner, canvas, pos, view), reward, done,
                {**info, "final_obs": final_obs})
