"""What Maze-v0 and Maze-PartialObs-v0 share: options, episode state on a flat board (``rules.Board``), rendering.

Observation codes (``uint8``, defined in ``rules``) are the same in every maze env: ``FREE``,
``WALL``, ``AGENT``, ``GOAL`` and, where a cell is unseen, ``MASKED``.
"""

from __future__ import annotations

import os
from typing import Any

import gymnasium as gym
import numpy as np

from maze_envs.core.batch_dfs import DfsTrees, compiled
from maze_envs.core.codes import WALL
from maze_envs.core.errors import reject_unknown_arguments
from maze_envs.core.maze import Cell, Grid
from maze_envs.core.render import block_colours, render_text, upscale
from maze_envs.core.solve import shortest_path
from maze_envs.core.validate import choice, number, positive_int

from ..actions import checked_options
from ..costs import Cost, check_env_cost, image_cost, layout_cost
from ..protocol import grid_rules
from ..window import Window
from .keys import keys_to_action
from .layouts import LayoutLike, LayoutSource
from .rules import Board, EpisodeRules, path_length

RENDER_MODES = ("human", "rgb_array", "ansi")


def _number(name: str, value: Any) -> float:
    return float(number(value, name=name))


def check_idle_limit(limit: Any) -> None:
    """Raise ``MazeConfigError`` naming ``max_no_exploration_steps`` unless ``limit`` is a positive integer or None."""
    positive_int(limit, optional=True, name="max_no_exploration_steps")


