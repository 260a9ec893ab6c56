"""Maze-PartialObs-v0: find the goal of a grid maze seeing only a line-of-sight window around the agent."""

from __future__ import annotations

import operator
from dataclasses import replace
from typing import Any

import numpy as np
from gymnasium import spaces

from maze_envs.core.codes import MASKED, WALL
from maze_envs.core.errors import MazeConfigError, brief_repr
from maze_envs.core.validate import choice, positive_int

from ..actions import checked_action, reset_needed
from ..costs import Cost, check_env_cost, look_cost
from ..protocol import PROTOCOL_DEFAULT, grid_rules
from .base import MazeEnvBase, check_idle_limit
from .rules import explored_codes, idle_after_visit, idle_steps, look, newly_seen, walk

ACTION_MODES = ("multi", "single")


def check_partial_options(visibility: Any, action_mode: Any, max_no_exploration_steps: Any,
                          explored_map: Any = False) -> None:
    """Raise ``MazeConfigError`` naming the argument when a partial-observation option is invalid."""
    positive_int(visibility, name="visibility")
    choice(action_mode, ACTION_MODES, name="action_mode")
    check_idle_limit(max_no_exploration_steps)
    if not isinstance(explored_map, (bool, np.bool_)):
        raise MazeConfigError(f"explored_map must be True or False, got {brief_repr(explored_map)}")


