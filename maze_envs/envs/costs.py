"""What an env configuration costs, estimated from its arguments before any work, for the one budget rule
(``maze_envs.core.budget.check_cost``: at most 2 GiB for one array, at most 1 s of estimated work for one make, reset
or step on one core, and at most 10 s for a vector env's reset of every sub-env at once). Every env's constructor
calls ``check_env_cost`` with its estimate, so a size or count, or a product of them (``rows * cols``,
``view_width * view_height``, ``num_envs`` times a maze), that would not fit is refused by name before anything is
allocated or generated.

The per-unit times are measured on one core of the development machine (``benchmarks/fuzz_readers.py --envs``
prints the largest accepted sizes) and rounded up, so an estimate errs towards refusing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from maze_envs.core.budget import BATCH_WORK_BUDGET_SECONDS, WORK_BUDGET_SECONDS, check_cost

SECONDS_PER_TREE_CELL = 1.5e-7  # a fresh dfs maze from the compiled batch generator, per cell (measured 0.1 us)
SECONDS_PER_CELL = 3e-6  # any other generator, loops or placement, per cell (measured 1-2.5 us)
SECONDS_PER_BLOCK = 1e-7  # the board of a layout: codes, free list and the BFS path length, per padded block
SECONDS_PER_LOOK = 6e-9  # one entry of the line-of-sight gather: window blocks and occluders (measured 2-8 ns)
SECONDS_PER_BYTE = 7e-9  # drawing and copying one byte of an image or observation (measured 2-6 ns)
SECONDS_PER_RENDER_PIXEL = 8e-8  # one pixel of one nav view from the CPU splat renderer (measured 25-65 ns)
SECONDS_PER_SCENE_CELL = 3e-3  # building one maze cell of a procedural nav scene: layout, splats, maps, tasks
SECONDS_PER_WAYPOINT = 1e-4  # one waypoint of a nav step: its pose, ground height and selection (measured 90 us)
SECONDS_PER_DILATION = 2e-11  # one map pixel times one kernel pixel of the occupancy-map dilation (measured 1e-11)
SCENE_CELL_PIXELS = 44 ** 2  # occupancy-map pixels of one procedural scene cell (2.2 m at 0.05 m a pixel)
NAV_VIEWS = 3


def count(value: float) -> float:
    """Return ``value`` (an int of any size or a float) as a float, inf when it is past the float range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


@dataclass(frozen=True)
class Cost:
    """The estimated cost of one call of an env: the bytes of its largest array and its seconds on one core."""

    nbytes: float = 0.0
    seconds: float = 0.0

    def __add__(self, other: Cost) -> Cost:
        return Cost(max(self.nbytes, other.nbytes), self.seconds + other.seconds)

    def times(self, n: float) -> Cost:
        """Return the cost of doing this ``n`` times at once (batched arrays ``n`` times larger)."""
        return Cost(self.nbytes * count(n), self.seconds * count(n))


def check_env_cost(arguments: str, cost: Cost, per: str, *, batch: bool = False) -> None:
    """Raise ``MazeConfigError`` naming ``arguments`` when ``cost`` (of one ``per``: make, reset or step) passes the
    budget (the batch budget when ``batch``: one call for every sub-env of a vector env); return None when it
    fits."""
    check_cost(arguments, nbytes=cost.nbytes, seconds=cost.seconds, per=per,
               work_budget=BATCH_WORK_BUDGET_SECONDS if batch else WORK_BUDGET_SECONDS)


def layout_cost(cells: float, blocks: float, tree: bool, generated: bool) -> Cost:
    """Return the cost of one grid layout at reset: generating ``cells`` cells (by the compiled dfs batch when
    ``tree``; nothing when not ``generated``) and preparing its board of ``blocks`` padded blocks."""
    per_cell = 0.0 if not generated else SECONDS_PER_TREE_CELL if tree else SECONDS_PER_CELL
    cells, blocks = count(cells), count(blocks)
    return Cost(blocks * 16, cells * per_cell + blocks * SECONDS_PER_BLOCK)


def look_cost(positions: float, k: int) -> Cost:
    """Return the cost of the line-of-sight windows of radius ``k`` around ``positions`` blocks in one batch: the
    occluder gather (offsets x line length, bool) and the window indices (int64)."""
    positions, k = count(positions), count(k)
    side, offsets, line = 2 * k + 1, 2 * k * k + 2 * k + 1, max(1.0, k - 1)
    entries = positions * (side * side + offsets * line)
    return Cost(positions * max(offsets * line, side * side * 8), entries * SECONDS_PER_LOOK)


def image_cost(pixels: float, channels: int = 3) -> Cost:
    """Return the cost of writing one uint8 image of ``pixels`` pixels."""
    nbytes = count(pixels) * channels
    return Cost(nbytes, nbytes * SECONDS_PER_BYTE)


def nav_view_cost(width: int, height: int) -> Cost:
    """Return the cost of rendering the three views of ``width x height`` pixels (the float32 RGB batch)."""
    pixels = count(width) * count(height) * NAV_VIEWS
    return Cost(pixels * 12, pixels * SECONDS_PER_RENDER_PIXEL)


def nav_world_cost(scenes: int, rows: int, cols: int, dilation_pixels: float) -> Cost:
    """Return the cost of building ``scenes`` procedural scenes of ``rows x cols`` cells and dilating their maps with
    a kernel ``dilation_pixels`` across (the kernel is one array; the work is per map pixel and kernel pixel)."""
    cells = count(scenes) * count(rows) * count(cols)
    kernel = count(dilation_pixels) * count(dilation_pixels)
    return Cost(kernel, cells * (SECONDS_PER_SCENE_CELL + SCENE_CELL_PIXELS * kernel * SECONDS_PER_DILATION))
