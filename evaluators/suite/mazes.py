"""The suite's one maze set and every form it takes: benchmark files (``mazes/``), generation tasks
(``tasks/``: puzzle and solution images with ``metadata.jsonl``), procedural splat scenes (``nav/scenes/``) and
the oracle's own generations (``generations/oracle/``). Maze i of a size is ``generate(rows, cols, algorithm,
seed + i)``, so every form is drawn from the same layout, and writing them again gives the same files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from maze_envs.core.atomic import atomic_write, save_image_atomic
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.generators import generate
from maze_envs.core.jsonfiles import write_json_atomic, write_jsonl
from maze_envs.core.maze import Maze, cell_to_block
from maze_envs.core.mazebench_files import cells_for_size, parse_size
from maze_envs.core.mazefile import maze_to_dict
from maze_envs.core.render import ImageStyle, PixelGeometry
from maze_envs.core.solve import shortest_path
from maze_envs.datasets import generate_text_mazes
from maze_envs.nav.procedural import Landmark, SceneParams, layout_maze, trajectory, write_scene
from maze_envs.tasks.files import generated_name, puzzle_name, solution_name, task_stem
from maze_envs.tasks.render import render_task
from maze_envs.tasks.spec import DIFFICULTIES

from ..bench.mazes import BenchMaze, bench_mazes

TASK_STYLE = ImageStyle(24, 6)
SCENE_PARAMS = SceneParams(num_landmarks=1, num_trajectories=1)
GOAL_TASK = "traj_0"


@dataclass(frozen=True)
class SuiteMaze:
    """One maze of the set: ``key`` (``<size>/<name>``), the benchmark form ``bench`` (its grid is the block
    grid without the outer ring: cell (r, c) at (2r, 2c)), the core ``maze``, its ``stem`` as a generation
    task and the task's pixel ``geometry``."""

    key: str
    bench: BenchMaze
    maze: Maze
    stem: str
    geometry: PixelGeometry

    @property
    def size(self) -> str:
        """Return the size the maze was asked for (``HxW``)."""
        return self.bench.size

    @property
    def page(self) -> str:
        """Return the file name of the maze's report page."""
        return f"{self.bench.size}-{self.bench.name}.html"


def difficulty(rows: int, cols: int) -> str:
    """Return the generation-task difficulty label of a ``rows x cols``-cell maze (its larger side)."""
    side = max(rows, cols)
    for label, (low, high) in DIFFICULTIES.items():
        if low <= side <= high:
            return label
    return "easy" if side < 3 else "hard"


def build_mazes(sizes: tuple[str, ...], count: int, seed: int, algorithm: str, out: Path) -> list[SuiteMaze]:
    """Write the benchmark files of the set under ``out/mazes`` and return the set in size, index order."""
    mazes_dir = out / "mazes"
    generate_text_mazes(sizes, count, seed, mazes_dir, algorithm=algorithm, overwrite=True)
    found = []
    for size in dict.fromkeys(sizes):
        rows, cols = cells_for_size(*parse_size(size))
        for index, bench in enumerate(bench_mazes(mazes_dir, size)[:count]):
            maze = generate(rows, cols, algorithm, seed + index)
            inner = maze.to_blocks()[1:-1, 1:-1]
            if not np.array_equal(bench.grid[:inner.shape[0], :inner.shape[1]], inner):
                raise MazeConfigError(f"{bench.file}: does not hold maze {index} of seed {seed}; remove "
                                      f"{mazes_dir} and run again", parameter="output_dir")
            stem = task_stem(algorithm, difficulty(rows, cols), rows, cols, index, f"s{seed}")
            found.append(SuiteMaze(f"{size}/{bench.name}", bench, maze, stem, TASK_STYLE.geometry(rows, cols)))
    return found


def write_tasks(mazes: list[SuiteMaze], out: Path) -> Path:
    """Write every maze's puzzle and solution images and ``metadata.jsonl`` into ``out`` (the folder a
    generation model reads and the pixel evaluator and judge match files against); return ``out``."""
    records = []
    for m in mazes:
        puzzle, geometry = render_task(m.maze, TASK_STYLE)
        solution, _ = render_task(m.maze, TASK_STYLE, solution=True)
        save_image_atomic(puzzle, out / puzzle_name(m.stem))
        save_image_atomic(solution, out / solution_name(m.stem))
        path = shortest_path(m.maze)
        records.append({"id": m.stem, "puzzle": puzzle_name(m.stem), "solution": solution_name(m.stem),
                        "suite_maze": m.key, "difficulty": difficulty(m.maze.rows, m.maze.cols),
                        "rows": m.maze.rows, "cols": m.maze.cols, "maze": maze_to_dict(m.maze),
                        "geometry": geometry.to_dict(), "shortest_path": [list(c) for c in path],
                        "path_length": len(path)})
    write_jsonl(out / "metadata.jsonl", records)
    return out


