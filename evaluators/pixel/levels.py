"""Wall and free-space levels calibrated from the images themselves (``--black_threshold auto`` and
``--white_threshold auto``).

The spec's fixed levels (walls below 30, free space above 200) fail walls that a model draws dark grey
or that a lossy encoder lifts past 30. Calibrated, the wall level is read from the histogram of the
pixels that should be wall: the solution's own dark pixels for the solution, and for a generation its
pixels on the solution's walls once aligned (only those darker than mid-grey, so walls the model left
out do not count): the 98th percentile plus a margin, never stricter than the spec and never past the
midpoint between the walls' and the free space's typical levels. The free-space level is read from
the solution's light unsaturated pixels likewise (2nd percentile less the margin, never stricter than
the spec). Generated images are only ever searched for walls, so only the wall level is calibrated
on them.
"""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np

from .colours import ColourThresholds

MARGIN = 12
MID_GREY = 128
MIN_SAMPLES = 32


def wall_level(value: np.ndarray, walls: np.ndarray, free: np.ndarray, default: int) -> int:
    """Return the wall threshold for brightness ``value`` (HSV V) whose walls should lie on bool mask ``walls``
    and free space on ``free``; ``default`` when too few wall pixels are dark."""
    dark = value[walls & (value < MID_GREY)]
    light = value[free & (value >= MID_GREY)]
    if dark.size < MIN_SAMPLES or light.size < MIN_SAMPLES:
        return default
    ceiling = int((np.median(dark) + np.median(light)) / 2)
    return int(min(max(np.percentile(dark, 98) + MARGIN, min(default, ceiling)), ceiling))


def free_level(value: np.ndarray, light: np.ndarray, default: int) -> int:
    """Return the free-space threshold for brightness ``value`` whose free space is bool mask ``light``;
    ``default`` when too few pixels are light."""
    samples = value[light & (value >= MID_GREY)]
    if samples.size < MIN_SAMPLES:
        return default
    return int(max(min(np.percentile(samples, 2) - MARGIN, default), MID_GREY))


def calibrate_solution(hsv: np.ndarray, colours: ColourThresholds) -> ColourThresholds:
    """Return ``colours`` with the levels marked auto read from a solution image (its HSV): walls from its
    dark pixels, free space from its light unsaturated ones (each away from the edges between them)."""
    if not (colours.auto_black or colours.auto_white):
        return colours
    value = hsv[..., 2]
    kernel = np.ones((3, 3), np.uint8)
    dark = cv2.erode((value < MID_GREY).astype(np.uint8), kernel).astype(bool)
    light = cv2.erode(((value >= MID_GREY) & (hsv[..., 1] <= colours.max_white_saturation)).astype(np.uint8),
                      kernel).astype(bool)
    black = wall_level(value, dark, light, colours.black_threshold) if colours.auto_black else colours.black_threshold
    white = free_level(value, light, colours.white_threshold) if colours.auto_white else colours.white_threshold
    return replace(colours, black_threshold=black, white_threshold=white)


def calibrate_generation(value: np.ndarray, walls: np.ndarray, care: np.ndarray,
                         colours: ColourThresholds) -> ColourThresholds:
    """Return ``colours`` with the wall level read from a generated image or frame when marked auto.

    ``value`` is its HSV V channel; ``walls`` and ``care`` are the solution's wall and care masks in the same
    pixels (nonzero = yes): wall pixels are sampled on ``walls & care``, free ones on ``care & ~walls``.
    """
    if not colours.auto_black:
        return colours
    walls, care = walls.astype(bool), care.astype(bool)
    return replace(colours, black_threshold=wall_level(value, walls & care, care & ~walls, colours.black_threshold))


def levels_info(colours: ColourThresholds, solution: ColourThresholds) -> dict:
    """Return the levels stored with each result: the generation's wall level, the solution's wall and
    free-space levels, and whether any was calibrated."""
    return {"black_threshold": colours.black_threshold, "white_threshold": solution.white_threshold,
            "solution_black_threshold": solution.black_threshold,
            "calibrated": bool(colours.auto_black or colours.auto_white)}
