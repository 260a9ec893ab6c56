"""Where the twin's layouts come from: a table uploaded once (fixed layouts, datasets, level sets) or an on-device
generator.

A ``LayoutTable`` holds layouts as the Gymnasium envs' flat wall-padded boards (``maze_envs.envs.grid.rules.Board``):
their codes, flat start and goal and BFS path length, one row per layout. The layouts are the Gymnasium env's own:
``num_levels``/``start_level`` levels are made by the same generator from the same seeds
(``LayoutSource.level_layout``), fixed layouts and datasets are read and padded as that env reads them.

``DfsGenerator`` draws a fresh depth-first-search maze on the device, for unlimited levels without a host round trip.
Its mazes come from JAX's random keys, so they form a different random stream from the Gymnasium env's numpy
generator (same algorithm and placements, other mazes).
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from maze_envs.core.codes import FREE, GOAL, WALL
from maze_envs.core.generators import lattice_neighbours
from maze_envs.core.maze import Grid
from maze_envs.envs.grid.layouts import LayoutSource
from maze_envs.envs.grid.rules import Board, path_length

DEVICE_PLACEMENTS = ("corner", "random")


class LayoutTable(NamedTuple):
    """Layouts as rows of device arrays: ``codes`` ``(L, size)`` uint8 boards, ``start``, ``goal`` (flat board
    indices) and ``optimal`` (BFS moves from start to goal), each ``(L,)`` int32."""

    codes: jax.Array
    start: jax.Array
    goal: jax.Array
    optimal: jax.Array


def layout_table(board: Board, grids: list[Grid]) -> LayoutTable:
    """Return the table of ``grids`` on ``board``: codes, ends and path lengths as the Gymnasium envs compute them."""
    codes = np.stack([board.codes(g) for g in grids])
    start = np.array([board.index(g.start) for g in grids], dtype=np.int32)
    goal = np.array([board.index(g.goal) for g in grids], dtype=np.int32)
    optimal = np.array([path_length((row != WALL).tolist(), board.deltas, int(s), int(t))
                        for row, s, t in zip(codes, start, goal, strict=True)], dtype=np.int32)
    return LayoutTable(jnp.asarray(codes, dtype=jnp.uint8), jnp.asarray(start), jnp.asarray(goal),
                       jnp.asarray(optimal))


def source_grids(source: LayoutSource) -> list[Grid]:
    """Return the layouts a non-generating ``source`` plays: its fixed layouts or dataset in order, or its levels
    ``start_level .. start_level + num_levels - 1`` in seed order."""
    if source.fixed:
        return list(source.fixed)
    return [source.level_layout(source.start_level + i) for i in range(source.num_levels)]


# Every order of the four directions; a cell's order is picked by a hash of the maze seed and the cell.
DIRECTION_ORDERS = np.array(list(itertools.permutations(range(4))), dtype=np.int32)


def mix32(x: jax.Array) -> jax.Array:
    """Return the 32-bit finaliser hash of uint32 ``x`` (a bijection whose output bits all depend on every input
    bit)."""
    x = x ^ (x >> 16)
    x = x * jnp.uint32(0x7FEB352D)
    x = x ^ (x >> 15)
    x = x * jnp.uint32(0x846CA68B)
    return x ^ (x >> 16)


class DfsGrowth(NamedTuple):
    """A dfs maze being grown: the board ``codes`` (cells not reached yet hold ``UNREACHED``), the backtracker's
    ``stack`` of cells and its ``top``, how many cells it has ``reached``, the goal's depth once reached, the maze
    ``seed`` that orders each cell's directions, and the flat start and goal blocks."""

    codes: jax.Array
    stack: jax.Array
    top: jax.Array
    reached: jax.Array
    goal_depth: jax.Array
    seed: jax.Array
    start: jax.Array
    goal: jax.Array


UNREACHED = 5  # a board code outside the observation codes, only inside a growing maze


