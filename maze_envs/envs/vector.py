"""Native vector envs: ``num_envs`` mazes stepped together in batched numpy calls.

``gym.make_vec("Maze-v0", num_envs=N, vectorization_mode="vector_entry_point")`` (and the same for
``Maze-PartialObs-v0``) returns these. Sub-env ``i`` behaves exactly like a single env reset with
seed ``seed + i`` and then stepped with the same actions, including next-step autoreset
(``metadata["autoreset_mode"] = NEXT_STEP``: the step after an episode ends resets that sub-env and
returns its first observation with reward 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import Grid

from .base import AGENT, FREE, GOAL, MASKED, WALL, flat_path_length, layout_codes
from .batch_dfs import FAST_PLACEMENTS, batch_dfs
from .layouts import positive_int
from .maze import MazeEnv
from .partial import PartialObsMazeEnv
from .visibility import line_table

# Below this many sub-envs resetting at once, per-maze generation beats the lockstep batch.
BATCH_MIN = 24


class _BatchedMazes(VectorEnv):
    """State and resets shared by the batched envs; subclasses define the move and the observation."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}
    template: MazeEnv | PartialObsMazeEnv

    def _setup(self, num_envs: int, max_episode_steps: int | None, kwargs: dict[str, Any]) -> None:
        num_envs = positive_int("num_envs", num_envs)
        if kwargs.get("render_mode") is not None:
            raise MazeConfigError("the native vector env does not render; use vectorization_mode='sync' to render")
        self.template = self._single_class(**kwargs)
        t = self.template
        # Truncate where a single env under gym.make's TimeLimit would: the earlier of both limits.
        self._limit = t.max_steps if max_episode_steps is None else min(t.max_steps, int(max_episode_steps))
        self.num_envs = num_envs
        self.single_observation_space = t.observation_space
        self.single_action_space = t.action_space
        self.observation_space = batch_space(t.observation_space, num_envs)
        self.action_space = batch_space(t.action_space, num_envs)
        self.shape = t.shape
        self._pad = t._pad
        self._stride = t._stride
        n_blocks = (self.shape[0] + 2 * self._pad) * self._stride
        self._deltas = np.array(t._deltas, dtype=np.int64)
        self._rows = np.arange(num_envs)
        self._row_base = self._rows * n_blocks
        self._free = np.zeros((num_envs, n_blocks), dtype=bool)
        self._free_flat = self._free.reshape(-1)
        self._goal_cells = np.zeros((num_envs, 2), dtype=np.int64)
        self._codes = np.full((num_envs, n_blocks), WALL, dtype=np.uint8)
        self._pos = np.zeros(num_envs, dtype=np.int64)
        self._goal = np.zeros(num_envs, dtype=np.int64)
        self._optimal = np.zeros(num_envs, dtype=np.int64)
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._bumps = np.zeros(num_envs, dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=bool)
        self._episodes = [0] * num_envs
        self._rngs = [seeding.np_random(None)[0] for _ in range(num_envs)]
        self._all = np.ones(num_envs, dtype=bool)

    _single_class: type

    # --- resets -----------------------------------------------------------------------------------

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        """Reset the sub-envs (sub-env ``i`` gets seed ``seed + i``, or ``seed[i]``); return observations and info.

        ``options["maze"]`` plays that layout in the reset sub-envs for one episode. ``options["reset_mask"]``
        (a bool array over the sub-envs, as in Gymnasium's vector envs) resets only those sub-envs; the
        others keep their episodes, and the observations and info cover every sub-env.
        """
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise MazeConfigError(f"seed must be an int or a list of {self.num_envs} seeds, got {len(seeds)}")
        envs = np.arange(self.num_envs)
        if options and options.get("reset_mask") is not None:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise MazeConfigError(f"reset_mask must be a bool array of shape ({self.num_envs},), "
                                      f"got {mask.dtype} {mask.shape}")
            envs = np.flatnonzero(mask)
        for i in envs.tolist():
            if seeds[i] is not None or self._episodes[i] == 0:
                self._rngs[i] = seeding.np_random(seeds[i])[0]
        override = self.template.source.override(options["maze"]) if options and options.get("maze") is not None else None
        self._reset_envs(envs, override)
        self._done[envs] = False
        return self._observe(), self._info()

    def _batchable(self, count: int) -> bool:
        src = self.template.source
        return (count >= BATCH_MIN and src.generated and not src.num_levels and src.algorithm == "dfs"
                and not src.loops and src.placement in FAST_PLACEMENTS)

    def _reset_envs(self, envs: np.ndarray, override: Grid | None = None) -> None:
        """Load the next layout of each sub-env in ``envs`` and zero its counters."""
        if override is None and self._batchable(envs.size):
            self._load_batch(envs)
        else:
            for i in envs.tolist():
                grid = override if override is not None else self.template.source.next(self._rngs[i], self._episodes[i])
                self._load(i, grid)
        for i in envs.tolist():
            self._episodes[i] += 1
        self._steps[envs] = 0
        self._bumps[envs] = 0
        self._goal_cells[envs] = self._positions(self._goal[envs])
        self._after_reset(envs)

    def _load(self, i: int, grid: Grid) -> None:
        p = self._pad
        codes = np.pad(layout_codes(grid), p, constant_values=WALL).ravel()
        self._codes[i] = codes
        self._free[i] = codes != WALL
        start, goal = self.template._flat(grid.start), self.template._flat(grid.goal)
        self._pos[i] = start
        self._goal[i] = goal
        self._optimal[i] = flat_path_length(self._free[i].tolist(), self.template._deltas, start, goal)

    def _load_batch(self, envs: np.ndarray) -> None:
        src = self.template.source
        batch = batch_dfs(src.rows, src.cols, [self._rngs[i] for i in envs.tolist()], src.placement)
        p = self._pad
        codes = np.pad(batch.blocks, ((0, 0), (p, p), (p, p)), constant_values=WALL)
        rows = np.arange(envs.size)
        codes[rows, batch.goal[:, 0] + p, batch.goal[:, 1] + p] = GOAL
        codes = codes.reshape(envs.size, -1)
        self._codes[envs] = codes
        self._free[envs] = codes != WALL
        self._pos[envs] = (batch.start[:, 0] + p) * self._stride + batch.start[:, 1] + p
        self._goal[envs] = (batch.goal[:, 0] + p) * self._stride + batch.goal[:, 1] + p
        self._optimal[envs] = batch.optimal_length

    def _after_reset(self, envs: np.ndarray) -> None:
        """Hook: per-episode observation state of the sub-envs in ``envs``."""

    # --- stepping ---------------------------------------------------------------------------------

    def step(self, actions: Any):
        """Step every sub-env (sub-envs whose episode ended last step are reset instead); return the batch."""
        restart = np.flatnonzero(self._done)
        live = ~self._done
        self._move(actions, live)
        self._steps += live
        terminated = (self._pos == self._goal) & live
        truncated = self._truncation() & live & ~terminated
        reward = np.where(terminated, self.template.goal_reward, self.template.step_reward)
        reward[~live] = 0.0
        if restart.size:
            self._reset_envs(restart)
        self._done = terminated | truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def _truncation(self) -> np.ndarray:
        return self._steps >= self._limit

    def _move(self, actions: Any, live: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _observe(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _positions(self, flat: np.ndarray) -> np.ndarray:
        r, c = np.divmod(flat, self._stride)
        return np.stack([r - self._pad, c - self._pad], axis=1)

    def _info(self) -> dict[str, Any]:
        info = {"position": self._positions(self._pos), "goal": self._goal_cells.copy(),
                "optimal_length": self._optimal.copy(), "steps": self._steps.copy(), "wall_bumps": self._bumps.copy()}
        for key in list(info):
            info["_" + key] = self._all
        return info

    def close_extras(self, **kwargs: Any) -> None:
        """Close the template env."""
        self.template.close()


class MazeVectorEnv(_BatchedMazes):
    """``num_envs`` Maze-v0 envs stepped in one batched numpy call (see ``MazeEnv`` for the semantics).

    ``gym.make_vec("Maze-v0", num_envs=N, vectorization_mode="vector_entry_point", **kwargs)`` takes
    every ``Maze-v0`` argument except ``render_mode``. ``info`` holds arrays over the sub-envs.
    """

    _single_class = MazeEnv

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs: Any) -> None:
        self._setup(num_envs, max_episode_steps, kwargs)
        h, w = self.shape
        self._obs = np.zeros((num_envs, h * w), dtype=np.uint8)
        self._obs_at = np.zeros(num_envs, dtype=np.int64)

    def _obs_index(self, flat: np.ndarray) -> np.ndarray:
        r, c = np.divmod(flat, self._stride)
        return (r - 1) * self.shape[1] + (c - 1)

    def _after_reset(self, envs: np.ndarray) -> None:
        p = self._pad
        inner = self._codes[envs].reshape(len(envs), -1, self._stride)[:, p:-p, p:-p]
        self._obs[envs] = inner.reshape(len(envs), -1)
        self._obs_at[envs] = self._obs_index(self._pos[envs])
        self._obs[envs, self._obs_at[envs]] = AGENT

    def _move(self, actions: Any, live: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if ((actions < 0) | (actions > 3)).any():
            raise ValueError(f"actions must be 0-3 (up, right, down, left), got {actions}")
        target = self._pos + self._deltas[actions]
        ok = self._free_flat[self._row_base + target] & live
        self._bumps += live & ~ok
        self._pos = np.where(ok, target, self._pos)
        moved = np.flatnonzero(ok)
        self._obs[moved, self._obs_at[moved]] = FREE
        self._obs_at[moved] = self._obs_index(self._pos[moved])
        self._obs[moved, self._obs_at[moved]] = AGENT

    def _observe(self) -> np.ndarray:
        return self._obs.reshape(self.num_envs, *self.shape).copy()


class PartialObsMazeVectorEnv(_BatchedMazes):
    """``num_envs`` Maze-PartialObs-v0 envs stepped in batched numpy calls (see ``PartialObsMazeEnv``).

    Visibility of every sub-env's window is one gather over the precomputed Bresenham line table.
    """

    _single_class = PartialObsMazeEnv

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None, **kwargs: Any) -> None:
        self._setup(num_envs, max_episode_steps, kwargs)
        t: PartialObsMazeEnv = self.template  # type: ignore[assignment]
        self.k = t.k
        self._table = line_table(self.k)
        self._offsets = t._window_offsets
        self._seen = np.zeros_like(self._free)
        self._seen_flat = self._seen.reshape(-1)
        self._explored = np.full_like(self._codes, MASKED)
        self._explored_flat = self._explored.reshape(-1)
        self._codes_flat = self._codes.reshape(-1)
        self._no_explore = np.zeros(num_envs, dtype=np.int64)
        self._revealed = np.zeros(num_envs, dtype=np.int64)
        self._moved = np.zeros(num_envs, dtype=np.int64)
        self._window = np.zeros((num_envs, self._offsets.size), dtype=np.uint8)

    def _after_reset(self, envs: np.ndarray) -> None:
        self._seen[envs] = False
        self._explored[envs] = MASKED
        self._no_explore[envs] = 0
        self._revealed[envs] = 0
        self._moved[envs] = 0
        self._look(envs)

    def _look(self, envs: np.ndarray) -> np.ndarray:
        """Compute the windows of ``envs``, mark what they show as seen; return which showed new blocks."""
        table = self._table
        flat = (self._row_base[envs] + self._pos[envs])[:, None] + self._offsets[None, :]
        codes = self._codes_flat[flat]
        visible = ~(codes == WALL)[:, table.between].any(axis=-1)
        shown = flat[:, table.targets]
        shown_codes = codes[:, table.targets]
        window = np.full(codes.shape, MASKED, dtype=np.uint8)
        window[:, table.targets] = np.where(visible, shown_codes, MASKED)
        window[:, window.shape[1] // 2] = AGENT
        self._window[envs] = window
        new = visible & ~self._seen_flat[shown]
        self._seen_flat[shown] |= visible
        self._explored_flat[shown] = np.where(visible, shown_codes, self._explored_flat[shown])
        self._revealed[envs] += new.sum(axis=1)
        return new.any(axis=1)

    def _move(self, actions: Any, live: np.ndarray) -> None:
        t: PartialObsMazeEnv = self.template  # type: ignore[assignment]
        actions = np.asarray(actions, dtype=np.int64)
        if t.action_mode == "single":
            direction = actions.reshape(self.num_envs)
            count = np.ones(self.num_envs, dtype=np.int64)
        else:
            actions = actions.reshape(self.num_envs, 2)
            direction, count = actions[:, 0], actions[:, 1] + 1
            if ((count < 1) | (count > self.k)).any():
                raise ValueError(f"steps must be 0-{self.k - 1}, got {actions[:, 1]}")
        if ((direction < 0) | (direction > 3)).any():
            raise ValueError(f"directions must be 0-3 (up, right, down, left), got {direction}")
        delta = self._deltas[direction]
        going = live.copy()
        self._moved[live] = 0
        for j in range(int(count.max(initial=0))):
            going &= count > j
            target = self._pos + delta
            ok = self._free_flat[self._row_base + target] & going
            self._bumps += going & ~ok
            self._pos = np.where(ok, target, self._pos)
            self._moved += ok
            going &= ok & (self._pos != self._goal)
        envs = np.flatnonzero(live)
        new = self._look(envs)
        self._no_explore[envs] = np.where(new, 0, self._no_explore[envs] + 1)

    def _truncation(self) -> np.ndarray:
        limit = self.template.max_no_exploration_steps
        out = self._steps >= self._limit
        return out if limit is None else out | (self._no_explore >= limit)

    def _observe(self) -> Any:
        side = 2 * self.k + 1
        window = self._window.reshape(self.num_envs, side, side).copy()
        if not self.template.explored_map:
            return window
        p = self.k
        explored = self._explored.reshape(self.num_envs, -1, self._stride)[:, p:-p, p:-p].copy()
        return {"view": window, "explored": explored}

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info.update(moved=self._moved.copy(), revealed=self._revealed.copy(), no_exploration_steps=self._no_explore.copy())
        for key in ("moved", "revealed", "no_exploration_steps"):
            info["_" + key] = self._all
        return info
