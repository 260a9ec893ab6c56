"""The explored map: what an agent without coordinates has seen of a maze, kept by dead reckoning.

``Maze-PartialObs-v0`` shows an egocentric window of observation codes around the agent and never its
position. An agent that wants memory keeps a map in a frame fixed where its episode started and advances
its own position by the blocks each move covered. ``ExploredMaps`` is that map for ``num`` episodes at once
(one for a single agent, one per sub-env of a vector env); ``FrontierExplorer``, the LLM agents' explored-map
prompt and the RL ego map all keep theirs in it.

A map holds observation codes (``maze_envs.core.codes``): each visible block of every window written over
what was there (the agent's own block as ``FREE``), ``MASKED`` where nothing was seen. The canvas grows
when a position comes near its edge (by at least its size, so growing stays rare), shifting every
position by the same offset; ``reach`` sizes it up front so it never grows.
"""

from __future__ import annotations

import numpy as np

from maze_envs.core.codes import AGENT, FREE, GOAL, MASKED, WALL
from maze_envs.core.maze import MOVES, Cell

_STEPS = np.array(MOVES)


def _envs(envs: np.ndarray | None, num: int) -> np.ndarray:
    return np.arange(num) if envs is None else np.asarray(envs, dtype=np.int64).reshape(-1)


