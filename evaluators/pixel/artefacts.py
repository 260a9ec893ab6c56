"""What real image and video models do to a clean maze render, as effects for synthetic generations.

Walls drawn dark grey instead of black (evenly or lifted more on one side), a fading trail behind the
moving marker (of the marker's colour or another), camera drift and zoom over the video, sensor-like
grain (which lifts dark pixels the way a lossy encoder does), frames where the marker vanishes, and a
wall that disappears once the marker has crossed it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from maze_envs.core.render import FREE, PixelGeometry

from .colours import dark_mask


@dataclass(frozen=True)
class VideoEffects:
    """Artefacts of a generated marker video; the defaults add none.

    ``trail_opacity`` is the opacity of the newest ghost of the marker, fading linearly to nothing over
    ``trail_frames`` frames, in ``trail_colour`` (BGR; None: the marker's). ``drift_px`` (x, y) and
    ``zoom`` (about the frame centre) are reached linearly by the last frame. ``wall_level`` and
    ``wall_gradient`` grey the walls (see :func:`grey_walls`); ``grain`` is the sigma of per-frame
    Gaussian noise. The marker is not drawn in frames ``hidden_frames`` = ``[start, stop)``; with
    ``erase_crossed_wall`` a closed wall on the route vanishes once the marker reaches it.
    """

    trail_opacity: float = 0.0
    trail_frames: int = 12
    trail_colour: tuple[int, int, int] | None = None
    drift_px: tuple[float, float] = (0.0, 0.0)
    zoom: float = 1.0
    wall_level: int = 0
    wall_gradient: int = 0
    grain: float = 0.0
    hidden_frames: tuple[int, int] | None = None
    erase_crossed_wall: bool = False
    circle_marker: bool = False
    seed: int = 0


def grey_walls(image: np.ndarray, level: int, gradient: int = 0) -> np.ndarray:
    """Return ``image`` with its dark (wall) pixels at grey ``level``, plus ``gradient`` levels more from the
    left edge to the right (walls lifted unevenly)."""
    if level == 0 and gradient == 0:
        return image
    out = image.copy()
    ramp = level + gradient * np.linspace(0.0, 1.0, image.shape[1])
    grey = np.broadcast_to(np.clip(np.round(ramp), 0, 255).astype(np.uint8)[None, :, None], image.shape)
    walls = dark_mask(image)
    out[walls] = grey[walls]
    return out


def camera_motion(image: np.ndarray, progress: float, effects: VideoEffects) -> np.ndarray:
    """Return ``image`` moved by ``progress`` (0..1) of the effects' drift and zoom (uncovered pixels white)."""
    scale = 1.0 + (effects.zoom - 1.0) * progress
    dx, dy = effects.drift_px[0] * progress, effects.drift_px[1] * progress
    if abs(scale - 1.0) < 1e-9 and abs(dx) < 1e-9 and abs(dy) < 1e-9:
        return image
    h, w = image.shape[:2]
    cx, cy = (w - 1) / 2, (h - 1) / 2
    matrix = np.array([[scale, 0.0, cx - scale * cx + dx], [0.0, scale, cy - scale * cy + dy]])
    return cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=FREE)


def wall_between(geometry: PixelGeometry, a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int, int, int]:
    """Return the ``(x0, y0, x1, y1)`` box (exclusive ends) of the wall between neighbouring cells ``a`` and ``b``."""
    ax0, ay0, ax1, ay1 = geometry.cell_box(a)
    bx0, by0, bx1, by1 = geometry.cell_box(b)
    if a[0] == b[0]:
        return min(ax1, bx1), ay0, max(ax0, bx0), ay1
    return ax0, min(ay1, by1), ax1, max(ay0, by0)


def marker_alpha(shape: tuple[int, int], centres: list[tuple[float, float]], opacities: list[float], half: float,
                 circle: bool) -> np.ndarray:
    """Return a float ``shape`` map: the largest opacity of the markers (half-size ``half``) drawn at ``centres``."""
    alpha = np.zeros(shape, np.float32)
    layer = np.zeros(shape, np.uint8)
    for (x, y), opacity in zip(centres, opacities, strict=False):
        layer[:] = 0
        draw_marker(layer, x, y, half, 255, circle)
        np.maximum(alpha, layer.astype(np.float32) * (opacity / 255.0), out=alpha)
    return alpha


def draw_marker(image: np.ndarray, x: float, y: float, half: float, colour, circle: bool) -> None:
    """Draw an anti-aliased filled square (or circle) of half-size ``half`` centred on ``(x, y)`` into ``image``."""
    if circle:
        cv2.circle(image, (int(round(x * 16)), int(round(y * 16))), int(round(half * 16)), colour, -1, cv2.LINE_AA,
                   shift=4)
        return
    p0 = (int(round((x - half) * 16)), int(round((y - half) * 16)))
    p1 = (int(round((x + half) * 16)), int(round((y + half) * 16)))
    cv2.rectangle(image, p0, p1, colour, -1, cv2.LINE_AA, shift=4)


def blend(image: np.ndarray, alpha: np.ndarray, colour: tuple[int, int, int]) -> np.ndarray:
    """Return ``image`` blended towards ``colour`` (BGR) by the per-pixel ``alpha`` (0..1)."""
    a = alpha[..., None]
    return np.round(image.astype(np.float32) * (1.0 - a) + np.asarray(colour, np.float32) * a).astype(np.uint8)


def add_grain(image: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Return ``image`` with Gaussian noise of ``sigma`` levels added to every channel."""
    if sigma <= 0:
        return image
    noise = rng.normal(0.0, sigma, image.shape)
    return np.clip(image.astype(np.float32) + noise, 0, 255).astype(np.uint8)
