"""The render service behind ``POST /render_gs``: validates a request, renders it, and encodes the answer.

Shared by the HTTP server and the in-process renderer, so both answer a request the same way.
"""

from __future__ import annotations

import base64
import io
import json
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import cv2
import numpy as np
from PIL import Image

from maze_envs.core.paths import resolves_inside

from .backends import renderer_factory
from .camera import PinholeView, view_from_request
from .errors import NavDataError, RenderRequestError
from .ply import GaussianCloud, read_ply
from .splat import check_sh_degree

MAX_PIXELS = 4096 * 4096
MAX_SCALE = 4.0
MAX_SCENE_ID = 255  # the longest file name most file systems allow
_SCENE_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-]*")


@dataclass(frozen=True)
class RenderJob:
    """A checked render request: the scene, the ``view`` to render (supersampled), the ``size`` (W, H) to answer
    and which depth encodings to add."""

    scene_id: str
    view: PinholeView
    size: tuple[int, int]
    depth_img: bool = False
    depth_npz: bool = False

    @property
    def pixels(self) -> int:
        """Return the pixels the job holds at its largest: the rendered view or the answer, whichever is bigger."""
        return max(self.view.width * self.view.height, self.size[0] * self.size[1])


@dataclass
class RenderResponse:
    """An encoded answer: ``content_type`` and ``body`` bytes."""

    content_type: str
    body: bytes


def encode_jpeg(rgb: np.ndarray, quality: int = 95) -> bytes:
    """Return JPEG bytes of an (H,W,3) uint8 RGB image."""
    buf = io.BytesIO()
    Image.fromarray(np.asarray(rgb, np.uint8)).save(buf, format="JPEG", quality=quality)
    return buf.getvalue()


def depth_to_jet(depth: np.ndarray) -> np.ndarray:
    """Return an (H,W,3) uint8 RGB JET colouring of ``depth`` (0 = empty, scaled to the largest depth)."""
    top = float(depth.max()) if depth.size else 0.0
    scaled = np.zeros(depth.shape, np.uint8) if top <= 0 else np.clip(depth / top * 255, 0, 255).astype(np.uint8)
    return cv2.cvtColor(cv2.applyColorMap(scaled, cv2.COLORMAP_JET), cv2.COLOR_BGR2RGB)


def load_scene_cloud(scene_dir: Path, root: Path | None = None) -> GaussianCloud:
    """Return all Gaussians of ``scene_dir/gs/<block>/*.ply`` (and ``gs/*.ply``) as one cloud; a file that resolves
    outside ``root`` (default ``scene_dir``) through a symlink is left out, never read."""
    top = root or scene_dir
    files = [f for f in sorted((scene_dir / "gs").glob("*.ply")) + sorted((scene_dir / "gs").glob("*/*.ply"))
             if resolves_inside(f, top)]
    if not files:
        raise NavDataError("no Gaussian PLY files under gs/", source=scene_dir)
    return GaussianCloud.concatenate([read_ply(f) for f in files])


def check_render_scale(scale: Any, name: str = "render_scale") -> float:
    """Return ``scale`` as a float; raises ``RenderRequestError`` naming ``name`` unless it is a number in (0,
    MAX_SCALE]."""
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= MAX_SCALE:
        raise RenderRequestError(f"{name}: expected a number in (0, {MAX_SCALE}], got {scale!r}")
    return float(scale)


