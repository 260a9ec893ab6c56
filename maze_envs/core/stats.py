"""Summary statistics of repeated measurements: mean, sample standard deviation and a 95% interval of the mean
that never leaves the range the measurements can take.

The one statistics module of the project (``agents.evaluate``, the LLM benchmark, the suite, the judge and demo
reports): a proportion of 0/1 outcomes gets Wilson's score interval (inside [0, 1]); any other quantity (a
latency, a count, a path efficiency, a score, a return) gets a seeded percentile bootstrap of the mean, which
lies inside [min, max] of the values and so inside whatever bounds they respect. Both always contain the
estimate, and the same values give the same interval on every run and platform."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Literal

import numpy as np

Interval = Literal["wilson", "bootstrap"]
INTERVALS = ("wilson", "bootstrap")
Z95 = 1.959964
LEVEL = 0.95
RESAMPLES = 2000
BOOTSTRAP_SEED = 0
_CHUNK_VALUES = 1 << 20  # resampled values drawn at once, so a long run's bootstrap stays within a few MiB


@dataclass(frozen=True)
class MetricSummary:
    """``count`` values summarised: ``mean``, sample ``std`` (0 for one value) and the 95% interval [``low``,
    ``high``] of the mean (NaN without values)."""

    mean: float
    std: float
    low: float
    high: float
    count: int

    def scaled(self, factor: float) -> MetricSummary:
        """Return this summary with mean, std and interval multiplied by ``factor`` (a rate shown as a percent)."""
        return MetricSummary(self.mean * factor, self.std * factor, self.low * factor, self.high * factor,
                             self.count)


def wilson_interval(successes: int, n: int) -> tuple[float, float]:
    """Return the 95% Wilson score interval of ``successes`` out of ``n`` trials, inside [0, 1] and holding
    ``successes / n``. Raises ``ValueError`` unless ``0 <= successes <= n`` and ``n >= 1``."""
    if n < 1 or not 0 <= successes <= n:
        raise ValueError(f"a Wilson interval needs 0 <= successes <= n and n >= 1, got {successes} of {n}")
    rate = successes / n
    z2 = Z95 ** 2
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, min(centre - half, rate)), min(1.0, max(centre + half, rate))


def bootstrap_interval(values: Iterable[float], *, resamples: int = RESAMPLES,
                       seed: int = BOOTSTRAP_SEED) -> tuple[float, float]:
    """Return the 95% percentile-bootstrap interval of the mean of ``values`` (``resamples`` resamples drawn with
    ``numpy.random.default_rng(seed)``): inside [min, max] of the values and holding their mean. Raises
    ``ValueError`` for no values or a value that is not finite."""
    x = _finite(values)
    mean = _mean(x)
    if x.size == 1 or x.min() == x.max():
        return mean, mean
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_VALUES // x.size)
    means = np.concatenate([x[rng.integers(0, x.size, size=(min(rows, resamples - done), x.size))].mean(axis=1)
                            for done in range(0, resamples, rows)])
    low, high = np.quantile(means, [(1 - LEVEL) / 2, (1 + LEVEL) / 2])
    return float(np.clip(low, x.min(), mean)), float(np.clip(high, mean, x.max()))


def summarise(values: Iterable[float], *, interval: Interval = "bootstrap") -> MetricSummary:
    """Return the summary of ``values`` (every value counts, zeros included) with a 95% interval of the mean:
    ``wilson`` for a rate of 0/1 values, ``bootstrap`` (the default) for any other quantity (see the module doc).
    Raises ``ValueError`` for another ``interval``, a value that is not finite, or a ``wilson`` value not 0 or 1."""
    if interval not in INTERVALS:
        raise ValueError(f"interval must be one of {', '.join(INTERVALS)}, got {interval!r}")
    x = np.asarray(list(values), dtype=float)
    if x.size == 0:
        return MetricSummary(math.nan, math.nan, math.nan, math.nan, 0)
    x = _finite(x)
    std = float(x.std(ddof=1)) if x.size > 1 else 0.0
    if interval == "wilson":
        if not np.isin(x, (0.0, 1.0)).all():
            raise ValueError("a Wilson interval needs 0/1 values (a rate), got others; use interval='bootstrap'")
        successes = int(x.sum())
        low, high = wilson_interval(successes, x.size)
        return MetricSummary(successes / x.size, std, low, high, x.size)
    low, high = bootstrap_interval(x)
    return MetricSummary(_mean(x), std, low, high, x.size)


def _finite(values: Iterable[float]) -> np.ndarray:
    x = np.asarray(values if isinstance(values, np.ndarray) else list(values), dtype=float)
    if x.size == 0:
        raise ValueError("an interval needs at least one value")
    if not np.isfinite(x).all():
        raise ValueError(f"values must be finite, got {x[~np.isfinite(x)][0]}")
    return x


def _mean(x: np.ndarray) -> float:
    """Return the mean of ``x`` kept inside [min, max] (a float sum can overshoot by an ulp)."""
    return float(np.clip(x.mean(), x.min(), x.max()))
