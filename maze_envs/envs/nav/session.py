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

The protocol's strategies (its ``NavRules``: ``maze_envs.envs.nav.strategies``) do what differs: how distances,
path lengths and headings are measured, how waypoints become poses and how a step ends the task, how collisions are
sampled, the ground height, and the ``result.json`` record. ``abot`` reproduces ABot-Navigation's code paths with
them, defects included (README, "Differences from ABot-Navigation").
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
from maze_envs.protocols import load

from .config import EvalConfig, PoiGoalEvalConfig
from .memory import ShortMemory
from .motion import select_pose
from .strategies import COLLISION, ERROR, MAX_STEPS, RENDER_ERROR, STOP

VIEWS = ("left", "front", "right")
STATUSES = (STOP, MAX_STEPS, COLLISION, ERROR, RENDER_ERROR)


class NavTaskError(MazeEnvsError):
    """A task cannot be played (e.g. an empty trajectory); the message names the episode and task."""


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
        rules = config.rules
        self.measure = load(rules.distance)
        self.motion = load(rules.motion)
        self.collision = load(rules.collision)
        self.ground = load(rules.ground)
        self.records = load(rules.record)
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
        pose[2, 3] = self.ground(self.episode, pose[0, 3], pose[1, 3]) + self.config.camera.extrinsic_height
        return pose

    def start(self) -> None:
        """Place the agent at the task's start and render it; raises ``NavTaskError`` or ``RenderFailureError``."""
        points = self.task.trajectory
        if not points:
            raise NavTaskError(f"{self.episode.episode_id}/{self.task.task_id}: the trajectory is empty")
        start = self.ground_pose(GaussianScene.get_gaussian_pose(points[0]))
        self.goal_xy = self.measure.goal(points[-1]["x"], points[-1]["y"])
        self.shortest_path_length = self.measure.path_length([(p["x"], p["y"]) for p in points])
        self.poses = [start]
        self.initial_distance = self.min_distance = self.distance = self._goal_distance(start)
        if self.poi and self.config.collision_mode != "off" and self.episode.occ_map is not None:
            self.start_in_obstacle = self.is_obstacle(start[0, 3], start[1, 3])
            self.goal_in_obstacle = self.is_obstacle(*self.goal_xy)
        self._render(start, frame=0)
        self.started = True

    def _goal_distance(self, pose: np.ndarray) -> float:
        return float(self.measure.distance(pose, self.goal_xy))

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
            "distance_to_goal": self.measure.length(self.goal_xy - pose[:2, 3]),
            "position": pose[:3, 3].copy(),
            "rotation": pose.copy(),
            "heading": self.measure.heading(pose),
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
        protocol's motion reads non-finite waypoints as given (else one is malformed).
        """
        local = self.motion.waypoints(waypoint, self.config.waypoint_frame)
        candidates = self.motion.poses(self.pose, local, directions)  # planar: ground heights come after it
        index, reached = select_pose(candidates, self.goal_xy, self.config.arrive_threshold, 2 if self.poi else 1,
                                     self.measure.distance)
        if not np.isfinite(candidates[index]).all():
            raise RenderFailureError(f"step {self.steps}: the pose of waypoint {index} is not finite "
                                     f"({candidates[index][:2, 3].tolist()}), so its render request fails")
        arrive = bool(arrive) or reached
        target = self.ground_pose(candidates[index])
        prev = self.pose
        collided = False
        if not self.poi:
            self.total_distance += self.measure.distance(target, prev[:2, 3])
            if self.episode.occ_map is not None and self.collision.hits(prev, target, self.episode):
                collided = True
                self.collision_steps.append(self.steps)
                self.collision_path_length += self.collision.length(prev, target, self.episode)
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
        else:
            self.status = self.motion.end(arrive, self.steps >= self.config.max_steps,
                                          self.distance <= self.config.arrive_threshold)
        return StepReport(target, collided, self.done)

    def fail(self, status: str, message: str) -> None:
        """End the task with ``status`` (``error`` or ``render_error``) and ``message``; returns nothing."""
        self.status = status
        self.error = message

    def is_obstacle(self, x: float, y: float) -> bool:
        """Return the POI obstacle test at world (x, y): a disc of ``robot_radius`` on the occupancy map."""
        occ = self.episode.occ_map
        grey = occ.mean(axis=2) if occ.ndim == 3 else occ
        px, py = self.collision.pixel(x, y, self.episode)
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
        return self.measure.path_length([(p[0, 3], p[1, 3]) for p in self.poses])

    def result(self) -> dict[str, Any]:
        """Return the task's ``result.json`` record, as the protocol's record writer builds it (numbers may be inf
        before the start; the writer's ``encode`` maps them to null, or to "inf" under the ABot protocol)."""
        return self.records.record(self)

    def record_head(self, status: str | None, oracle_success: bool) -> dict[str, Any]:
        """Return the fields every record starts with, ``status`` and ``oracle_success`` as given."""
        return {"episode_id": self.episode.episode_id, "task_id": self.task.task_id, "status": status,
                "target_label": self.poi_name if self.poi else "point_goal",
                "gt_taget_instance": f"poi_goal:{self.poi_name}" if self.poi else "point_goal_target",
                "steps": self.steps, "travel_length": self.travel_length,
                "shortest_path_length": self.shortest_path_length, "distance_to_goal": self.distance,
                "success": self.success, "oracle_success": oracle_success}

    def metrics_fields(self) -> dict[str, Any]:
        """Return the record's ``metrics`` (and, for POI, its ``spl``, taken out of them)."""
        metrics = self._poi_metrics() if self.poi else self._point_metrics()
        return {"metrics": metrics, "spl": metrics.pop("spl")} if self.poi else {"metrics": metrics}

    def record_tail(self) -> dict[str, Any]:
        """Return the fields every started record ends with: the goal and the trajectory."""
        return {"goal_world": self.goal_xy.tolist(),
                "trajectory": [[float(p[0, 3]), float(p[1, 3])] for p in self.poses]}

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

