"""Render clients with the public interface: ``GaussianRenderer`` (HTTP), ``LocalGaussianRenderer`` (in-process,
scenes on disk) and ``CloudRenderer`` (clouds in memory, no encoding round trip).

Both render a 4x4 camera-to-world pose as three views (left +90 deg, right -90 deg, front 0 deg, in that order)
or one (front), return PIL images and can save them as ``{image_id}_{view}.jpg`` (``saved_renders``: the server's
JPEG bytes as each view arrives, or ``reencoded`` as ABot-Navigation's client saves them: each decoded view written
by Pillow's ``save`` with its JPEG defaults, quality 75, once every view rendered). ``request_format="abot"``
writes each view's extrinsics as ABot-Navigation's client does (``camera.abot_colmap_extrinsics``: the 0.001 deg
nudge at multiples of 90 deg, full-precision numbers), so the renders are pixel-identical to its requests; the
in-memory ``CloudRenderer`` then renders the view that line describes.
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
import time
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from PIL import Image

from maze_envs.core.atomic import atomic_write
from maze_envs.core.errors import MazeConfigError, MazeFormatError
from maze_envs.core.images import decode_image
from maze_envs.core.validate import choice

from .backends import renderer_factory
from .camera import (
    CameraConfig,
    PinholeView,
    abot_colmap_extrinsics,
    colmap_extrinsics,
    pose_euler,
    pose_matrix,
    view_from_pose,
    view_from_request,
)
from .errors import RenderFailureError, RenderRequestError
from .ply import GaussianCloud
from .service import RenderService, encode_jpeg
from .splat import check_sh_degree

VIEW_LAYOUTS = {3: ((90.0, "left"), (-90.0, "right"), (0.0, "front")), 1: ((0.0, "front"),)}


def view_poses(pose: np.ndarray, num_views: int = 3) -> list[tuple[str, np.ndarray]]:
    """Return (view name, 4x4 pose) per view: ``pose`` with its yaw offset by the view's angle (left +90 deg)."""
    if num_views not in VIEW_LAYOUTS:
        raise MazeConfigError(f"num_views must be 1 or 3, got {num_views}")
    pose = np.asarray(pose, float)
    if pose.shape != (4, 4) or not np.isfinite(pose).all():
        raise MazeConfigError(f"pose must be a finite 4x4 matrix, got shape {pose.shape}")
    roll, pitch, yaw = pose_euler(pose)
    x, y, z = pose[:3, 3]
    return [(name, pose_matrix(x, y, z, roll, pitch, yaw + np.radians(offset)))
            for offset, name in VIEW_LAYOUTS[num_views]]


def view_extrinsics(pose: np.ndarray, num_views: int = 3, request_format: str = "default") -> list[tuple[str, str]]:
    """Return (view name, ``cam_extrinsics`` line) per view of a 4x4 pose: ``default`` writes each view pose with
    ``colmap_extrinsics``; ``abot`` offsets the pose's Euler yaw and writes ``abot_colmap_extrinsics``, as
    ABot-Navigation's client does. Raises ``MazeConfigError`` naming a bad argument."""
    choice(request_format, REQUEST_FORMATS, parameter="request_format")
    return REQUEST_FORMATS[request_format](pose, num_views)


def _exact_extrinsics(pose: np.ndarray, num_views: int) -> list[tuple[str, str]]:
    """Return each view pose's ``colmap_extrinsics`` line (the ``default`` request format)."""
    return [(name, colmap_extrinsics(view)) for name, view in view_poses(pose, num_views)]


def _abot_extrinsics(pose: np.ndarray, num_views: int) -> list[tuple[str, str]]:
    """Return ABot-Navigation's client's lines: the pose's Euler yaw offset per view, ``abot_colmap_extrinsics``."""
    view_poses(pose, num_views)  # the same checks of the pose and the view count
    x, y, z = np.asarray(pose, float)[:3, 3]
    roll, pitch, yaw = pose_euler(pose)
    return [(name, abot_colmap_extrinsics(x, y, z, roll, pitch, yaw + math.radians(offset)))
            for offset, name in VIEW_LAYOUTS[num_views]]