class PartialObsMazeEnv(MazeEnvBase):
    """
    ## Description
    The partial-observe sandbox of the LLM maze benchmark as an env. The agent walks a grid maze
    (on its block grid, like ``Maze-v0``) but sees only the blocks within Manhattan distance
    ``visibility`` (``k``) whose straight Bresenham line from the agent crosses no wall (endpoints
    excluded, so walls themselves are seen). It is never told its own or the goal's coordinates;
    the goal appears only when visible.

    ## Action Space
    ``action_mode="single"`` (default under ``protocol="default"``): ``Discrete(4)``, one block in direction
    0 up, 1 right, 2 down, 3 left. ``action_mode="multi"`` (default under ``protocol="mazebench"``, MazeBench's
    move): ``MultiDiscrete([4, k])``, ``(direction, steps)`` moves ``steps + 1`` blocks in that direction,
    stopping early at the first wall (one wall bump) or on the goal.

    ## Observation Space
    ``Box(0, 4, (2k+1, 2k+1), uint8)``, the egocentric window with codes 0 free, 1 wall, 2 agent
    (always the centre), 3 goal, 4 masked (not visible; blocks outside the grid count as walls).
    With ``explored_map=True`` the observation is a ``Dict`` with ``"view"`` (that window) and
    ``"explored"`` (``Box(0, 4, (H, W), uint8)``: every block seen so far, masked elsewhere; the
    agent is not marked).

    ## Rewards and protocols
    As ``Maze-v0``: ``protocol="default"`` pays +1 at the goal and 0 a step; ``protocol="mazebench"``
    pays +100 at the goal (then nothing), -0.1 a step and -1 for a step that ends at a wall, counts
    ``info["steps"]`` in blocks moved (``info["actions"]`` in actions) and resets the no-exploration
    counter on a newly visited block (an action that fails without moving counts 2) instead of on a
    newly seen one. The prompt's cropped view with ``?`` and the start marked is drawn by the LLM agents.

    ## Starting State
    The agent stands on the layout's start block, placed as in ``Maze-v0``.

    ## Episode End
    Terminated on reaching the goal. Truncated after ``max_steps`` steps (default ``4 * rows * cols``)
    or after ``max_no_exploration_steps`` consecutive steps that reveal no block not seen before
    (default 20; ``None`` disables it). The id has no registered TimeLimit;
    ``gym.make(..., max_episode_steps=n)`` adds one that caps episodes at ``n`` steps.

    ## Arguments
    Every argument of ``Maze-v0`` plus ``visibility=3`` (k >= 1), ``action_mode`` (the protocol's),
    ``max_no_exploration_steps=20`` (under both protocols) and ``explored_map=False``. ``info`` holds the hidden state
    for evaluation (``position``, ``goal``, ``optimal_length``), ``steps``, ``wall_bumps``, ``moved`` (blocks moved by
    the last action), ``revealed`` (blocks seen so far) and ``no_exploration_steps``. Agents that honour the partial
    setting must not read coordinates from it. ``action_mode`` follows the protocol so that stock code for
    discrete actions (CleanRL's ``ppo.py``) trains on the id unchanged, while ``protocol="mazebench"`` keeps
    MazeBench's multi-block move; ``render_mode`` and ``get_keys_to_action`` are ``Maze-v0``'s, and so are its
    checks of unknown arguments, costs and ``reset`` options. Registered variants: ``Maze-PartialObs-Flat-v0``
    (flat float32 one-hot) and ``Maze-PartialObs-Image-v0`` (``(2k+1)*8`` square RGB uint8).

    ## Version History
    - v0: initial version (maze-envs 0.1.0).
    """

    def __init__(self, *, visibility: int = 3, action_mode: str = PROTOCOL_DEFAULT,
                 max_no_exploration_steps: int | None = 20, explored_map: bool = False, **kwargs: Any) -> None:
        if action_mode == PROTOCOL_DEFAULT:
            action_mode = grid_rules(kwargs.get("protocol", "default")).partial_action_mode
        check_partial_options(visibility, action_mode, max_no_exploration_steps, explored_map)
        self.k = int(visibility)
        check_env_cost("visibility", look_cost(1, self.k), "step")
        super().__init__(self.k, **kwargs)
        self.rules = replace(self.rules, max_idle_steps=max_no_exploration_steps)
        self.action_mode = action_mode
        self.explored_map = bool(explored_map)
        self.action_space = spaces.MultiDiscrete([4, self.k]) if action_mode == "multi" else spaces.Discrete(4)
        side = 2 * self.k + 1
        view = spaces.Box(0, MASKED, (side, side), np.uint8)
        if self.explored_map:
            self.observation_space = spaces.Dict(
                {"view": view, "explored": spaces.Box(0, MASKED, self.shape, np.uint8)}
            )
        else:
            self.observation_space = view
        self._window_offsets = self.board.window_offsets(self.k)

    def reset_cost(self) -> Cost:
        """Return the estimated cost of one ``reset``: the layout, then the windows of all its free blocks (about half
        of the blocks), computed in one batch when a layout is first played."""
        return self.layout_cost() + look_cost(self.shape[0] * self.shape[1] // 2, self.k)

    @property
    def max_no_exploration_steps(self) -> int | None:
        """Return how many steps in a row may reveal nothing new before truncation (None: no limit)."""
        return self.rules.max_idle_steps

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict]:
        """Start an episode; return the observation and info."""
        super().reset(seed=seed)
        self._begin(options)
        self._views: tuple | None = self._layout_cache.get("views")
        self._visited: set[int] = set()
        self._seen = np.zeros(self._codes.size, dtype=bool)
        self.revealed = 0
        self.moved = 0
        self._reveal()
        return self._shown((self._observation(), self._partial_info()))

    def _view(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Return the current position's window square and its ``rules.look`` shown/visible rows (see ``_views``)."""
        views = self._views or self._look_everywhere()
        slot = views[0][self._pos]
        return views[1][slot], views[2][slot], views[3][slot]

    def _look_everywhere(self) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
        """Compute (once per layout: visibility is static per maze) every free block's window in one batched
        ``rules.look``; return the board-index-to-row list and the windows, shown and visible rows."""
        free = np.flatnonzero(self._codes != WALL)
        window, shown, visible = look(self._codes, free, self._window_offsets, self.k)
        slot = np.full(self._codes.size, -1, dtype=np.int64)
        slot[free] = np.arange(free.size)
        side = 2 * self.k + 1
        self._views = (slot.tolist(), window.reshape(-1, side, side), shown, visible)
        self._layout_cache["views"] = self._views
        return self._views

    def _reveal(self) -> bool:
        """Mark the current view as seen; return whether it showed a block not seen before."""
        if self._pos in self._visited:  # a block's view is fully seen after its first visit
            return False
        self._visited.add(self._pos)
        _, shown, visible = self._view()
        fresh = shown[newly_seen(self._seen, shown, visible)]
        self._seen[fresh] = True
        self.revealed += int(fresh.size)
        return bool(fresh.size)

    def _observation(self) -> Any:
        window = self._view()[0].copy()
        if not self.explored_map:
            return window
        return {"view": window, "explored": self.board.inner(explored_codes(self._codes, self._seen))}

    def _partial_info(self) -> dict[str, Any]:
        info = self._info()
        info.update(moved=self.moved, revealed=self.revealed, no_exploration_steps=self.no_exploration_steps)
        return info

    def _decode(self, action: Any) -> tuple[int, int]:
        """Return ``(direction, blocks to move)`` of ``action``; ``checked_action`` judges anything unusual."""
        try:
            direction, steps = (operator.index(action), 0) if self.action_mode == "single" else \
                map(operator.index, action)
            usual = 0 <= direction < 4 and 0 <= steps < self.k
        except (TypeError, ValueError):
            usual = False
        if not usual:
            checked_action(self.action_space, action)
            direction, steps = (int(action), 0) if self.action_mode == "single" else (int(action[0]), int(action[1]))
        return direction, steps + 1

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Move up to the requested blocks; return ``(observation, reward, terminated, truncated, info)``."""
        if self.layout is None:
            raise reset_needed(type(self).__name__)
        direction, count = self._decode(action)
        if self.protocol.stop_after_goal and self._pos == self._goal:
            self.moved = 0
            return self._shown((self._observation(), 0.0, True, False, self._partial_info()))
        self.steps += 1
        before, delta = self._pos, self._deltas[direction]
        self._pos, self.moved, blocked = walk(self._free, self._pos, delta, count, self._goal, count)
        self.wall_bumps += blocked
        revealed = self._reveal()
        if self.protocol.exploration == "visited":
            self.cells_moved += self.moved
            self.no_exploration_steps = idle_after_visit(self.no_exploration_steps,
                                                         self._visit(before, delta, self.moved),
                                                         blocked and not self.moved)
        else:
            self.no_exploration_steps = idle_steps(self.no_exploration_steps, revealed)
        reward, terminated, truncated = self.rules.outcome(self._pos, self._goal, self.steps,
                                                           self.no_exploration_steps, blocked)
        return self._shown((self._observation(), reward, terminated, truncated, self._partial_info()))

    def _visible_for_render(self) -> np.ndarray:
        return self.board.inner(self._seen)
