"""Native vector envs: ``num_envs`` mazes stepped together in batched numpy calls.

``gym.make_vec("Maze-v0", num_envs=N, vectorization_mode="vector_entry_point")`` (and the same for
``Maze-PartialObs-v0``) returns these. Sub-env ``i`` behaves exactly like a single env reset with
seed ``seed + i`` and then stepped with the same actions, including next-step autoreset
(``metadata["autoreset_mode"] = NEXT_STEP``: the step after an episode ends resets that sub-env and
returns its first observation with reward 0). Moves, rewards, truncation and reveals are the single
envs' own ``rules`` applied to arrays: the sub-envs' boards lie one after another in one flat array,
and positions are indices into it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from maze_envs.core.batch_dfs import FAST_PLACEMENTS, batch_dfs
from maze_envs.core.codes import AGENT, FREE, GOAL, WALL
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import Grid

from .layouts import positive_int
from .maze import MazeEnv
from .partial import PartialObsMazeEnv
from .rules import explored_codes, idle_steps, look, move, newly_seen, path_length, walk

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
        full_map_limit = isinstance(t, MazeEnv) and t.rules.max_idle_steps is not None
        if t.protocol.name != "default" or t.rules.wall_reward is not None or full_map_limit:
            raise MazeConfigError("the native vector env plays the default protocol without wall_reward or a "
                                  "Maze-v0 max_no_exploration_steps; use vectorization_mode='sync' for "
                                  "protocol='mazebench'")
        # Truncate where a single env under gym.make's TimeLimit would: the earlier of both limits.
        limit = t.max_steps if max_episode_steps is None else min(t.max_steps, int(max_episode_steps))
        self.rules = replace(t.rules, max_steps=limit)
        self.num_envs = num_envs
        self.single_observation_space = t.observation_space
        self.single_action_space = t.action_space
        self.observation_space = batch_space(t.observation_space, num_envs)
        self.action_space = batch_space(t.action_space, num_envs)
        self.shape = t.shape
        self.board = t.board
        self._deltas = np.array(self.board.deltas, dtype=np.int64)
        self._row_base = np.arange(num_envs) * self.board.size
        self._codes = np.full((num_envs, self.board.size), WALL, dtype=np.uint8)
        self._codes_flat = self._codes.reshape(-1)
        self._free = np.zeros((num_envs, self.board.size), dtype=bool)
        self._free_flat = self._free.reshape(-1)
        self._goal_cells = np.zeros((num_envs, 2), dtype=np.int64)
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
        self._goal_cells[envs] = self._blocks(self._goal[envs], envs)
        self._after_reset(envs)

    def _load(self, i: int, grid: Grid) -> None:
        codes = self.board.codes(grid)
        self._codes[i] = codes
        self._free[i] = codes != WALL
        start, goal = self.board.index(grid.start), self.board.index(grid.goal)
        self._pos[i] = self._row_base[i] + start
        self._goal[i] = self._row_base[i] + goal
        self._optimal[i] = path_length(self._free[i].tolist(), self.board.deltas, start, goal)

    def _load_batch(self, envs: np.ndarray) -> None:
        src = self.template.source
        batch = batch_dfs(src.rows, src.cols, [self._rngs[i] for i in envs.tolist()], src.placement)
        p = self.board.pad
        codes = np.pad(batch.blocks, ((0, 0), (p, p), (p, p)), constant_values=WALL)
        codes[np.arange(envs.size), batch.goal[:, 0] + p, batch.goal[:, 1] + p] = GOAL
        codes = codes.reshape(envs.size, -1)
        self._codes[envs] = codes
        self._free[envs] = codes != WALL
        self._pos[envs] = self._row_base[envs] + self.board.index(batch.start.T)
        self._goal[envs] = self._row_base[envs] + self.board.index(batch.goal.T)
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
        reward, terminated, truncated = self.rules.outcome(self._pos, self._goal, self._steps, self._idle_steps())
        terminated &= live
        truncated &= live
        reward[~live] = 0.0
        if restart.size:
            self._reset_envs(restart)
        self._done = terminated | truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def _idle_steps(self) -> Any:
        """Return each sub-env's count of steps in a row that revealed nothing (0 where nothing is hidden)."""
        return 0

    def _move(self, actions: Any, live: np.ndarray) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _observe(self) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def _blocks(self, flat: np.ndarray, envs: np.ndarray) -> np.ndarray:
        """Return the layout blocks ``(len(envs), 2)`` of positions ``flat`` on the boards of ``envs``."""
        return np.stack(self.board.block(flat - self._row_base[envs]), axis=1)

    def _info(self) -> dict[str, Any]:
        info = {"position": self._blocks(self._pos, slice(None)), "goal": self._goal_cells.copy(),
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

    def _obs_index(self, flat: np.ndarray, envs: np.ndarray) -> np.ndarray:
        r, c = self.board.block(flat - self._row_base[envs])
        return r * self.shape[1] + c

    def _after_reset(self, envs: np.ndarray) -> None:
        self._obs[envs] = self.board.inner(self._codes[envs]).reshape(len(envs), -1)
        self._obs_at[envs] = self._obs_index(self._pos[envs], envs)
        self._obs[envs, self._obs_at[envs]] = AGENT

    def _move(self, actions: Any, live: np.ndarray) -> None:
        actions = np.asarray(actions, dtype=np.int64).reshape(self.num_envs)
        if ((actions < 0) | (actions > 3)).any():
            raise ValueError(f"actions must be 0-3 (up, right, down, left), got {actions}")
        self._pos, blocked = move(self._free_flat, self._pos, self._deltas[actions], live)
        self._bumps += blocked
        moved = np.flatnonzero(live ^ blocked)
        self._obs[moved, self._obs_at[moved]] = FREE
        self._obs_at[moved] = self._obs_index(self._pos[moved], moved)
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
        self._offsets = self.board.window_offsets(self.k)
        self._seen = np.zeros_like(self._free)
        self._seen_flat = self._seen.reshape(-1)
        self._no_explore = np.zeros(num_envs, dtype=np.int64)
        self._revealed = np.zeros(num_envs, dtype=np.int64)
        self._moved = np.zeros(num_envs, dtype=np.int64)
        self._window = np.zeros((num_envs, self._offsets.size), dtype=np.uint8)

    def _after_reset(self, envs: np.ndarray) -> None:
        self._seen[envs] = False
        self._no_explore[envs] = 0
        self._revealed[envs] = 0
        self._moved[envs] = 0
        self._look(envs)

    def _look(self, envs: np.ndarray) -> np.ndarray:
        """Compute the windows of ``envs``, mark what they show as seen; return which showed new blocks."""
        window, shown, visible = look(self._codes_flat, self._pos[envs], self._offsets, self.k)
        new = newly_seen(self._seen_flat, shown, visible)
        self._seen_flat[shown[new]] = True
        self._window[envs] = window
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
        self._pos, self._moved[:], blocked = walk(self._free_flat, self._pos, self._deltas[direction], count,
                                                  self._goal, int(count.max()), live)
        self._bumps += blocked
        envs = np.flatnonzero(live)
        self._no_explore[envs] = idle_steps(self._no_explore[envs], self._look(envs))

    def _idle_steps(self) -> np.ndarray:
        return self._no_explore

    def _observe(self) -> Any:
        side = 2 * self.k + 1
        window = self._window.reshape(self.num_envs, side, side).copy()
        if not self.template.explored_map:
            return window
        return {"view": window, "explored": self.board.inner(explored_codes(self._codes, self._seen))}

    def _info(self) -> dict[str, Any]:
        info = super()._info()
        info.update(moved=self._moved.copy(), revealed=self._revealed.copy(), no_exploration_steps=self._no_explore.copy())
        for key in ("moved", "revealed", "no_exploration_steps"):
            info["_" + key] = self._all
        return info
