"""One picture per episode (scene): every task's trajectory drawn over the scene's occupancy map as the run
dilated it (what collisions were judged on), with the start (dot), the goal (ring of the arrival radius) and
the counted collisions (red crosses), and a legend below the map.

Where a walk (or a goal) leaves the map, the picture grows to hold every point, the ground beyond the map is
shaded and the map's edge outlined: the walk is drawn where the agent went, never cut at the edge or moved onto
it. The legend's text is ``LEGEND_TEXT_SHARE`` of the drawing's longer side high (at least ``LEGEND_TEXT_PX``),
so it stays readable where a report shows the picture scaled to a column's width."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.paths import read_image, write_image
from maze_envs.nav.scene import Episode, GaussianScene, parse_meta

from .aggregate import grouped, load_all_results

PICTURE_NAME = "trajectories.png"
LEGEND_TEXT_SHARE = 0.03
LEGEND_TEXT_PX = 14
_COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189), (140, 86, 75), (227, 119, 194),
            (127, 127, 127), (188, 189, 34), (23, 190, 207)]
_OFF_MAP, _EDGE, _PANEL, _INK, _COLLISION = (245, 228, 206), (60, 60, 60), (255, 255, 255), (0, 0, 0), (0, 0, 255)
_MARGIN, _FRAME = 16, 3  # px round a grown view; the map's outline, drawn just outside it
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def _map_episode(map_dir: str | None) -> Episode | None:
    if not map_dir:
        return None
    folder = Path(map_dir) / "map"
    if not (folder / "occ_map.png").is_file() or not (folder / "occ_map_meta.txt").is_file():
        return None
    try:
        grey = read_image(folder / "occ_map.png", cv2.IMREAD_GRAYSCALE)
        meta = parse_meta(folder / "occ_map_meta.txt")
    except MazeFormatError:
        return None
    return Episode(Path(map_dir).name, str(map_dir), [], grey, None, meta) if grey is not None else None


def _finite_point(xy: Any) -> tuple[float, float] | None:
    try:
        x, y = float(xy[0]), float(xy[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    return (x, y) if math.isfinite(x) and math.isfinite(y) else None


class _View:
    """Where map pixels land on the canvas: the map and every drawn point inside, ``scale`` canvas px a map px."""

    def __init__(self, occ_shape: tuple[int, int], points: list[tuple[float, float]], min_side: int):
        h, w = occ_shape
        xs, ys = [0.0, float(w)] + [x for x, _ in points], [0.0, float(h)] + [y for _, y in points]
        self.left, self.top, right, bottom = min(xs), min(ys), max(xs), max(ys)
        self.grown = (self.left, self.top, right, bottom) != (0.0, 0.0, float(w), float(h))
        longest = max(right - self.left, bottom - self.top)
        scale = float(max(1, math.ceil(min_side / max(h, w))))
        self.scale = min(scale, 2 * min_side / longest) if self.grown else scale
        self.margin = _MARGIN if self.grown else 0
        self.width = math.ceil((right - self.left) * self.scale) + 2 * self.margin
        self.height = math.ceil((bottom - self.top) * self.scale) + 2 * self.margin

    def at(self, px: float, py: float) -> tuple[int, int]:
        """Return the canvas pixel of map pixel (px, py)."""
        return (round((px - self.left) * self.scale) + self.margin, round((py - self.top) * self.scale) + self.margin)


def _map_canvas(occ: np.ndarray, view: _View) -> np.ndarray:
    grey = np.where(occ >= 128, 235, 90).astype(np.uint8)
    x0, y0 = view.at(0, 0)
    x1, y1 = view.at(occ.shape[1], occ.shape[0])
    interpolation = cv2.INTER_NEAREST if view.scale >= 1 else cv2.INTER_AREA
    drawn = cv2.cvtColor(cv2.resize(grey, (max(1, x1 - x0), max(1, y1 - y0)), interpolation=interpolation),
                         cv2.COLOR_GRAY2BGR)
    canvas = np.full((view.height, view.width, 3), _OFF_MAP, np.uint8)
    if view.grown:
        canvas[y0 - _FRAME:y0 + drawn.shape[0] + _FRAME, x0 - _FRAME:x0 + drawn.shape[1] + _FRAME] = _EDGE
    canvas[y0:y0 + drawn.shape[0], x0:x0 + drawn.shape[1]] = drawn[:view.height - y0, :view.width - x0]
    return canvas


def _legend(entries: list[tuple[str, Any]], width: int, text_px: int) -> np.ndarray:
    """Return a white panel ``width`` px wide holding ``entries`` (label, swatch painter) flowed into rows."""
    scale = text_px / cv2.getTextSize("Ag", _FONT, 1.0, 1)[0][1]
    thickness = max(1, round(text_px / 12))
    line, pad, swatch = round(text_px * 1.8), text_px, round(text_px * 1.6)
    placed, x, row = [], pad, 0
    for label, paint in entries:
        size = swatch + text_px // 2 + cv2.getTextSize(label, _FONT, scale, thickness)[0][0]
        if x > pad and x + size > width - pad:
            x, row = pad, row + 1
        placed.append((x, row, label, paint))
        x += size + 2 * text_px
    panel = np.full((pad + (row + 1) * line, width, 3), _PANEL, np.uint8)
    for x, row, label, paint in placed:
        middle = pad // 2 + row * line + line // 2
        paint(panel, (x + swatch // 2, middle), swatch)
        cv2.putText(panel, label, (x + swatch + text_px // 2, middle + text_px // 2), _FONT, scale, _INK, thickness,
                    cv2.LINE_AA)
    return panel


def _line_swatch(colour):
    def paint(panel, centre, size):
        cv2.line(panel, (centre[0] - size // 2, centre[1]), (centre[0] + size // 2, centre[1]), colour,
                 max(2, size // 5), cv2.LINE_AA)
    return paint


def _key_entries(grown: bool) -> list[tuple[str, Any]]:
    entries = [("start", lambda p, c, s: cv2.circle(p, c, s // 4, _INK, -1, cv2.LINE_AA)),
               ("goal (arrival radius)", lambda p, c, s: cv2.circle(p, c, s // 2 - 1, _INK, 2, cv2.LINE_AA)),
               ("collision", lambda p, c, s: cv2.drawMarker(p, c, _COLLISION, cv2.MARKER_TILTED_CROSS, s - 2, 2))]
    if grown:
        entries.append(("off the map", lambda p, c, s: cv2.rectangle(p, (c[0] - s // 2, c[1] - s // 3),
                                                                      (c[0] + s // 2, c[1] + s // 3), _OFF_MAP, -1)))
    return entries


def draw_episode(results: list[dict[str, Any]], path: str | os.PathLike, min_side: int = 640) -> Path | None:
    """Draw the trajectories of one episode's ``results`` over its map into ``path``; return it, or None when the
    results name no readable map (``map_dir``). The picture holds every trajectory point and goal ring, on the
    map or off it, with the legend below."""
    episode = next((e for e in (_map_episode(r.get("map_dir")) for r in results) if e is not None), None)
    if episode is None:
        return None
    dilation = next((r.get("occ_dilation_meters") for r in results if r.get("occ_dilation_meters")), None)
    if isinstance(dilation, (int, float)) and dilation > 0:
        episode.dilate_free_space_by_meter(float(dilation))
    occ = episode.occ_map
    mpp = episode.get_meter_per_pixel() or 1.0

    def pixel(xy: tuple[float, float]) -> tuple[float, float]:
        px, py = GaussianScene.convert_actual_to_pixel(xy[0], xy[1], episode)
        return px + 0.5, py + 0.5

    tasks = []
    for result in sorted(results, key=lambda r: str(r.get("task_id"))):
        metrics = result.get("metrics") or {}
        walk = [_finite_point(p) for p in result.get("trajectory") or []]
        goal = _finite_point(result.get("goal_world") or ())
        radius = (metrics.get("pointgoal_arrive_threshold") or 0.5) / mpp
        tasks.append((result, [pixel(p) if p else None for p in walk], pixel(goal) if goal else None, radius))
    extent = [p for _, walk, _, _ in tasks for p in walk if p]
    extent += [(g[0] + d * r, g[1] + d * r) for _, _, g, r in tasks if g for d in (-1, 1)]
    view = _View(occ.shape, extent, min_side)
    canvas = _map_canvas(occ, view)
    entries = []
    for i, (result, walk, goal, radius) in enumerate(tasks):
        colour = _COLOURS[i % len(_COLOURS)][::-1]
        pts = np.array([view.at(*p) for p in walk if p], np.int32)
        if len(pts):
            cv2.polylines(canvas, [pts], False, colour, 2, cv2.LINE_AA)
            cv2.circle(canvas, tuple(int(v) for v in pts[0]), 6, colour, -1, cv2.LINE_AA)
        if goal:
            cv2.circle(canvas, view.at(*goal), max(3, round(radius * view.scale)), colour, 2, cv2.LINE_AA)
        metrics = result.get("metrics") or {}
        for step in metrics.get("collision_steps", metrics.get("collision_step_indices", [])) or []:
            if isinstance(step, int) and 0 <= step + 1 < len(walk) and walk[step + 1]:
                cv2.drawMarker(canvas, view.at(*walk[step + 1]), _COLLISION, cv2.MARKER_TILTED_CROSS, 14, 2)
        if len(pts) or goal:
            label = f"{result.get('task_id')}: {result.get('status')}{' ok' if result.get('success') else ''}"
            entries.append((label, _line_swatch(colour)))
    text_px = max(LEGEND_TEXT_PX, round(LEGEND_TEXT_SHARE * max(view.width, view.height)))
    picture = np.vstack([canvas, _legend(entries + _key_entries(view.grown), view.width, text_px)])
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_image(path, picture)
    return path


def draw_run(result_dir: str | os.PathLike) -> list[Path]:
    """Draw ``<result_dir>/<episode>/trajectories.png`` for every episode with results and a map; return them."""
    results = load_all_results(result_dir)
    drawn = []
    for episode_id, episode_results in grouped(results, lambda r: str(r["episode_id"])).items():
        picture = draw_episode(episode_results, Path(result_dir) / episode_id / PICTURE_NAME)
        if picture is not None:
            drawn.append(picture)
    return drawn