# How a request writes each view's extrinsics; a protocol's NavRules.render_request names one.
REQUEST_FORMATS = {"default": _exact_extrinsics, "abot": _abot_extrinsics}
EXACT_FORMATS = ("default",)  # the formats whose lines are the exact view poses
SAVED_RENDERS = ("served", "reencoded")  # how saved views are written; a protocol's NavRules.saved_renders names one


def save_reencoded(images: Sequence[tuple[str, Image.Image]], save_dir: str | os.PathLike, image_id: int,
                   save_img_idx: Sequence[int] | None = None) -> None:
    """Write view i's image of the (view name, image) pairs to ``save_dir/{image_id}_{name}.jpg`` with Pillow's
    JPEG defaults (quality 75), as ABot-Navigation's ``img.save`` does, if i is in ``save_img_idx`` (all when
    None); returns nothing."""
    for index, (name, image) in enumerate(images):
        if save_img_idx is None or index in save_img_idx:
            Path(save_dir).mkdir(parents=True, exist_ok=True)
            with atomic_write(Path(save_dir) / f"{image_id}_{name}.jpg", "wb") as fh:
                image.save(fh, format="JPEG")


class _PoseRenderer(ABC):
    """What both clients share: view extrinsics, request bodies, decoding and saving."""

    def __init__(self, camera_config: CameraConfig | None, num_views: int, request_format: str = "default",
                 saved_renders: str = "served"):
        if num_views not in VIEW_LAYOUTS:
            raise MazeConfigError(f"num_views must be 1 or 3, got {num_views}")
        view_extrinsics(np.eye(4), num_views, request_format)
        self.camera_config = camera_config or CameraConfig()
        self.num_views = num_views
        self.request_format = request_format
        self.saved_renders = choice(saved_renders, SAVED_RENDERS, parameter="saved_renders")

    def request_body(self, extrinsics: np.ndarray | str, scene_id: str, *, depth: bool = False) -> dict[str, Any]:
        """Return the ``/render_gs`` JSON body for a 4x4 pose or a ready ``cam_extrinsics`` line (depth as JPEG
        and npz when ``depth``)."""
        line = extrinsics if isinstance(extrinsics, str) else colmap_extrinsics(extrinsics)
        return {"cam_intrinsics": self.camera_config.intrinsics_colmap, "cam_extrinsics": line,
                "scene_id": scene_id, "return_depth_img": depth, "return_depth_npz": depth}

    @abstractmethod
    def _post(self, body: dict[str, Any]) -> tuple[str, bytes]:
        """Return (content type, body) of the answer to one render request; raise ``RenderFailureError``."""

    def render_at_pose(self, pose: np.ndarray, scene_id: str, save_dir: str | os.PathLike | None = None,
                       image_id: int = 0, save_img_idx: Sequence[int] | None = None) -> list[Image.Image]:
        """Return the RGB PIL images of each view at ``pose``; saves view i to ``save_dir`` if i is in ``save_img_idx``
        (as ``saved_renders`` says).

        Raises ``RenderFailureError`` when a view cannot be rendered.
        """
        named = []
        served = self.saved_renders == "served"
        for index, (name, line) in enumerate(view_extrinsics(pose, self.num_views, self.request_format)):
            _, body = self._post(self.request_body(line, scene_id))
            try:
                image = decode_image(body)
            except MazeFormatError as exc:
                raise RenderFailureError(f"the {name} view of {scene_id!r} is not an image: {exc.detail}") from exc
            named.append((name, image))
            if served and save_dir is not None and (save_img_idx is None or index in save_img_idx):
                Path(save_dir).mkdir(parents=True, exist_ok=True)
                (Path(save_dir) / f"{image_id}_{name}.jpg").write_bytes(body)  # the server's JPEG, not re-encoded
        if not served and save_dir is not None:
            save_reencoded(named, save_dir, image_id, save_img_idx)
        return [image for _, image in named]

    def render_depth(self, pose: np.ndarray, scene_id: str) -> tuple[Image.Image, np.ndarray, Image.Image]:
        """Return (RGB image, depth in metres as (H,W) float32, JET depth image) of the single view at ``pose``.

        Raises ``RenderFailureError`` when the view cannot be rendered or the answer is not the depth JSON.
        """
        _, raw = self._post(self.request_body(np.asarray(pose, float), scene_id, depth=True))
        try:
            doc = json.loads(raw)
            rgb = decode_image(base64.b64decode(doc["image"]), source="image")
            depth = np.load(io.BytesIO(base64.b64decode(doc["depth_npz"])))["depth"]
            jet = decode_image(base64.b64decode(doc["depth_img"]), source="depth_img")
        except (ValueError, KeyError, TypeError, OSError) as exc:  # MazeFormatError is a ValueError
            raise RenderFailureError(f"the depth answer for {scene_id!r} is malformed: "
                                     f"{type(exc).__name__}: {exc}") from exc
        return rgb, depth, jet


