"""Interval estimates shared by every layer that reports a success rate."""

from __future__ import annotations

import math

Z95 = 1.959964


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Return the Wilson score interval ``(low, high)`` of a success rate of ``successes`` out of ``n`` (95% by
    default), clipped to [0, 1]; None when ``n`` is 0. Unlike mean +- t s / sqrt(n) it stays inside [0, 1] and
    is not a single point when every trial agrees."""
    if n <= 0:
        return None
    rate = successes / n
    centre = (rate + z ** 2 / (2 * n)) / (1 + z ** 2 / n)
    half = z * math.sqrt(rate * (1 - rate) / n + z ** 2 / (4 * n * n)) / (1 + z ** 2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)
