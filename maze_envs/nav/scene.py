"""Navigation scenes on disk (the public benchmark's layout): ``GaussianScene``, ``Episode`` and ``Task``.

```
<root>/<scene_id>/traj_0.json ...        {"trajectory": [{x,y,z,roll,pitch,yaw}, ...],
                                          "label": {"extend": {"goal_label": ...}}}
<root>/<scene_id>/map/occ_map.png        grey uint8, >= 128 free
<root>/<scene_id>/map/occ_map_meta.txt   "Top Left: (x, y)", ..., "Image size in pixels: W, H"
<root>/<scene_id>/map/occ_map_height.tiff  float32 ground height (m)
```
World-to-pixel mapping follows the corner coordinates; points outside the map count as collisions.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping

import numpy as np
from PIL import Image

from maze_envs.core.datafiles import UnsafeFileError, open_data_file, read_data_text
from maze_envs.core.errors import brief_repr
from maze_envs.core.jsonfiles import read_json
from maze_envs.core.numbers import is_finite_number

from .camera import pose_matrix
from .errors import NavDataError

POSE_KEYS = ("x", "y", "z", "roll", "pitch", "yaw")
_CORNERS = {"Top Left": "TOP_LEFT", "Top Right": "TOP_RIGHT", "Bottom Left": "BOTTOM_LEFT",
            "Bottom Right": "BOTTOM_RIGHT"}
_HEIGHT_MODES = ("F", "I", "I;16", "I;16B", "I;16L", "L")
MAX_MAP_PX = 1 << 16  # a side longer than 65536 pixels is not a map
_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


@dataclass
class Task:
    """One navigation task (a ``traj_*.json`` file): the reference trajectory and its label."""

    task_id: str
    trajectory: list[dict[str, float]]
    label: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, path: str | os.PathLike) -> "Task":
        """Return the task stored at ``path``; raises ``NavDataError`` naming the file and field when malformed.

        Points are objects with x, y, z, roll, pitch, yaw (radians); ``[x, y]`` and ``[x, y, z]`` lists, which the
        public evaluator also accepts, become such objects with z 0 when absent and zero angles.
        """
        path = Path(path)
        doc = read_json(path, error=NavDataError)
        if not isinstance(doc, dict) or not isinstance(doc.get("trajectory"), list):
            raise NavDataError("expected an object with a 'trajectory' list", source=path, field="trajectory")
        points = []
        for i, point in enumerate(doc["trajectory"]):
            if isinstance(point, list) and len(point) in (2, 3):  # [x, y] or [x, y, z]: level, facing +x
                point = {"x": point[0], "y": point[1], "z": point[2] if len(point) == 3 else 0.0,
                         "roll": 0.0, "pitch": 0.0, "yaw": 0.0}
            if not isinstance(point, dict):
                raise NavDataError("each point must be an object or an [x, y(, z)] list", source=path,
                                   field=f"trajectory[{i}]")
            clean = dict(point)
            for key in POSE_KEYS:
                value = point.get(key)
                if not is_finite_number(value):
                    raise NavDataError(f"expected a finite number, got {brief_repr(value)}", source=path,
                                       field=f"trajectory[{i}].{key}")
                clean[key] = float(value)
            points.append(clean)
        label = doc.get("label", {})
        if not isinstance(label, dict):
            raise NavDataError("expected an object", source=path, field="label")
        return cls(path.stem, points, label)

    @property
    def start_pose(self) -> dict[str, float] | None:
        """Return the first trajectory point, or None if the trajectory is empty."""
        return self.trajectory[0] if self.trajectory else None

    @property
    def end_pose(self) -> dict[str, float] | None:
        """Return the last trajectory point, or None if the trajectory is empty."""
        return self.trajectory[-1] if self.trajectory else None

    @property
    def goal_label(self) -> str:
        """Return ``label["extend"]["goal_label"]``, or "" if absent."""
        extend = self.label.get("extend")
        value = extend.get("goal_label", "") if isinstance(extend, dict) else ""
        return str(value) if value is not None else ""


def parse_meta(path: str | os.PathLike) -> dict[str, float]:
    """Return the metadata of an ``occ_map_meta.txt`` file (see ``parse_meta_text``); raises ``NavDataError``."""
    path = Path(path)
    try:
        text = read_data_text(path)
    except UnsafeFileError as exc:
        raise NavDataError(exc.detail, source=path) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NavDataError(f"cannot read: {exc}", source=path) from exc
    return parse_meta_text(text, source=path)


def parse_meta_text(text: str, source: str | os.PathLike = "<meta>") -> dict[str, float]:
    """Return the metadata in the text of an ``occ_map_meta.txt``: corner coordinates, image size, coordinate ranges.

    Keys: ``TOP_LEFT_X/Y``, ``TOP_RIGHT_X/Y``, ``BOTTOM_LEFT_X/Y``, ``BOTTOM_RIGHT_X/Y``, ``IMAGE_WIDTH``,
    ``IMAGE_HEIGHT``, ``COORDINATE_RANGE_X`` = |BottomRight - BottomLeft|, ``COORDINATE_RANGE_Y`` =
    |BottomLeft - TopLeft|. A missing Top Right corner is derived from the others. Errors name ``source``.
    """
    lines = text.splitlines()
    meta: dict[str, float] = {}
    for lineno, line in enumerate(lines, 1):
        head, sep, rest = line.partition(":")
        head = head.strip()
        if not sep or not line.strip():
            continue
        numbers = [float(n) for n in re.findall(_NUMBER, rest)]
        if not all(math.isfinite(n) for n in numbers):
            raise NavDataError(f"line {lineno}: numbers must be finite, got {brief_repr(line.strip())}", source=source)
        if head in _CORNERS:
            if len(numbers) != 2:
                raise NavDataError(
                    f"line {lineno}: expected '{head}: (x, y)', got {brief_repr(line.strip())}", source=source
                )
            meta[_CORNERS[head] + "_X"], meta[_CORNERS[head] + "_Y"] = numbers
        elif head.lower().startswith("image size"):
            if len(numbers) != 2 or not all(n.is_integer() and 1 <= n <= MAX_MAP_PX for n in numbers):
                raise NavDataError(
                    f"line {lineno}: expected 'Image size in pixels: W, H' (whole numbers 1-{MAX_MAP_PX}),"
                    f" got {brief_repr(line.strip())}",
                    source=source,
                )
            meta["IMAGE_WIDTH"], meta["IMAGE_HEIGHT"] = int(numbers[0]), int(numbers[1])
    required = {"TOP_LEFT_X": "Top Left", "BOTTOM_LEFT_X": "Bottom Left", "BOTTOM_RIGHT_X": "Bottom Right",
                "IMAGE_WIDTH": "Image size in pixels"}
    missing = [name for key, name in required.items() if key not in meta]
    if missing:
        raise NavDataError(f"missing line(s): {', '.join(missing)}", source=source)
    meta.setdefault("TOP_RIGHT_X", meta["TOP_LEFT_X"] + meta["BOTTOM_RIGHT_X"] - meta["BOTTOM_LEFT_X"])
    meta.setdefault("TOP_RIGHT_Y", meta["TOP_LEFT_Y"] + meta["BOTTOM_RIGHT_Y"] - meta["BOTTOM_LEFT_Y"])
    meta["COORDINATE_RANGE_X"] = math.hypot(meta["BOTTOM_RIGHT_X"] - meta["BOTTOM_LEFT_X"],
                                            meta["BOTTOM_RIGHT_Y"] - meta["BOTTOM_LEFT_Y"])
    meta["COORDINATE_RANGE_Y"] = math.hypot(meta["BOTTOM_LEFT_X"] - meta["TOP_LEFT_X"],
                                            meta["BOTTOM_LEFT_Y"] - meta["TOP_LEFT_Y"])
    if not all(math.isfinite(v) for v in meta.values()):
        raise NavDataError("the corners are too far apart to compute with", source=source)
    if meta["COORDINATE_RANGE_X"] <= 0 or meta["COORDINATE_RANGE_Y"] <= 0:
        raise NavDataError("the corners span no area", source=source)
    return meta


@contextmanager
def _open_map(path: Path, what: str) -> Iterator[Image.Image]:
    """Yield the decoded image at ``path``; raises ``NavDataError`` naming ``what`` and the file when it cannot be
    decoded, is too large or breaks off."""
    try:
        with open_data_file(path) as fh, Image.open(fh) as img:
            if img.width * img.height > MAX_MAP_PX ** 2 // 16:
                raise NavDataError(f"the {what} is {img.width}x{img.height} pixels, too large", source=path)
            img.load()
            yield img
    except NavDataError:
        raise
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise NavDataError(f"cannot read the {what}: {brief_repr(str(exc), 160)}", source=path) from None


def _load_map(base: Path) -> tuple[np.ndarray | None, np.ndarray | None, dict | None]:
    """Return (occ_map, height_map, meta_data) from ``base/map/``; each None when its file is absent."""
    folder = base / "map"
    occ = height = meta = None
    if (folder / "occ_map.png").is_file():
        with _open_map(folder / "occ_map.png", "occupancy map") as img:
            occ = np.asarray(img.convert("L"), dtype=np.uint8).copy()
    if (folder / "occ_map_height.tiff").is_file():
        with _open_map(folder / "occ_map_height.tiff", "height map") as img:
            if img.mode not in _HEIGHT_MODES:
                raise NavDataError(f"expected one band of heights (mode {', '.join(_HEIGHT_MODES)}), got mode "
                                   f"{img.mode}", source=folder / "occ_map_height.tiff")
            height = np.asarray(img, dtype=np.float32).copy()
        if not np.isfinite(height).all():
            raise NavDataError("heights must be finite", source=folder / "occ_map_height.tiff")
    if (folder / "occ_map_meta.txt").is_file():
        meta = parse_meta(folder / "occ_map_meta.txt")
    return occ, height, meta


@dataclass
class Episode:
    """One scene directory: its tasks (``traj_*.json``) and map data (occupancy, height, metadata)."""

    episode_id: str
    scene_path: str
    tasks: list[Task] = field(default_factory=list)
    occ_map: np.ndarray | None = None
    height_map: np.ndarray | None = None
    meta_data: dict | None = None

    @classmethod
    def from_scene_dir(cls, scene_dir: str | os.PathLike, map_dir: str | os.PathLike | None = None) -> "Episode":
        """Return the episode of ``scene_dir``; map data comes from ``map_dir/map/`` when given, else
        ``scene_dir/map/``."""
        path = Path(scene_dir).resolve()
        if not path.is_dir():
            raise NavDataError("not a directory", source=path)
        tasks = [Task.from_json(p) for p in sorted(path.glob("traj_*.json"))]
        occ, height, meta = _load_map(Path(map_dir) if map_dir is not None else path)
        return cls(path.name, str(path), tasks, occ, height, meta)

    def has_map_data(self) -> bool:
        """Return whether the occupancy map, the metadata and the height map are all loaded."""
        return self.occ_map is not None and self.meta_data is not None and self.height_map is not None

    @property
    def num_tasks(self) -> int:
        """Return the number of tasks."""
        return len(self.tasks)

    def get_meter_per_pixel(self) -> float | None:
        """Return the mean map resolution in metres per pixel, or None without metadata."""
        m = self.meta_data
        if not m:
            return None
        return float((m["COORDINATE_RANGE_X"] / m["IMAGE_WIDTH"] + m["COORDINATE_RANGE_Y"] / m["IMAGE_HEIGHT"]) / 2)

    def dilate_free_space(self, dilation_pixels: int) -> None:
        """Grow the free space by ``dilation_pixels`` (elliptical kernel); the map becomes binary 0/255."""
        import cv2

        if self.occ_map is None or dilation_pixels <= 0:
            warnings.warn(
                f"{self.episode_id}: free-space dilation skipped (no map or {dilation_pixels} px)", stacklevel=2
            )
            return
        free = np.where(self.occ_map >= 128, 255, 0).astype(np.uint8)
        size = 2 * int(dilation_pixels) + 1
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (size, size))
        self.occ_map = cv2.dilate(free, kernel, iterations=1)

    def dilate_free_space_by_meter(self, dilation_meters: float = 0.5) -> None:
        """Grow the free space by ``dilation_meters`` (converted with ``get_meter_per_pixel``, at least 1 px)."""
        mpp = self.get_meter_per_pixel()
        if mpp is None or dilation_meters <= 0:
            warnings.warn(f"{self.episode_id}: free-space dilation skipped (no metadata or {dilation_meters} m)",
                          stacklevel=2)
            return
        self.dilate_free_space(max(1, int(round(dilation_meters / mpp))))

    def ground_height(self, x: float, y: float) -> float:
        """Return the height map's ground height (m) under world (x, y), clamped to the map; 0.0 without a map."""
        if self.height_map is None or self.meta_data is None:
            return 0.0
        px, py = GaussianScene.convert_actual_to_pixel(x, y, self)
        h, w = self.height_map.shape[:2]
        return float(self.height_map[min(max(py, 0), h - 1), min(max(px, 0), w - 1)])

    def abot_ground_height(self, x: float, y: float) -> float:
        """Return the ground height ABot-Navigation's evaluator uses under world (x, y): the height map read
        with x growing leftwards whatever the corners say (pixel indices truncated, then clamped), a ground
        above 5 m reset to 0.0, and -0.1 without a height map (a camera 0.55 m above the floor)."""
        if self.height_map is None or self.meta_data is None:
            return -0.1
        m = self.meta_data
        h, w = self.height_map.shape[:2]
        px = min(max(int((m["TOP_LEFT_X"] - x) * w / m["COORDINATE_RANGE_X"]), 0), w - 1)
        py = min(max(int((y - m["TOP_LEFT_Y"]) * h / m["COORDINATE_RANGE_Y"]), 0), h - 1)
        ground = float(self.height_map[py][px])
        return 0.0 if ground > 5 else ground


