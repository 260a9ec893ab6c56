"""Cameras: the client's ``CameraConfig``, pose matrices, and the COLMAP strings of the render protocol.

Conventions (those of the public benchmark): world z is up; a pose is a 4x4 camera-to-world matrix whose local
+x looks forward, +y points left and +z up; ``from_euler("xyz", [roll, pitch, yaw])`` so forward is
(cos yaw, sin yaw, 0) at zero pitch and positive pitch tilts the view down. The protocol carries COLMAP
world-to-camera extrinsics (camera x right, y down, z forward) and PINHOLE intrinsics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
from scipy.spatial.transform import Rotation

from maze_envs.core.errors import brief_repr

from .errors import RenderRequestError

# Columns: the COLMAP camera axes (right, down, forward) written in the pose's local frame (front, left, up).
POSE_TO_COLMAP = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])


@dataclass
class CameraConfig:
    """Pinhole intrinsics of the rendered views and the camera height above the ground (metres)."""

    width: int = 720
    height: int = 640
    fx: float = 252.075
    fy: float = 252.075
    cx: float = 360.0
    cy: float = 320.0
    extrinsic_height: float = 0.65

    @property
    def intrinsics_colmap(self) -> str:
        """Return the intrinsics as a COLMAP camera line ``"1 PINHOLE W H fx fy cx cy"``."""
        return f"1 PINHOLE {self.width} {self.height} {self.fx} {self.fy} {self.cx} {self.cy}"


@dataclass(frozen=True)
class PinholeView:
    """One view to render: image size, intrinsics and the world-to-camera rotation ``R`` (3x3) and translation ``t``."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    R: np.ndarray
    t: np.ndarray

    def scaled(self, factor: float) -> "PinholeView":
        """Return the same view rendered ``factor`` times larger in each image dimension."""
        return PinholeView(max(1, round(self.width * factor)), max(1, round(self.height * factor)),
                           self.fx * factor, self.fy * factor, self.cx * factor, self.cy * factor, self.R, self.t)


def pose_matrix(x: float, y: float, z: float, roll: float = 0.0, pitch: float = 0.0, yaw: float = 0.0) -> np.ndarray:
    """Return the 4x4 camera-to-world matrix of a position and XYZ Euler angles (radians)."""
    pose = np.eye(4)
    pose[:3, :3] = Rotation.from_euler("xyz", [roll, pitch, yaw]).as_matrix()
    pose[:3, 3] = (x, y, z)
    return pose


def pose_euler(pose: np.ndarray) -> tuple[float, float, float]:
    """Return (roll, pitch, yaw) in radians of a 4x4 pose (XYZ Euler angles)."""
    roll, pitch, yaw = Rotation.from_matrix(np.asarray(pose, float)[:3, :3]).as_euler("xyz")
    return float(roll), float(pitch), float(yaw)


