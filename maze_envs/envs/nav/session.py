"""One navigation task played by the protocol: start, observations, steps, and the ``result.json`` record.

Shared by the Gymnasium envs and the evaluator. Per step (ABot-Navigation's rules, see ``config``):
the waypoints become poses (``motion``); the first pose within ``arrive_threshold`` of the goal is taken and
ends the task, else pose 1 (point-goal) or 2 (POI), clamped; a single waypoint is used as is. Point-goal
checks the segment travelled against the dilated occupancy map (2 px samples, at most one count per step,
collision length from a sample every 0.05 m plus the end point) and never stops on a collision; POI checks the pose
reached (a disc of ``robot_radius``), exempts hits inside the arrival circle, and in ``hard`` mode ends the task with
status ``collision``. The pose's z is the ground under it plus the camera height. Success is judged on the pose after
the final step: distance <= ``arrive_threshold``.

Where this differs from the public code (documented on purpose): ``status`` is ``stop`` when arrival was
declared (by the agent or by a waypoint within the threshold) and ``max_steps`` when the step limit ended the
task, as the spec says, whatever the success (the code reports ``stop`` for success); ``oracle_success``
means the agent came within the threshold at some step (the code copies ``success``); a failed render is
``render_error`` at any step, and the metrics gathered so far are kept; the ground height and the POI
obstacle test use the corner-aware pixel mapping, and points off the map are obstacles for both tasks.

A protocol whose ``NavRules.public_code`` is set (``abot``) reproduces the public code instead, defects included:
``status`` follows success, ``oracle_success`` copies it, a float32 goal and ``np.linalg.norm`` distances, its
waypoint arithmetic (a zero direction faces world yaw 0), its ground rule (x-flipped height lookup, ground above
5 m reset to 0, -0.1 m without a height map), its collision-length sampling, and its records for errors
(``error`` with zero lengths, an infinite distance and no metrics; a failed start render is such an error) and
for ``render_error`` (no point-goal metrics, the distance is the closest one reached), which is also how a move
to a non-finite pose ends (its render request fails there).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from maze_envs.core.errors import MazeEnvsError
from maze_envs.nav.errors import RenderFailureError
from maze_envs.nav.scene import Episode, GaussianScene, Task

from .config import EvalConfig, PoiGoalEvalConfig
from .memory import ShortMemory
from .motion import abot_distance, abot_predicted_poses, local_waypoints, planar_distance, predicted_poses, select_pose

VIEWS = ("left", "front", "right")
STOP, MAX_STEPS, COLLISION, ERROR, RENDER_ERROR = "stop", "max_steps", "collision", "error", "render_error"
STATUSES = (STOP, MAX_STEPS, COLLISION, ERROR, RENDER_ERROR)


class NavTaskError(MazeEnvsError):
    """A task cannot be played (e.g. an empty trajectory); the message names the episode and task."""


def polyline_length(points: list[tuple[float, float]], abot: bool = False) -> float:
    """Return the 2D length of the polyline through ``points`` (segment lengths by ``np.linalg.norm``, added
    in order, when ``abot``)."""
    if abot:
        total = 0.0
        for a, b in zip(points, points[1:], strict=False):
            total += np.linalg.norm(np.array(b[:2]) - np.array(a[:2]))
        return float(total)
    return float(sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in zip(points, points[1:], strict=False)))


def heading(pose: np.ndarray, *, public_code: bool = False) -> float:
    """Return the yaw (radians) of the 4x4 ``pose``: ``math.atan2``, or ``np.arctan2`` as the public evaluator
    computes it (``public_code``; the two differ by an ulp for some poses)."""
    if public_code:
        return float(np.arctan2(pose[1, 0], pose[0, 0]))
    return math.atan2(pose[1, 0], pose[0, 0])


@dataclass
class StepReport:
    """What one step did: the pose reached, whether a collision was counted, and whether the task ended."""

    pose: np.ndarray
    collided: bool
    done: bool


class NavSession:
    """Plays ``task`` of ``episode`` (its map already dilated) with ``renderer`` under ``config``.

    ``start()`` renders the start; then ``observation()`` / ``step(...)`` until ``done``; ``result()`` is the
    task's record at any time. ``save_dir`` (optional) receives the renders as ``{frame}_{view}.jpg``.
    """

    def __init__(self, episode: Episode, task: Task, renderer, config: EvalConfig,
                 save_dir: str | os.PathLike | None = None):
        self.episode = episode
        self.task = task
        self.renderer = renderer
        self.config = config
        self.poi = isinstance(config, PoiGoalEvalConfig)
        self.abot = config.rules.public_code
        self._distance = abot_distance if self.abot else planar_distance
        self.save_dir = Path(save_dir) if save_dir is not None else None
        self.memory = ShortMemory(config.max_history_frames, resize_ratio=config.history_resize_ratio,
                                  resample=config.rules.history_resample) if config.provide_history else None
        self.status: str | None = None
        self.error: str | None = None
        self.started = False
        self.images: dict[str, np.ndarray] = {}
        self.views: dict[str, Image.Image] = {}
        self.poses: list[np.ndarray] = []
        self.steps = 0
        self.goal_xy = np.zeros(2)
        self.shortest_path_length = 0.0
        self.initial_distance = self.min_distance = self.distance = math.inf
        self.total_distance = 0.0
        self.collision_steps: list[int] = []
        self.collision_path_length = 0.0
        self.skipped_near_goal = 0
        self.consecutive = self.max_consecutive = 0
        self.start_in_obstacle = self.goal_in_obstacle = False

    # --- setup ---------------------------------------------------------------------------------------------
    def ground_pose(self, pose: np.ndarray) -> np.ndarray:
        """Return ``pose`` with z set to the ground under it plus the camera height."""
        pose = np.array(pose, float)
        ground = self.episode.abot_ground_height if self.abot else self.episode.ground_height
        pose[2, 3] = ground(pose[0, 3], pose[1, 3]) + self.config.camera.extrinsic_height
        return pose

    def start(self) -> None:
        """Place the agent at the task's start and render it; raises ``NavTaskError`` or ``RenderFailureError``."""
        points = self.task.trajectory
        if not points:
            raise NavTaskError(f"{self.episode.episode_id}/{self.task.task_id}: the trajectory is empty")
        start = self.ground_pose(GaussianScene.get_gaussian_pose(points[0]))
        self.goal_xy = np.array([points[-1]["x"], points[-1]["y"]], np.float32 if self.abot else float)
        self.shortest_path_length = polyline_length([(p["x"], p["y"]) for p in points], self.abot)
        self.poses = [start]
        self.initial_distance = self.min_distance = self.distance = self._goal_distance(start)
        if self.poi and self.config.collision_mode != "off" and self.episode.occ_map is not None:
            self.start_in_obstacle = self.is_obstacle(start[0, 3], start[1, 3])
            self.goal_in_obstacle = self.is_obstacle(*self.goal_xy)
        self._render(start, frame=0)
        self.started = True

    def _goal_distance(self, pose: np.ndarray) -> float:
        return float(self._distance(pose, self.goal_xy))

    def _render(self, pose: np.ndarray, frame: int) -> None:
        rendered = self.renderer.render_at_pose(pose, self.episode.episode_id, save_dir=self.save_dir,
                                                image_id=frame)
        names = ("left", "right", "front") if len(rendered) == 3 else ("front",)
        by_name = dict(zip(names, rendered, strict=False))
        self.views = {name: by_name[name] for name in VIEWS if name in by_name}
        self.images = {name: np.asarray(im, np.uint8) for name, im in self.views.items()}
        if self.memory is not None:
            self.memory.add_frame(rendered, pose)

    # --- observation ---------------------------------------------------------------------------------------
    @property
    def pose(self) -> np.ndarray:
        """Return the agent's current 4x4 pose."""
        return self.poses[-1]

    def target_position(self) -> np.ndarray:
        """Return the goal in the agent-local frame, ``[front, left]`` metres (float32)."""
        pose = self.pose
        delta = self.goal_xy - pose[:2, 3]
        return (pose[:2, :2].T @ delta).astype(np.float32)

    def observation(self, pil_images: bool = False) -> dict[str, Any]:
        """Return the observation fields of the spec, images keyed left/front/right: uint8 RGB arrays, or with
        ``pil_images`` the rendered PIL images (what the agent interface gives, as the public evaluator does)."""
        pose = self.pose
        cam = self.config.camera
        current = self.views if pil_images else self.images
        obs: dict[str, Any] = {
            "images": {name: current.get(name, np.zeros((cam.height, cam.width, 3), np.uint8)) for name in VIEWS},
            "target_position": self.target_position(),
            "distance_to_goal": float(np.linalg.norm(self.goal_xy - pose[:2, 3]) if self.abot
                                      else np.hypot(*(self.goal_xy - pose[:2, 3]))),
            "position": pose[:3, 3].copy(),
            "rotation": pose.copy(),
            "heading": heading(pose, public_code=self.abot),
            "step_count": self.steps,
            "goal_world": None if self.poi else self.goal_xy.astype(np.float32),
            "meta_data": dict(self.episode.meta_data) if self.episode.meta_data else None,
            "extra": {},
        }
        if self.memory is not None:
            obs["history_images"] = [{"front": np.asarray(im)} for im in self.memory.get_history_images()]
            obs["history_poses"] = [p.copy() for p in self.memory.get_history_poses()]
        if self.config.provide_occ_map and self.episode.occ_map is not None:
            obs["occ_map"] = self.episode.occ_map.copy()
        if self.config.provide_height_map and self.episode.height_map is not None:
            obs["height_map"] = self.episode.height_map.copy()
        if self.poi:
            obs["poi_name"] = self.poi_name
        return obs

    @property
    def poi_name(self) -> str:
        """Return the task's goal label ("unknown" when it has none)."""
        return self.task.goal_label or "unknown"

    # --- stepping ------------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Return whether the task has ended."""
        return self.status is not None

    def step(self, waypoint, arrive: bool = False, directions=None) -> StepReport:
        """Move by one prediction and render the new pose; return what happened.

        Raises ``MazeConfigError`` for a malformed waypoint and ``RenderFailureError`` when the render fails
        (the caller then ends the task with ``fail``), as it does for a move to a non-finite pose when the
        protocol's ``nonfinite_waypoint_status`` is ``render_error`` (else a non-finite waypoint is malformed).
        """
        render_fails = self.config.rules.nonfinite_waypoint_status == RENDER_ERROR
        local = local_waypoints(waypoint, self.config.waypoint_frame, allow_nonfinite=render_fails)
        motion = abot_predicted_poses if self.abot else predicted_poses
        candidates = motion(self.pose, local, directions)  # the choice is planar: ground heights come after it
        index, reached = select_pose(candidates, self.goal_xy, self.config.arrive_threshold, 2 if self.poi else 1,
                                     self._distance)
        if not np.isfinite(candidates[index]).all():
            raise RenderFailureError(f"step {self.steps}: the pose of waypoint {index} is not finite "
                                     f"({candidates[index][:2, 3].tolist()}), so its render request fails")
        arrive = bool(arrive) or reached
        target = self.ground_pose(candidates[index])
        prev = self.pose
        collided = False
        if not self.poi:
            self.total_distance += self._distance(target, prev[:2, 3])
            if self.episode.occ_map is not None and GaussianScene.check_line_collision_fast(
                    prev, target, self.episode, truncate=self.abot):
                collided = True
                self.collision_steps.append(self.steps)
                length = GaussianScene.abot_collision_length if self.abot else \
                    GaussianScene.compute_line_collision_length
                self.collision_path_length += length(prev, target, self.episode)
        self._render(target, frame=self.steps + 1)
        self.poses.append(target)
        self.steps += 1
        self.distance = self._goal_distance(target)
        self.min_distance = min(self.min_distance, self.distance)
        terminated = False
        if self.poi and self.config.collision_mode != "off" and self.episode.occ_map is not None \
                and self.is_obstacle(target[0, 3], target[1, 3]):
            if self.distance <= self.config.arrive_threshold:
                self.skipped_near_goal += 1
                self.consecutive = 0
            else:
                collided = True
                self.collision_steps.append(self.steps - 1)
                self.consecutive += 1
                self.max_consecutive = max(self.max_consecutive, self.consecutive)
                terminated = self.config.collision_mode == "hard"
        elif self.poi:
            self.consecutive = 0
        if terminated:
            self.status = COLLISION
        elif self.abot and (arrive or self.steps >= self.config.max_steps):
            self.status = STOP if self.distance <= self.config.arrive_threshold else MAX_STEPS
        elif arrive:
            self.status = STOP
        elif self.steps >= self.config.max_steps:
            self.status = MAX_STEPS
        return StepReport(target, collided, self.done)

    def fail(self, status: str, message: str) -> None:
        """End the task with ``status`` (``error`` or ``render_error``) and ``message``; returns nothing."""
        self.status = status
        self.error = message

    def is_obstacle(self, x: float, y: float) -> bool:
        """Return the POI obstacle test at world (x, y): a disc of ``robot_radius`` on the occupancy map."""
        occ = self.episode.occ_map
        grey = occ.mean(axis=2) if occ.ndim == 3 else occ
        px, py = GaussianScene.convert_actual_to_pixel(x, y, self.episode, truncate=self.abot)
        h, w = grey.shape
        if not (0 <= px < w and 0 <= py < h):
            return True
        mpp = self.episode.get_meter_per_pixel() or 1.0
        r = int(math.ceil(self.config.robot_radius / mpp)) if self.config.robot_radius > 0 else 0
        ys, xs = np.ogrid[max(0, py - r):min(h, py + r + 1), max(0, px - r):min(w, px + r + 1)]
        values = grey[ys, xs][(ys - py) ** 2 + (xs - px) ** 2 <= r * r]
        if self.config.occ_obstacle_polarity == "dark":
            return bool((values <= self.config.occ_dark_threshold).any())
        return bool((values >= self.config.occ_dark_threshold).any())

    # --- results -------------------------------------------------------------------------------------------
    @property
    def success(self) -> bool:
        """Return whether the task ended within the arrival threshold (never after an error or a hard collision)."""
        return self.status in (STOP, MAX_STEPS) and self.distance <= self.config.arrive_threshold

    @property
    def travel_length(self) -> float:
        """Return the 2D length travelled: the polyline through the start and every pose reached."""
        return polyline_length([(p[0, 3], p[1, 3]) for p in self.poses], self.abot)

    def result(self) -> dict[str, Any]:
        """Return the task's ``result.json`` record (numbers may be inf before the start; writers map them to null,
        or to "inf" under the ABot protocol)."""
        if self.abot:
            return self._abot_result()
        started = bool(self.poses)
        record: dict[str, Any] = {
            "episode_id": self.episode.episode_id, "task_id": self.task.task_id, "status": self.status,
            "target_label": self.poi_name if self.poi else "point_goal",
            "gt_taget_instance": f"poi_goal:{self.poi_name}" if self.poi else "point_goal_target",
            "steps": self.steps, "travel_length": self.travel_length,
            "shortest_path_length": self.shortest_path_length, "distance_to_goal": self.distance,
            "success": self.success, "oracle_success": self.min_distance <= self.config.arrive_threshold,
        }
        if self.error is not None:
            record["error"] = self.error
        if not started:
            record["metrics"] = {}
            return record
        record["metrics"] = self._poi_metrics() if self.poi else self._point_metrics()
        if self.poi:
            record["spl"] = record["metrics"].pop("spl")
        record["goal_world"] = self.goal_xy.tolist()
        record["trajectory"] = [[float(p[0, 3]), float(p[1, 3])] for p in self.poses]
        return record

    def _abot_result(self) -> dict[str, Any]:
        """Return the record ABot-Navigation's evaluator writes for this task."""
        names = {"target_label": self.poi_name if self.poi else "point_goal",
                 "gt_taget_instance": f"poi_goal:{self.poi_name}" if self.poi else "point_goal_target"}
        head = {"episode_id": self.episode.episode_id, "task_id": self.task.task_id}
        if self.status == ERROR or (self.status == RENDER_ERROR and not self.started):
            return {**head, "status": ERROR, **names, "steps": 0, "travel_length": 0.0,
                    "shortest_path_length": 0.0, "distance_to_goal": math.inf, "success": False,
                    "oracle_success": False, "metrics": {}}
        record: dict[str, Any] = {**head, "status": self.status, **names, "steps": self.steps,
                                  "travel_length": self.travel_length,
                                  "shortest_path_length": self.shortest_path_length, "distance_to_goal": self.distance,
                                  "success": self.success, "oracle_success": self.success}
        if self.status == RENDER_ERROR:
            record.update(distance_to_goal=self.min_distance, success=False, oracle_success=False)
            if self.poi:
                record["spl"] = 0.0
                record["metrics"] = {"poi_name": self.poi_name, "initial_distance_to_goal": self.initial_distance,
                                     "min_distance_to_goal": self.min_distance,
                                     "final_distance_to_goal": self.min_distance,
                                     "pointgoal_arrive_threshold": self.config.arrive_threshold,
                                     "collision_mode": self.config.collision_mode,
                                     "collision_count": len(self.collision_steps), "collision_terminated": False}
            else:
                record["metrics"] = {}
        else:
            record["metrics"] = self._poi_metrics() if self.poi else self._point_metrics()
            if self.poi:
                record["spl"] = record["metrics"].pop("spl")
        record["goal_world"] = self.goal_xy.tolist()
        record["trajectory"] = [[float(p[0, 3]), float(p[1, 3])] for p in self.poses]
        return record

    def _common_metrics(self) -> dict[str, Any]:
        return {"initial_distance_to_goal": self.initial_distance, "min_distance_to_goal": self.min_distance,
                "final_distance_to_goal": self.distance, "pointgoal_arrive_threshold": self.config.arrive_threshold}

    def _point_metrics(self) -> dict[str, Any]:
        count = len(self.collision_steps)
        success_new = self.success and count < self.config.collision_threshold
        sp, travel, total = self.shortest_path_length, self.travel_length, self.total_distance
        return {
            **self._common_metrics(),
            "success_new": success_new,
            "spl_new": sp / max(travel, sp) if success_new and sp > 0 else 0.0,
            "tcr_new": (self.steps - count) / self.steps if success_new and self.steps > 0 else 0.0,
            "dcr_new": (total - self.collision_path_length) / total if success_new and total > 0 else 0.0,
            "path_collision_count": count, "collision_path_length": self.collision_path_length,
            "total_distance": total, "is_path_collided": count > 0,
            "collision_path_ratio": self.collision_path_length / total if total > 0 else 0.0,
            "collision_steps": list(self.collision_steps),
        }

    def _poi_metrics(self) -> dict[str, Any]:
        threshold = self.config.arrive_threshold
        effective = max(self.shortest_path_length - max(threshold, 0.0), 1e-3)
        spl = effective / max(self.travel_length, effective) if self.success and self.shortest_path_length > 0 else 0.0
        count = len(self.collision_steps)
        mode = self.config.collision_mode
        return {
            "spl": spl, "poi_name": self.poi_name, **self._common_metrics(),
            "collision_mode": mode, "collision_check_enabled": mode != "off",
            "robot_radius": self.config.robot_radius, "collision_count": count,
            "collision_rate": count / max(self.steps, 1), "max_consecutive_collision": self.max_consecutive,
            "collision_step_indices": list(self.collision_steps),
            "collision_skipped_near_goal": self.skipped_near_goal, "has_collision": count > 0,
            "collision_terminated": self.status == COLLISION,
            "start_in_obstacle": self.start_in_obstacle, "goal_in_obstacle": self.goal_in_obstacle,
            "start_or_goal_in_obstacle": self.start_in_obstacle or self.goal_in_obstacle,
        }


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
