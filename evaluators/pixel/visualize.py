"""The 2x2 visualisation of one evaluation, drawn with OpenCV and written as PNG.

Top-left: the generated image (videos: the path accumulated over all frames, over the first frame);
top-right: the solution; bottom-left: wall-crossing overlay; bottom-right: path comparison. Each
panel has a title and its colour legend.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from maze_envs.core.atomic import atomic_write

from .results import ImageResult

# BGR colours of the legends.
YELLOW = (0, 255, 255)
ORANGE = (0, 140, 255)
LIGHT_BLUE = (255, 200, 120)
BLUE = (255, 0, 0)
GREEN = (0, 190, 0)
RED = (0, 0, 255)
WALL_GREY = (90, 90, 90)
PANEL_PX = 400
BAR_PX = 26


@dataclass
class Panels:
    """What the 2x2 visualisation shows, all in solution pixels."""

    generated: np.ndarray
    solution: np.ndarray
    path: np.ndarray
    walls: np.ndarray
    crossing: np.ndarray
    touching: np.ndarray
    dilated: np.ndarray
    route: np.ndarray


def _fit(image: np.ndarray, size: int) -> np.ndarray:
    scale = size / max(image.shape[:2])
    h, w = max(1, round(image.shape[0] * scale)), max(1, round(image.shape[1] * scale))
    resized = cv2.resize(image, (w, h), interpolation=cv2.INTER_NEAREST if scale > 1 else cv2.INTER_AREA)
    canvas = np.full((size, size, 3), 255, np.uint8)
    y0, x0 = (size - h) // 2, (size - w) // 2
    canvas[y0:y0 + h, x0:x0 + w] = resized
    return canvas


def _panel(image: np.ndarray, title: str, legend: list[tuple[tuple[int, int, int], str]]) -> np.ndarray:
    body = _fit(image, PANEL_PX)
    top = np.full((BAR_PX, PANEL_PX, 3), 255, np.uint8)
    cv2.putText(top, title, (6, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 1, cv2.LINE_AA)
    bottom = np.full((BAR_PX, PANEL_PX, 3), 255, np.uint8)
    x = 6
    for colour, label in legend:
        cv2.rectangle(bottom, (x, 7), (x + 12, 19), colour, -1)
        cv2.rectangle(bottom, (x, 7), (x + 12, 19), (0, 0, 0), 1)
        cv2.putText(bottom, label, (x + 16, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (0, 0, 0), 1, cv2.LINE_AA)
        x += 22 + int(cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.4, 1)[0][0]) + 8
    return np.vstack([top, body, bottom])


def _overlay(shape: tuple[int, int], walls: np.ndarray) -> np.ndarray:
    canvas = np.full((*shape, 3), 255, np.uint8)
    canvas[walls] = WALL_GREY
    return canvas


def render_visualization(panels: Panels, result: ImageResult, *, video: bool) -> np.ndarray:
    """Return the BGR 2x2 visualisation of an evaluation."""
    shape = panels.solution.shape[:2]
    if video:
        top_left = (panels.generated.astype(np.float32) * 0.45 + 140).astype(np.uint8)
        top_left[panels.path] = GREEN
        first = _panel(top_left, f"Video path ({result.filename})"[:60], [(GREEN, "accumulated marker path")])
    else:
        first = _panel(panels.generated, f"Generated ({result.filename})"[:60], [])
    second = _panel(panels.solution, f"Solution ({result.solution_file})"[:60], [])

    crossing = _overlay(shape, panels.walls)
    crossing[panels.path] = LIGHT_BLUE if video else BLUE
    legend = [(LIGHT_BLUE, "valid path")] if video else [(BLUE, "path"), (ORANGE, "edge touch (tolerated)")]
    if not video:
        crossing[panels.touching] = ORANGE
    crossing[panels.crossing] = YELLOW
    verdict = "CROSSING" if result.wall_crossing_detected else "no crossing"
    third = _panel(crossing, f"Wall crossing: {verdict} (ratio {result.wall_crossing_ratio:.3f})",
                   legend + [(YELLOW, "crossing (counted)")])

    compare = _overlay(shape, panels.walls)
    compare[panels.route & ~panels.dilated] = GREEN
    compare[panels.dilated & ~panels.route] = RED
    compare[panels.dilated & panels.route] = YELLOW
    fourth = _panel(compare, f"Path IoU {result.path_match_iou:.3f}, target {result.target_achievement:.2f}",
                    [(GREEN, "solution only"), (RED, "generated only"), (YELLOW, "overlap")])
    return np.vstack([np.hstack([first, second]), np.hstack([third, fourth])])


def save_visualization(panels: Panels, result: ImageResult, path: str | os.PathLike, *, video: bool) -> Path:
    """Write the 2x2 visualisation PNG to ``path``; return the path."""
    path = Path(path)
    ok, data = cv2.imencode(".png", render_visualization(panels, result, video=video))
    if not ok:
        raise OSError(f"{path}: cannot encode visualisation")
    with atomic_write(path, "wb") as fh:
        fh.write(data.tobytes())
    return path
