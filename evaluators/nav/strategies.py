"""The evaluator's navigation strategies, one instance per protocol (named by its ``NavRules``): the summary
reducer the metrics call and how the agent's settings are merged.

``SUMMARY`` and ``fill_gaps`` are this project's; ``ABOT_SUMMARY`` and ``injected_first`` reproduce
ABot-Navigation's scripts (README, "Differences from ABot-Navigation").
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable

import numpy as np

from .aggregate import finite_mean, number


@dataclass(frozen=True)
class SummaryReducer:
    """How the metrics read and reduce results: ``point_distance(value)`` / ``poi_distance(value)`` read a stored
    distance, ``point_mean(values)`` / ``poi_mean(values)`` average a column (None when nothing counts),
    ``total(values)`` adds one, ``outdoor_excluded`` names the scenes outdoor POI metrics leave out by default and
    ``run_scope(played)`` the ``episode/task`` ids a POI run's ``eval_summary.json`` covers (None: every task of
    the run directory)."""

    point_distance: Callable[[Any], float]
    poi_distance: Callable[[Any], float]
    point_mean: Callable[[Iterable[float]], float | None]
    poi_mean: Callable[[Iterable[float]], float | None]
    total: Callable[[Iterable[float]], float]
    outdoor_excluded: tuple[str, ...]
    run_scope: Callable[[set[str]], set[str] | None]


def unknown_distance(value: Any) -> float:
    """Return a stored distance; a missing one is unknown (inf), and means leave it out."""
    return number(value, math.inf)


def abot_distance(value: Any) -> float:
    """Return a stored distance as ABot-Navigation's point-goal script reads it: a missing one is 0.0."""
    return number(value, 0.0)


def abot_poi_distance(value: Any) -> float:
    """Return a stored distance as ABot-Navigation's POI script reads it: a missing or non-finite one is 0.0."""
    found = number(value, 0.0)
    return found if math.isfinite(found) else 0.0


def python_total(values: Iterable[float]) -> float:
    """Return Python's ``sum`` of ``values``."""
    return sum(values)


def numpy_total(values: Iterable[float]) -> float:
    """Return ``np.sum`` of ``values`` (pairwise summation), as ABot-Navigation adds."""
    return float(np.sum(list(values)))


def numpy_finite_mean(values: Iterable[float]) -> float | None:
    """Return the ``np.mean`` of the finite ``values`` (None when there are none)."""
    return finite_mean(values, True)


def numpy_mean(values: Iterable[float]) -> float:
    """Return ``np.mean`` over every value, inf included, as ABot-Navigation's point-goal script averages."""
    return float(np.mean(list(values)))


def every_task(played: set[str]) -> None:
    """Return None: a POI run's summary covers every task of its run directory."""
    return None


def played_only(played: set[str]) -> set[str]:
    """Return ``played``: the summary covers the tasks played in this invocation, as ABot-Navigation's does."""
    return played


SUMMARY = SummaryReducer(point_distance=unknown_distance, poi_distance=unknown_distance, point_mean=finite_mean,
                         poi_mean=finite_mean, total=python_total, outdoor_excluded=(), run_scope=every_task)
ABOT_SUMMARY = SummaryReducer(point_distance=abot_distance, poi_distance=abot_poi_distance, point_mean=numpy_mean,
                              poi_mean=numpy_finite_mean, total=numpy_total, outdoor_excluded=("park3",),
                              run_scope=played_only)


def fill_gaps(from_yaml: dict[str, Any], injected: dict[str, Any]) -> dict[str, Any]:
    """Return the agent's keyword arguments: the YAML's, the injected settings filling only what it leaves out."""
    return {**from_yaml, **{key: value for key, value in injected.items() if key not in from_yaml}}


def injected_first(from_yaml: dict[str, Any], injected: dict[str, Any]) -> dict[str, Any]:
    """Return the agent's keyword arguments with the injected settings replacing the YAML's, as ABot-Navigation
    does."""
    return {**from_yaml, **injected}
