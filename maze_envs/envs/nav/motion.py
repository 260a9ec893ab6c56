"""Waypoints to poses, as the navigation protocol moves an agent.

Frames: a pose is a 4x4 camera-to-world matrix whose local +x looks forward, +y points left and z is up.
Waypoints arrive in the agent-local frame, ``[front, left]`` metres by default, or ``[right, front]``
(``right_front``, what the public evaluator's code reads). ``directions`` are always ``[front, left]``.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from scipy.spatial.transform import Rotation

from maze_envs.core.errors import MazeConfigError
from maze_envs.nav.camera import pose_matrix


def local_waypoints(waypoint, frame: str = "front_left", allow_nonfinite: bool = False) -> np.ndarray:
    """Return the (N,2) waypoints as ``[front, left]`` metres; accepts (2,), (1,2) or (N,2) in ``frame``.

    Raises ``MazeConfigError`` naming ``waypoint`` when it is empty, mis-shaped or (unless ``allow_nonfinite``)
    not finite.
    """
    try:
        wp = np.atleast_2d(np.asarray(waypoint, dtype=float))
    except (TypeError, ValueError) as exc:
        raise MazeConfigError(f"expected numbers of shape (2,), (1,2) or (N,2): {exc}", parameter="waypoint") from exc
    if wp.ndim != 2 or wp.shape[1] != 2 or wp.shape[0] < 1:
        raise MazeConfigError(f"expected shape (2,), (1,2) or (N,2), got {np.shape(waypoint)}", parameter="waypoint")
    if not allow_nonfinite and not np.isfinite(wp).all():
        raise MazeConfigError("values must be finite", parameter="waypoint")
    if frame == "right_front":
        return np.stack([wp[:, 1], -wp[:, 0]], axis=1)
    return wp


def predicted_poses(current: np.ndarray, local: np.ndarray, directions=None) -> list[np.ndarray]:
    """Return the 4x4 pose reached at each local waypoint from pose ``current`` (z kept; roll and pitch dropped).

    Each pose faces its direction: ``directions[i]`` (local ``[front, left]``) when given, else towards the next
    waypoint (the last one continues the previous leg, a single one faces away from the agent); a direction
    shorter than 1e-6 keeps the current heading.
    """
    rot = current[:3, :3]
    origin = current[:3, 3]
    n = len(local)
    if directions is not None:
        dirs = np.atleast_2d(np.asarray(directions, dtype=float))
        if dirs.shape != (n, 2) or not np.isfinite(dirs).all():
            raise MazeConfigError(f"expected {n} finite [front, left] rows, got shape {dirs.shape}",
                                  parameter="directions")
    else:
        prev = np.vstack([np.zeros((1, 2)), local[:-1]])
        dirs = np.where(np.arange(n)[:, None] < n - 1, np.roll(local, -1, axis=0) - local, local - prev)
    keep_yaw = math.atan2(rot[1, 0], rot[0, 0])
    poses = []
    for point, d in zip(local, dirs, strict=False):
        world = rot @ np.array([point[0], point[1], 0.0]) + origin
        d_world = rot @ np.array([d[0], d[1], 0.0])
        yaw = math.atan2(d_world[1], d_world[0]) if math.hypot(d_world[0], d_world[1]) > 1e-6 else keep_yaw
        poses.append(pose_matrix(world[0], world[1], origin[2], 0.0, 0.0, yaw))
    return poses


def abot_predicted_poses(current: np.ndarray, local: np.ndarray, directions=None) -> list[np.ndarray]:
    """Return the poses ABot-Navigation's evaluator builds from local ``[front, left]`` waypoints, with its
    arithmetic: positions and given directions rotated as (N,3) arrays, a direction used as given (``[0, 0]``
    faces world yaw 0), missing ones from the waypoint polyline normalised (the current x axis under 1e-6),
    yaw from ``np.arctan2``, z kept. Raises ``MazeConfigError`` for mis-shaped ``directions``."""
    rot, origin = current[:3, :3], current[:3, 3]
    n = len(local)
    world = (rot @ np.concatenate([local, np.zeros((n, 1))], axis=1).T).T + origin
    if directions is not None:
        dirs = np.atleast_2d(np.asarray(directions, dtype=float))
        if dirs.shape != (n, 2) or not np.isfinite(dirs).all():
            raise MazeConfigError(f"expected {n} finite [front, left] rows, got shape {dirs.shape}",
                                  parameter="directions")
        dirs = (rot @ np.concatenate([dirs, np.zeros((n, 1))], axis=1).T).T
    else:
        dirs = np.zeros((n, 3))
        for i in range(n):
            d = world[i + 1] - world[i] if i < n - 1 else world[i] - (world[i - 1] if i > 0 else origin)
            norm = np.linalg.norm(d[:2])
            dirs[i] = d / norm if norm > 1e-6 else current[:3, 0]
    poses = []
    for point, d in zip(world, dirs, strict=False):
        pose = np.eye(4)
        pose[:3, :3] = Rotation.from_euler("xyz", [0, 0, np.arctan2(d[1], d[0])], degrees=False).as_matrix()
        pose[:3, 3] = np.array([point[0], point[1], current[2, 3]])
        poses.append(pose)
    return poses


def planar_distance(pose: np.ndarray, goal_xy: np.ndarray) -> float:
    """Return the 2D distance from a 4x4 pose to ``goal_xy`` (``math.hypot``)."""
    return math.hypot(pose[0, 3] - goal_xy[0], pose[1, 3] - goal_xy[1])


def abot_distance(pose: np.ndarray, goal_xy: np.ndarray) -> float:
    """Return the 2D distance from a 4x4 pose to ``goal_xy`` as ABot-Navigation computes it (``np.linalg.norm``)."""
    return float(np.linalg.norm(pose[:2, 3] - goal_xy))


def select_pose(poses: list[np.ndarray], goal_xy: np.ndarray, arrive_threshold: float, default_index: int,
                distance: Callable[[np.ndarray, np.ndarray], float] = planar_distance) -> tuple[int, bool]:
    """Return (index of the pose to move to, whether it arrives): the first pose nearer the goal than
    ``arrive_threshold`` (by ``distance``) arrives, else ``default_index`` (1 point-goal, 2 POI), both clamped
    to the last pose."""
    for i, pose in enumerate(poses):
        if distance(pose, goal_xy) < arrive_threshold:
            return min(i, len(poses) - 1), True
    return min(default_index, len(poses) - 1), False
