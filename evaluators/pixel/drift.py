"""Camera drift and zoom in generated videos: each frame's alignment corrected from its wall profiles.

A video is aligned once, from its first frame; a camera that drifts or zooms a few pixels afterwards
would shift every wall off the solution's. Each frame's darkness is summed along rows and columns
inside the maze's box (grey walls count as well as black ones), and each axis's profile is matched to the solution's
(mapped by the first alignment) over a small zoom range and a shift bounded below half a cell pitch (a larger shift
would be ambiguous: walls repeat every pitch). The corrected map stays axis-aligned, like ``Alignment``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .grid import Alignment, GridGeometry

MAX_ZOOM = 0.03
ZOOM_STEP = 0.005
MAX_SHIFT_PX = 16
# Corrections that move no corner of the maze this far are left out (the first alignment stands).
MIN_DRIFT_PX = 0.5


ZOOMS = 1.0 + np.arange(-MAX_ZOOM, MAX_ZOOM + 1e-9, ZOOM_STEP)


def zoomed_profiles(profile: np.ndarray) -> np.ndarray:
    """Return ``(len(ZOOMS), n)``: ``profile`` scaled about its centre by each of ``ZOOMS``, zero-mean, unit norm."""
    n = profile.size
    u = np.arange(n, dtype=float)
    centre = (n - 1) / 2
    out = np.stack([np.interp(centre + (u - centre) / zoom, u, profile, left=0.0, right=0.0) for zoom in ZOOMS])
    out -= out.mean(axis=1, keepdims=True)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def fit_axis(zoomed: np.ndarray, observed: np.ndarray, max_shift: int) -> tuple[float, float]:
    """Return ``(zoom, shift)`` such that ``observed(u)`` best matches ``reference(c + (u - c - shift) / zoom)``,
    ``c`` the profiles' centre, given the reference's :func:`zoomed_profiles` (correlation over every zoom and
    shift up to ``max_shift`` at once; sub-pixel shift from a parabola through the peak)."""
    padded = np.pad(observed - observed.mean(), max_shift)
    windows = np.lib.stride_tricks.sliding_window_view(padded, observed.size)
    scores = windows @ zoomed.T
    shift_index, zoom_index = np.unravel_index(int(np.argmax(scores)), scores.shape)
    column = scores[:, zoom_index]
    offset = 0.0
    if 0 < shift_index < column.size - 1:
        left, mid, right = column[shift_index - 1], column[shift_index], column[shift_index + 1]
        curvature = left - 2 * mid + right
        offset = 0.5 * (left - right) / curvature if curvature < 0 else 0.0
    return float(ZOOMS[zoom_index]), shift_index - max_shift + offset


def corner_shift(a: Alignment, b: Alignment, geometry: GridGeometry) -> float:
    """Return how far, in generated pixels, the maze's outer corners lie apart under maps ``a`` and ``b``."""
    xs = np.array([geometry.x0, geometry.x0 + geometry.cols * geometry.pitch_x + geometry.wall_x])
    ys = np.array([geometry.y0, geometry.y0 + geometry.rows * geometry.pitch_y + geometry.wall_y])
    dx = np.abs((a.sx - b.sx) * xs + a.tx - b.tx).max()
    dy = np.abs((a.sy - b.sy) * ys + a.ty - b.ty).max()
    return float(np.hypot(dx, dy))


@dataclass
class DriftTracker:
    """The solution's wall profiles in a video's frame pixels, to correct each frame's alignment."""

    alignment: Alignment
    geometry: GridGeometry
    box: tuple[int, int, int, int]
    zoomed_x: np.ndarray
    zoomed_y: np.ndarray
    max_shift: int

    @classmethod
    def build(cls, sol_dark: np.ndarray, alignment: Alignment, geometry: GridGeometry,
              frame_shape: tuple[int, ...]) -> "DriftTracker":
        """Return the tracker of frames of ``frame_shape`` first aligned by ``alignment``."""
        h, w = frame_shape[:2]
        hs, ws = sol_dark.shape[:2]
        x0, y0 = max(0, int(np.ceil(alignment.tx))), max(0, int(np.ceil(alignment.ty)))
        x1 = min(w, int(np.floor(alignment.tx + alignment.sx * ws)))
        y1 = min(h, int(np.floor(alignment.ty + alignment.sy * hs)))
        mapped = cv2.warpAffine(sol_dark.astype(np.uint8), alignment.matrix, (w, h), flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)[y0:y1, x0:x1]
        pitch = min(geometry.pitch_x * alignment.sx, geometry.pitch_y * alignment.sy)
        return cls(alignment, geometry, (x0, y0, x1, y1), zoomed_profiles(mapped.sum(axis=0).astype(float)),
                   zoomed_profiles(mapped.sum(axis=1).astype(float)), max(1, min(MAX_SHIFT_PX, int(0.4 * pitch))))

    def correct(self, value: np.ndarray) -> Alignment:
        """Return the alignment of a frame whose HSV value channel (``max(B, G, R)``) is ``value``: the first
        one corrected for drift and zoom (unchanged when that moves no maze corner by ``MIN_DRIFT_PX``)."""
        x0, y0, x1, y1 = self.box
        if x1 - x0 < 8 or y1 - y0 < 8:
            return self.alignment
        # Darkness profiles: minus the summed brightness (the correlation ignores offset and scale).
        roi = value[y0:y1, x0:x1]
        profile_x = -cv2.reduce(roi, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F).ravel().astype(float)
        profile_y = -cv2.reduce(roi, 1, cv2.REDUCE_SUM, dtype=cv2.CV_32F).ravel().astype(float)
        zoom_x, shift_x = fit_axis(self.zoomed_x, profile_x, self.max_shift)
        zoom_y, shift_y = fit_axis(self.zoomed_y, profile_y, self.max_shift)
        cx, cy = x0 + (x1 - x0 - 1) / 2, y0 + (y1 - y0 - 1) / 2
        a = self.alignment
        corrected = replace(a, sx=zoom_x * a.sx, sy=zoom_y * a.sy, tx=zoom_x * (a.tx - cx) + cx + shift_x,
                            ty=zoom_y * (a.ty - cy) + cy + shift_y)
        return corrected if corner_shift(corrected, a, self.geometry) >= MIN_DRIFT_PX else a
