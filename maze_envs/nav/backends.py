"""Render backends: the embedded CPU splat renderer and gsplat on CUDA, behind one ``render(view)`` interface."""

from __future__ import annotations

from typing import Callable, Protocol, Sequence

import numpy as np

from .camera import PinholeView
from .errors import NavDependencyError
from .ply import GaussianCloud
from .render_constants import RenderConstants, render_constants
from .splat import SplatImage, SplatRenderer, check_same_size, effective_sh_degree, sh_coefficients

BACKENDS = ("auto", "cpu", "gsplat")


class SceneRenderer(Protocol):
    """Anything that renders a loaded cloud from pinhole views."""

    def render(self, view: PinholeView) -> SplatImage:
        """Return the RGB and depth images of ``view``."""

    def render_many(self, views: Sequence[PinholeView]) -> list[SplatImage]:
        """Return the RGB and depth images of each of ``views`` (all the same image size)."""


def cuda_available() -> bool:
    """Return whether torch and gsplat are importable and torch sees a CUDA device."""
    try:
        import gsplat  # noqa: F401
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


class GsplatRenderer:
    """Renders a cloud with gsplat's CUDA rasteriser (``maze-envs[gpu]``), expected depth.

    Colours as the CPU renderer's: spherical harmonics up to ``sh_degree`` (None: the scene's degree; capped at
    it), evaluated by gsplat from each camera centre, ``max(0, SH . coeffs + 0.5)`` at every degree.
    ``constants`` (a ``RenderConstants``, ``"shared"`` or ``"gsplat"``): the near plane and blur passed to
    ``gsplat.rasterization``; ``"shared"`` (the default) is the CPU renderer's set, ``"gsplat"`` gsplat's own
    defaults (``render_constants`` says what gsplat's kernels fix). ``device``: the torch device (``cuda``; another
    only where gsplat runs there).
    """

    def __init__(self, cloud: GaussianCloud, background: tuple[float, float, float] = (0.0, 0.0, 0.0),
                 sh_degree: int | None = None, constants: RenderConstants | str = "shared", device: str = "cuda"):
        self.sh_degree = effective_sh_degree(cloud, sh_degree)
        self.constants = render_constants(constants)
        if device == "cuda" and not cuda_available():
            raise NavDependencyError("the gsplat backend needs torch and gsplat with a CUDA device; install "
                                     "'maze-envs[gpu]' on a CUDA machine, or use the cpu backend")
        import torch

        self._torch = torch
        dev = torch.device(device)
        self._means = torch.from_numpy(cloud.means).to(dev)
        self._quats = torch.from_numpy(cloud.quats).to(dev)
        self._scales = torch.from_numpy(cloud.scales).to(dev)
        self._opacities = torch.from_numpy(cloud.opacities).to(dev)
        # (N, (degree+1)^2, 3) SH coefficients, which gsplat evaluates (max(0, . + 0.5)) at every degree, 0 included
        self._colours = torch.from_numpy(sh_coefficients(cloud, self.sh_degree)).to(dev)
        self._background = torch.tensor([background], dtype=torch.float32, device=dev)

    def render(self, view: PinholeView) -> SplatImage:
        """Return the RGB and expected-depth images of ``view``."""
        return self.render_many([view])[0]

    def render_many(self, views: Sequence[PinholeView]) -> list[SplatImage]:
        """Return the RGB and expected-depth images of each of ``views`` (all the same size), in one rasterisation.

        Raises ``MazeConfigError`` naming ``views`` when they differ in size.
        """
        from gsplat import rasterization

        if not views:
            return []
        check_same_size(views)
        torch = self._torch
        viewmats = np.tile(np.eye(4, dtype=np.float32), (len(views), 1, 1))
        ks = np.zeros((len(views), 3, 3), np.float32)
        for i, view in enumerate(views):
            viewmats[i, :3, :3], viewmats[i, :3, 3] = view.R, view.t
            ks[i] = [[view.fx, 0, view.cx], [0, view.fy, view.cy], [0, 0, 1]]
        device = self._means.device
        with torch.no_grad():
            out, alpha, _ = rasterization(
                self._means, self._quats, self._scales, self._opacities, self._colours,
                torch.from_numpy(viewmats).to(device), torch.from_numpy(ks).to(device),
                int(views[0].width), int(views[0].height), render_mode="RGB+ED", sh_degree=self.sh_degree,
                backgrounds=self._background.expand(len(views), -1), **self.constants.gsplat_arguments())
        out = out.float().cpu().numpy()
        return [SplatImage(np.ascontiguousarray(o[..., :3]), np.ascontiguousarray(o[..., 3])) for o in out]


def renderer_factory(backend: str) -> Callable[..., SceneRenderer]:
    """Return the constructor of ``backend``: ``auto`` (gsplat on CUDA, else cpu), ``cpu`` or ``gsplat``; each
    takes ``(cloud, background=..., sh_degree=None, constants="shared")``."""
    if backend not in BACKENDS:
        raise NavDependencyError(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "gsplat" or (backend == "auto" and cuda_available()):
        if not cuda_available():
            raise NavDependencyError("the gsplat backend needs torch and gsplat with a CUDA device; install "
                                     "'maze-envs[gpu]' on a CUDA machine, or use the cpu backend")
        return GsplatRenderer
    return SplatRenderer
