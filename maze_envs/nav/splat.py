"""The embedded CPU renderer: tile-based EWA splatting of a ``GaussianCloud`` (numba, ``maze-envs[nav]``).

Each Gaussian's 3D covariance R S S^T R^T is projected with the pinhole Jacobian to a 2D covariance, 0.3 is
added to its diagonal, and the splats touching each 16x16 tile are composited front to back with alpha
capped at 0.99, skipped below 1/255, and early termination once transmittance would fall below 1e-4 (the
original 3DGS rasteriser). A splat is binned to the tiles of the bounding box of its exact footprint (the
ellipse where its alpha reaches 1/255), not a 3-sigma square, so no contribution is cut off. Colours are the degree-0 SH colours. Pixel (x, y) is sampled at (x+0.5, y+0.5).
numba is required: without it ``SplatRenderer`` raises ``NavDependencyError`` naming the extra. Kernels are
compiled on first use and cached on disk (``cache=True``); they release the GIL and tile rows are shared out
to one thread per CPU.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from .camera import PinholeView
from .errors import NavDependencyError
from .ply import GaussianCloud

TILE = 16
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """Return the shared worker pool (one thread per CPU) that rasterises tile rows in parallel."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="splat")
        return _POOL


def load_kernels():
    """Return the numba kernel module; raises ``NavDependencyError`` if numba is not installed."""
    try:
        from . import _splat_kernels
    except ImportError as exc:
        raise NavDependencyError(
            f"the CPU splat renderer needs numba ({exc}); install it with: pip install 'maze-envs[nav]'") from exc
    return _splat_kernels


def covariances(cloud: GaussianCloud) -> np.ndarray:
    """Return the (N,6) upper triangles (xx, xy, xz, yy, yz, zz) of the Gaussians' 3D covariances R S S^T R^T."""
    q = cloud.quats.astype(np.float64)
    q = q / np.maximum(np.linalg.norm(q, axis=1, keepdims=True), 1e-12)
    w, x, y, z = q.T
    rot = np.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y),
    ], axis=1).reshape(-1, 3, 3)
    m = rot * cloud.scales.astype(np.float64)[:, None, :]
    cov = m @ m.transpose(0, 2, 1)
    return np.ascontiguousarray(cov[:, [0, 0, 0, 1, 1, 2], [0, 1, 2, 1, 2, 2]])


@dataclass
class SplatImage:
    """A rendered view: ``rgb`` (H,W,3) float32 in [0,1] and ``depth`` (H,W) float32 metres (0 where empty)."""

    rgb: np.ndarray
    depth: np.ndarray

    def to_uint8(self) -> np.ndarray:
        """Return the RGB image as (H,W,3) uint8."""
        return (np.clip(self.rgb, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


class SplatRenderer:
    """Renders one ``GaussianCloud`` from any pinhole view on the CPU (thread-safe; kernels compile on first use)."""

    def __init__(self, cloud: GaussianCloud, background: tuple[float, float, float] = (0.0, 0.0, 0.0)):
        self._kernels = load_kernels()
        self.cloud = cloud
        self.background = np.asarray(background, np.float64)
        self._cov3d = covariances(cloud)
        self._means = cloud.means.astype(np.float64)
        self._opacities = cloud.opacities.astype(np.float64)
        self._colours = cloud.colours.astype(np.float64)

    def render(self, view: PinholeView) -> SplatImage:
        """Return the ``SplatImage`` of ``view``."""
        k = self._kernels
        n = len(self.cloud)
        uv = np.zeros((n, 2))
        conic = np.zeros((n, 3))
        depth = np.zeros(n)
        rect = np.zeros((n, 4), np.int64)
        w, h = int(view.width), int(view.height)
        k.project(self._means, self._cov3d, self._opacities, np.ascontiguousarray(view.R, np.float64),
                  np.ascontiguousarray(view.t, np.float64), float(view.fx), float(view.fy), float(view.cx),
                  float(view.cy), w, h, TILE, uv, conic, depth, rect)
        visible = np.flatnonzero(rect[:, 2] > rect[:, 0])
        order = visible[np.argsort(depth[visible], kind="stable")]
        tiles_x, tiles_y = (w + TILE - 1) // TILE, (h + TILE - 1) // TILE
        offsets, ids = k.bin_tiles(order, rect, tiles_x * tiles_y, tiles_x)
        rgb = np.empty((h, w, 3), np.float32)
        out_depth = np.empty((h, w), np.float32)
        packed = k.pack(ids, uv, conic, depth, self._opacities, self._colours)
        background = self.background.astype(np.float32)

        def tile_row(row: int) -> None:
            k.rasterise(offsets, packed, w, h, TILE, background, row * tiles_x, (row + 1) * tiles_x, rgb, out_depth)

        list(_pool().map(tile_row, range(tiles_y)))
        return SplatImage(rgb, out_depth)