def write_oracle_generations(mazes: list[SuiteMaze], out: Path, *, video: bool) -> Path:
    """Write the oracle's generations into ``out``: for each task the puzzle with the shortest path drawn on it
    (as an image model would) under its generated name and, with ``video``, an MP4 of a marker walking the
    shortest path; return ``out``."""
    import cv2

    from ..pixel.synthetic import image_case, make_task, solution_route, write_marker_video

    out.mkdir(parents=True, exist_ok=True)
    for m in mazes:
        task = make_task(m.maze, TASK_STYLE)
        _, data = cv2.imencode(".png", image_case(task, "correct"))
        with atomic_write(out / generated_name(m.stem, "image"), "wb") as fh:
            fh.write(data.tobytes())
        if video:
            route = solution_route(m.maze)
            write_marker_video(out / generated_name(m.stem, "video"), task, route, frames=max(48, 4 * len(route)))
    return out


def scene_dir(root: Path, m: SuiteMaze) -> Path:
    """Return the data directory holding the one scene of maze ``m`` under ``root`` (nav-eval reads every
    scene of a data directory, so each maze has its own)."""
    return root / m.bench.size / m.bench.name


def write_scenes(mazes: list[SuiteMaze], root: Path, seed: int) -> Path:
    """Write each maze as a procedural splat scene whose one point-goal task walks from the maze's start to its
    goal; return ``root``."""
    for m in mazes:
        folder = scene_dir(root, m) / "scene"
        write_scene(m.maze, folder, SCENE_PARAMS, seed)
        layout = layout_maze(m.maze, SCENE_PARAMS, np.random.default_rng(seed))
        goal = Landmark("goal", (1.0, 0.0, 0.0), m.maze.goal, layout.block_centre(cell_to_block(m.maze.goal)), 0.0)
        poses, length = trajectory(layout, m.maze.start, goal)
        label = {"extend": {"goal_label": "goal", "goal_position": list(goal.position)},
                 "shortest_path_length": length, "start_cell": list(m.maze.start), "goal_cell": list(m.maze.goal)}
        write_json_atomic(folder / f"{GOAL_TASK}.json", {"trajectory": poses, "label": label}, indent=1)
    return root


def scene_geometry(m: SuiteMaze, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Return the block edges along x and y (metres, from the top row) and the depth of maze ``m``'s scene,
    to map a 3D trajectory onto the benchmark grid."""
    layout = layout_maze(m.maze, SCENE_PARAMS, np.random.default_rng(seed))
    return layout.x_edges, layout.y_edges, layout.depth


def world_to_grid(points: list[tuple[float, float]], m: SuiteMaze, seed: int) -> list[list[float]]:
    """Return the flight through world ``(x, y)`` points of maze ``m``'s scene as fractional ``(row, col)`` on its
    benchmark grid (block units, the outer ring taken off): every point, and between two of them each place the
    straight flight crosses a block edge. Walls are thinner in the scene than on the grid, so the map from world
    to grid is linear only within a block; a bend at each crossing draws the line the agent flew, which joining
    the points straight on the grid would not (it cut through walls the flight passed beside)."""
    x_edges, y_edges, depth = scene_geometry(m, seed)

    def along(edges: np.ndarray, value: float) -> float:
        i = int(np.clip(np.searchsorted(edges, value, side="right") - 1, 0, len(edges) - 2))
        return i + (value - edges[i]) / (edges[i + 1] - edges[i]) - 1.0

    def grid(x: float, down: float) -> list[float]:
        return [round(float(along(y_edges, down)) - 0.5, 3), round(float(along(x_edges, x)) - 0.5, 3)]

    flight = [(x, depth - y) for x, y in points]  # x across, ``down`` from the top row, as the edges run
    out = [grid(*flight[0])] if flight else []
    for (x0, d0), (x1, d1) in zip(flight, flight[1:], strict=False):
        crossings = sorted({(e - a) / (b - a) for a, b, edges in ((x0, x1, x_edges), (d0, d1, y_edges)) if a != b
                            for e in edges if min(a, b) < e < max(a, b)})
        out += [grid(x0 + t * (x1 - x0), d0 + t * (d1 - d0)) for t in crossings]
        out.append(grid(x1, d1))
    return out
