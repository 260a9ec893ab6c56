"""The navigation strategies a task is played with, one instance per protocol (named by its ``NavRules``).

The session calls these and never asks which protocol it plays: ``Measure`` (the ``distance`` strategy),
``Motion``, ``CollisionSampling``, the ``ground`` height, ``RecordWriter`` (the ``record`` strategy) and the
``camera`` of a view size. This project's own are ``PLANAR``, ``MOTION``, ``SAMPLING``, ``ground_height``,
``RECORDS`` and ``scaled_camera``; ABot-Navigation's code paths, defects included, are the ``ABOT_*`` ones,
``abot_ground_height`` and ``fixed_camera`` (README, "Differences from ABot-Navigation").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from maze_envs.nav.camera import CameraConfig
from maze_envs.nav.scene import Episode, GaussianScene

from .motion import abot_distance, abot_predicted_poses, local_waypoints, planar_distance, predicted_poses

if TYPE_CHECKING:
    from .session import NavSession

BENCHMARK_CAMERA = CameraConfig()  # 720x640, fx = fy = 252.075, principal point (360, 320), 0.65 m high
STOP, MAX_STEPS, COLLISION, ERROR, RENDER_ERROR = "stop", "max_steps", "collision", "error", "render_error"


# --- camera ------------------------------------------------------------------------------------------------------
def scaled_camera(width: int, height: int, extrinsic_height: float, fx: float | None, fy: float | None) -> CameraConfig:
    """Return the benchmark camera scaled to ``width`` x ``height`` (the same horizontal field of view, square
    pixels, centred principal point); ``fx`` / ``fy`` (fy defaults to fx) replace the focal lengths."""
    focal = BENCHMARK_CAMERA.fx * width / BENCHMARK_CAMERA.width if fx is None else fx
    return CameraConfig(width, height, focal, focal if fy is None else fy, width / 2, height / 2, extrinsic_height)


def fixed_camera(width: int, height: int, extrinsic_height: float, fx: float | None, fy: float | None) -> CameraConfig:
    """Return ABot-Navigation's runner's camera: fx 252.075, cx 360 and cy 320 at every size (``fx`` / ``fy``
    replace the focal lengths)."""
    focal = BENCHMARK_CAMERA.fx if fx is None else fx
    return CameraConfig(width, height, focal, focal if fy is None else fy, BENCHMARK_CAMERA.cx, BENCHMARK_CAMERA.cy,
                        extrinsic_height)


# --- distance ----------------------------------------------------------------------------------------------------
def polyline_length(points: list[tuple[float, float]]) -> float:
    """Return the 2D length of the polyline through ``points`` (``math.hypot`` per segment)."""
    return float(sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:], strict=False)))


def abot_polyline_length(points: list[tuple[float, float]]) -> float:
    """Return the 2D length of the polyline through ``points`` as ABot-Navigation adds it: ``np.linalg.norm`` per
    segment, added in order."""
    total = 0.0
    for a, b in zip(points, points[1:], strict=False):
        total += np.linalg.norm(np.array(b[:2]) - np.array(a[:2]))
    return float(total)


def heading(pose: np.ndarray) -> float:
    """Return the yaw (radians) of the 4x4 ``pose`` (``math.atan2``)."""
    return math.atan2(pose[1, 0], pose[0, 0])


def abot_heading(pose: np.ndarray) -> float:
    """Return the yaw of ``pose`` as ABot-Navigation computes it (``np.arctan2``; it can differ by an ulp)."""
    return float(np.arctan2(pose[1, 0], pose[0, 0]))


@dataclass(frozen=True)
class Measure:
    """How a task measures: ``goal(x, y)`` the goal point array, ``distance(pose, goal_xy)`` from a 4x4 pose,
    ``length(vector)`` of a 2D offset, ``path_length(points)`` of a polyline and ``heading(pose)``."""

    goal: Callable[[float, float], np.ndarray]
    distance: Callable[[np.ndarray, np.ndarray], float]
    length: Callable[[np.ndarray], float]
    path_length: Callable[[list[tuple[float, float]]], float]
    heading: Callable[[np.ndarray], float]


def goal_point(x: float, y: float) -> np.ndarray:
    """Return the goal (x, y) as a float64 array."""
    return np.array([x, y], float)


def abot_goal_point(x: float, y: float) -> np.ndarray:
    """Return the goal (x, y) as ABot-Navigation keeps it, a float32 array."""
    return np.array([x, y], np.float32)


def offset_length(vector: np.ndarray) -> float:
    """Return the length of a 2D offset (``np.hypot``)."""
    return float(np.hypot(*vector))


def abot_offset_length(vector: np.ndarray) -> float:
    """Return the length of a 2D offset as ABot-Navigation takes it (``np.linalg.norm``)."""
    return float(np.linalg.norm(vector))


PLANAR = Measure(goal=goal_point, distance=planar_distance, length=offset_length, path_length=polyline_length,
                 heading=heading)
ABOT_MEASURE = Measure(goal=abot_goal_point, distance=abot_distance, length=abot_offset_length,
                       path_length=abot_polyline_length, heading=abot_heading)


# --- motion ------------------------------------------------------------------------------------------------------
def end_status(arrived: bool, at_limit: bool, within: bool) -> str | None:
    """Return how a step ends the task: ``stop`` on arrival, ``max_steps`` at the step limit, else None."""
    return STOP if arrived else MAX_STEPS if at_limit else None


def abot_end_status(arrived: bool, at_limit: bool, within: bool) -> str | None:
    """Return ABot-Navigation's status on arrival or at the step limit: ``stop`` when within the threshold, else
    ``max_steps`` (the status follows success); None otherwise."""
    if not (arrived or at_limit):
        return None
    return STOP if within else MAX_STEPS


@dataclass(frozen=True)
class Motion:
    """How a prediction moves the agent: ``waypoints(waypoint, frame)`` the (N,2) local ``[front, left]`` points
    (raising ``MazeConfigError`` for malformed ones), ``poses(current, local, directions)`` the candidate poses and
    ``end(arrived, at_limit, within)`` the status a step ends the task with (None: it goes on)."""

    waypoints: Callable[..., np.ndarray]
    poses: Callable[..., list[np.ndarray]]
    end: Callable[[bool, bool, bool], str | None]


MOTION = Motion(waypoints=local_waypoints, poses=predicted_poses, end=end_status)
# a non-finite waypoint is read as given: its pose's render request fails (render_error)
ABOT_MOTION = Motion(waypoints=partial(local_waypoints, allow_nonfinite=True), poses=abot_predicted_poses,
                     end=abot_end_status)


# --- collision and ground ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CollisionSampling:
    """How collisions are sampled: ``hits(start, end, episode)`` whether the segment crosses an obstacle,
    ``length(start, end, episode)`` the length inside obstacles, ``pixel(x, y, episode)`` the map pixel of a
    point (the POI test's disc centre)."""

    hits: Callable[[Any, Any, Episode], bool]
    length: Callable[[Any, Any, Episode], float]
    pixel: Callable[[float, float, Episode], tuple[int, int]]


SAMPLING = CollisionSampling(hits=GaussianScene.check_line_collision_fast,
                             length=GaussianScene.compute_line_collision_length,
                             pixel=GaussianScene.convert_actual_to_pixel)
ABOT_SAMPLING = CollisionSampling(hits=partial(GaussianScene.check_line_collision_fast, truncate=True),
                                  length=GaussianScene.abot_collision_length,
                                  pixel=partial(GaussianScene.convert_actual_to_pixel, truncate=True))


def ground_height(episode: Episode, x: float, y: float) -> float:
    """Return the ground height under (x, y) (``Episode.ground_height``: the corner-aware pixel mapping)."""
    return episode.ground_height(x, y)


def abot_ground_height(episode: Episode, x: float, y: float) -> float:
    """Return ABot-Navigation's ground height under (x, y) (``Episode.abot_ground_height``)."""
    return episode.abot_ground_height(x, y)


# --- records -----------------------------------------------------------------------------------------------------
def json_ready(value: Any) -> Any:
    """Return ``value`` with numpy scalars and arrays as Python values and non-finite floats as None (JSON null)."""
    if isinstance(value, dict):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_ready(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def abot_json(value: Any) -> Any:
    """Return ``value`` serialised as ABot-Navigation writes ``result.json``: numpy scalars and arrays as Python
    values (a numpy inf stays a float, which ``json`` writes ``Infinity``), Python inf/nan floats as the strings
    "inf"/"nan"."""
    if isinstance(value, dict):
        return {str(k): abot_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [abot_json(v) for v in value]
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def task_record(session: NavSession) -> dict[str, Any]:
    """Return this project's ``result.json`` record of ``session``: ``oracle_success`` when the agent came within
    the threshold at some step, the failure's text in ``error``, the metrics gathered so far."""
    record = session.record_head(session.status, session.min_distance <= session.config.arrive_threshold)
    if session.error is not None:
        record["error"] = session.error
    if not session.poses:
        record["metrics"] = {}
        return record
    return {**record, **session.metrics_fields(), **session.record_tail()}


def abot_task_record(session: NavSession) -> dict[str, Any]:
    """Return the record ABot-Navigation's evaluator writes for ``session``: ``oracle_success`` copies
    ``success``; an ``error`` (or a start that failed to render) has zero lengths, an infinite distance and no
    metrics; a ``render_error`` has the closest distance reached, no success and no point-goal metrics."""
    if session.status == ERROR or (session.status == RENDER_ERROR and not session.started):
        return {**session.record_head(ERROR, False), "steps": 0, "travel_length": 0.0, "shortest_path_length": 0.0,
                "distance_to_goal": math.inf, "success": False, "metrics": {}}
    if session.status != RENDER_ERROR:
        return {**session.record_head(session.status, session.success), **session.metrics_fields(),
                **session.record_tail()}
    record = {**session.record_head(RENDER_ERROR, False), "distance_to_goal": session.min_distance, "success": False}
    if session.poi:
        c = session.config
        record["spl"] = 0.0
        record["metrics"] = {"poi_name": session.poi_name, "initial_distance_to_goal": session.initial_distance,
                             "min_distance_to_goal": session.min_distance,
                             "final_distance_to_goal": session.min_distance,
                             "pointgoal_arrive_threshold": c.arrive_threshold, "collision_mode": c.collision_mode,
                             "collision_count": len(session.collision_steps), "collision_terminated": False}
    else:
        record["metrics"] = {}
    return {**record, **session.record_tail()}


def add_run_fields(record: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` with the run's ``fields`` (map folder, dilation) added."""
    return {**record, **fields}


def abot_add_run_fields(record: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """Return ``record`` with the run's ``fields`` added, except to an error record (no trajectory), which
    ABot-Navigation writes without them."""
    return add_run_fields(record, fields) if "trajectory" in record else record


@dataclass(frozen=True)
class RecordWriter:
    """How a task's ``result.json`` is written: ``record(session)`` builds it, ``run_fields(record, fields)`` adds
    the run's fields and ``encode(value)`` makes it (or a summary) JSON-ready (non-finite numbers as null or as
    strings)."""

    record: Callable[[NavSession], dict[str, Any]]
    run_fields: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]]
    encode: Callable[[Any], Any]


RECORDS = RecordWriter(record=task_record, run_fields=add_run_fields, encode=json_ready)
ABOT_RECORDS = RecordWriter(record=abot_task_record, run_fields=abot_add_run_fields, encode=abot_json)
