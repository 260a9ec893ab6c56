"""The embedded CPU renderer: tile-based EWA splatting of a ``GaussianCloud`` (numba, ``maze-envs[nav]``).

It follows gsplat's and the original 3DGS rasteriser's conventions. Each Gaussian's 3D covariance R S S^T R^T is
projected with the pinhole Jacobian, taken at the mean clamped to each image edge plus 0.15 * width / fx (per axis
and side, as gsplat clamps it), to a 2D covariance; the blur is added to its diagonal, and the splats touching each
16x16 tile are composited front to back with alpha capped, weak splats skipped and early termination once
transmittance would fall below the stop. Those constants are a ``RenderConstants`` (``render_constants.SHARED`` by
default: near plane 0.2 m, alpha cap 0.99, minimum alpha 1/255, stop 1e-4, blur 0.3), the same set the gsplat
backend is given. A splat is listed in every tile its exact footprint reaches (the ellipse where its alpha reaches
the minimum, row of tiles by row of tiles), not a 3-sigma square, so no contribution is cut off.
Colours are view-dependent: each Gaussian's spherical harmonics up to the scene's degree (or ``sh_degree``, at most
3) are evaluated per view along the direction from the camera centre to its mean, ``max(0, SH . coeffs + 0.5)`` at
every degree (degree 0 included), as the INRIA reference and gsplat do; colours are not clipped at 1, so
``SplatImage.rgb`` can exceed 1 and ``SplatImage.to_uint8`` clips. Pixel (x, y) is sampled at (x+0.5, y+0.5).

``render_many`` renders a batch of same-size views (the three views of a pose) in one go: the views are
prepared in parallel, then their tiles are dealt out together. Scene-only work (3D covariances, footprint
radii) is done once per renderer. numba is required: without it ``SplatRenderer`` raises
``NavDependencyError`` naming the extra. Kernels are compiled on first use and cached on disk
(``cache=True``); they release the GIL and run on a pool of one thread per usable CPU plus the calling
thread. Plain threads rather than numba's ``parallel=True``: its OpenMP layer (the one available here) is
not fork-safe, and the run engine forks worker processes.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

import numpy as np

from maze_envs.core.errors import MazeConfigError

from .camera import PinholeView
from .errors import NavDependencyError
from .ply import GaussianCloud
from .render_constants import RenderConstants, render_constants

T = TypeVar("T")
R = TypeVar("R")
# Tiles are dealt round-robin to this many chunks per worker thread, so a worker slowed by other load hands
# its share to the others.
CHUNKS_PER_WORKER = 4
_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _workers() -> int:
    """Return the number of rasteriser threads: the CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _pool() -> ThreadPoolExecutor:
    """Return the shared worker pool (one thread per usable CPU) that rasterises tiles in parallel."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=_workers(), thread_name_prefix="splat")
        return _POOL


def _forget_pool() -> None:
    """Drop the pool in a forked child, whose copy has no threads behind it."""
    global _POOL, _POOL_LOCK
    _POOL, _POOL_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _in_parallel(fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
    """Return ``[fn(item) for item in items]``, computed on the worker pool and the calling thread together."""
    items = list(items)
    if len(items) < 2 or _workers() < 2:
        return [fn(item) for item in items]
    futures = [_pool().submit(fn, item) for item in items[1:]]
    return [fn(items[0])] + [f.result() for f in futures]


def join_views(prepared: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> tuple[np.ndarray, ...]:
    """Return one (offsets, ids, packed) for the views of ``prepared`` (``prepare_view`` results), tiles numbered
    view by view."""
    if len(prepared) == 1:
        return prepared[0]
    id_bases = np.cumsum([0] + [len(ids) for _, ids, _ in prepared])
    row_bases = np.cumsum([0] + [len(packed) for _, _, packed in prepared])
    offsets = np.concatenate(
        [off[:-1] + base for (off, _, _), base in zip(prepared, id_bases, strict=False)] + [id_bases[-1:]]
    )
    ids = np.concatenate([ids + np.int32(base) for (_, ids, _), base in zip(prepared, row_bases, strict=False)])
    return offsets, ids, np.concatenate([packed for _, _, packed in prepared])


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


def check_sh_degree(value: object, name: str = "sh_degree") -> int | None:
    """Return ``value`` (None or an int 0 to 3) as given; raises ``MazeConfigError`` naming ``name`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= 3:
        raise MazeConfigError(f"expected None or an integer 0 to 3, got {value!r}", parameter=name)
    return int(value)


def effective_sh_degree(cloud: GaussianCloud, sh_degree: int | None) -> int:
    """Return the SH degree to render ``cloud`` with: ``sh_degree`` (checked) capped at the cloud's own degree,
    the cloud's own degree when None; never above 3, the highest the kernels evaluate."""
    wanted = check_sh_degree(sh_degree)
    own = min(cloud.sh_degree, 3)
    return own if wanted is None else min(wanted, own)


def sh_coefficients(cloud: GaussianCloud, degree: int) -> np.ndarray:
    """Return the (N, (degree+1)^2, 3) float32 SH coefficients of ``cloud`` up to ``degree``, degree 0 first."""
    k = (degree + 1) ** 2
    return np.ascontiguousarray(np.concatenate([cloud.sh_dc[:, None, :], cloud.sh_rest[:, :k - 1]], axis=1),
                                np.float32)


def constants_array(constants: RenderConstants) -> np.ndarray:
    """Return ``constants`` as the float64 array the kernels take (near plane, alpha cap, minimum alpha,
    transmittance stop, blur: ``_splat_kernels.NEAR`` ... ``BLUR``)."""
    return np.array([constants.near_plane, constants.alpha_max, constants.alpha_min, constants.transmittance_min,
                     constants.blur], np.float64)


def check_same_size(views: Sequence[PinholeView]) -> tuple[int, int]:
    """Return the (width, height) shared by ``views``; raises ``MazeConfigError`` naming ``views`` if they differ."""
    sizes = {(int(v.width), int(v.height)) for v in views}
    if len(sizes) != 1:
        raise MazeConfigError("all views must have the same image size, got "
                              + ", ".join(f"{v.width}x{v.height}" for v in views), parameter="views")
    return sizes.pop()


@dataclass
class SplatImage:
    """A rendered view: ``rgb`` (H,W,3) float32, linear colours >= 0 that are not clipped at 1 (an SH colour
    ``max(0, SH . coeffs + 0.5)`` can exceed 1, as in gsplat's and the 3DGS reference's float output), and ``depth``
    (H,W) float32 metres (the alpha-weighted expected depth; 0 where empty)."""

    rgb: np.ndarray
    depth: np.ndarray

    def to_uint8(self) -> np.ndarray:
        """Return the RGB image as (H,W,3) uint8, colours clipped to [0, 1] first."""
        return (np.clip(self.rgb, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


class SplatRenderer:
    """Renders one ``GaussianCloud`` from any pinhole views on the CPU (thread-safe; kernels compile on first use).

    What depends only on the scene (3D covariances, footprint radii, float64 copies) is computed once here.
    ``sh_degree`` caps the spherical-harmonic degree of the colours (0 to 3; None: the scene's own degree);
    ``self.sh_degree`` is the degree rendered. ``constants``: the rendering constants (a ``RenderConstants`` or
    ``"shared"``, the default, or ``"gsplat"``, gsplat's own defaults). Raises ``MazeConfigError`` naming
    ``sh_degree`` or ``constants`` on a bad value.
    """

    def __init__(self, cloud: GaussianCloud, background: tuple[float, float, float] = (0.0, 0.0, 0.0),
                 sh_degree: int | None = None, constants: RenderConstants | str = "shared"):
        self.sh_degree = effective_sh_degree(cloud, sh_degree)
        self.constants = render_constants(constants)
        load_kernels()  # fail here, naming the extra, when numba is missing
        self.cloud = cloud
        self.background = np.asarray(background, np.float64)
        self._background32 = self.background.astype(np.float32)
        self._consts = constants_array(self.constants)
        self._cov3d = covariances(cloud)
        self._means = cloud.means.astype(np.float64)
        self._opacities = cloud.opacities.astype(np.float64)
        self._extents = self._kernels.footprint_extents(self._opacities, self.constants.alpha_min)
        self._colours = cloud.colours.astype(np.float64)
        self._sh = (sh_coefficients(cloud, self.sh_degree) if self.sh_degree > 0
                    else np.zeros((0, 1, 3), np.float32))

    @property
    def _kernels(self):
        """Return the numba kernel module, looked up on use rather than stored, so the renderer pickles and copies."""
        return load_kernels()

    def render(self, view: PinholeView) -> SplatImage:
        """Return the ``SplatImage`` of ``view``."""
        return self.render_many([view])[0]

    def render_many(self, views: Sequence[PinholeView]) -> list[SplatImage]:
        """Return the ``SplatImage`` of each of ``views`` (all the same image size), rendered as one batch.

        Raises ``MazeConfigError`` naming ``views`` when they differ in size.
        """
        if not views:
            return []
        w, h = check_same_size(views)
        k = self._kernels

        def prepare(view: PinholeView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            return k.prepare_view(self._means, self._cov3d, self._extents, self._opacities, self._colours,
                                  self._sh, self.sh_degree, np.ascontiguousarray(view.R, np.float64),
                                  np.ascontiguousarray(view.t, np.float64),
                                  float(view.fx), float(view.fy), float(view.cx), float(view.cy), w, h,
                                  self._consts)

        offsets, ids, packed = join_views(_in_parallel(prepare, views))
        rgb = np.empty((len(views), h, w, 3), np.float32)
        depth = np.empty((len(views), h, w), np.float32)
        chunks = min(CHUNKS_PER_WORKER * _workers(), len(offsets) - 1)

        def chunk(first: int) -> None:
            k.rasterise(offsets, ids, packed, w, h, self._background32, self._consts, first, chunks, rgb, depth)

        _in_parallel(chunk, range(chunks))
        return [SplatImage(rgb[i], depth[i]) for i in range(len(views))]
