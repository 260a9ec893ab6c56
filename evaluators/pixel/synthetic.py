"""Model-like generations with known verdicts, made from core mazes: for tests, demos and benchmarks.

Images: the puzzle with a blue route drawn as an anti-aliased line, slightly off-centre, along the
solution (correct), along a route to a wrong cell (wrong), along a route that cuts through one wall
(through_wall), on a layout with most interior walls flipped (walls_changed) or without the start/goal
squares (missing_markers). Videos (MP4 via OpenCV, ``mp4v``): a green marker moving from start to
goal along the solution, with a dead-end detour and back (backtracking), through a wall, or standing
still, optionally with the artefacts of real video models (``artefacts.VideoEffects``: a fading trail,
camera drift and zoom, grey walls, grain, a vanishing marker, an erased wall). Either can be resized,
letterboxed into another aspect ratio and JPEG-compressed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from maze_envs.core.generators import as_rng
from maze_envs.core.maze import MOVES, Cell, Maze
from maze_envs.core.paths import utf8_path, write_image
from maze_envs.core.render import FREE, PATH, START, ImageStyle, PixelGeometry
from maze_envs.core.solve import shortest_path
from maze_envs.core.validate import choice
from maze_envs.tasks.files import generated_name
from maze_envs.tasks.render import render_task

from .artefacts import (
    VideoEffects,
    add_grain,
    blend,
    camera_motion,
    draw_marker,
    grey_walls,
    marker_alpha,
    wall_between,
)
from .errors import PixelEvalError

BLUE_BGR = PATH[::-1]
GREEN_BGR = START[::-1]
IMAGE_CASES = ("correct", "wrong", "through_wall", "walls_changed", "missing_markers")
VIDEO_CASES = ("correct", "detour", "through_wall", "still")


@dataclass
class SyntheticTask:
    """A maze with its puzzle and solution renders (BGR) and their pixel geometry."""

    maze: Maze
    style: ImageStyle
    puzzle: np.ndarray
    solution: np.ndarray
    geometry: PixelGeometry


def _bgr(image) -> np.ndarray:
    return cv2.cvtColor(np.asarray(image), cv2.COLOR_RGB2BGR)


def make_task(maze: Maze, style: ImageStyle = ImageStyle()) -> SyntheticTask:
    """Return the task of ``maze`` rendered in ``style`` (the core's pure colours)."""
    puzzle, geometry = render_task(maze, style)
    solution, _ = render_task(maze, style, solution=True)
    return SyntheticTask(maze, style, _bgr(puzzle), _bgr(solution), geometry)


def _on_path_neighbours(maze: Maze, cell: Cell, *, open_: bool) -> list[Cell]:
    out = []
    for dr, dc in MOVES:
        other = (cell[0] + dr, cell[1] + dc)
        if maze.contains(other) and maze.passable(cell, other) == open_:
            out.append(other)
    return out


def solution_route(maze: Maze) -> list[Cell]:
    """Return the shortest route from start to goal."""
    return shortest_path(maze) or [maze.start]


def wrong_route(maze: Maze) -> list[Cell]:
    """Return a legal route from the start to a dead end off the solution, avoiding the goal and sharing
    as little of the solution as possible."""
    solution = set(solution_route(maze))
    best, best_key = [maze.start], None
    for cell in maze.cells():
        if cell in solution:
            continue
        route = shortest_path(maze, maze.start, cell) or []
        if maze.goal in route:
            continue
        key = (len(solution.intersection(route)), -len(route))
        if best_key is None or key < best_key:
            best, best_key = route, key
    return best


def through_wall_route(maze: Maze) -> list[Cell]:
    """Return a route that follows the solution, cuts through one closed wall, then goes on to the goal."""
    path = solution_route(maze)
    order = sorted(range(len(path)), key=lambda i: abs(i - len(path) // 2))
    for i in order:
        for other in _on_path_neighbours(maze, path[i], open_=False):
            rest = shortest_path(maze, other, maze.goal) or []
            if rest and not set(rest) & set(path[:i + 1]):
                return path[:i + 1] + rest
    raise PixelEvalError("maze has no closed wall next to its solution to cut through")


def detour_route(maze: Maze, depth: int = 3) -> list[Cell]:
    """Return the solution with an excursion of up to ``depth`` cells into a side branch and back."""
    path = solution_route(maze)
    on_path = set(path)
    order = sorted(range(len(path)), key=lambda i: abs(i - len(path) // 2))
    for i in order:
        branch: list[Cell] = []
        cell = path[i]
        while len(branch) < depth:
            options = [c for c in _on_path_neighbours(maze, cell, open_=True) if c not in on_path and c not in branch]
            if not options:
                break
            cell = options[0]
            branch.append(cell)
        if branch:
            return path[:i + 1] + branch + branch[-2::-1] + path[i:]
    raise PixelEvalError("maze has no side branch off its solution for a detour")


def route_points(
    geometry: PixelGeometry, cells: Sequence[Cell], offset: tuple[float, float] = (0.0, 0.0)
) -> np.ndarray:
    """Return the ``(N, 2)`` float ``(x, y)`` cell centres of ``cells`` shifted by ``offset`` pixels."""
    return np.array([geometry.cell_center(c) for c in cells], dtype=float) + np.asarray(offset, dtype=float)


def changed_walls(maze: Maze, seed: int = 0, fraction: float = 0.6) -> Maze:
    """Return a copy of ``maze`` with ``fraction`` of its interior wall segments flipped (open <-> closed)."""
    rng = as_rng(seed)
    out = maze.copy()
    for walls in (out.vertical_walls, out.horizontal_walls):
        flip = rng.random(walls.shape) < fraction
        walls[flip] = ~walls[flip]
    return out


def _paint_cell(image: np.ndarray, geometry: PixelGeometry, cell: Cell, colour: tuple[int, int, int]) -> None:
    x0, y0, x1, y1 = geometry.cell_box(cell)
    image[y0:y1, x0:x1] = colour


def draw_route(base: np.ndarray, geometry: PixelGeometry, cells: Sequence[Cell], *, line_px: int | None = None,
               offset: tuple[float, float] | None = None, colour: tuple[int, int, int] = BLUE_BGR) -> np.ndarray:
    """Return ``base`` with an anti-aliased polyline through the cells' centres (default: 1/6 cell wide, off-centre)."""
    line_px = line_px or max(2, geometry.cell_px // 6)
    offset = offset if offset is not None else (geometry.cell_px * 0.08, -geometry.cell_px * 0.06)
    pts = np.round(route_points(geometry, cells, offset) * 16).astype(np.int32)
    out = base.copy()
    cv2.polylines(out, [pts], False, colour, line_px, cv2.LINE_AA, shift=4)
    return out


def image_case(task: SyntheticTask, case: str, seed: int = 0) -> np.ndarray:
    """Return the generated image of ``case`` (one of ``IMAGE_CASES``) in the task's own size."""
    maze, geo = task.maze, task.geometry
    if case == "correct":
        return draw_route(task.puzzle, geo, solution_route(maze))
    if case == "wrong":
        return draw_route(task.puzzle, geo, wrong_route(maze))
    if case == "through_wall":
        return draw_route(task.puzzle, geo, through_wall_route(maze))
    if case == "walls_changed":
        base = _bgr(render_task(changed_walls(maze, seed), task.style)[0])
        return draw_route(base, geo, solution_route(maze))
    if case == "missing_markers":
        base = task.puzzle.copy()
        for cell in (maze.start, maze.goal):
            _paint_cell(base, geo, cell, FREE)
        return draw_route(base, geo, solution_route(maze))
    choice(case, IMAGE_CASES, name="image case", error=ValueError)


def reframe(image: np.ndarray, size: tuple[int, int] | None = None, *, letterbox: bool = False,
            jpeg_quality: int | None = None, shift: int = 0) -> np.ndarray:
    """Return ``image`` resized to ``size`` = (width, height) (stretched, or fitted between black bars),
    JPEG-compressed at ``jpeg_quality`` and with every channel shifted by ``shift`` levels."""
    out = image
    if size is not None:
        w, h = size
        if letterbox:
            scale = min(w / image.shape[1], h / image.shape[0])
            inner = cv2.resize(image, (max(1, round(image.shape[1] * scale)), max(1, round(image.shape[0] * scale))),
                               interpolation=cv2.INTER_AREA)
            out = np.zeros((h, w, 3), np.uint8)
            y0, x0 = (h - inner.shape[0]) // 2, (w - inner.shape[1]) // 2
            out[y0:y0 + inner.shape[0], x0:x0 + inner.shape[1]] = inner
        else:
            out = cv2.resize(image, (w, h), interpolation=cv2.INTER_AREA)
    if shift:
        out = np.clip(out.astype(np.int16) + shift, 0, 255).astype(np.uint8)
    if jpeg_quality is not None:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return out


def video_route(maze: Maze, case: str) -> list[Cell]:
    """Return the cells the marker visits in ``case`` (one of ``VIDEO_CASES``)."""
    if case == "correct":
        return solution_route(maze)
    if case == "detour":
        return detour_route(maze)
    if case == "through_wall":
        return through_wall_route(maze)
    if case == "still":
        return [maze.start]
    choice(case, VIDEO_CASES, name="video case", error=ValueError)


def marker_track(points: np.ndarray, frames: int, hold: float = 0.08) -> np.ndarray:
    """Return ``(frames, 2)`` positions moving at constant speed along ``points``, resting ``hold`` of the time at each
    end."""
    if len(points) == 1:
        return np.repeat(points, frames, axis=0)
    seg = np.linalg.norm(np.diff(points, axis=0), axis=1)
    dist = np.concatenate([[0.0], np.cumsum(seg)])
    t = np.clip((np.linspace(0.0, 1.0, frames) - hold) / (1.0 - 2 * hold), 0.0, 1.0) * dist[-1]
    return np.stack([np.interp(t, dist, points[:, 0]), np.interp(t, dist, points[:, 1])], axis=1)


def crossed_walls(
    maze: Maze, geometry: PixelGeometry, cells: Sequence[Cell]
) -> list[tuple[int, tuple[int, int, int, int]]]:
    """Return ``(index of the cell before it, wall box)`` for each closed wall the route ``cells`` steps through."""
    return [(i, wall_between(geometry, a, b)) for i, (a, b) in enumerate(zip(cells, cells[1:], strict=False))
            if not maze.passable(a, b)]


def write_marker_video(path: str | os.PathLike, task: SyntheticTask, cells: Sequence[Cell], *, frames: int = 48,
                       fps: int = 24, size: tuple[int, int] | None = None, letterbox: bool = False,
                       marker_fraction: float = 0.6, effects: VideoEffects = VideoEffects()) -> Path:
    """Write an MP4 of a green square marker (``marker_fraction`` of a cell) moving through ``cells``, with the
    model-like ``effects``; return its path."""
    geo = task.geometry
    base = task.puzzle.copy()
    _paint_cell(base, geo, task.maze.start, FREE)
    base = grey_walls(base, effects.wall_level, effects.wall_gradient)
    half = max(1.0, geo.cell_px * marker_fraction / 2)
    centres = route_points(geo, cells)
    track = marker_track(centres, frames)
    walls_to_erase = crossed_walls(task.maze, geo, cells) if effects.erase_crossed_wall else []
    trail_colour = effects.trail_colour or GREEN_BGR
    rng = np.random.default_rng(effects.seed)
    first = reframe(base, size, letterbox=letterbox)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with utf8_path(path) as name:
        writer = cv2.VideoWriter(name, cv2.VideoWriter_fourcc(*"mp4v"), fps, (first.shape[1], first.shape[0]))
    if not writer.isOpened():
        raise PixelEvalError("OpenCV cannot write mp4v video", source=path)
    try:
        for index, (x, y) in enumerate(track):
            for before, (x0, y0, x1, y1) in walls_to_erase:
                # the wall goes once the marker is closer to the cell after it than to the one before
                if np.hypot(x - centres[before + 1][0], y - centres[before + 1][1]) < \
                        np.hypot(x - centres[before][0], y - centres[before][1]):
                    base[y0:y1, x0:x1] = FREE
            frame = base
            if effects.trail_opacity > 0:
                ages = range(min(index, effects.trail_frames - 1), 0, -1)
                alpha = marker_alpha(base.shape[:2], [tuple(track[index - age]) for age in ages],
                                     [effects.trail_opacity * (1 - (age - 1) / effects.trail_frames) for age in ages],
                                     half, effects.circle_marker)
                frame = blend(base, alpha, trail_colour)
            frame = frame.copy()
            hidden = effects.hidden_frames is not None and effects.hidden_frames[0] <= index < effects.hidden_frames[1]
            if not hidden:
                draw_marker(frame, x, y, half, GREEN_BGR, effects.circle_marker)
            frame = camera_motion(frame, index / max(1, frames - 1), effects)
            writer.write(add_grain(reframe(frame, size, letterbox=letterbox), effects.grain, rng))
    finally:
        writer.release()
    return path


def write_synthetic_dataset(out_dir: str | os.PathLike, specs: Sequence, *, style: ImageStyle = ImageStyle(),
                            image_cases: Sequence[str] = IMAGE_CASES, video_cases: Sequence[str] = (),
                            frames: int = 48, round_name: str = "round1") -> dict[str, str]:
    """Write core tasks and one synthetic generation per task, cycling through the cases; return {file: case}.

    Layout under ``out_dir``: ``data/solution/`` (puzzle, solution PNGs and ``metadata.jsonl``),
    ``image_results/synthetic/easy_<round>/{stem}_targeted_solution.png`` and
    ``video_results/synthetic/easy_<round>/{stem}.mp4``. ``specs`` are core ``TaskSpec``s.
    """
    from maze_envs.core.jsonfiles import write_jsonl
    from maze_envs.tasks.spec import build_task_maze, write_task

    out = Path(out_dir)
    solution_dir = out / "data" / "solution"
    solution_dir.mkdir(parents=True, exist_ok=True)
    image_dir = out / "image_results" / "synthetic" / f"easy_{round_name}"
    video_dir = out / "video_results" / "synthetic" / f"easy_{round_name}"
    records, cases = [], {}
    for i, spec in enumerate(specs):
        records.append(write_task(spec, solution_dir, style))
        stem = records[-1]["id"]
        maze = build_task_maze(spec)
        task = make_task(maze, style)
        if image_cases:
            case = image_cases[i % len(image_cases)]
            image_dir.mkdir(parents=True, exist_ok=True)
            name = generated_name(stem, "image")
            write_image(image_dir / name, image_case(task, case, seed=spec.seed))
            cases[name] = case
        if video_cases:
            case = video_cases[i % len(video_cases)]
            name = generated_name(stem, "video")
            write_marker_video(video_dir / name, task, video_route(maze, case), frames=frames)
            cases[name] = case
    write_jsonl(solution_dir / "metadata.jsonl", records)
    return cases
