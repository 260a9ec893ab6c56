"""POI-goal evaluation: ``PoiGoalEvalConfig`` and ``PoiGoalEvaluator``."""

from __future__ import annotations

from maze_envs.envs.nav.config import PoiGoalEvalConfig

from ..point_goal.evaluator import PointGoalEvaluator

__all__ = ["PoiGoalEvalConfig", "PoiGoalEvaluator"]


class PoiGoalEvaluator(PointGoalEvaluator):
    """Evaluates a POI agent; the same loop, driven by a ``PoiGoalEvalConfig``."""