def _xy(pose: Any) -> tuple[float, float]:
    """Return world (x, y) of a 4x4 pose matrix or a dict with "x" and "y"."""
    if isinstance(pose, Mapping):
        return float(pose["x"]), float(pose["y"])
    arr = np.asarray(pose, float)
    if arr.shape == (4, 4):
        return float(arr[0, 3]), float(arr[1, 3])
    return float(arr[0]), float(arr[1])


def _blocked_length(occ: np.ndarray, px: np.ndarray, py: np.ndarray, dists: list[float], length: float) -> float:
    """Return the summed length of the runs of blocked samples (grey < 128 or off the map) at pixels
    (``px``, ``py``) and ``dists`` metres along a segment of ``length``: a run adds from its first sample to the
    next free one, or to ``length``."""
    h, w = occ.shape[:2]
    inside = (px >= 0) & (px < w) & (py >= 0) & (py < h)
    blocked = ~inside
    blocked[inside] = occ[py[inside], px[inside]] < 128
    total, enter = 0.0, None
    for d, hit in zip(dists, blocked.tolist(), strict=False):
        if hit and enter is None:
            enter = d
        elif not hit and enter is not None:
            total += d - enter
            enter = None
    if enter is not None:
        total += length - enter
    return float(total)


def _require_map(episode: Episode) -> tuple[np.ndarray, dict]:
    if episode.occ_map is None or episode.meta_data is None:
        raise NavDataError("no occupancy map or metadata loaded", source=episode.scene_path)
    return episode.occ_map, episode.meta_data


