"""The JAX twin of ``Maze-v0`` and ``Maze-PartialObs-v0``: pure functional envs with gymnax 1.x's interface.

``reset(key, params) -> (obs, state)`` and ``step(key, state, action, params) -> (obs, state, reward, terminated,
truncated, info)`` are pure, so ``jit``, ``vmap`` and ``lax.scan`` take them. ``step`` is gymnax 1.x's
``Environment.step``: an episode that ends resets on the same step (the returned observation and state are the new
episode's; reward, ``terminated``, ``truncated`` and info are the final step's) and ``info`` holds
``"terminated"``, ``"truncated"`` and ``"final_observation"`` (the observation before that reset). ``step_env``
is gymnax's step without the reset, ``(obs, state, reward, terminated, info)``; ``is_truncated(state, params)``
is the time limits (the env's ``max_steps`` and no-exploration limit, which truncate only when the goal was not
reached, as the Gymnasium env's; ``max_episode_steps``, which truncates on its step whatever happened, as
Gymnasium's ``TimeLimit``). The spaces are gymnax's own classes (``maze_envs.jax.spaces``), so gymnax's wrappers
take the twin.

An action outside the action space (out of range, not a whole number, NaN) cannot raise inside a traced step: it
is a no-op step (the agent stays, no wall bump is counted, the step counts towards the limits and pays the step
reward) with ``info["invalid_action"]`` True. The Gymnasium adapter (``gym_adapter``) refuses such actions with
``InvalidActionError`` before stepping, as the Gymnasium env does.

The rules are the Gymnasium envs' (``maze_envs.envs.grid.rules``) on the same flat wall-padded board: the
same moves, wall bumps, rewards, truncation (``max_steps``, the partial env's no-exploration limit),
line-of-sight windows (``visibility.line_table``), observation codes and info fields, step for step
(tests/jax/test_jax_equality.py). Each env is made from its Gymnasium env (``template``), which validates every
argument and reads the layouts. Rewards are ``float32`` and counters ``int32``.

Layouts, by the Gymnasium arguments: ``maze``/``mazes_dir`` are cycled in order, one per episode, as the
Gymnasium env cycles them; ``num_levels > 0`` draws each episode's level uniformly from the levels the
Gymnasium env would make (same generator, same seeds; the draw uses the JAX key); otherwise every episode
gets a new dfs maze made on the device (``layouts.DfsGenerator``), a different random stream from the Gymnasium
env's. Only the ``default`` protocol's rules are twinned (see ``check_twinnable``).
"""

from __future__ import annotations

from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from maze_envs.core.codes import AGENT, MASKED, WALL
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.maze import Grid
from maze_envs.envs.costs import check_env_cost, layout_cost
from maze_envs.envs.grid.base import MazeEnvBase
from maze_envs.envs.grid.maze import MazeEnv
from maze_envs.envs.grid.partial import PartialObsMazeEnv
from maze_envs.envs.grid.visibility import line_table

from . import spaces
from .layouts import DEVICE_PLACEMENTS, DfsGenerator, LayoutTable, layout_table, source_grids

NO_LIMIT = int(np.iinfo(np.int32).max)


class EnvParams(NamedTuple):
    """What a step reads besides the state: the uploaded layouts (None for the on-device generator), the rewards
    and the step limits (``max_idle_steps`` and ``time_limit``, ``max_episode_steps``, ``NO_LIMIT`` when there is
    none)."""

    layouts: LayoutTable | None
    goal_reward: jax.Array
    step_reward: jax.Array
    max_steps: jax.Array
    max_idle_steps: jax.Array
    time_limit: jax.Array


class EnvState(NamedTuple):
    """One episode: the board's ``codes``, flat ``pos``/``goal``, the counters of ``info`` and (partial view) the
    blocks ``seen`` so far. ``episode`` counts the env's episodes (fixed layouts cycle by it); ``pending`` is the
    next episode's maze growing on the device (``layouts.DfsGrowth``; ``()`` for uploaded layouts)."""

    codes: jax.Array
    pos: jax.Array
    goal: jax.Array
    optimal: jax.Array
    steps: jax.Array
    wall_bumps: jax.Array
    episode: jax.Array
    seen: jax.Array
    revealed: jax.Array
    moved: jax.Array
    idle: jax.Array
    pending: Any = ()