class RenderService:
    """Renders views of the scenes under ``scenes_root``; loaded scenes are cached.

    ``sh_degree`` caps the spherical-harmonic degree of the colours (0 to 3; None: each scene's own degree).
    Raises ``MazeConfigError`` naming ``sh_degree`` on a bad value.
    """

    def __init__(self, scenes_root: str | os.PathLike, backend: str = "auto", render_scale: float = 1.0,
                 sh_degree: int | None = None):
        self.sh_degree = check_sh_degree(sh_degree)
        self.root = Path(scenes_root).resolve()
        if not self.root.is_dir():
            raise NavDataError("the scenes root is not a directory", source=self.root)
        self.render_scale = check_render_scale(render_scale)
        self.factory = renderer_factory(backend)
        self.backend = self.factory.__name__
        self._cache: dict[str, Any] = {}
        self._lock = threading.Lock()

    def scene_ids(self) -> list[str]:
        """Return the ids of the scenes that have a ``gs/`` folder inside the root (no symlink out of it)."""
        return sorted(p.name for p in self.root.iterdir()
                      if (p / "gs").is_dir() and resolves_inside(p / "gs", self.root))

    def scene_dir(self, scene_id: Any) -> Path:
        """Return the directory of ``scene_id``; raises ``RenderRequestError`` if missing, unknown or escaping the
        root (a name with a path in it, or a symlink out of it). Messages do not show where the root is."""
        if not isinstance(scene_id, str) or not scene_id:
            raise RenderRequestError("scene_id: a non-empty string is required")
        if len(scene_id) > MAX_SCENE_ID or not _SCENE_ID.fullmatch(scene_id) or scene_id in (".", ".."):
            raise RenderRequestError(f"scene_id: {scene_id[:MAX_SCENE_ID]!r} is not a plain scene name "
                                     f"of at most {MAX_SCENE_ID} characters")
        try:
            path = (self.root / scene_id).resolve()
            known = path.parent == self.root and (path / "gs").is_dir() and resolves_inside(path / "gs", self.root)
        except OSError:  # e.g. a name the file system refuses
            known = False
        if not known:
            raise RenderRequestError(f"scene_id: unknown scene {scene_id!r} (GET /scenes lists the scenes)")
        return path

    def renderer(self, scene_id: Any):
        """Return the cached renderer of ``scene_id``, loading the scene on first use."""
        path = self.scene_dir(scene_id)
        with self._lock:
            if scene_id not in self._cache:
                self._cache[scene_id] = self.factory(load_scene_cloud(path, self.root), sh_degree=self.sh_degree)
            return self._cache[scene_id]

    def prepare(self, payload: Any) -> RenderJob:
        """Return the checked job of a ``/render_gs`` request body (nothing rendered yet); raises
        ``RenderRequestError`` on bad input."""
        if not isinstance(payload, Mapping):
            raise RenderRequestError("the request body must be a JSON object")
        scale = check_render_scale(payload.get("render_scale", self.render_scale))
        base = view_from_request(payload)
        view = base.scaled(scale) if scale != 1 else base
        if view.width * view.height > MAX_PIXELS:
            raise RenderRequestError(f"render size {view.width}x{view.height} exceeds {MAX_PIXELS} pixels")
        scene_id = payload.get("scene_id")
        self.scene_dir(scene_id)
        return RenderJob(scene_id, view, (base.width, base.height), bool(payload.get("return_depth_img")),
                         bool(payload.get("return_depth_npz")))

    def run(self, job: RenderJob) -> RenderResponse:
        """Return the encoded answer of ``job``: a JPEG, or JSON with the JPEG and the depth encodings asked for."""
        image = self.renderer(job.scene_id).render(job.view)
        rgb, depth = image.to_uint8(), image.depth
        if (job.view.width, job.view.height) != job.size:
            rgb = cv2.resize(rgb, job.size, interpolation=cv2.INTER_AREA)
            depth = cv2.resize(depth, job.size, interpolation=cv2.INTER_NEAREST)
        if not (job.depth_img or job.depth_npz):
            return RenderResponse("image/jpeg", encode_jpeg(rgb))
        doc = {"image": base64.b64encode(encode_jpeg(rgb)).decode("ascii")}
        if job.depth_img:
            doc["depth_img"] = base64.b64encode(encode_jpeg(depth_to_jet(depth))).decode("ascii")
        if job.depth_npz:
            buf = io.BytesIO()
            np.savez_compressed(buf, depth=depth.astype(np.float32))
            doc["depth_npz"] = base64.b64encode(buf.getvalue()).decode("ascii")
        return RenderResponse("application/json", json.dumps(doc).encode("utf-8"))

    def handle(self, payload: Any) -> RenderResponse:
        """Return the answer to a ``/render_gs`` request body (``prepare``, then ``run``); raises
        ``RenderRequestError`` on bad input."""
        return self.run(self.prepare(payload))
