"""Colour classes of maze images by HSV ranges (robust to JPEG/H.264 artefacts and mild colour shifts).

OpenCV's HSV has ``H`` in ``[0, 180)`` and ``S``, ``V`` in ``[0, 255]``. A pixel is a wall when its
``V = max(R, G, B)`` is below ``black_threshold`` (the spec's ``BLACK_THRESHOLD`` grayscale level: for
neutral pixels ``V`` is the gray level, and saturated dark colours are not mistaken for walls); free
space is unsaturated with ``V`` above ``white_threshold``; blue, green and red are saturated pixels in
hue bands around 120, 60 and 0/180.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class ColourThresholds:
    """HSV ranges of the colour classes; defaults follow the spec (BLACK_THRESHOLD 30, WHITE_THRESHOLD 200).

    ``auto_black`` / ``auto_white`` ask for the wall / free-space level to be calibrated from the images
    (``levels``); the thresholds then hold the calibrated levels once resolved.
    """

    black_threshold: int = 30
    white_threshold: int = 200
    auto_black: bool = False
    auto_white: bool = False
    max_white_saturation: int = 60
    min_saturation: int = 80
    min_value: int = 60
    blue_hue: tuple[int, int] = (100, 140)
    green_hue: tuple[int, int] = (40, 85)
    red_hue_low: int = 10
    red_hue_high: int = 170

    def _band(self, hsv: np.ndarray, low: int, high: int) -> np.ndarray:
        return cv2.inRange(hsv, (low, self.min_saturation, self.min_value), (high, 255, 255))

    def wall(self, hsv: np.ndarray) -> np.ndarray:
        """Return the uint8 mask (255 = yes) of wall pixels."""
        return cv2.inRange(hsv, (0, 0, 0), (180, 255, self.black_threshold - 1))

    def free(self, hsv: np.ndarray) -> np.ndarray:
        """Return the uint8 mask of white (walkable) pixels."""
        return cv2.inRange(hsv, (0, 0, self.white_threshold + 1), (180, self.max_white_saturation, 255))

    def blue(self, hsv: np.ndarray) -> np.ndarray:
        """Return the uint8 mask of blue (path) pixels."""
        return self._band(hsv, *self.blue_hue)

    def green(self, hsv: np.ndarray) -> np.ndarray:
        """Return the uint8 mask of green (start / marker) pixels."""
        return self._band(hsv, *self.green_hue)

    def red(self, hsv: np.ndarray) -> np.ndarray:
        """Return the uint8 mask of red (goal) pixels."""
        return cv2.bitwise_or(self._band(hsv, 0, self.red_hue_low), self._band(hsv, self.red_hue_high, 180))


def to_hsv(bgr: np.ndarray) -> np.ndarray:
    """Return the OpenCV HSV image of a BGR uint8 image."""
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)


def dark_mask(bgr: np.ndarray, level: int = 128) -> np.ndarray:
    """Return the bool mask of pixels whose ``max(B, G, R)`` is below ``level`` (walls, for geometry)."""
    return cv2.inRange(bgr, (0, 0, 0), (level - 1, level - 1, level - 1)) > 0
