"""Maze-v0: walk a grid maze to its goal, seeing the whole block grid."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces

from maze_envs.core.codes import AGENT, FREE, GOAL

from ..actions import checked_action, reset_needed
from ..protocol import PROTOCOL_DEFAULT
from .base import MazeEnvBase, check_idle_limit
from .rules import idle_after_visit, move


class MazeEnv(MazeEnvBase):
    """
    ## Description
    Walk from the start to the goal of a grid maze. The maze lives on its block grid: a
    ``rows x cols`` cell maze has ``(2*rows+1) x (2*cols+1)`` blocks, cell ``(r, c)`` at block
    ``(2r+1, 2c+1)``, and every block is a wall or free. One action moves the agent one block, so
    crossing from one cell to the next takes two moves. A new maze is generated at every reset
    unless a layout is fixed (``maze=``, ``mazes_dir=``) or the level set is limited (``num_levels``).

    ## Action Space
    ``Discrete(4)``: 0 up, 1 right, 2 down, 3 left. Moving into a wall leaves the agent in place
    and counts one wall bump (``info["wall_bumps"]``).

    ## Observation Space
    ``Box(0, 3, (H, W), uint8)``, the whole block grid with codes 0 free, 1 wall, 2 agent, 3 goal
    (the start is not marked once the agent has left it). ``H x W`` is the layout's block shape
    (``21 x 21`` for the default 10x10 maze).

    ## Rewards and protocols
    ``goal_reward`` on the step that reaches the goal, ``step_reward`` on every other step, or
    ``wall_reward`` on one that bumps a wall. ``protocol`` sets their defaults and how steps count:

    ==========================  =============================  =====================================
    rule                        ``protocol="default"``         ``protocol="mazebench"`` (MazeBench)
    ==========================  =============================  =====================================
    goal / step / wall reward   +1 / 0 / same as a step        +100 / -0.1 / -1
    after the goal              undefined (reset)              reward 0, nothing moves
    ``info["steps"]``           actions taken                  blocks moved (``info["actions"]``)
    no-exploration limit        none                           20 steps without a newly visited
                                                               block (a failed move counts 2)
    ==========================  =============================  =====================================

    Explicit ``goal_reward``, ``step_reward``, ``wall_reward`` and ``max_no_exploration_steps``
    override the protocol's. Under ``mazebench`` ``info`` also holds ``actions``, ``success`` and
    ``no_exploration_steps``; positions stay block coordinates (MazeBench's ``(row, col)`` is
    ``maze_envs.core.benchmark_frame.frame_of(env.unwrapped.layout).to_benchmark(block)``).

    ## Starting State
    The agent stands on the layout's start block. Generated mazes place start and goal by
    ``placement``: ``"corner"`` (top-left and bottom-right cells), ``"random"`` (two distinct cells)
    or ``"far"`` (the ends of a longest shortest path).

    ## Episode End
    Terminated when the agent reaches the goal. Truncated after ``max_steps`` actions (default
    ``4 * rows * cols`` in cells, so ``rows=20, cols=20`` runs 1600 steps) or after
    ``max_no_exploration_steps`` actions in a row entering no block not visited before (default none; 20
    under ``mazebench``). The id has no registered TimeLimit; ``gym.make(..., max_episode_steps=n)`` adds one
    that caps episodes at ``n`` steps.

    ## Arguments
    ``gym.make("Maze-v0", rows=10, cols=10, algorithm="dfs", loops=0.0, placement="corner",
    maze=None, mazes_dir=None, mazes_size=None, num_levels=0, start_level=0, protocol="default",
    goal_reward=None, step_reward=None, wall_reward=None, max_no_exploration_steps=<protocol's>,
    max_steps=None, render_mode=None, cell_px=16)``

    - ``rows``, ``cols``: maze size in cells; ``algorithm``: ``dfs``, ``wilson``, ``prim`` or ``kruskal``;
      ``loops``: fraction of dead ends braided open.
    - ``maze``: a fixed ``Maze``, ``Grid`` or maze file (our JSON or the benchmark's JSON).
    - ``mazes_dir``: a dataset cycled in order, one layout per reset (benchmark layout
      ``<dir>/<HxW>/maze_<HxW>_<i>.json``; ``mazes_size="9x9"`` picks one size). Smaller layouts are
      padded with walls to the largest.
    - ``num_levels``/``start_level``: draw each maze from the seeds ``start_level`` ...
      ``start_level + num_levels - 1`` (0 = unlimited), for train/test splits of layouts.
    - ``reset(options={"maze": layout})`` plays ``layout`` for one episode.

    - ``render_mode``: ``"rgb_array"``, ``"ansi"`` or ``"human"`` (a window drawn on every ``reset`` and ``step``,
      Gymnasium's convention); ``get_keys_to_action`` (arrow keys, WASD) serves Gymnasium's ``play``.
    - An unknown keyword argument raises ``UnknownArgumentError``, a ``MazeConfigError`` that is also a ``TypeError``
      worded as Python's ("got an unexpected keyword argument 'x'"), so TorchRL's ``GymEnv`` drops its ``frameskip``.
    - Sizes and counts whose estimated cost passes the budget (2 GiB for one array, 1 s of work for one make,
      reset or step on one core; ``maze_envs.envs.costs``), products of them included, raise ``MazeConfigError``
      naming them at make; ``reset(options=...)`` takes None or a mapping (else ``MazeConfigError``).

    ``info`` holds ``position`` and ``goal`` (block coordinates), ``optimal_length`` (BFS moves from
    the start), ``steps`` and ``wall_bumps``. Registered variants (``maze_envs.envs.variants``): ``Maze-Flat-v0``
    (flat float32 one-hot, for MLPs) and ``Maze-Image-v0`` (``H*8 x W*8 x 3`` uint8, for CNNs).

    ## Version History
    - v0: initial version (maze-envs 0.1.0).
    """

    def __init__(self, *, max_no_exploration_steps: int | None | str = PROTOCOL_DEFAULT, **kwargs: Any) -> None:
        super().__init__(1, **kwargs)
        if max_no_exploration_steps == PROTOCOL_DEFAULT:
            max_no_exploration_steps = self.protocol.max_no_exploration_steps
        check_idle_limit(max_no_exploration_steps)
        self.rules = replace(self.rules, max_idle_steps=max_no_exploration_steps)
        # The full map reveals nothing new, so any no-exploration limit here counts newly visited blocks.
        self._counted = (self.protocol.exploration == "visited" or max_no_exploration_steps is not None
                         or self.rules.wall_reward is not None)
        self._stop_after_goal = self.protocol.stop_after_goal
        self.action_space = spaces.Discrete(4)
        self.observation_space = spaces.Box(0, GOAL, self.shape, np.uint8)
        self._obs = np.zeros(self.shape, np.uint8)
        self._obs_flat = self._obs.reshape(-1)
        self._obs_index: int = 0
        w = self.shape[1]
        self._obs_steps = (-w, 1, w, -1)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start an episode; return the observation and info."""
        super().reset(seed=seed)
        self._begin(options)
        self._obs[...] = self.layout.blocks
        self._obs[self.layout.goal] = GOAL
        r, c = self.layout.start
        self._obs_index = r * self.shape[1] + c
        self._obs_flat[self._obs_index] = AGENT
        return self._shown((self._obs.copy(), self._info()))

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Move one block; return ``(observation, reward, terminated, truncated, info)``."""
        if self.layout is None:
            raise reset_needed(type(self).__name__)
        a = action if type(action) is int and 0 <= action < 4 else int(checked_action(self.action_space, action))
        if self._counted:
            return self._shown(self._counted_step(a))
        self.steps += 1
        self._pos, blocked = move(self._free, self._pos, self._deltas[a])
        if blocked:
            self.wall_bumps += 1
        else:
            self._obs_flat[self._obs_index] = FREE
            self._obs_index += self._obs_steps[a]
            self._obs_flat[self._obs_index] = AGENT
        reward, terminated, truncated = self.rules.outcome(self._pos, self._goal, self.steps)
        return self._shown((self._obs.copy(), reward, terminated, truncated, self._info()))

    def _move_agent_mark(self, a: int) -> None:
        self._obs_flat[self._obs_index] = FREE
        self._obs_index += self._obs_steps[a]
        self._obs_flat[self._obs_index] = AGENT

    def _counted_step(self, a: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """``step`` under a protocol or limit that counts: wall rewards, visited blocks, nothing after the goal."""
        if self._stop_after_goal and self._pos == self._goal:
            return self._obs.copy(), 0.0, True, False, self._info()
        self.steps += 1
        before = self._pos
        self._pos, blocked = move(self._free, self._pos, self._deltas[a])
        if blocked:
            self.wall_bumps += 1
        else:
            self._move_agent_mark(a)
            self.cells_moved += 1
        entered_new = self._visit(before, self._deltas[a], int(not blocked))
        self.no_exploration_steps = idle_after_visit(self.no_exploration_steps, entered_new, blocked)
        reward, terminated, truncated = self.rules.outcome(self._pos, self._goal, self.steps,
                                                           self.no_exploration_steps, blocked)
        return self._obs.copy(), reward, terminated, truncated, self._info()
