"""MazeBench's scores of a validated path, in both of its weightings (``v1`` and ``v2``), each labelled.

- S (solved) and Q (quality) are 100 for a valid path, as in the reference; O = 100 * optimal / length
  (100 when the start is the goal); P = 100 * path similarity (v2 only): the Jaccard index of the path's and
  the shortest path's cell sets times ``min(1, len(shortest) / len(path))``.
- v1: ``A = (S+Q+O)/3``, ``total = 0.4 S + 0.3 Q + 0.3 O``; v2: ``A = (S+Q+O+P)/4``,
  ``total = 0.3 S + 0.25 Q + 0.25 O + 0.2 P``. An invalid path scores 0 everywhere. Scores keep full
  precision; reports round them for display.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

from maze_envs.core.maze import Cell
from maze_envs.core.validate import choice

from .validate import Validation

SCORINGS = ("v1", "v2")
WEIGHTS = {"v1": {"S": 0.4, "Q": 0.3, "O": 0.3}, "v2": {"S": 0.3, "Q": 0.25, "O": 0.25, "P": 0.2}}


@dataclass(frozen=True)
class Scores:
    """The scores of one answer under ``scoring`` (``v1`` has no P: it is None)."""

    scoring: str
    S: float
    Q: float
    O: float  # noqa: E741 -- MazeBench's own score name (S, Q, O, P, A)
    P: float | None
    A: float
    total: float

    def to_dict(self) -> dict:
        """Return the scores as a JSON-ready dict."""
        return asdict(self)


def path_similarity(path: Sequence[Cell], shortest: Sequence[Cell]) -> float:
    """Return ``Jaccard(set(path), set(shortest)) * min(1, len(shortest) / len(path))`` (full precision)."""
    cells = {tuple(map(int, p)) for p in path}
    best = {tuple(map(int, p)) for p in shortest}
    if not cells or not best:
        return 0.0
    jaccard = len(cells & best) / len(cells | best)
    return jaccard * min(1.0, len(shortest) / len(path))


def score(validation: Validation, path: Sequence[Cell], shortest: Sequence[Cell], scoring: str = "v2") -> Scores:
    """Return the scores of ``path`` given its ``validation`` under ``scoring`` (``v1`` or ``v2``)."""
    choice(scoring, SCORINGS, parameter="scoring")
    if not validation.valid:
        return Scores(scoring, 0.0, 0.0, 0.0, None if scoring == "v1" else 0.0, 0.0, 0.0)
    s = q = 100.0
    o = 100.0 if validation.path_length == 0 else min(100.0, 100.0 * validation.optimal_length / validation.path_length)
    if scoring == "v1":
        parts = {"S": s, "Q": q, "O": o}
        return Scores(scoring, s, q, o, None, sum(parts.values()) / 3, _weighted(parts, scoring))
    p = 100.0 * path_similarity(path, shortest)
    parts = {"S": s, "Q": q, "O": o, "P": p}
    return Scores(scoring, s, q, o, p, sum(parts.values()) / 4, _weighted(parts, scoring))


def _weighted(parts: dict[str, float], scoring: str) -> float:
    return sum(WEIGHTS[scoring][name] * value for name, value in parts.items())
