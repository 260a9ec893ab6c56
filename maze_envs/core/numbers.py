"""Checks of numbers read from files and arguments, safe on every JSON/YAML value (huge ints, NaN, bools)."""

from __future__ import annotations

import math
from numbers import Real
from typing import Any

INT64_MAX = 2**63 - 1  # the largest seed, level count or step limit numpy draws or counts with


def is_finite_number(value: Any) -> bool:
    """Return whether ``value`` is a real number (not a bool) that is finite as a float; an int too large for a
    float is not."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False