class DfsGenerator:
    """The on-device dfs generator of ``rows x cols`` cell mazes on ``board`` (see the module docstring).

    A maze grows by the recursive backtracker from the start cell; at each cell it takes the first unreached
    neighbour in that cell's order of the four directions, picked by ``mix32`` of the maze seed and the cell (so
    each choice is uniform among the unreached neighbours). A maze takes ``2 * (cells - 1)`` growth steps, and
    ``grow`` takes any number of them, so an env can grow its next maze a few steps at a time while it plays the
    current one. The depth at which the goal is reached is its distance from the start: the shortest path needs
    no search. ``placement`` is ``"corner"`` (top-left to bottom-right) or ``"random"`` (two distinct cells).
    """

    def __init__(self, board: Board, rows: int, cols: int, placement: str) -> None:
        self.board, self.rows, self.cols, self.placement = board, rows, cols, placement
        self.cells = rows * cols
        self.total_steps = 2 * (self.cells - 1)
        r, c = np.divmod(np.arange(self.cells), cols)
        self._cell_blocks = jnp.asarray(board.index((2 * r + 1, 2 * c + 1)), dtype=jnp.int32)
        # (cell, order) -> the neighbour cells in that order, -1 off the lattice
        table = lattice_neighbours(rows, cols)
        self._ordered = jnp.asarray(table[:, DIRECTION_ORDERS], dtype=jnp.int32)
        codes = np.full(board.size, WALL, dtype=np.uint8)
        codes[np.asarray(self._cell_blocks)] = UNREACHED
        self._blank = jnp.asarray(codes)

    def begin(self, key: jax.Array) -> DfsGrowth:
        """Return a maze drawn from ``key`` before its first growth step (only the start reached)."""
        seed_key, ends_key = jax.random.split(key)
        seed = jax.random.bits(seed_key, (), jnp.uint32)
        n = self.cells
        if self.placement == "random" and n > 1:
            first, shift = jax.random.randint(ends_key, (2,), 0, jnp.array([n, n - 1]))
            start, goal = first, (first + 1 + shift) % n
        else:
            start, goal = jnp.int32(0), jnp.int32(n - 1)
        codes = self._blank.at[self._cell_blocks[start]].set(FREE)
        stack = jnp.zeros(n + 1, dtype=jnp.int32).at[0].set(start)
        return DfsGrowth(codes, stack, jnp.int32(0), jnp.int32(1), jnp.int32(0), seed, start.astype(jnp.int32),
                         goal.astype(jnp.int32))

    def grow(self, maze: DfsGrowth, steps: int) -> DfsGrowth:
        """Return ``maze`` after ``steps`` more growth steps (a finished maze stays as it is)."""
        return jax.lax.fori_loop(0, steps, lambda _, m: self._step(m), maze, unroll=min(steps, 4) or 1)

    def _step(self, m: DfsGrowth) -> DfsGrowth:
        blocks = self._cell_blocks
        live = m.reached < self.cells
        here = m.stack[m.top]
        order = mix32(m.seed ^ (here.astype(jnp.uint32) * jnp.uint32(0x9E3779B9))) % jnp.uint32(24)
        candidates = self._ordered[here, order.astype(jnp.int32)]
        open_ = (candidates >= 0) & (m.codes[blocks[jnp.maximum(candidates, 0)]] == UNREACHED)
        advance = open_.any() & live
        nxt = candidates[jnp.argmax(open_)]
        nxt_block = blocks[jnp.maximum(nxt, 0)]
        wall = (blocks[here] + nxt_block) // 2
        # a backtrack writes to index size (dropped): the board keeps its codes
        target = jnp.where(advance, jnp.stack([wall, nxt_block]), self.board.size)
        codes = m.codes.at[target].set(jnp.uint8(FREE), mode="drop")
        top = jnp.where(advance, m.top + 1, jnp.where(live, m.top - 1, m.top))
        stack = m.stack.at[jnp.where(advance, top, self.cells)].set(nxt)
        goal_depth = jnp.where(advance & (nxt == m.goal), top, m.goal_depth)
        return m._replace(codes=codes, stack=stack, top=top, reached=m.reached + advance, goal_depth=goal_depth)

    def finish(self, maze: DfsGrowth) -> tuple[jax.Array, ...]:
        """Return ``(codes, start, goal, optimal)`` of a fully grown ``maze`` (``total_steps`` growth steps).

        No growth happens here: an env calls this on every step for the reset it might need (gymnax's
        auto-reset), so it must cost next to nothing; the env grows its next maze enough during each episode."""
        codes = maze.codes.at[self._cell_blocks[maze.goal]].set(GOAL)
        return codes, self._cell_blocks[maze.start], self._cell_blocks[maze.goal], 2 * maze.goal_depth

    def draw(self, key: jax.Array) -> tuple[jax.Array, ...]:
        """Return ``(codes, start, goal, optimal)`` of a whole maze drawn from ``key``."""
        return self.finish(self.grow(self.begin(key), self.total_steps))
