"""Native vector envs: ``num_envs`` mazes stepped together in batched numpy calls.

``gym.make_vec("Maze-v0", num_envs=N, vectorization_mode="vector_entry_point")`` (and the same for
``Maze-PartialObs-v0``) returns these. Sub-env ``i`` behaves exactly like a single env reset with
seed ``seed + i`` and then stepped with the same actions, including next-step autoreset
(``metadata["autoreset_mode"] = NEXT_STEP``: the step after an episode ends resets that sub-env and
returns its first observation with reward 0). Moves, rewards, truncation and reveals are the single
envs' own ``rules`` applied to arrays: the sub-envs' boards lie one after another in one flat array,
and positions are indices into it. ``autoreset_mode="SameStep"`` or ``"Disabled"`` (a kwarg of ``make_vec``) picks
Gymnasium's other autoreset modes; ``render_mode="rgb_array"`` renders each sub-env's frame.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from maze_envs.core.batch_dfs import LOCKSTEP_MIN, compiled
from maze_envs.core.codes import AGENT, FREE, WALL
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import Grid
from maze_envs.core.validate import positive_int

from ..actions import checked_actions, checked_options, reset_needed
from ..costs import Cost, check_env_cost, look_cost
from .maze import MazeEnv
from .partial import PartialObsMazeEnv
from .rules import explored_codes, idle_steps, look, move, newly_seen, path_length, walk

# Without numba, below this many sub-envs resetting at once, per-maze generation beats the lockstep batch.
BATCH_MIN = LOCKSTEP_MIN


class _KnownLayouts:
    """The boards, flat start/goal and path lengths of recurring layouts, each prepared once.

    Keyed by the identity of the layout source's own ``Grid`` objects (its level cache or dataset list
    keeps them alive, so an id is never reused).
    """

    def __init__(self, board: Any) -> None:
        self.board = board
        self.index: dict[int, int] = {}
        self.codes = np.empty((0, board.size), dtype=np.uint8)
        self.ends = np.empty((0, 3), dtype=np.int64)

    def slots(self, grids: list[Grid]) -> np.ndarray:
        """Return the row of each of ``grids`` in ``codes``/``ends``, preparing the ones not seen before."""
        fresh = list({id(g): g for g in grids if id(g) not in self.index}.values())
        if fresh:
            codes = np.stack([self.board.codes(g) for g in fresh])
            ends = []
            for grid, row in zip(fresh, codes, strict=True):
                start, goal = self.board.index(grid.start), self.board.index(grid.goal)
                ends.append((start, goal, path_length((row != WALL).tolist(), self.board.deltas, start, goal)))
                self.index[id(grid)] = len(self.index)
            self.codes = np.concatenate([self.codes, codes])
            self.ends = np.concatenate([self.ends, np.array(ends, dtype=np.int64)])
        return np.array([self.index[id(g)] for g in grids], dtype=np.int64)


class _BatchedMazes(VectorEnv):
    """State and resets shared by the batched envs; subclasses define the move and the observation."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"], "render_fps": 30}
    template: MazeEnv | PartialObsMazeEnv
    autoreset_mode: AutoresetMode = AutoresetMode.NEXT_STEP
    render_mode: str | None = None

    def _setup(self, num_envs: int, max_episode_steps: int | None, kwargs: dict[str, Any]) -> None:
        num_envs = positive_int(num_envs, name="num_envs")
        self._set_render_mode(kwargs.get("render_mode"))
        self.template = self._single_class(**kwargs)
        t = self.template
        check_env_cost("num_envs with rows/cols", self.batch_cost(num_envs), "reset of every sub-env", batch=True)
        full_map_limit = isinstance(t, MazeEnv) and t.rules.max_idle_steps is not None
        if not t.protocol.plain or t.rules.wall_reward is not None or full_map_limit:
            raise MazeConfigError("the native vector env plays plain step rules (the default protocol's) without "
                                  "wall_reward or a Maze-v0 max_no_exploration_steps; use vectorization_mode='sync' "
                                  "for protocol='mazebench'")
        # Truncate where a single env under gym.make's TimeLimit would: its own limit without reaching the goal, and
        # the TimeLimit's on its step whatever happened (a goal reached then is terminated and truncated).
        self.rules = t.rules
        self.time_limit = positive_int(max_episode_steps, optional=True, parameter="max_episode_steps")
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
        self._starts = np.zeros(num_envs, dtype=np.int64)
        self._optimal = np.zeros(num_envs, dtype=np.int64)
        self._steps = np.zeros(num_envs, dtype=np.int64)
        self._bumps = np.zeros(num_envs, dtype=np.int64)
        self._done = np.zeros(num_envs, dtype=bool)
        self._episodes = [0] * num_envs
        self._known = _KnownLayouts(self.board)
        self._rngs = [seeding.np_random(None)[0] for _ in range(num_envs)]
        self._all = np.ones(num_envs, dtype=bool)
        self._started = False

    _single_class: type

    def batch_cost(self, num_envs: int) -> Cost:
        """Return the estimated cost of resetting ``num_envs`` sub-envs at once (their layouts, in batched arrays)."""
        return self.template.layout_cost().times(num_envs)

    # --- resets -----------------------------------------------------------------------------------

    def reset(self, *, seed: int | list[int | None] | None = None, options: dict[str, Any] | None = None):
        """Reset the sub-envs (sub-env ``i`` gets seed ``seed + i``, or ``seed[i]``); return observations and info.

        ``options["maze"]`` plays that layout in the reset sub-envs for one episode. ``options["reset_mask"]``
        (a bool array over the sub-envs, as in Gymnasium's vector envs) resets only those sub-envs; the
        others keep their episodes, and the observations and info cover every sub-env.
        """
        options = checked_options(options)
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise MazeConfigError(f"seed must be an int or a list of {self.num_envs} seeds, got {len(seeds)}")
        envs = np.arange(self.num_envs)
        if options.get("reset_mask") is not None:
            mask = np.asarray(options["reset_mask"])
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise MazeConfigError(f"reset_mask must be a bool array of shape ({self.num_envs},), "
                                      f"got {mask.dtype} {mask.shape}")
            envs = np.flatnonzero(mask)
        for i in envs.tolist():
            if seeds[i] is not None or self._episodes[i] == 0:
                self._rngs[i] = seeding.np_random(seeds[i])[0]
        override = (
            self.template.source.override(options["maze"]) if options.get("maze") is not None else None
        )
        self._reset_envs(envs, override)
        self._done[envs] = False
        self._started = True
        return self._observe(), self._info()

    def _batchable(self, count: int) -> bool:
        """Return whether ``count`` simultaneous resets take the batched generator (any count once it is compiled)."""
        return self.template.source.tree_batches and (compiled() or count >= BATCH_MIN)

    def _reset_envs(self, envs: np.ndarray, override: Grid | None = None) -> None:
        """Load the next layout of each sub-env in ``envs`` and zero its counters."""
        src = self.template.source
        if override is None and self._batchable(envs.size):
            self._load_batch(envs)
        elif override is None and src.recurring:
            self._load_known(envs, [src.next(self._rngs[i], self._episodes[i]) for i in envs.tolist()])
        else:
            for i in envs.tolist():
                self._load(i, override if override is not None else src.next(self._rngs[i], self._episodes[i]))
        for i in envs.tolist():
            self._episodes[i] += 1
        self._starts[envs] = self._pos[envs]
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

    def _load_known(self, envs: np.ndarray, grids: list[Grid]) -> None:
        """Load recurring layouts (a level set or a dataset): each is prepared on first use, then copied."""
        slots = self._known.slots(grids)
        codes = self._known.codes[slots]
        self._codes[envs] = codes
        self._free[envs] = codes != WALL
        start, goal, optimal = self._known.ends[slots].T
        self._pos[envs] = self._row_base[envs] + start
        self._goal[envs] = self._row_base[envs] + goal
        self._optimal[envs] = optimal

    def _load_batch(self, envs: np.ndarray) -> None:
        """Load freshly generated dfs mazes, boards written straight from their trees."""
        trees = self.template.source.next_trees([self._rngs[i] for i in envs.tolist()])
        codes, start, goal = self.board.tree_codes(trees)
        self._codes[envs] = codes
        self._free[envs] = codes != WALL
        self._pos[envs] = self._row_base[envs] + start
        self._goal[envs] = self._row_base[envs] + goal
        self._optimal[envs] = trees.optimal_length

    def _after_reset(self, envs: np.ndarray) -> None:
        """Hook: per-episode observation state of the sub-envs in ``envs``."""

    # --- stepping ---------------------------------------------------------------------------------

    def step(self, actions: Any):
        """Step every sub-env; return the batch. Sub-envs whose episode ended reset as ``autoreset_mode`` says
        (next step: on this step, instead of moving; same step: at once, see ``_step_same_step``)."""
        if not self._started:
            raise reset_needed(type(self).__name__)
        actions = checked_actions(self.action_space, actions)
        if self.autoreset_mode is not AutoresetMode.NEXT_STEP:
            return self._step_same_step(actions)
        restart = np.flatnonzero(self._done)
        reward, terminated, truncated = self._advance(actions, ~self._done)
        if restart.size:
            self._reset_envs(restart)
        self._done = terminated | truncated
        return self._observe(), reward, terminated, truncated, self._info()

    def _advance(self, actions: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Move the ``live`` sub-envs by their checked ``actions``; return every sub-env's reward, terminated and
        truncated (0 and False where not live)."""
        self._move(actions, live)
        self._steps += live
        reward, terminated, truncated = self.rules.outcome(self._pos, self._goal, self._steps, self._idle_steps())
        if self.time_limit is not None:
            truncated |= self._steps >= self.time_limit
        terminated &= live
        truncated &= live
        reward[~live] = 0.0
        return reward, terminated, truncated

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

    # --- autoreset modes and rendering (Gymnasium's vector API) ---------------------------------------

    def _set_autoreset_mode(self, mode: AutoresetMode | str) -> None:
        """Set ``autoreset_mode`` (an ``AutoresetMode`` or its value: ``"NextStep"``, ``"SameStep"``,
        ``"Disabled"``)."""
        try:
            self.autoreset_mode = AutoresetMode(mode)
        except ValueError:
            names = ", ".join(repr(m.value) for m in AutoresetMode)
            raise MazeConfigError(f"must be an AutoresetMode or one of {names}, got {mode!r}",
                                  parameter="autoreset_mode") from None
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode,
                         "render_modes": list(type(self).metadata["render_modes"])}

    def _set_render_mode(self, mode: str | None) -> None:
        if mode not in (None, "rgb_array"):
            raise MazeConfigError(f"the native vector env renders 'rgb_array' (a tuple of sub-env frames) or "
                                  f"nothing; use vectorization_mode='sync' for {mode!r}", parameter="render_mode")
        self.render_mode = mode

    def _step_same_step(self, actions: Any):
        """``step`` under ``SAME_STEP`` (a sub-env whose episode ends resets at once; its last observation and
        info are ``info["final_obs"]`` and ``info["final_info"]``, masked by ``info["_final_obs"]``, as in
        Gymnasium's ``SyncVectorEnv``) or ``DISABLED`` (ended sub-envs stay put, reward 0, until
        ``reset(options={"reset_mask": ...})``)."""
        reward, terminated, truncated = self._advance(actions, ~self._done)
        self._done = terminated | truncated
        ended = np.flatnonzero(self._done)
        if self.autoreset_mode is AutoresetMode.DISABLED or not ended.size:
            return self._observe(), reward, terminated, truncated, self._info()
        final_obs, final_info = self._observe(), self._info()
        self._reset_envs(ended)
        self._done[ended] = False
        info = self._info()
        last = np.empty(self.num_envs, dtype=object)
        for i in ended.tolist():
            last[i] = {k: v[i] for k, v in final_obs.items()} if isinstance(final_obs, dict) else final_obs[i]
        mask = np.zeros(self.num_envs, dtype=bool)
        mask[ended] = True
        final_info.update({key: mask for key in final_info if key.startswith("_")})
        info.update(final_obs=last, _final_obs=mask, final_info=final_info, _final_info=mask)
        return self._observe(), reward, terminated, truncated, info

    def render(self) -> tuple[np.ndarray, ...] | None:
        """Return each sub-env's RGB frame (as its single env's ``render()``) under ``render_mode="rgb_array"``."""
        if self.render_mode is None:
            return None
        if not all(self._episodes):
            raise gym.error.ResetNeeded("call reset() before render(): a sub-env has no maze yet")
        t = self.template
        frames = []
        for i in range(self.num_envs):
            codes = self.board.inner(self._codes[i])
            start = self.board.block(int(self._starts[i] - self._row_base[i]))
            t.layout = Grid((codes == WALL).astype(np.uint8), start, tuple(map(int, self._goal_cells[i])))
            t._pos = int(self._pos[i] - self._row_base[i])
            if isinstance(t, PartialObsMazeEnv):
                t._codes, t._seen, t._views, t._layout_cache = self._codes[i], self._seen[i], None, {}
            frames.append(t.render_frame())
        return tuple(frames)


class MazeVectorEnv(_BatchedMazes):
    """``num_envs`` Maze-v0 envs stepped in one batched numpy call (see ``MazeEnv`` for the semantics).

    ``gym.make_vec("Maze-v0", num_envs=N, vectorization_mode="vector_entry_point", **kwargs)`` takes
    every ``Maze-v0`` argument (``render_mode`` only ``"rgb_array"``) and ``autoreset_mode``. ``info`` holds
    arrays over the sub-envs.
    """

    _single_class = MazeEnv

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **kwargs: Any) -> None:
        self._set_autoreset_mode(autoreset_mode)
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

    def __init__(self, num_envs: int = 1, max_episode_steps: int | None = None,
                 autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP, **kwargs: Any) -> None:
        self._set_autoreset_mode(autoreset_mode)
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

    def batch_cost(self, num_envs: int) -> Cost:
        """Return the estimated cost of resetting ``num_envs`` sub-envs at once: their layouts and one window each
        (a step looks as much)."""
        return super().batch_cost(num_envs) + look_cost(num_envs, self.template.k)

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
        if t.action_mode == "single":
            direction = actions
            count = np.ones(self.num_envs, dtype=np.int64)
        else:
            direction, count = actions[:, 0], actions[:, 1] + 1
        self._pos, self._moved[:], blocked = walk(self._free_flat, self._pos, self._deltas[direction], count,
                                                  self._goal, int(count.max()), live)
        self._bumps += blocked
        # A sub-env that did not move sees the window it saw (and marked seen) last step: nothing to look at.
        went = np.flatnonzero(self._moved)
        revealed = np.zeros(self.num_envs, dtype=bool)
        revealed[went] = self._look(went)
        self._no_explore = np.where(live, idle_steps(self._no_explore, revealed), self._no_explore)

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
        info.update(
            moved=self._moved.copy(), revealed=self._revealed.copy(), no_exploration_steps=self._no_explore.copy()
        )
        for key in ("moved", "revealed", "no_exploration_steps"):
            info["_" + key] = self._all
        return info
