"""Summary statistics of benchmark trials: mean, sample standard deviation and a 95% confidence interval
(Student's t), over every trial, zero scores and failed trials included, at full precision (reports round for
display)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable


@dataclass(frozen=True)
class Estimate:
    """``n`` values summarised: ``mean``, sample ``std`` (0 for one value) and the 95% interval ``ci95``
    [low, high] (None for fewer than two values)."""

    n: int
    mean: float | None
    std: float | None
    ci95: tuple[float, float] | None

    def to_dict(self) -> dict:
        """Return the estimate as a JSON-ready dict."""
        out = asdict(self)
        out["ci95"] = list(self.ci95) if self.ci95 is not None else None
        return out


def estimate(values: Iterable[float]) -> Estimate:
    """Return the ``Estimate`` of ``values`` (every value counts, zeros included)."""
    data = [float(v) for v in values]
    n = len(data)
    if n == 0:
        return Estimate(0, None, None, None)
    mean = sum(data) / n
    if n == 1:
        return Estimate(1, mean, 0.0, None)
    std = math.sqrt(sum((v - mean) ** 2 for v in data) / (n - 1))
    from scipy.stats import t

    half = float(t.ppf(0.975, n - 1)) * std / math.sqrt(n)
    return Estimate(n, mean, std, (mean - half, mean + half))
