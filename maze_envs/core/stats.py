"""Summary statistics of repeated measurements: mean, sample standard deviation and a 95% interval of the mean.

One module for every table of the project: ``agents.evaluate`` (episodes of an agent; normal interval, Wilson's
for success rates) and the LLM benchmark's summary (trials; Student's t interval)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Literal

import numpy as np

from .validate import choice

Interval = Literal["normal", "wilson", "t"]
INTERVALS = ("normal", "wilson", "t")
Z95 = 1.959964


@dataclass(frozen=True)
class MetricSummary:
    """``count`` values summarised: ``mean``, sample ``std`` (0 for one value) and the 95% interval [``low``,
    ``high``] of the mean (NaN where it is undefined: no values, or one value under the t interval)."""

    mean: float
    std: float
    low: float
    high: float
    count: int


def summarise(values: Iterable[float], *, interval: Interval = "normal") -> MetricSummary:
    """Return the summary of ``values`` (every value counts, zeros included) with a 95% interval of the mean:
    ``normal`` mean +- 1.96 s/sqrt(n), ``wilson`` the Wilson score interval of a rate of 0/1 values (clipped to
    [0, 1]), ``t`` mean +- t(0.975, n-1) s/sqrt(n)."""
    choice(interval, INTERVALS, name="interval", error=ValueError)
    x = np.asarray(list(values), dtype=float)
    n = x.size
    if n == 0:
        return MetricSummary(math.nan, math.nan, math.nan, math.nan, 0)
    mean = float(x.mean())
    std = float(x.std(ddof=1)) if n > 1 else 0.0
    if interval == "wilson":
        centre = (mean + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
        half = Z95 * math.sqrt(mean * (1 - mean) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
        return MetricSummary(mean, std, max(0.0, centre - half), min(1.0, centre + half), n)
    if interval == "t":
        if n == 1:
            return MetricSummary(mean, std, math.nan, math.nan, 1)
        from scipy.stats import t

        half = float(t.ppf(0.975, n - 1)) * std / math.sqrt(n)
    else:
        half = Z95 * std / math.sqrt(n)
    return MetricSummary(mean, std, mean - half, mean + half, n)