def _axes(episode: Episode) -> tuple[dict, float, float]:
    """Return (metadata, x sign, y sign); a sign is +1 where the pixel axis grows with the world axis."""
    m = episode.meta_data
    if m is None:
        raise NavDataError("no map metadata loaded", source=episode.scene_path)
    sx = 1.0 if m["TOP_RIGHT_X"] - m["TOP_LEFT_X"] >= 0 else -1.0
    sy = 1.0 if m["BOTTOM_LEFT_Y"] - m["TOP_LEFT_Y"] >= 0 else -1.0
    return m, sx, sy


class GaussianScene:
    """All episodes under ``local_data_path`` (one per subdirectory, sorted), with map and collision utilities."""

    def __init__(self, local_data_path: str | os.PathLike, local_map_path: str | os.PathLike | None = None):
        root = Path(local_data_path)
        if not root.is_dir():
            raise NavDataError("the scene data directory does not exist", source=root)
        if local_map_path is not None and not Path(local_map_path).is_dir():
            raise NavDataError("the map directory (local_map_path) does not exist", source=local_map_path)
        self.local_data_path = str(root)
        self.local_map_path = str(local_map_path) if local_map_path is not None else None
        self.episodes: list[Episode] = []
        for sub in sorted(p for p in root.iterdir() if p.is_dir()):
            map_dir = Path(local_map_path) / sub.name if local_map_path is not None else None
            self.episodes.append(Episode.from_scene_dir(sub, map_dir if map_dir and map_dir.is_dir() else None))

    def __len__(self) -> int:
        return len(self.episodes)

    def __iter__(self) -> Iterator[Episode]:
        return iter(self.episodes)

    def iter_tasks(self) -> Iterator[tuple[Episode, Task]]:
        """Yield every (episode, task) pair."""
        for episode in self.episodes:
            for task in episode.tasks:
                yield episode, task

    @property
    def total_tasks(self) -> int:
        """Return the number of tasks over all episodes."""
        return sum(e.num_tasks for e in self.episodes)

    def get_episode(self, idx: int) -> Episode:
        """Return the episode at index ``idx``."""
        return self.episodes[idx]

    def get_episode_by_id(self, episode_id: str) -> Episode | None:
        """Return the episode named ``episode_id``, or None."""
        return next((e for e in self.episodes if e.episode_id == episode_id), None)

    def summary(self) -> dict[str, Any]:
        """Return ``{"num_episodes", "total_tasks", "episode_ids"}``."""
        return {"num_episodes": len(self), "total_tasks": self.total_tasks,
                "episode_ids": [e.episode_id for e in self.episodes]}

    @staticmethod
    def convert_actual_to_pixel(x_actual: float, y_actual: float, episode: Episode, *,
                                truncate: bool = False) -> tuple[int, int]:
        """Return the occupancy-map pixel (x_pixel, y_pixel) of world (x, y); axis directions follow the corners.

        Rounds down, so a point less than a pixel beyond the top or left edge maps to pixel -1, outside the map,
        not to pixel 0; ``truncate`` rounds towards zero as the public code's ``int()`` does (the same inside
        the map; such a point then lands on pixel 0).
        """
        m, sx, sy = _axes(episode)
        px = sx * (x_actual - m["TOP_LEFT_X"]) * m["IMAGE_WIDTH"] / m["COORDINATE_RANGE_X"]
        py = sy * (y_actual - m["TOP_LEFT_Y"]) * m["IMAGE_HEIGHT"] / m["COORDINATE_RANGE_Y"]
        return (int(px), int(py)) if truncate else (math.floor(px), math.floor(py))

    @staticmethod
    def convert_pixel_to_actual(x_pixel: float, y_pixel: float, episode: Episode) -> tuple[float, float]:
        """Return world (x, y) of occupancy-map pixel (x_pixel, y_pixel): the inverse of ``convert_actual_to_pixel``."""
        m, sx, sy = _axes(episode)
        x = m["TOP_LEFT_X"] + sx * x_pixel * m["COORDINATE_RANGE_X"] / m["IMAGE_WIDTH"]
        y = m["TOP_LEFT_Y"] + sy * y_pixel * m["COORDINATE_RANGE_Y"] / m["IMAGE_HEIGHT"]
        return float(x), float(y)

    @classmethod
    def check_point_collision_status(cls, pose: Any, episode: Episode, robot_radius_pixel: int = 2, *,
                                     truncate: bool = False) -> bool:
        """Return whether ``pose`` is in collision: outside the map, or any pixel < 128 in the square patch around
        it (``truncate``: see ``convert_actual_to_pixel``)."""
        occ, _ = _require_map(episode)
        px, py = cls.convert_actual_to_pixel(*_xy(pose), episode, truncate=truncate)
        h, w = occ.shape[:2]
        if not (0 <= px < w and 0 <= py < h):
            return True
        r = max(0, int(robot_radius_pixel))
        patch = occ[max(0, py - r):py + r + 1, max(0, px - r):px + r + 1]
        return bool((patch < 128).any())

    @classmethod
    def check_line_collision_fast(cls, pose_start: Any, pose_end: Any, episode: Episode,
                                  step_size_pixel: float = 2.0, *, truncate: bool = False) -> bool:
        """Return whether the straight segment crosses an obstacle or leaves the map (uniform pixel-space samples;
        ``truncate``: see ``convert_actual_to_pixel``)."""
        occ, _ = _require_map(episode)
        u0, v0 = cls.convert_actual_to_pixel(*_xy(pose_start), episode, truncate=truncate)
        u1, v1 = cls.convert_actual_to_pixel(*_xy(pose_end), episode, truncate=truncate)
        dist = float(np.hypot(u1 - u0, v1 - v0))
        if dist < 1e-6:
            return cls.check_point_collision_status(pose_end, episode, truncate=truncate)
        n = max(2, int(dist / step_size_pixel))
        us = np.linspace(u0, u1, n).astype(int)
        vs = np.linspace(v0, v1, n).astype(int)
        h, w = occ.shape[:2]
        if ((us < 0) | (us >= w) | (vs < 0) | (vs >= h)).any():
            return True
        return bool((occ[vs, us] < 128).any())

    @classmethod
    def compute_line_collision_length(cls, pose_start: Any, pose_end: Any, episode: Episode,
                                      sample_step_meter: float = 0.05) -> float:
        """Return the length (m) of the segment inside obstacles or outside the map.

        Samples lie every ``sample_step_meter`` from the start (those more than 1 nm short of the end) plus the
        end point, so the count never hinges on how ``length / step`` rounds; each run of blocked samples adds
        the distance from its first sample to the first free sample after it (or to the end).
        """
        occ, _ = _require_map(episode)
        (x0, y0), (x1, y1) = _xy(pose_start), _xy(pose_end)
        length = math.hypot(x1 - x0, y1 - y0)
        if length == 0.0:
            return 0.0
        steps = np.arange(math.floor(length / sample_step_meter) + 1) * sample_step_meter
        dists = np.append(steps[steps < length - 1e-9], length)
        ts = dists / length
        m, sx, sy = _axes(episode)  # convert_actual_to_pixel on every sample at once
        px = np.floor(sx * (x0 + ts * (x1 - x0) - m["TOP_LEFT_X"]) * m["IMAGE_WIDTH"] / m["COORDINATE_RANGE_X"])
        py = np.floor(sy * (y0 + ts * (y1 - y0) - m["TOP_LEFT_Y"]) * m["IMAGE_HEIGHT"] / m["COORDINATE_RANGE_Y"])
        return _blocked_length(occ, px.astype(int), py.astype(int), dists.tolist(), length)

    @classmethod
    def abot_collision_length(cls, pose_start: Any, pose_end: Any, episode: Episode,
                              sample_step_meter: float = 0.05) -> float:
        """Return the collision length ABot-Navigation's evaluator computes for the segment: ``n = max(2,
        int(L / step))`` evenly spaced samples, ``L`` from ``np.linalg.norm`` (0.0 under 1 um), pixel indices
        truncated towards zero, blocked samples and samples off the map adding up as in
        ``compute_line_collision_length``."""
        occ, _ = _require_map(episode)
        p0, p1 = np.array(_xy(pose_start)), np.array(_xy(pose_end))
        length = float(np.linalg.norm(p1 - p0))
        if length < 1e-6:
            return 0.0
        n = max(2, int(length / sample_step_meter))
        xs, ys = np.linspace(p0[0], p1[0], n), np.linspace(p0[1], p1[1], n)
        m = episode.meta_data
        h, w = occ.shape[:2]
        sx = 1 if m.get("TOP_RIGHT_X", m["TOP_LEFT_X"] + m["COORDINATE_RANGE_X"]) - m["TOP_LEFT_X"] >= 0 else -1
        sy = 1 if m.get("BOTTOM_LEFT_Y", m["TOP_LEFT_Y"] + m["COORDINATE_RANGE_Y"]) - m["TOP_LEFT_Y"] >= 0 else -1
        us = ((xs - m["TOP_LEFT_X"] if sx == 1 else m["TOP_LEFT_X"] - xs) * w / m["COORDINATE_RANGE_X"]).astype(int)
        vs = ((ys - m["TOP_LEFT_Y"] if sy == 1 else m["TOP_LEFT_Y"] - ys) * h / m["COORDINATE_RANGE_Y"]).astype(int)
        return _blocked_length(occ, us, vs, np.linspace(0, length, n).tolist(), length)

    @staticmethod
    def get_gaussian_pose(cur_info: Mapping[str, float]) -> np.ndarray:
        """Return the 4x4 camera-to-world matrix of a pose dict (x, y, z, roll, pitch, yaw; XYZ Euler, radians)."""
        return pose_matrix(*(float(cur_info.get(k, 0.0)) for k in POSE_KEYS))
