"""The rendering constants both backends use, named once: near plane, alpha cap, minimum alpha, transmittance stop
and the screen-space blur.

``SHARED`` (the default of every renderer) is the original 3DGS rasteriser's set with a 0.2 m near plane: alpha
capped at 0.99, splats below 1/255 skipped, a pixel finished once its transmittance would fall below 1e-4, 0.3
added to each 2D covariance's diagonal. ``GSPLAT`` is gsplat's own defaults (``gsplat.rasterization``'s
``near_plane=0.01`` and ``eps2d=0.3``; its kernels cap alpha at 0.999). A renderer takes ``constants=`` one of
these, a ``RenderConstants`` or its name (``"shared"`` or ``"gsplat"``).

gsplat takes the near plane and the blur as arguments, so the gsplat backend renders with whichever set it is
given; the alpha cap, the minimum alpha and the transmittance stop are compiled into gsplat's CUDA kernels
(0.999, 1/255, 1e-4), which it uses whatever it is given: with ``SHARED`` the one difference left between the two
backends is the alpha cap (0.999 instead of 0.99, which only the cores of near-opaque splats reach). The minimum
alpha is at least 1/255, the range over which the CPU rasteriser's exponential is accurate.
"""

from __future__ import annotations

from dataclasses import dataclass

from maze_envs.core.errors import MazeConfigError, brief_repr


@dataclass(frozen=True)
class RenderConstants:
    """The constants of splat rendering: ``near_plane`` (metres; nearer Gaussians are dropped), ``alpha_max`` (a
    splat's alpha is capped there), ``alpha_min`` (weaker splats are skipped), ``transmittance_min`` (a pixel stops
    before its transmittance would fall below it) and ``blur`` (added to the 2D covariance's diagonal, pixels^2)."""

    near_plane: float
    alpha_max: float
    alpha_min: float
    transmittance_min: float
    blur: float

    def __post_init__(self) -> None:
        checks = {"near_plane": self.near_plane > 0, "alpha_max": 0 < self.alpha_max <= 1,
                  "alpha_min": 1 / 255 <= self.alpha_min <= self.alpha_max,
                  "transmittance_min": 0 < self.transmittance_min < 1, "blur": self.blur >= 0}
        for name, ok in checks.items():
            if not ok:
                raise MazeConfigError(f"{name}={getattr(self, name)!r} is out of range (near_plane > 0, "
                                      f"1/255 <= alpha_min <= alpha_max <= 1, 0 < transmittance_min < 1, blur >= 0)",
                                      parameter="constants")

    def gsplat_arguments(self) -> dict[str, float]:
        """Return the keyword arguments of ``gsplat.rasterization`` that carry these constants."""
        return {"near_plane": self.near_plane, "eps2d": self.blur}


SHARED = RenderConstants(near_plane=0.2, alpha_max=0.99, alpha_min=1.0 / 255.0, transmittance_min=1e-4, blur=0.3)
GSPLAT = RenderConstants(near_plane=0.01, alpha_max=0.999, alpha_min=1.0 / 255.0, transmittance_min=1e-4, blur=0.3)
NAMED = {"shared": SHARED, "gsplat": GSPLAT}


def render_constants(value: RenderConstants | str) -> RenderConstants:
    """Return the ``RenderConstants`` that ``value`` is or names (``"shared"``, ``"gsplat"``); raises
    ``MazeConfigError`` naming ``constants`` otherwise."""
    if isinstance(value, RenderConstants):
        return value
    if isinstance(value, str) and value in NAMED:
        return NAMED[value]
    raise MazeConfigError(f"expected a RenderConstants or one of {', '.join(NAMED)}, got {brief_repr(value)}",
                          parameter="constants")