class GaussianRenderer(_PoseRenderer):
    """Client of a render server at ``render_url`` (e.g. ``http://127.0.0.1:7036/render_gs``).

    A failed request (connection error, timeout, HTTP 5xx) is retried ``max_retries`` times, sleeping
    ``retry_backoff * 2**attempt`` seconds between tries (1 s, 2 s, 4 s by default); HTTP 4xx means the
    request itself is wrong and fails at once. Failures raise ``RenderFailureError`` naming the URL. ``api_key``
    is sent as ``Authorization: Bearer`` to a server started with ``--require-key-env``.
    """

    def __init__(self, render_url: str, camera_config: CameraConfig | None = None, num_views: int = 3,
                 timeout: float = 30, max_retries: int = 3, retry_backoff: float = 1.0,
                 request_format: str = "default", api_key: str | None = None, saved_renders: str = "served"):
        super().__init__(camera_config, num_views, request_format, saved_renders)
        import requests

        self._requests = requests
        self._session = requests.Session()
        if api_key:
            self._session.headers["Authorization"] = f"Bearer {api_key}"
        self.render_url = render_url
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff

    def _post(self, body: dict[str, Any]) -> tuple[str, bytes]:
        last = "no attempt"
        for attempt in range(self.max_retries + 1):
            try:
                resp = self._session.post(self.render_url, json=body, timeout=self.timeout)
            except self._requests.RequestException as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if resp.status_code == 200:
                    return resp.headers.get("Content-Type", ""), resp.content
                last = f"HTTP {resp.status_code}: {resp.text[:300]}"
                if 400 <= resp.status_code < 500:
                    raise RenderFailureError(f"{self.render_url}: request rejected, {last}")
            if attempt < self.max_retries:
                time.sleep(self.retry_backoff * 2 ** attempt)
        raise RenderFailureError(f"{self.render_url}: render failed after {self.max_retries + 1} attempts; {last}")


class LocalGaussianRenderer(_PoseRenderer):
    """The same interface served in-process (no HTTP): renders the scenes under ``scenes_root`` directly
    (``sh_degree``: as ``RenderService``'s)."""

    def __init__(self, scenes_root: str | os.PathLike, camera_config: CameraConfig | None = None,
                 num_views: int = 3, backend: str = "cpu", render_scale: float = 1.0, request_format: str = "default",
                 sh_degree: int | None = None, saved_renders: str = "served"):
        super().__init__(camera_config, num_views, request_format, saved_renders)
        self.service = RenderService(scenes_root, backend, render_scale, sh_degree)

    def _post(self, body: dict[str, Any]) -> tuple[str, bytes]:
        try:
            answer = self.service.handle(body)
        except RenderRequestError as exc:
            raise RenderFailureError(f"in-process render rejected: {exc}") from exc
        return answer.content_type, answer.body


