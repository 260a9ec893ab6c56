"""Timing helpers shared by the benchmark scripts (median of repeats after a warm-up)."""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_seconds(fn: Callable[[], object], repeats: int = 7, warmup: int = 1) -> float:
    """Return the median wall time in seconds of ``fn()`` over ``repeats`` runs after ``warmup`` runs."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def fmt_ms(seconds: float) -> str:
    """Return ``seconds`` as a right-aligned millisecond string."""
    return f"{seconds * 1e3:9.2f} ms"