class MazeEnvBase(gym.Env):
    """Shared machinery of the grid maze envs (not registered itself; see ``MazeEnv`` and ``PartialObsMazeEnv``)."""

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 30}

    def __init__(
        self, pad: int, /, *, rows: int = 10, cols: int = 10, algorithm: str = "dfs", loops: float = 0.0,
        placement: str = "corner", maze: LayoutLike | None = None, mazes_dir: str | os.PathLike | None = None,
        mazes_size: str | None = None, num_levels: int = 0, start_level: int = 0, goal_reward: float | None = None,
        step_reward: float | None = None, wall_reward: float | None = None, protocol: str = "default",
        max_steps: int | None = None, render_mode: str | None = None, cell_px: int = 16, **unknown: Any,
    ) -> None:
        """``pad`` (set by each env, not an argument) is the wall border around the layout in the flat grid.

        Rewards left at None take the ``protocol``'s (``maze_envs.envs.protocol``)."""
        reject_unknown_arguments(type(self).__name__, unknown)
        self.protocol = grid_rules(protocol)
        goal_reward = self.protocol.goal_reward if goal_reward is None else goal_reward
        step_reward = self.protocol.step_reward if step_reward is None else step_reward
        wall_reward = self.protocol.wall_reward if wall_reward is None else _number("wall_reward", wall_reward)
        self.source = LayoutSource(rows, cols, algorithm, loops, placement, maze, mazes_dir, mazes_size,
                                   num_levels, start_level)
        rows_c, cols_c = self.source.cell_shape
        if max_steps is None:
            max_steps = 4 * rows_c * cols_c
        self.rules = EpisodeRules(_number("goal_reward", goal_reward), _number("step_reward", step_reward),
                                  positive_int(max_steps, name="max_steps"), wall_reward=wall_reward)
        choice(render_mode, RENDER_MODES, optional=True, name="render_mode")
        self.cell_px = positive_int(cell_px, name="cell_px")
        self.render_mode = render_mode
        self.shape = self.source.shape
        self._padded_blocks = (self.shape[0] + 2 * pad) * (self.shape[1] + 2 * pad)
        if render_mode in ("rgb_array", "human"):
            self._check_frame_budget()
        check_env_cost("rows/cols" if pad == 1 else "rows/cols with this visibility", self.reset_cost(), "reset")
        self.board = Board(self.shape, pad)
        self._deltas = self.board.deltas
        self._episode = 0
        # Per recurring layout (keyed by the source's own Grid object, kept alive with it): the prepared board,
        # its path length and a dict where subclasses keep more per-layout work (the partial env's windows).
        self._layouts: dict[int, tuple] = {}
        self._window = None
        self.layout: Grid | None = None

    def layout_cost(self) -> Cost:
        """Return the estimated cost of one reset's layout: generating it (unless the layouts are fixed; fast when the
        compiled dfs batch draws it) and preparing its board."""
        source = self.source
        rows, cols = source.cell_shape
        return layout_cost(rows * cols, self._padded_blocks, source.tree_batches and compiled(), source.generated)

    def reset_cost(self) -> Cost:
        """Return the estimated cost of one ``reset`` (``layout_cost`` here; more where an env prepares more)."""
        return self.layout_cost()

    @property
    def goal_reward(self) -> float:
        """Return the reward of the step that reaches the goal."""
        return self.rules.goal_reward

    @property
    def step_reward(self) -> float:
        """Return the reward of every other step."""
        return self.rules.step_reward

    @property
    def wall_reward(self) -> float:
        """Return the reward of a step that bumps a wall (``step_reward`` unless set)."""
        return self.step_reward if self.rules.wall_reward is None else self.rules.wall_reward

    @property
    def max_steps(self) -> int:
        """Return the step count that truncates an episode."""
        return self.rules.max_steps

    # --- episode state -----------------------------------------------------------------------------

    def _begin(self, options: dict[str, Any] | None) -> None:
        """Pick this episode's layout (``options["maze"]`` overrides it) and reset the counters; raises
        ``MazeConfigError`` naming ``options`` unless they are None or a mapping."""
        options = checked_options(options)
        if options.get("maze") is not None:
            self._set_layout(self.source.override(options["maze"]), keep=False)
        elif self.source.tree_batches and compiled():
            self._set_tree_layout(self.source.next_trees([self.np_random]))
        else:
            self._set_layout(self.source.next(self.np_random, self._episode))
        self._episode += 1
        grid = self.layout
        self.steps = 0
        self.wall_bumps = 0
        self.cells_moved = 0
        self.no_exploration_steps = 0
        self._visited_blocks = {self.board.index(grid.start)}

    def _set_layout(self, grid: Grid, keep: bool = True) -> None:
        """Load ``grid``; a layout of the source that recurs (level set, dataset) is prepared once and kept (one
        given to a single ``reset`` is not: the key is the object's ``id``, which a later object may reuse)."""
        self.layout = grid
        keep = keep and self.source.recurring
        known = self._layouts.get(id(grid)) if keep else None
        if known is None:
            codes = self.board.codes(grid)
            free = (codes != WALL).tolist()
            start, goal = self.board.index(grid.start), self.board.index(grid.goal)
            known = (codes, free, start, goal, path_length(free, self._deltas, start, goal), {})
            if keep:
                self._layouts[id(grid)] = known
        self._codes, self._free, self._pos, self._goal, self.optimal_length, self._layout_cache = known

    def _set_tree_layout(self, trees: DfsTrees) -> None:
        """Load the one fresh dfs maze of ``trees``: board from the tree, path length the tree distance (no BFS)."""
        self.layout = self.source.tree_grid(trees, 0)
        codes, start, goal = self.board.tree_codes(trees)
        self._codes = codes[0]
        self._free = (self._codes != WALL).tolist()
        self._pos, self._goal = int(start[0]), int(goal[0])
        self.optimal_length = int(trees.optimal_length[0])
        self._layout_cache = {}

    @property
    def agent_position(self) -> Cell:
        """Return the agent's block ``(row, col)`` (hidden state: not part of the partial env's observation)."""
        return self.board.block(self._pos)

    def _info(self) -> dict[str, Any]:
        info = {"position": self.board.block(self._pos), "goal": self.layout.goal,
                "optimal_length": self.optimal_length, "steps": self.steps, "wall_bumps": self.wall_bumps}
        if self.protocol.steps_in_cells:
            info.update(steps=self.cells_moved, actions=self.steps, success=self._pos == self._goal,
                        no_exploration_steps=self.no_exploration_steps)
        return info

    def _visit(self, start: int, delta: int, moved: int) -> bool:
        """Record the blocks a walk of ``moved`` moves by ``delta`` from ``start`` entered; return whether one was
        new."""
        entered = {start + delta * i for i in range(1, moved + 1)}
        fresh = entered - self._visited_blocks
        self._visited_blocks |= fresh
        return bool(fresh)

    # --- rendering --------------------------------------------------------------------------------

    def _visible_for_render(self) -> np.ndarray | None:
        """Return the mask of blocks a render shows (``None``: all of them)."""
        return None

    def _check_frame_budget(self) -> None:
        """Raise ``MazeConfigError`` naming rows/cols and cell_px when one RGB frame would not fit the budget."""
        check_env_cost("rows/cols and cell_px (the rgb frame)",
                       image_cost(self.shape[0] * self.shape[1] * self.cell_px ** 2), "render")

    def render_frame(self, route: list[Cell] | tuple = ()) -> np.ndarray:
        """Return the RGB frame of the layout with the agent (and optionally a route of blocks), ``cell_px`` per
        block."""
        self._check_frame_budget()
        img = block_colours(self.layout, route=route, agent=self.agent_position, visible=self._visible_for_render())
        return upscale(img, self.cell_px, self.cell_px)

    def shortest_route(self) -> list[Cell]:
        """Return the blocks of a shortest path from the agent to the goal."""
        return shortest_path(self.layout, start=self.agent_position) or []

    def render(self) -> np.ndarray | str | None:
        """Return the frame (``rgb_array``), the text grid (``ansi``), or draw to a pygame window (``human``)."""
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode= to gym.make")
            return None
        if self.render_mode == "ansi":
            return render_text(self.layout, agent=self.agent_position, visible=self._visible_for_render())
        frame = self.render_frame()
        if self.render_mode == "rgb_array":
            return frame
        if self._window is None:
            self._window = Window(f"maze-envs {self.spec.id if self.spec else type(self).__name__}")
        self._window.show(frame, self.metadata["render_fps"])
        return None

    def _shown(self, result: tuple) -> tuple:
        """Return ``result`` (of ``reset`` or ``step``), first drawing the window under ``render_mode="human"``:
        as in Gymnasium's own envs, the human mode renders on every reset and step, without ``render()`` calls."""
        if self.render_mode == "human":
            self.render()
        return result

    def get_keys_to_action(self) -> dict[tuple[int, ...], Any]:
        """Return the key bindings for Gymnasium's ``play``: pygame key code 1-tuples (arrow keys, WASD) -> the
        one-block move. The game is turn-based: ``play(env, wait_on_player=True)`` moves only on a key."""
        return keys_to_action(self.action_space)

    def close(self) -> None:
        """Close the pygame window if one is open."""
        if self._window is not None:
            self._window.close()
            self._window = None