class CloudRenderer:
    """The ``render_at_pose`` interface over Gaussian clouds held in memory (scene id -> cloud), rendered with
    ``backend`` (cpu or gsplat) without HTTP or JPEG round trips; saved views are JPEG files as elsewhere
    (``saved_renders="reencoded"``: written with Pillow's JPEG defaults once every view rendered).
    ``sh_degree`` caps the spherical-harmonic degree of the colours (0 to 3; None: each cloud's own degree)."""

    def __init__(self, clouds: Mapping[str, GaussianCloud], camera_config: CameraConfig | None = None,
                 num_views: int = 3, backend: str = "cpu", request_format: str = "default",
                 sh_degree: int | None = None, saved_renders: str = "served"):
        self.sh_degree = check_sh_degree(sh_degree)
        if num_views not in VIEW_LAYOUTS:
            raise MazeConfigError(f"num_views must be 1 or 3, got {num_views}")
        view_extrinsics(np.eye(4), num_views, request_format)
        self.camera_config = camera_config or CameraConfig()
        self.num_views = num_views
        self.request_format = request_format
        self.saved_renders = choice(saved_renders, SAVED_RENDERS, parameter="saved_renders")
        self._clouds = dict(clouds)
        self._factory = renderer_factory(backend)
        self._renderers: dict[str, Any] = {}

    def views(self, pose: np.ndarray) -> list[tuple[str, PinholeView]]:
        """Return (view name, ``PinholeView``) per view of a 4x4 pose: the exact view poses, or with the ``abot``
        request format the views ABot-Navigation's extrinsics lines describe."""
        if self.request_format in EXACT_FORMATS:
            return [(name, view_from_pose(view, self.camera_config))
                    for name, view in view_poses(pose, self.num_views)]
        intrinsics = self.camera_config.intrinsics_colmap
        return [(name, view_from_request({"cam_intrinsics": intrinsics, "cam_extrinsics": line}))
                for name, line in view_extrinsics(pose, self.num_views, self.request_format)]

    def render_at_pose(self, pose: np.ndarray, scene_id: str, save_dir: str | os.PathLike | None = None,
                       image_id: int = 0, save_img_idx: Sequence[int] | None = None) -> list[Image.Image]:
        """Return the RGB PIL images of each view at ``pose`` (left, right, front for three views); saves view i
        to ``save_dir`` as ``{image_id}_{view}.jpg`` if i is in ``save_img_idx`` (all when None).

        Raises ``RenderFailureError`` naming an unknown ``scene_id``.
        """
        if scene_id not in self._renderers:
            if scene_id not in self._clouds:
                raise RenderFailureError(f"unknown scene {scene_id!r}; known: {', '.join(sorted(self._clouds))}")
            self._renderers[scene_id] = self._factory(self._clouds[scene_id], sh_degree=self.sh_degree)
        named = self.views(pose)
        rendered = self._renderers[scene_id].render_many([view for _, view in named])
        images = [Image.fromarray(image.to_uint8()) for image in rendered]  # (H, W, 3) uint8: mode "RGB"
        if save_dir is not None and self.saved_renders == "reencoded":
            save_reencoded([(name, im) for (name, _), im in zip(named, images, strict=False)], save_dir, image_id,
                           save_img_idx)
        elif save_dir is not None:
            for index, ((name, _), im) in enumerate(zip(named, images, strict=False)):
                if save_img_idx is None or index in save_img_idx:
                    Path(save_dir).mkdir(parents=True, exist_ok=True)
                    with atomic_write(Path(save_dir) / f"{image_id}_{name}.jpg", "wb") as fh:
                        fh.write(encode_jpeg(np.asarray(im)))
        return images