def world_to_camera(pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return COLMAP world-to-camera ``(R, t)`` of a 4x4 pose (local +x forward, +y left, +z up)."""
    pose = np.asarray(pose, float)
    r_c2w = pose[:3, :3] @ POSE_TO_COLMAP
    r_w2c = r_c2w.T
    return r_w2c, -r_w2c @ pose[:3, 3]


def colmap_extrinsics(pose: np.ndarray, name: str = "image_1.jpg") -> str:
    """Return the protocol line ``"1 qw qx qy qz tx ty tz 1 name"`` (COLMAP world-to-camera) of a 4x4 pose."""
    r, t = world_to_camera(pose)
    qx, qy, qz, qw = Rotation.from_matrix(r).as_quat()
    if qw < 0:
        qw, qx, qy, qz = -qw, -qx, -qy, -qz
    values = " ".join(f"{v:.9g}" for v in (qw, qx, qy, qz, *t))
    return f"1 {values} 1 {name}"


# ABot-Navigation's render client: USD camera axes (looking along -z) in the world camera frame (looking along +x),
# and the flip from USD/OpenGL camera axes to the GS/COLMAP ones.
_ABOT_USD_TO_WORLD = np.array([[0, 0, -1, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1]])
_ABOT_GL_TO_COLMAP = np.array([[1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 0, 0, 1]])
_ABOT_NUDGED_YAWS = (0.0, 90.0, -90.0, 180.0, -180.0, 270.0, -270.0, 360.0)


def _trace_quaternion(r: np.ndarray) -> np.ndarray:
    """Return [qw, qx, qy, qz] of a rotation matrix by the trace formula ABot-Navigation uses (no branch for
    traces near -1; qw == 0 gives [0, 1, 0, 0])."""
    qw = np.sqrt(1.0 + r[0, 0] + r[1, 1] + r[2, 2]) / 2.0
    if qw == 0.0:
        return np.array([0.0, 1.0, 0.0, 0.0])
    return np.array([qw, (r[2, 1] - r[1, 2]) / (4.0 * qw), (r[0, 2] - r[2, 0]) / (4.0 * qw),
                     (r[1, 0] - r[0, 1]) / (4.0 * qw)])


def _quaternion_matrix(q: np.ndarray) -> np.ndarray:
    """Return the 4x4 homogeneous rotation of a [qw, qx, qy, qz] quaternion (normalised first)."""
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y ** 2 + z ** 2), 2 * (x * y - w * z), 2 * (x * z + w * y), 0],
                     [2 * (x * y + w * z), 1 - 2 * (x ** 2 + z ** 2), 2 * (y * z - w * x), 0],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x ** 2 + y ** 2), 0],
                     [0, 0, 0, 1]])


def _matrix_euler_degrees(r: np.ndarray) -> np.ndarray:
    """Return XYZ Euler angles (degrees) of a 3x3 rotation, as ABot-Navigation's client extracts them."""
    sy = np.sqrt(r[0, 0] ** 2 + r[1, 0] ** 2)
    if sy < 1e-6:
        angles = (np.arctan2(-r[1, 2], r[1, 1]), np.arctan2(-r[2, 0], sy), 0)
    else:
        angles = (np.arctan2(r[2, 1], r[2, 2]), np.arctan2(-r[2, 0], sy), np.arctan2(r[1, 0], r[0, 0]))
    return np.array([np.degrees(a) for a in angles])


def abot_colmap_extrinsics(x: float, y: float, z: float, roll: float, pitch: float, yaw: float) -> str:
    """Return the ``cam_extrinsics`` line ABot-Navigation's client sends for a camera at (x, y, z) with XYZ Euler
    angles in radians: the same arithmetic step by step, so the numbers and the render match its requests
    exactly. A yaw within 0.001 deg of a multiple of 90 deg (0 to +-270, and 360) is nudged by +0.001 deg;
    every number is written in full precision (Python's shortest repr)."""
    degrees = [angle * (180.0 / math.pi) for angle in (roll, pitch, yaw)]
    if any(math.isclose(degrees[2], v, abs_tol=1e-3) for v in _ABOT_NUDGED_YAWS):
        degrees[2] = degrees[2] + 0.001
    world_q = _trace_quaternion(Rotation.from_euler("xyz", np.array(degrees), degrees=True).as_matrix())
    world_q32 = np.asarray(world_q, dtype=np.float32)
    usd = np.matmul(Rotation.from_quat(world_q32[[1, 2, 3, 0]]).as_matrix(),
                    _ABOT_USD_TO_WORLD[:3, :3].astype(np.float32))
    usd_q = Rotation.from_matrix(usd).as_quat()[[3, 0, 1, 2]]
    rotation = _quaternion_matrix(np.array([float(v) for v in usd_q])).T
    translation = np.eye(4)
    translation[:3, 3] = np.array([x, y, z])
    camera_to_world = rotation @ translation.T
    euler = np.deg2rad(_matrix_euler_degrees(camera_to_world[:3, :3].T))
    c2w = np.eye(4)
    c2w[:3, :3] = Rotation.from_euler("xyz", euler).as_matrix()
    c2w[:3, 3] = np.array(list(camera_to_world[-1, :3]))
    w2c = _ABOT_GL_TO_COLMAP @ np.linalg.inv(c2w)
    values = [*_trace_quaternion(w2c[:3, :3]), *w2c[:3, 3]]
    return "1 " + " ".join(str(v) for v in values) + " 1 image_1.jpg"


# Any camera number past this (pixels for intrinsics, metres or a quaternion component for extrinsics) is absurd
# for the scenes served, and squares of it still fit in float32 (the renderers' arithmetic).
MAX_CAMERA_VALUE = 1e6


def _numbers(words: list[str], field: str) -> list[float]:
    try:
        values = [float(w) for w in words]
    except ValueError:
        raise RenderRequestError(f"{field}: expected numbers, got {brief_repr(' '.join(words))}") from None
    if not all(math.isfinite(v) and abs(v) <= MAX_CAMERA_VALUE for v in values):
        raise RenderRequestError(f"{field}: values must be finite numbers within +-{MAX_CAMERA_VALUE:g}, got "
                                 f"{brief_repr(' '.join(words))}")
    return values


def parse_intrinsics(line: Any, *, max_side: int = 4096) -> tuple[int, int, float, float, float, float]:
    """Return (W, H, fx, fy, cx, cy) of a ``"1 PINHOLE W H fx fy cx cy"`` line; raises ``RenderRequestError``."""
    words = str(line).split() if isinstance(line, str) else []
    if len(words) != 8 or words[1].upper() != "PINHOLE":
        raise RenderRequestError(f"cam_intrinsics: expected '1 PINHOLE W H fx fy cx cy', got {brief_repr(line)}")
    w, h, fx, fy, cx, cy = _numbers(words[2:], "cam_intrinsics")
    if w != int(w) or h != int(h) or not (1 <= w <= max_side and 1 <= h <= max_side):
        raise RenderRequestError(f"cam_intrinsics: image size {words[2]}x{words[3]} must be whole numbers "
                                 f"from 1 to {max_side}")
    if fx <= 0 or fy <= 0:
        raise RenderRequestError(f"cam_intrinsics: focal lengths must be positive, got {fx}, {fy}")
    return int(w), int(h), fx, fy, cx, cy


def parse_extrinsics(line: Any) -> tuple[np.ndarray, np.ndarray]:
    """Return world-to-camera (R, t) of a ``"1 qw qx qy qz tx ty tz 1 name"`` line; raises ``RenderRequestError``."""
    words = str(line).split() if isinstance(line, str) else []
    if len(words) < 8:
        raise RenderRequestError(f"cam_extrinsics: expected '1 qw qx qy qz tx ty tz 1 name', got {brief_repr(line)}")
    qw, qx, qy, qz, tx, ty, tz = _numbers(words[1:8], "cam_extrinsics")
    norm = np.sqrt(qw * qw + qx * qx + qy * qy + qz * qz)
    if norm < 1e-8:
        raise RenderRequestError("cam_extrinsics: the quaternion is zero")
    r = Rotation.from_quat([qx / norm, qy / norm, qz / norm, qw / norm]).as_matrix()
    return r, np.array([tx, ty, tz])


def view_from_request(payload: Mapping[str, Any]) -> PinholeView:
    """Return the ``PinholeView`` of a render request's ``cam_intrinsics`` and ``cam_extrinsics``."""
    w, h, fx, fy, cx, cy = parse_intrinsics(payload.get("cam_intrinsics"))
    r, t = parse_extrinsics(payload.get("cam_extrinsics"))
    return PinholeView(w, h, fx, fy, cx, cy, r, t)


def view_from_pose(pose: np.ndarray, camera: CameraConfig | None = None) -> PinholeView:
    """Return the ``PinholeView`` of a 4x4 pose with ``camera``'s intrinsics (defaults: ``CameraConfig()``)."""
    camera = camera or CameraConfig()
    r, t = world_to_camera(pose)
    return PinholeView(camera.width, camera.height, camera.fx, camera.fy, camera.cx, camera.cy, r, t)
