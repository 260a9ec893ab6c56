"""Generation tasks: puzzle/solution images of a maze for image and video models, one task per spec.

Difficulty labels map to square maze sizes in cells (the original benchmark used 3x3 to 13x13):

========  ============
label     cells
========  ============
easy      3x3 .. 5x5
medium    6x6 .. 9x9
hard      10x10 .. 13x13
========  ============

Variants set where start and goal go: ``var1_fixed_both`` (top-left to bottom-right corner),
``var2_random_both`` (two distinct random cells), ``var3_far`` (ends of a longest shortest path).
File names follow the pixel evaluator's convention (``maze_envs.tasks.files``):
``{algo}_{difficulty}_{rows}x{cols}_n{idx:03d}_{variant}.png`` and ``..._solution.png``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from maze_envs.core.atomic import save_image_atomic
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import GENERATORS, Placement, generate
from maze_envs.core.maze import Maze
from maze_envs.core.mazefile import maze_to_dict
from maze_envs.core.render import ImageStyle
from maze_envs.core.solve import shortest_path
from maze_envs.core.validate import choice, integer, positive_int

from .files import puzzle_name, solution_name, task_stem
from .render import render_task

DIFFICULTIES: dict[str, tuple[int, int]] = {"easy": (3, 5), "medium": (6, 9), "hard": (10, 13)}
VARIANTS: dict[str, Placement] = {"var1_fixed_both": "corner", "var2_random_both": "random", "var3_far": "far"}


@dataclass(frozen=True)
class TaskSpec:
    """One task to generate: algorithm, difficulty, index, variant and its own seed."""

    algo: str
    difficulty: str
    idx: int
    variant: str
    seed: int


def task_specs(algos: Sequence[str], difficulties: Sequence[str], count: int, seed: int,
               variants: Sequence[str] = ("var1_fixed_both",)) -> list[TaskSpec]:
    """Return every task of the cross product; each gets a seed derived from ``seed`` and its position."""
    for name, values, table in (("algos", algos, GENERATORS), ("difficulties", difficulties, DIFFICULTIES),
                                ("variants", variants, VARIANTS)):
        for value in values:
            choice(value, table, parameter=name)
    positive_int(count, parameter="count")
    combos = [(a, d, i, v) for a in algos for d in difficulties for v in variants for i in range(count)]
    seeds = np.random.SeedSequence(seed).generate_state(len(combos), dtype=np.uint32)
    return [TaskSpec(a, d, i, v, int(s)) for (a, d, i, v), s in zip(combos, seeds, strict=False)]


def _draw_side(spec: TaskSpec, rng: np.random.Generator) -> int:
    low, high = DIFFICULTIES[spec.difficulty]
    return int(rng.integers(low, high + 1))


MIN_IMAGE_PX = 16


def image_style(cell_px: int | None = None, wall_px: int | None = None,
                image_px: int | None = None) -> ImageStyle | None:
    """Return the fixed ``ImageStyle`` that ``cell_px`` and/or ``wall_px`` ask for (the other at its default), or
    None when neither is given (then ``image_px``, when given, fits each image in a square of that size). Raises
    ``MazeConfigError`` naming the parameter when a size is below 1, ``image_px`` below 16, or ``image_px`` is
    combined with ``cell_px``/``wall_px``."""
    if image_px is not None:
        integer(image_px, MIN_IMAGE_PX, parameter="image_px")
    if cell_px is None and wall_px is None:
        return None
    if image_px is not None:
        raise MazeConfigError("cannot be combined with a cell or wall size: it chooses both sizes",
                              parameter="image_px")
    defaults = ImageStyle()
    style = ImageStyle(defaults.cell_px if cell_px is None else cell_px,
                       defaults.wall_px if wall_px is None else wall_px)
    for name in ("cell_px", "wall_px"):
        positive_int(getattr(style, name), parameter=name)
    return style


def task_id(spec: TaskSpec) -> str:
    """Return the file stem of the task ``spec`` makes (its size drawn as ``build_task_maze`` draws it)."""
    side = _draw_side(spec, np.random.default_rng(spec.seed))
    return task_stem(spec.algo, spec.difficulty, side, side, spec.idx, spec.variant)


def build_task_maze(spec: TaskSpec) -> Maze:
    """Return the maze of a task spec (its size drawn from the difficulty's range)."""
    rng = np.random.default_rng(spec.seed)
    side = _draw_side(spec, rng)
    maze = generate(side, side, spec.algo, rng, placement=VARIANTS[spec.variant])
    maze.meta["seed"] = spec.seed
    return maze


def write_task(spec: TaskSpec, out_dir: Path, style: ImageStyle | None = None, image_px: int | None = None) -> dict:
    """Write a task's puzzle and solution PNGs into ``out_dir`` (each atomically); return its metadata record."""
    maze = build_task_maze(spec)
    style = style or (ImageStyle.fit(maze.rows, maze.cols, image_px) if image_px else ImageStyle())
    stem = task_stem(spec.algo, spec.difficulty, maze.rows, maze.cols, spec.idx, spec.variant)
    puzzle, geometry = render_task(maze, style)
    solution, _ = render_task(maze, style, solution=True)
    save_image_atomic(puzzle, out_dir / puzzle_name(stem))
    save_image_atomic(solution, out_dir / solution_name(stem))
    path = shortest_path(maze)
    return {
        "id": stem, "puzzle": puzzle_name(stem), "solution": solution_name(stem), "algorithm": spec.algo,
        "difficulty": spec.difficulty, "variant": spec.variant, "index": spec.idx, "seed": spec.seed,
        "rows": maze.rows, "cols": maze.cols, "maze": maze_to_dict(maze), "geometry": geometry.to_dict(),
        "shortest_path": [list(c) for c in path], "path_length": len(path),
    }
