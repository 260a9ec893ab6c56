"""One picture per episode (scene): every task's trajectory drawn over the scene's occupancy map as the run
dilated it (what collisions were judged on), with the start (dot), the goal (ring of the arrival radius) and
the counted collisions (red crosses)."""

from __future__ import annotations

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
_COLOURS = [(31, 119, 180), (255, 127, 14), (44, 160, 44), (148, 103, 189), (140, 86, 75), (227, 119, 194),
            (127, 127, 127), (188, 189, 34), (23, 190, 207)]


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


def draw_episode(results: list[dict[str, Any]], path: str | os.PathLike, min_side: int = 640) -> Path | None:
    """Draw the trajectories of one episode's ``results`` over its map into ``path``; return it, or None when the
    results name no readable map (``map_dir``)."""
    episode = next((e for e in (_map_episode(r.get("map_dir")) for r in results) if e is not None), None)
    if episode is None:
        return None
    dilation = next((r.get("occ_dilation_meters") for r in results if r.get("occ_dilation_meters")), None)
    if isinstance(dilation, (int, float)) and dilation > 0:
        episode.dilate_free_space_by_meter(float(dilation))
    occ = episode.occ_map
    scale = max(1, int(np.ceil(min_side / max(occ.shape))))
    canvas = cv2.cvtColor(np.where(occ >= 128, 235, 90).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    canvas = cv2.resize(canvas, (occ.shape[1] * scale, occ.shape[0] * scale), interpolation=cv2.INTER_NEAREST)
    mpp = episode.get_meter_per_pixel() or 1.0

    def pixel(xy) -> tuple[int, int]:
        px, py = GaussianScene.convert_actual_to_pixel(float(xy[0]), float(xy[1]), episode)
        return int((px + 0.5) * scale), int((py + 0.5) * scale)

    for i, result in enumerate(sorted(results, key=lambda r: str(r.get("task_id")))):
        points = result.get("trajectory") or []
        if not points:
            continue
        colour = _COLOURS[i % len(_COLOURS)][::-1]
        pts = np.array([pixel(p) for p in points], np.int32)
        cv2.polylines(canvas, [pts], False, colour, 2, cv2.LINE_AA)
        cv2.circle(canvas, tuple(pts[0]), 6, colour, -1, cv2.LINE_AA)
        goal = result.get("goal_world")
        if goal:
            threshold = (result.get("metrics") or {}).get("pointgoal_arrive_threshold") or 0.5
            cv2.circle(canvas, pixel(goal), max(3, int(threshold / mpp * scale)), colour, 2, cv2.LINE_AA)
        metrics = result.get("metrics") or {}
        for step in metrics.get("collision_steps", metrics.get("collision_step_indices", [])) or []:
            if isinstance(step, int) and 0 <= step + 1 < len(pts):
                x, y = pts[step + 1]
                cv2.drawMarker(canvas, (int(x), int(y)), (0, 0, 255), cv2.MARKER_TILTED_CROSS, 14, 2)
        label = f"{result.get('task_id')}: {result.get('status')}{' ok' if result.get('success') else ''}"
        cv2.putText(canvas, label, (8, 20 + 18 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_image(path, canvas)
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