def steps_seen(views: np.ndarray, directions: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Return how many blocks moves of ``counts`` blocks in ``directions`` (0 up, 1 right, 2 down, 3 left) cover,
    read from the windows ``views`` (``(n, side, side)``, the agent at the centre) seen before them: a move
    stops before the first wall, and the window shows the straight line up to and including it."""
    views = np.asarray(views)
    n, side = views.shape[0], views.shape[-1]
    k = side // 2
    centre, run = k * side + k, np.arange(1, k + 1)
    ray = np.stack([centre - run * side, centre + run, centre + run * side, centre - run])
    along = views.reshape(n, -1)[np.arange(n)[:, None], ray[np.asarray(directions, dtype=np.int64)]]
    reach = run[None, :] <= np.asarray(counts, dtype=np.int64)[:, None]
    return np.cumprod((along != WALL) & reach, axis=1).sum(axis=1)


class ExploredMaps:
    """The explored maps of ``num`` episodes (see the module docstring).

    ``reach`` ``(rows, cols)``: blocks of room the canvas starts with on every side of the start (it grows
    when more is needed). ``order``: also keep the order in which blocks were first seen (``discovered``:
    earlier windows first, row-major within a window; -1 where unseen).
    """

    def __init__(self, num: int = 1, *, reach: tuple[int, int] = (0, 0), order: bool = False) -> None:
        self.origin = np.array(reach, dtype=np.int64)
        self.canvas = np.full((num, 2 * reach[0] + 1, 2 * reach[1] + 1), MASKED, dtype=np.uint8)
        self.pos = np.tile(self.origin, (num, 1))
        self.discovered = np.full(self.canvas.shape, -1, dtype=np.int64) if order else None

    def reset(self, envs: np.ndarray | None = None, views: np.ndarray | None = None) -> None:
        """Start the maps of ``envs`` (default: all) afresh at their starts, from their first windows
        ``views[envs]`` when given."""
        envs = _envs(envs, self.pos.shape[0])
        self.canvas[envs] = MASKED
        self.pos[envs] = self.origin
        if self.discovered is not None:
            self.discovered[envs] = -1
        if views is not None:
            self.integrate(np.asarray(views)[envs], envs)

    def move(self, directions: np.ndarray | int, steps: np.ndarray | int, envs: np.ndarray | None = None) -> None:
        """Advance the positions of ``envs`` (default: all) ``steps`` blocks in ``directions`` (0 up, 1 right,
        2 down, 3 left)."""
        envs = _envs(envs, self.pos.shape[0])
        directions = np.broadcast_to(np.asarray(directions, dtype=np.int64), envs.shape)
        steps = np.broadcast_to(np.asarray(steps, dtype=np.int64), envs.shape)
        self.pos[envs] += _STEPS[directions] * steps[:, None]

    def integrate(self, views: np.ndarray, envs: np.ndarray | None = None) -> None:
        """Write the visible blocks of the windows ``views`` (``(len(envs), side, side)``, the agent at the
        centre) into the maps of ``envs`` (default: all) around their positions."""
        envs = _envs(envs, self.pos.shape[0])
        views = np.asarray(views)
        k = views.shape[-1] // 2
        self.fit(k + 1, k + 1)
        span = np.arange(-k, k + 1)
        rows = self.pos[envs, 0, None, None] + span[None, :, None]
        cols = self.pos[envs, 1, None, None] + span[None, None, :]
        where = (envs[:, None, None], rows, cols)
        seen = views != MASKED
        if self.discovered is not None:
            fresh = seen & (self.canvas[where] == MASKED)
            flat = fresh.reshape(envs.size, -1)
            latest = self.discovered[envs].reshape(envs.size, -1).max(axis=1)
            order = (latest[:, None] + np.cumsum(flat, axis=1)).reshape(views.shape)
            self.discovered[where] = np.where(fresh, order, self.discovered[where])
        patch = np.where(seen, views, self.canvas[where])
        patch[:, k, k] = FREE
        self.canvas[where] = patch

    def fit(self, rows: int, cols: int) -> None:
        """Grow the canvas so every position has ``rows`` blocks of room above and below and ``cols`` to each side."""
        h, w = self.canvas.shape[1:]
        low = np.maximum(0, np.array([rows, cols]) - self.pos.min(axis=0))
        high = np.maximum(0, self.pos.max(axis=0) + np.array([rows, cols]) + 1 - np.array([h, w]))
        if not (low.any() or high.any()):
            return
        size = (h, w)
        pad = [(0, 0)] + [
            (int(lo and max(lo, s)), int(hi and max(hi, s))) for lo, hi, s in zip(low, high, size, strict=False)
        ]
        self.canvas = np.pad(self.canvas, pad, constant_values=MASKED)
        if self.discovered is not None:
            self.discovered = np.pad(self.discovered, pad, constant_values=-1)
        shift = np.array([pad[1][0], pad[2][0]])
        self.pos += shift
        self.origin = self.origin + shift

    def crop(self, rows: int, cols: int) -> np.ndarray:
        """Return every map cropped to ``rows`` blocks above and below and ``cols`` to each side of its agent,
        the agent marked ``AGENT`` at the centre: ``(num, 2 * rows + 1, 2 * cols + 1)``."""
        self.fit(rows, cols)
        n = self.pos.shape[0]
        r = self.pos[:, 0, None] + np.arange(-rows, rows + 1)[None, :]
        c = self.pos[:, 1, None] + np.arange(-cols, cols + 1)[None, :]
        out = self.canvas[np.arange(n)[:, None, None], r[:, :, None], c[:, None, :]]
        out[:, rows, cols] = AGENT
        return out

    def position(self, env: int = 0) -> Cell:
        """Return where the agent of map ``env`` stands on the canvas."""
        return (int(self.pos[env, 0]), int(self.pos[env, 1]))

    def displacement(self, env: int = 0) -> Cell:
        """Return how far the agent of map ``env`` stands from its start, ``(rows, cols)``."""
        return (int(self.pos[env, 0] - self.origin[0]), int(self.pos[env, 1] - self.origin[1]))

    def known(self, env: int = 0) -> np.ndarray:
        """Return the canvas blocks of map ``env`` seen so far."""
        return self.canvas[env] != MASKED

    def free(self, env: int = 0) -> np.ndarray:
        """Return the canvas blocks of map ``env`` seen open (not walls)."""
        return (self.canvas[env] != MASKED) & (self.canvas[env] != WALL)

    def goal(self, env: int = 0) -> Cell | None:
        """Return where map ``env`` has seen the goal, or None."""
        found = np.argwhere(self.canvas[env] == GOAL)
        return (int(found[0][0]), int(found[0][1])) if len(found) else None

    def seen(self, env: int = 0) -> tuple[np.ndarray, Cell, Cell]:
        """Return ``(codes, agent, start)`` of map ``env``: the seen blocks' bounding box (with the agent's
        position) and a one-block unknown margin (what lies beyond a seen block may be open), the agent marked,
        and the agent's and the start's positions in that box."""
        known = np.argwhere(self.known(env))
        here = self.pos[env]
        top, left = np.vstack([known, here[None]]).min(axis=0) - 1
        bottom, right = np.vstack([known, here[None]]).max(axis=0) + 2
        codes = self.canvas[env, top:bottom, left:right].copy()
        agent = (int(here[0] - top), int(here[1] - left))
        codes[agent] = AGENT
        return codes, agent, (int(self.origin[0] - top), int(self.origin[1] - left))
