"""The POI-goal agent interface (defined in ``maze_envs.nav.interface.poi_goal``), at the import path an agent
written for ABot-Navigation's ``abotn_evaluator.interface.poi_goal`` uses after its package name changes."""

from maze_envs.nav.interface.poi_goal import BasePoiGoalAgent, PoiGoalObservation
from maze_envs.nav.interface.point_goal import WaypointPrediction

__all__ = ["BasePoiGoalAgent", "PoiGoalObservation", "WaypointPrediction"]
