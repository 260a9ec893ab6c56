"""Visualization of ``WaypointPrediction.extra``: each key is handled by ``_HANDLERS[key]``.

Built in: ``affordance_pixel`` = ``{view: [u, v]}`` (or nested under ``"Affordance Pixel"``; view names
``front``/``left``/``right``, ``leftside``/``rightside`` accepted, any case). A point whose coordinates are all
<= 1 is normalised, all <= 1000 is Qwen-style per-mille, else absolute pixels. It draws a green dot labelled
"afford point" on ``{step_id}_{view}.jpg`` in the render folder.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Callable, Mapping

import cv2
import numpy as np

from maze_envs.core.paths import read_image, write_image

log = logging.getLogger(__name__)
_VIEW_ALIASES = {"front": "front", "left": "left", "right": "right", "leftside": "left", "rightside": "right"}


def pixel_from_coordinates(point: Any, width: int, height: int) -> tuple[int, int] | None:
    """Return absolute pixel (u, v) of ``point`` in a ``width`` x ``height`` image, or None when malformed.

    Scale: all values <= 1 means normalised [0, 1]; <= 1000 means per-mille [0, 1000]; else absolute pixels.
    """
    try:
        u, v = (float(x) for x in point)
    except (TypeError, ValueError):
        return None
    if not (np.isfinite(u) and np.isfinite(v)):
        return None
    top = max(abs(u), abs(v))
    if top <= 1.0:
        u, v = u * width, v * height
    elif top <= 1000.0:
        u, v = u / 1000.0 * width, v / 1000.0 * height
    return int(round(u)), int(round(v))


def draw_affordance_pixel(data: Any, image_dir: Path, step_id: int) -> list[Path]:
    """Mark each view's affordance point on its saved render; return the images drawn on."""
    if isinstance(data, Mapping) and "Affordance Pixel" in data:
        data = data["Affordance Pixel"]
    if not isinstance(data, Mapping):
        return []
    drawn = []
    for key, point in data.items():
        view = _VIEW_ALIASES.get(str(key).lower())
        path = image_dir / f"{step_id}_{view}.jpg"
        if view is None or not path.is_file():
            continue
        image = read_image(path)
        if image is None:
            continue
        pixel = pixel_from_coordinates(point, image.shape[1], image.shape[0])
        if pixel is None:
            continue
        cv2.circle(image, pixel, 6, (0, 255, 0), -1)
        cv2.putText(image, "afford point", (pixel[0] + 8, pixel[1] - 8), cv2.FONT_HERSHEY_SIMPLEX, 0.5,
                    (0, 255, 0), 1, cv2.LINE_AA)
        write_image(path, image)
        drawn.append(path)
    return drawn


_HANDLERS: dict[str, Callable[[Any, Path, int], list[Path]]] = {"affordance_pixel": draw_affordance_pixel}


def process_extra_visualization(extra: Mapping[str, Any], image_dir: str | os.PathLike, step_id: int) -> list[Path]:
    """Run the handler of each known key of ``extra`` on the renders of frame ``step_id``; return the images drawn."""
    drawn: list[Path] = []
    for key, data in (extra or {}).items():
        handler = _HANDLERS.get(key)
        if handler is None:
            log.debug("no visualization handler for %r", key)
            continue
        drawn.extend(handler(data, Path(image_dir), step_id))
    return drawn