def whole_in_range(value: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """Return ``value`` as an int32 in ``0 .. n-1`` (0 where it is not) and whether it was a whole number there
    (NaN, inf, 1.5, -1 and ``n`` are not)."""
    value = jnp.asarray(value)
    if jnp.issubdtype(value.dtype, jnp.integer) or value.dtype == jnp.bool_:
        valid = (value >= 0) & (value < n)
    else:
        valid = jnp.isfinite(value) & (value == jnp.floor(value)) & (value >= 0) & (value < n)
    return jnp.where(valid, value, 0).astype(jnp.int32), valid


def check_twinnable(template: MazeEnvBase) -> None:
    """Raise ``MazeConfigError`` naming the argument when ``template`` uses a rule the twin does not have."""
    protocol = template.protocol
    if protocol.stop_after_goal or protocol.steps_in_cells or protocol.exploration != "revealed":
        raise MazeConfigError("the JAX twin plays the default protocol's rules; protocol must be 'default'",
                              parameter="protocol")
    if template.rules.wall_reward is not None:
        raise MazeConfigError("the JAX twin pays a wall bump like any step; leave wall_reward unset",
                              parameter="wall_reward")
    if isinstance(template, MazeEnv) and template.rules.max_idle_steps is not None:
        raise MazeConfigError("the JAX twin of Maze-v0 has no no-exploration limit; leave max_no_exploration_steps "
                              "unset", parameter="max_no_exploration_steps")
    if template.render_mode is not None:
        raise MazeConfigError("the JAX twin does not render; leave render_mode unset", parameter="render_mode")
    source = template.source
    if source.generated and not source.num_levels:
        if source.algorithm != "dfs" or source.loops or source.placement not in DEVICE_PLACEMENTS:
            raise MazeConfigError(
                f"the on-device generator draws dfs mazes without loops, placement {' or '.join(DEVICE_PLACEMENTS)}; "
                f"for algorithm={source.algorithm!r}, loops={source.loops}, placement={source.placement!r} pass "
                "num_levels (levels made by the host generator, uploaded once)", parameter="algorithm")


class GridEnv:
    """What both twins share: layouts, episode starts, the auto-resetting ``step``, spaces and info."""

    template: MazeEnvBase

    def __init__(self, template: MazeEnvBase, max_episode_steps: int | None = None) -> None:
        check_twinnable(template)
        self.template = template
        self.board = template.board
        self.shape = template.shape
        source = template.source
        self.layout_mode = "cycle" if source.fixed else "levels" if source.num_levels else "generated"
        if self.layout_mode == "levels":  # every level is made on the host, one by one, and uploaded at once
            rows, cols = source.cell_shape
            level = layout_cost(rows * cols, self.board.size, tree=False, generated=True)
            check_env_cost("num_levels with rows/cols (the level set, made once)", level.times(source.num_levels),
                           "make", batch=True)
        self._grids = None if self.layout_mode == "generated" else source_grids(source)
        self.max_steps = template.max_steps if max_episode_steps is None else min(template.max_steps,
                                                                                   max_episode_steps)
        idle = template.rules.max_idle_steps
        self._default_params = EnvParams(
            None if self._grids is None else layout_table(self.board, self._grids),
            jnp.float32(template.goal_reward), jnp.float32(template.step_reward), jnp.int32(template.max_steps),
            jnp.int32(NO_LIMIT if idle is None else idle),
            jnp.int32(NO_LIMIT if max_episode_steps is None else max_episode_steps))
        self._action_space = spaces.from_gymnasium(template.action_space)
        self._observation_space = spaces.from_gymnasium(template.observation_space)
        self.generator = None
        if self._grids is None:
            self.generator = DfsGenerator(self.board, source.rows, source.cols, source.placement)
            self.growth_per_step = -(-self.generator.total_steps // self.shortest_episode())
        p = self.board.pad
        r, c = np.divmod(np.arange(self.board.size), self.board.stride)
        self._block_rows = jnp.asarray(r - p, dtype=jnp.int32)
        self._block_cols = jnp.asarray(c - p, dtype=jnp.int32)
        self._deltas = jnp.asarray(self.board.deltas, dtype=jnp.int32)

    # --- gymnax's interface ----------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """Return the twinned Gymnasium env's class name."""
        return type(self.template).__name__

    @property
    def default_params(self) -> EnvParams:
        """Return the params of the env's arguments (the layout table uploaded once, at construction)."""
        return self._default_params

    @property
    def num_actions(self) -> int:
        """Return the number of directions (4)."""
        return 4

    def action_space(self, params: EnvParams | None = None) -> Any:
        """Return the action space: gymnax's ``Discrete(4)``, or ``MultiDiscrete([4, k])`` for the partial
        ``multi`` mode (a space gymnax has not). Static: it works inside ``jit``."""
        return self._action_space

    def observation_space(self, params: EnvParams | None = None) -> Any:
        """Return the observation space (the Gymnasium env's as a gymnax ``Box`` or ``Dict``). Static: it works
        inside ``jit``."""
        return self._observation_space

    @partial(jax.jit, static_argnames=("self",))
    def reset(self, key: jax.Array, params: EnvParams | None = None) -> tuple[Any, EnvState]:
        """Start an episode; return ``(obs, state)``."""
        return self.reset_env(key, self.default_params if params is None else params)

    @partial(jax.jit, static_argnames=("self",))
    def step(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams | None = None):
        """Step; an episode that ends resets at once (its next episode). Return gymnax 1.x's ``(obs, state,
        reward, terminated, truncated, info)``, ``info`` with ``"final_observation"`` (see the module notes)."""
        params = self.default_params if params is None else params
        # A move draws nothing: the key is the next episode's. Without vmap that episode is only made when one
        # ended; under vmap both branches run and one is picked.
        final_obs, after, reward, terminated, truncated, info = self.transition(key, state, action, params)
        obs, state = jax.lax.cond(terminated | truncated, lambda: self.next_episode(key, params, after),
                                  lambda: (final_obs, after))
        return obs, state, reward, terminated, truncated, {**info, "final_observation": final_obs}

    def transition(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams):
        """Step without resetting; return ``(obs, state, reward, terminated, truncated, info)``, ``info`` the
        Gymnasium env's with ``"terminated"``, ``"truncated"`` and ``"invalid_action"``."""
        obs, after, reward, terminated, info = self.step_env(key, state, action, params)
        truncated = self.is_truncated(after, params)
        return obs, after, reward, terminated, truncated, {**info, "terminated": terminated, "truncated": truncated}

    def is_truncated(self, state: EnvState, params: EnvParams) -> jax.Array:
        """Return whether ``state`` reached a time limit: ``max_steps`` or the no-exploration limit without
        reaching the goal, or ``max_episode_steps`` (``time_limit``) whatever happened."""
        own = (state.steps >= params.max_steps) | (state.idle >= params.max_idle_steps)
        return (own & (state.pos != state.goal)) | (state.steps >= params.time_limit)

    def is_terminal(self, state: EnvState, params: EnvParams) -> jax.Array:
        """Return whether ``state`` reached the goal (gymnax 1.x's terminal condition; time limits are
        ``is_truncated``)."""
        return state.pos == state.goal

    def reset_env(self, key: jax.Array, params: EnvParams) -> tuple[Any, EnvState]:
        """Start the env's first episode; return ``(obs, state)``."""
        if params.layouts is not None:
            return self._from_table(key, params, jnp.int32(0))
        maze_key, next_key = jax.random.split(key)
        return self._begin(*self.generator.draw(maze_key), jnp.int32(0), self.generator.begin(next_key))

    def step_env(self, key: jax.Array, state: EnvState, action: Any, params: EnvParams):
        """Step without resetting (gymnax's ``step_env``); return ``(obs, state, reward, terminated, info)``,
        ``info`` the Gymnasium env's with ``"invalid_action"`` (see the module notes)."""
        direction, count, valid = self._decode(action)
        if self.generator is not None:
            state = state._replace(pending=self._grow(state.pending))
        state, blocked = self._walk(state, direction, jnp.where(valid, count, 0))
        obs, state = self._look(state)
        reached = self.is_terminal(state, params)
        reward = jnp.where(reached, params.goal_reward, params.step_reward)
        return obs, state, reward, reached, {**self.state_info(state), "invalid_action": ~valid}

    def _grow(self, pending: Any) -> Any:
        """Return the next maze after this step's growth: without vmap only while it is not whole (a ``cond``);
        under vmap, where a ``cond`` would run both branches, every step (a finished maze stays as it is)."""
        grow = partial(self.generator.grow, steps=self.growth_per_step)

        @jax.custom_batching.custom_vmap
        def lazily(maze):
            return jax.lax.cond(maze.reached < self.generator.cells, grow, lambda m: m, maze)

        @lazily.def_vmap
        def batched(axis_size, in_batched, maze):
            maze = jax.tree.map(lambda x, b: x if b else jnp.broadcast_to(x, (axis_size, *x.shape)), maze,
                                in_batched[0])
            return jax.vmap(grow)(maze), jax.tree.map(lambda _: True, maze)

        return lazily(pending)

    # --- layouts and episodes --------------------------------------------------------------------------

    def host_layout(self, grid: Grid) -> LayoutTable:
        """Return ``grid`` (padded to this env's shape) as a one-row table, for ``start_on``."""
        return layout_table(self.board, [self.template.source.override(grid)])

    def start_on(self, table: LayoutTable, row: Any = 0, episode: Any = 0,
                 key: jax.Array | None = None) -> tuple[Any, EnvState]:
        """Start an episode on layout ``row`` of ``table``; return ``(obs, state)`` (the Gymnasium env's
        ``reset(options={"maze": ...})``). On generated mazes the next one starts growing from ``key``."""
        pending = ()
        if self.generator is not None:
            pending = self.generator.begin(jax.random.key(0) if key is None else key)
        return self._begin(table.codes[row], table.start[row], table.goal[row], table.optimal[row],
                           jnp.asarray(episode, dtype=jnp.int32), pending)

    def next_episode(self, key: jax.Array, params: EnvParams, state: EnvState) -> tuple[Any, EnvState]:
        """Start the episode after ``state``'s on its layout (the next fixed layout, a drawn level, or the grown
        ``pending`` maze, whose successor starts growing from ``key``); return ``(obs, state)``."""
        if params.layouts is not None:
            return self._from_table(key, params, state.episode + 1)
        return self._begin(*self.generator.finish(state.pending), state.episode + 1, self.generator.begin(key))

    def _from_table(self, key: jax.Array, params: EnvParams, episode: jax.Array) -> tuple[Any, EnvState]:
        count = params.layouts.codes.shape[0]
        row = episode % count if self.layout_mode == "cycle" else jax.random.randint(key, (), 0, count)
        return self.start_on(params.layouts, row, episode)

    def shortest_episode(self) -> int:
        """Return a lower bound of an episode's steps on generated mazes: the step limits and the moves from start
        to goal. The next maze grows ``growth_per_step`` steps a step, so it is whole when the episode ends."""
        source = self.template.source
        cells = 2 * (source.rows - 1 + source.cols - 1) if source.placement == "corner" else 2
        per_step = self.template.k if getattr(self.template, "action_mode", "single") == "multi" else 1
        limits = [self.max_steps, -(-cells // per_step)]
        if self.template.rules.max_idle_steps is not None:
            limits.append(self.template.rules.max_idle_steps)
        return max(1, min(limits))

    def _begin(self, codes, start, goal, optimal, episode, pending=()) -> tuple[Any, EnvState]:
        zero = jnp.int32(0)
        state = EnvState(codes, start.astype(jnp.int32), goal.astype(jnp.int32), optimal.astype(jnp.int32), zero,
                         zero, episode, self._no_seen(), zero, zero, zero, pending)
        obs, state = self._look(state)
        return obs, state

    def _no_seen(self) -> jax.Array:
        return jnp.zeros((0,), dtype=bool)

    def _decode(self, action: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
        """Return the direction, the blocks asked for and whether ``action`` lies in the action space."""
        direction, valid = whole_in_range(jnp.reshape(action, ()), 4)
        return direction, jnp.int32(1), valid

    def _walk(self, state: EnvState, direction: jax.Array, count: jax.Array) -> tuple[EnvState, jax.Array]:
        """Move one block (``rules.move``; none when ``count`` is 0); return the state with steps and bumps counted,
        and whether it bumped."""
        target = state.pos + self._deltas[direction]
        free = state.codes[target] != WALL
        going = count > 0
        pos = jnp.where(free & going, target, state.pos)
        bumped = ~free & going
        return state._replace(pos=pos, steps=state.steps + 1, wall_bumps=state.wall_bumps + bumped,
                              moved=(free & going).astype(jnp.int32)), bumped

    def _look(self, state: EnvState) -> tuple[Any, EnvState]:  # pragma: no cover - abstract
        raise NotImplementedError

    def state_info(self, state: EnvState) -> dict[str, jax.Array]:
        """Return the Gymnasium env's ``info`` of ``state`` (positions as ``(row, col)`` block arrays)."""
        return {"position": jnp.stack([self._block_rows[state.pos], self._block_cols[state.pos]]),
                "goal": jnp.stack([self._block_rows[state.goal], self._block_cols[state.goal]]),
                "optimal_length": state.optimal, "steps": state.steps, "wall_bumps": state.wall_bumps}

    def inner(self, board: jax.Array) -> jax.Array:
        """Return the layout part ``(H, W)`` of a flat board (``Board.inner``)."""
        p = self.board.pad
        return board.reshape(-1, self.board.stride)[p:-p, p:-p]


class MazeTwin(GridEnv):
    """The twin of ``Maze-v0``: the whole block grid, codes 0 free, 1 wall, 2 agent, 3 goal (see ``MazeEnv``)."""

    def __init__(self, template: MazeEnv, max_episode_steps: int | None = None) -> None:
        super().__init__(template, max_episode_steps)

    def _look(self, state: EnvState) -> tuple[jax.Array, EnvState]:
        grid = self.inner(state.codes)
        obs = grid.reshape(-1).at[self._flat_index(state.pos)].set(AGENT).reshape(grid.shape)
        return obs, state

    def _flat_index(self, pos: jax.Array) -> jax.Array:
        return self._block_rows[pos] * self.shape[1] + self._block_cols[pos]


class PartialObsTwin(GridEnv):
    """The twin of ``Maze-PartialObs-v0``: the line-of-sight window of radius ``k`` (see ``PartialObsMazeEnv``),
    ``single`` or ``multi`` actions, and the explored map as a ``Dict`` observation when asked."""

    def __init__(self, template: PartialObsMazeEnv, max_episode_steps: int | None = None) -> None:
        super().__init__(template, max_episode_steps)
        k = self.k = template.k
        self.multi = template.action_mode == "multi"
        self.explored_map = template.explored_map
        side = 2 * k + 1
        table = line_table(k)
        centre = k * side + k
        # Per window block: the blocks strictly between it and the centre (padded with the centre, never a
        # wall), and whether it lies within Manhattan distance k; the gather form of ``window_visibility``.
        between = np.full((side * side, table.between.shape[1]), centre, dtype=np.int32)
        between[table.targets] = table.between
        within = np.zeros(side * side, dtype=bool)
        within[table.targets] = True
        self._between = jnp.asarray(between)
        self._within = jnp.asarray(within)
        self._centre = centre
        self._offsets = jnp.asarray(self.board.window_offsets(k), dtype=jnp.int32)
        self._side = side

    def _no_seen(self) -> jax.Array:
        return jnp.zeros((self.board.size,), dtype=bool)

    def _decode(self, action: Any) -> tuple[jax.Array, jax.Array, jax.Array]:
        if not self.multi:
            return super()._decode(action)
        action = jnp.reshape(action, (2,))
        direction, direction_ok = whole_in_range(action[0], 4)
        blocks, blocks_ok = whole_in_range(action[1], self.k)
        return direction, blocks + 1, direction_ok & blocks_ok

    def _walk(self, state: EnvState, direction: jax.Array, count: jax.Array) -> tuple[EnvState, jax.Array]:
        """Move up to ``count`` blocks, stopping at the first wall (one bump) or on the goal (``rules.walk``)."""
        delta = self._deltas[direction]
        pos, moved, blocked, going = state.pos, jnp.int32(0), jnp.asarray(False), jnp.asarray(True)
        for done in range(self.k if self.multi else 1):
            going = going & (count > done)
            free = state.codes[pos + delta] != WALL
            stepped = going & free
            blocked = blocked | (going & ~free)
            pos = jnp.where(stepped, pos + delta, pos)
            moved = moved + stepped
            going = stepped & (pos != state.goal)
        return state._replace(pos=pos, steps=state.steps + 1, wall_bumps=state.wall_bumps + blocked,
                              moved=moved), blocked

    def _look(self, state: EnvState) -> tuple[Any, EnvState]:
        """Return the window at the agent (``rules.look``) and the state with its blocks marked seen, ``revealed``
        and the no-exploration count updated (``rules.idle_steps``)."""
        shown = state.pos + self._offsets
        around = state.codes[shown]
        walls = around == WALL
        visible = self._within & ~walls[self._between].any(axis=-1)
        window = jnp.where(visible, around, jnp.uint8(MASKED)).at[self._centre].set(AGENT)
        fresh = visible & ~state.seen[shown]
        seen = state.seen.at[shown].max(visible)
        count = fresh.sum(dtype=jnp.int32)
        idle = jnp.where(count > 0, 0, state.idle + 1)
        state = state._replace(seen=seen, revealed=state.revealed + count, idle=idle)
        view = window.reshape(self._side, self._side)
        if not self.explored_map:
            return view, state
        explored = self.inner(jnp.where(seen, state.codes, jnp.uint8(MASKED)))
        return {"explored": explored, "view": view}, state

    def _begin(self, codes, start, goal, optimal, episode, pending=()) -> tuple[Any, EnvState]:
        obs, state = super()._begin(codes, start, goal, optimal, episode, pending)
        return obs, state._replace(idle=jnp.int32(0))

    def state_info(self, state: EnvState) -> dict[str, jax.Array]:
        """Return the Gymnasium env's ``info``: positions, counters, ``moved``, ``revealed`` and
        ``no_exploration_steps``."""
        return {**super().state_info(state), "moved": state.moved, "revealed": state.revealed,
                "no_exploration_steps": state.idle}

